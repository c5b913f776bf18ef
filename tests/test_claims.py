"""The claims registry and its grading rules, checked against hand computations; the seed protocol."""
import csv
import re

import numpy as np
import pytest

from penb import claims, presets
from penb.store import paths
from penb.claims import grading
from penb.claims.grading import Rule

P = {"min_agree": 0.8, "min_seeds": 3, "baseline_margin": 0.02}


def test_every_graded_claim_has_a_chapter_and_rule_or_a_reason():
    chapters = set(presets.chapters())
    for c in claims.graded():
        assert c.statement and c.where
        if c.not_tested:
            assert c.rule is None and not c.chapter, c.key
        else:
            assert c.rule is not None and c.chapter in chapters and c.measure and c.baseline, c.key


def test_the_issue_named_claims_are_in_the_registry():
    for key in ("morita.fig2.distance.lstm", "morita.sec4_1.no_rescue", "morita.fig3.harm.lstm", "morita.fig7.trend",
                "hansen.converge_direct", "hansen.learned_linear_peak", "irie.q4.attention"):
        claims.get(key)
    assert "marginal" in claims.get("morita.fig5.s4d").statement
    assert "code" in claims.get("hansen.setup").statement          # K=32 and N=100 come from the blog's code


def test_better_matches_a_hand_computation():
    a, b = [0.70, 0.72, 0.69, 0.75, 0.71], [0.50, 0.52, 0.60, 0.49, 0.55]
    verdict, ours, _, _ = grading.better({"a": a, "b": b, "baseline": 0.004}, {**P, "threshold": 0.95})
    assert verdict == grading.DIRECTION                            # clear effect, short of 95%
    assert f"{np.mean(np.subtract(a, b)):.3f}" in ours and "5/5" in ours
    assert grading.better({"a": a, "b": b, "baseline": 0.004}, P)[0] == grading.REPRODUCED
    assert grading.better({"a": b, "b": a, "baseline": 0.004}, P)[0] == grading.NOT_REPRODUCED


def test_a_variant_at_its_baseline_or_a_diverged_run_is_inconclusive():
    at_chance = {"a": [0.15, 0.16, 0.14], "b": [0.13, 0.13, 0.12], "baseline": 1 / 7}
    assert grading.better(at_chance, P)[0] == grading.INCONCLUSIVE
    ok = {"a": [0.8, 0.82, 0.81], "b": [0.5, 0.52, 0.51], "baseline": 0.01}
    assert grading.better({**ok, "diverged": {"vanilla": 1}}, P)[0] == grading.INCONCLUSIVE
    assert grading.better({**ok, "a": ok["a"][:2], "b": ok["b"][:2]}, P)[0] == grading.INCONCLUSIVE


def test_seed_agreement_is_required():
    a, b = [0.9, 0.9, 0.9, 0.9, 0.4], [0.5, 0.5, 0.5, 0.5, 0.5]            # 4 of 5 ahead: enough at 0.8
    assert grading.better({"a": a, "b": b}, P)[0] == grading.REPRODUCED
    a2 = [0.9, 0.9, 0.9, 0.4, 0.4]                                        # 3 of 5: not enough
    assert grading.better({"a": a2, "b": b}, P)[0] == grading.INCONCLUSIVE   # not shown, not absent (protocol 2 on)


def test_seed_interval_is_a_student_t_interval_over_seeds():
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    mean, lo, hi = claims.seed_interval(x)
    half = 2.7764451051977987 * np.std(x, ddof=1) / np.sqrt(5)              # t(0.975, 4) from a printed table
    assert mean == pytest.approx(0.3) and (lo, hi) == pytest.approx((0.3 - half, 0.3 + half))
    assert claims.seed_interval([0.3]) == (0.3, 0.3, 0.3)


def test_no_gain_with_a_failed_control_is_inconclusive():
    vanilla = [0.60, 0.62, 0.61, 0.63, 0.60]
    far_below = {"a": [0.30, 0.31, 0.29, 0.33, 0.30], "b": vanilla}
    assert grading.no_gain(far_below, {**P, "margin": 0.02})[0] == grading.INCONCLUSIVE
    same = {"a": [0.605, 0.615, 0.612, 0.628, 0.602], "b": vanilla}
    assert grading.no_gain(same, {**P, "margin": 0.02})[0] == grading.REPRODUCED
    gains = {"a": [0.70, 0.72, 0.71, 0.73, 0.70], "b": vanilla}
    assert grading.no_gain(gains, {**P, "margin": 0.02})[0] == grading.NOT_REPRODUCED


def test_trend_reads_the_slope_per_seed():
    x = [64, 128, 256]
    rising = [[0.01, 0.05, 0.10], [0.02, 0.04, 0.12], [0.00, 0.06, 0.09]]
    assert grading.trend({"x": x, "gaps": rising}, {"min_seeds": 3})[0] == grading.REPRODUCED
    flat = [[0.05, 0.04, 0.05], [0.05, 0.06, 0.04], [0.05, 0.05, 0.05]]
    assert grading.trend({"x": x, "gaps": flat}, {"min_seeds": 3})[0] == grading.NOT_REPRODUCED
    assert grading.trend({"x": x[:2], "gaps": [g[:2] for g in rising]}, {})[0] == grading.INCONCLUSIVE


def test_rules_and_verdicts_are_closed_vocabularies():
    with pytest.raises(ValueError, match="unknown rule"):
        Rule("majority", "")
    with pytest.raises(ValueError, match="not one of"):
        grading.Grade("morita.fig7", "partly", "", "")


def _search_seeds() -> set[int]:
    seeds = set()
    for f in (paths.REPO / "penb" / "chapters").glob("*/search_log.csv"):
        for row in csv.DictReader(f.open()):
            seeds |= {int(s) for s in re.findall(r"\d+", row.get("seeds", "")) if row.get("seeds") != "1 seed"}
            if row.get("seeds") == "1 seed":
                seeds.add(111)                                    # that round ran the first search seed
    probes = paths.shared_dir() / "anchors" / "cpu-regime-probes.md"
    if probes.exists():
        seeds |= {0, 1, 2, 900}                                   # the probes' own header names them
    return seeds


def test_no_graded_preset_uses_a_search_seed():
    search = _search_seeds()
    assert search <= set(presets.SEARCH_SEEDS), "a search log uses a seed that SEARCH_SEEDS does not list"
    assert not set(presets.SEARCH_SEEDS) & set(presets.CONFIRMATION_SEEDS)
    for chapter in presets.chapters():
        for name, values in presets.table(chapter).items():
            if name == "paper":
                continue                                          # the published seeds; no search at that scale
            for key in [k for k in values if (k == "seeds" or k.endswith("_seeds")) and isinstance(values[k], tuple)]:
                used = set(values[key])
                assert not used & set(presets.SEARCH_SEEDS), f"{chapter}/{name}/{key} uses search seeds {used}"


def test_exploratory_claims_are_flagged_and_counted_apart(tmp_path):
    """Issue 49, item 4: every claim whose own text says its reading changed after a verdict was seen carries the
    flag; an exploratory claim graded 'reproduced' stays out of the texts' headline counts and is counted apart."""
    import re

    from penb.claims import scorecard

    says = {c.key for c in claims.CLAIMS.values()
            if re.search(r"exploratory[:,]", " ".join(str(x) for x in (c.statement, c.measure, c.sesoi_why,
                                                                        c.extra)), re.I)}
    flagged = {c.key for c in claims.CLAIMS.values() if c.exploratory}
    assert says <= flagged and "morita.fig5.gru" in flagged
    table = [{**r, "verdict": "reproduced"} if r["key"] == "morita.table1" else r for r in scorecard.rows(tmp_path)]
    head = scorecard.headline(table)
    assert "morita.table1" not in {r["key"] for r in head}
    assert len(head) == sum(1 for c in claims.graded() if c.source != claims.sources.BEYOND and not c.exploratory)
    text = scorecard.render(tmp_path)
    assert "**Exploratory** (a reading" in text and f"({len(flagged)} claims)" in text

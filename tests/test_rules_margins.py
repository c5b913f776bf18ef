"""The rule changes protocol 3 brought (issue 28), as the protocol in force keeps them, on hand-built evidence.

Intervals are checked against Student-t quantiles from printed tables (t(0.975, 4) = 2.776445, t(0.975, 2) =
4.302653), never against the code's own output.
"""
import math

import numpy as np
import pandas as pd
import pytest

from penb import claims
from penb.claims import grading

P = {"min_agree": 0.8, "min_seeds": 3, "baseline_margin": 0.02}
T4, T2 = 2.7764451051977987, 4.302652729911275          # t(0.975, 4), t(0.975, 2)
P3 = P                                                   # the rules as protocol 3 on reads them


def hand_interval(d, t=T4):
    d = np.asarray(d, float)
    half = t * d.std(ddof=1) / math.sqrt(len(d))
    return d.mean() - half, d.mean() + half


def paired(diffs, b=0.6):
    """a and b per seed with a - b = ``diffs``."""
    return {"a": [b + x for x in diffs], "b": [b] * len(diffs)}


# --- no_gain: an equivalence test ---------------------------------------------------------------------------

SMALL_GAIN = [0.003, 0.004, 0.005, 0.006, 0.007]          # +0.005 [+0.003, +0.007]: the example


def test_a_gain_inside_the_margin_is_no_gain():
    lo, hi = hand_interval(SMALL_GAIN)
    assert (round(lo, 3), round(hi, 3)) == (0.003, 0.007) and hi < 0.02
    ev, p = paired(SMALL_GAIN), {"margin": 0.02, "sesoi": 0.02}
    verdict, ours, reason, _ = grading.no_gain(ev, {**P3, **p})
    assert verdict == grading.REPRODUCED and "below +0.02" in reason
    assert "0.005 [0.003, 0.007]" in ours


def test_a_gain_beyond_the_margin_is_not_reproduced_and_one_across_it_is_open():
    beyond = [0.05, 0.06, 0.055, 0.045, 0.052]
    assert hand_interval(beyond)[0] > 0.02
    p = {"margin": 0.02, "sesoi": 0.02}
    assert grading.no_gain(paired(beyond), {**P3, **p})[0] == grading.NOT_REPRODUCED
    across = [0.0, 0.03, 0.01, 0.04, 0.02]                      # mean 0.02: the interval straddles +0.02
    lo, hi = hand_interval(across)
    assert lo < 0.02 < hi and lo > 0
    v, _, reason, detail = grading.no_gain(paired(across), {**P3, **p})
    assert v == grading.INCONCLUSIVE and "not shown with 5 seeds" in reason and detail["seeds_needed"]


def test_a_two_sided_no_gain_also_excludes_a_loss():
    p = {"margin": 0.02, "sesoi": 0.02, "control": False}
    loss = [-0.05, -0.06, -0.055, -0.045, -0.052]
    assert hand_interval(loss)[1] < -0.02
    assert grading.no_gain(paired(loss), {**P3, **p})[0] == grading.REPRODUCED          # one-sided: no gain
    assert grading.no_gain(paired(loss), {**P3, **p, "two_sided": True})[0] == grading.NOT_REPRODUCED
    near = [-0.03, 0.0, -0.01, 0.005, -0.015]                   # within +0.02 above, reaching below -0.02
    lo, hi = hand_interval(near)
    assert lo < -0.02 and hi < 0.02
    assert grading.no_gain(paired(near), {**P3, **p, "two_sided": True})[0] == grading.INCONCLUSIVE
    inside = [-0.004, 0.002, -0.001, 0.003, 0.0]
    assert -0.02 < hand_interval(inside)[0] and hand_interval(inside)[1] < 0.02
    assert grading.no_gain(paired(inside), {**P3, **p, "two_sided": True})[0] == grading.REPRODUCED


def test_a_failed_control_stays_inconclusive():
    far_below = paired([-0.3, -0.31, -0.29, -0.33, -0.3])
    assert grading.no_gain(far_below, {**P3, "margin": 0.02, "sesoi": 0.02})[0] == grading.INCONCLUSIVE


# --- gain_vs_reference: gains over the room left -----------------------------------------------------------

def two_part(a, b, ref_a, ref_b):
    return {"a": a, "b": b, "ref_gain": list(np.subtract(ref_a, ref_b)), "ref_b": ref_b, "baseline": 0.001}


def test_a_sorting_gain_larger_than_the_reversal_gain_is_not_reproduced():
    """Fig. 8 says sorting gains less than reversal. Here vanilla sorts at 0.90 and PE at 0.98: PE removes 80%
    of vanilla's errors; in reversal 0.40 -> 0.60 removes a third. Raw gains (0.08 against 0.20) read
    'smaller', as the claim says; over the room left sorting is helped far more: the opposite."""
    jitter = np.array([0.0, 0.004, -0.004, 0.002, -0.002])
    a, b = list(0.98 + jitter / 4), [0.90] * 5
    ref_a, ref_b = list(0.60 + jitter), [0.40] * 5
    ev = two_part(a, b, ref_a, ref_b)
    share = (np.array(a) - 0.90) / 0.10                     # 0.8 each, +-0.01
    ref_share = (np.array(ref_a) - 0.40) / 0.60             # 1/3 each, +-0.007
    d = ref_share - share                                   # reference minus this: about -0.47
    assert hand_interval(d)[1] < 0
    p = {"relation": "smaller", "ref_sesoi": 0.02}
    verdict, ours, reason, detail = grading.gain_vs_reference(ev, {**P3, **p})
    assert verdict == grading.NOT_REPRODUCED and "opposite" in reason
    assert detail["part"] == "second" and detail["effect"] == pytest.approx(d.mean())
    assert (detail["lo"], detail["hi"]) == pytest.approx(hand_interval(d))


def test_a_gain_clearly_smaller_over_the_room_left_holds_and_an_even_one_is_excluded():
    jitter = np.array([0.0, 0.01, -0.01, 0.005, -0.005])
    b, ref_b = [0.50] * 5, [0.40] * 5
    a, ref_a = list(0.55 + jitter), list(0.88 + jitter)      # shares 0.1 and 0.8
    p = {"relation": "smaller", "ref_sesoi": 0.02}
    assert grading.gain_vs_reference(two_part(a, b, ref_a, ref_b), {**P3, **p})[0] == grading.REPRODUCED
    # the same share of errors removed in both (0.4 and 0.4, +-0.002 of noise): an even split, which
    # excludes a difference of 0.02 of the room left
    a2 = list(0.70 + np.array([0.0, 0.001, -0.001, 0.0005, -0.0005]))
    ref_a2 = list(0.64 + np.array([0.0, -0.001, 0.001, 0.0, 0.0]))
    d = (np.array(ref_a2) - 0.40) / 0.60 - (np.array(a2) - 0.50) / 0.50
    lo, hi = hand_interval(d)
    assert -0.02 < lo and hi < 0.02
    verdict, _, reason, _ = grading.gain_vs_reference(two_part(a2, b, ref_a2, ref_b), {**P3, **p})
    assert verdict == grading.NOT_REPRODUCED and "smallest effect of interest" in reason


def test_a_reference_at_the_ceiling_leaves_no_room_and_ref_b_is_required():
    a, b = [0.999, 0.998, 0.9995], [0.99, 0.985, 0.99]      # PE ahead, vanilla within 0.02 of 1
    ev = two_part(a, b, [0.8, 0.82, 0.81], [0.5, 0.5, 0.5])
    assert grading.gain_vs_reference(ev, {**P3, "relation": "smaller"})[0] == grading.INCONCLUSIVE
    with pytest.raises(ValueError, match="ref_b"):
        grading.gain_vs_reference({k: v for k, v in ev.items() if k != "ref_b"}, {**P3, "relation": "smaller"})


def test_fig8_and_fig14_rules_name_their_scale():
    for key in ("morita.fig8.gru", "morita.fig8.lstm", "morita.fig14"):
        rule = claims.get(key).rule
        assert "room left" in rule.text and "not reproduced" in rule.text and rule.params["ref_sesoi"] == 0.02


# --- fig3.pe_robust: 'at least as well' is non-inferiority ---------------------------------------------------

def robust_cells(pe_clean: float, n: int = 200) -> pd.DataFrame:
    """The test grid of a GRU at V 32: vanilla at 0.995 with FREQUENT disturbants and 0.60-0.64 with RARE ones;
    the PE model at ``pe_clean`` with FREQUENT disturbants and 0.01 lower with RARE ones."""
    rows = []
    for i, seed in enumerate((2001, 2002, 2003, 2004, 2005)):
        acc = {"vanilla": {"frequent": 0.995, "rare": 0.60 + 0.01 * i},
               "position-encoded": {"frequent": pe_clean, "rare": pe_clean - 0.01}}
        for variant, by in acc.items():
            for t in ("frequent", "rare"):
                for d, p in by.items():
                    for pos in range(1, 5):
                        rows.append(dict(model="gru", vocab=32, variant=variant, seed=seed, target=t,
                                         disturbants=d, position=pos, correct=round(p * n), n=n,
                                         encoding="none" if variant == "vanilla" else "sinusoidal"))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("pe_clean, p3_verdict", [(0.985, grading.REPRODUCED), (0.96, grading.INCONCLUSIVE)])
def test_pe_robust_asks_the_pe_model_to_be_no_worse_than_vanilla_within_a_margin(pe_clean, p3_verdict):
    """PE at 0.985 with FREQUENT disturbants, vanilla at 0.995: within 0.02, as well at the ceiling (protocol 2
    asked for more than 0.995 and called it inconclusive). PE at 0.96: 0.035 behind, a control that fails."""
    from penb.chapters.frequency import analysis
    from penb.chapters.frequency.grading import robust_evidence

    cells = robust_cells(pe_clean)
    ev = robust_evidence(analysis.seed_harm(cells), "gru", {}, cells, 32)
    value, chance, reference = next(iter(ev["controls"].values()))
    assert (value, chance, reference) == pytest.approx((pe_clean, 1 / 32, 0.995), abs=1e-9)
    rule = claims.get("morita.fig3.pe_robust.gru").rule
    assert rule.params["noninferiority"] == 0.02 and "non-inferiority" in rule.text
    v3, _, why3, _ = grading.apply(rule, ev, sesoi=0.02)
    assert v3 == p3_verdict
    if p3_verdict == grading.INCONCLUSIVE:
        assert "more than 0.02 below" in why3


# --- smallest effects of interest (issue 28) -----------------------------------------------------------------

def test_fig15_early_is_contradicted_only_by_pe_behind():
    """A lead too small to show: inconclusive, not 'not reproduced' (with 0.02 nats it was); PE behind: not
    reproduced."""
    c = claims.get("morita.fig15.early")
    assert c.sesoi == 0 and "marginally" in c.sesoi_why
    small = [0.004, -0.002, 0.006, 0.001, 0.003]
    lo, hi = hand_interval(small)
    assert lo < 0 < hi < 0.02
    ev = {"a": small, "b": [0.0] * 5, "baseline": None}
    v, _, reason, _ = grading.apply(c.rule, ev, sesoi=c.sesoi)
    assert v == grading.INCONCLUSIVE and "no smallest effect" in reason
    behind = {"a": [-0.05, -0.04, -0.06, -0.05, -0.045], "b": [0.0] * 5, "baseline": None}
    assert grading.apply(c.rule, behind, sesoi=c.sesoi)[0] == grading.NOT_REPRODUCED


def test_the_invertibility_hypothesis_is_refuted_by_a_weak_correlation():
    """Minus the rank correlation per seed, 0.06 [-0.06, 0.18]: under 0.3, a relation one could rank
    encodings by is excluded (with the default 0.02 it was inconclusive)."""
    c = claims.get("beyond.hansen.invertibility")
    assert c.sesoi == 0.3 and "3 distinct values" in c.sesoi_why
    weak = [0.1, -0.05, 0.2, 0.0, 0.05]
    lo, hi = hand_interval(weak)
    assert lo < 0 and 0.02 < hi < 0.3
    ev = {"a": weak, "b": [0.0] * 5, "baseline": None}
    assert grading.apply(c.rule, ev, sesoi=c.sesoi)[0] == grading.NOT_REPRODUCED


def test_the_spearman_resolution_in_the_invertibility_reason():
    """The reason's numbers: five encodings in floor groups of 2, 2 and 1 (the quick preset), nine in 6, 2, 1
    (all of the blog's): the largest rank correlation and the smallest step between two values, over every
    ordering of the gains (no ties among them); Spearman's rho as the Pearson correlation of the ranks, ties
    given their mean rank."""
    from itertools import permutations

    for groups, top in (((2, 2, 1), 0.9487), ((6, 2, 1), 0.8367)):
        x = np.concatenate([[sum(groups[:i]) + (g + 1) / 2] * g for i, g in enumerate(groups)])   # mean ranks
        y = np.array(list(permutations(range(1, len(x) + 1))), float)
        xc, yc = x - x.mean(), y - y.mean(axis=1, keepdims=True)
        rho = yc @ xc / (np.sqrt((xc ** 2).sum()) * np.sqrt((yc ** 2).sum(axis=1)))
        values = np.unique(np.round(rho, 6))
        assert max(values) == pytest.approx(top, abs=1e-4)
        if len(x) == 5:
            assert min(np.diff(values)) == pytest.approx(0.0527, abs=1e-4)


def test_irie_q4_is_a_direction_with_the_old_margin_kept_for_the_record():
    """Issue 35: Irie sizes nothing, so the margin taken from Morita's Table 1 after its verdict was seen is
    dropped for a direction (smallest effect 0), and the reading is labelled exploratory; the old ratio stays
    only to show the old reading."""
    c = claims.get("irie.q4")
    assert c.sesoi == 0.0 and c.rule.params["margin"] == 0.0 and "exploratory" in c.rule.text.lower()
    assert c.extra["old_ppl_ratio"] == pytest.approx(1.05678, abs=1e-5)      # 38.916589 / 36.8257, by hand
    assert "Irie" in c.sesoi_why and "Exploratory" in c.sesoi_why


def test_every_trend_claim_says_why_its_smallest_growth():
    trends = [c for c in claims.graded() if c.rule is not None and c.rule.kind == "trend"]
    assert len(trends) >= 7
    for c in trends:                   # issue 41: Fig. 7's is 0.02 of widening over the span tested
        per_span = c.rule.params.get("sesoi_over_span", False)
        assert per_span == (c.key == "morita.fig7.trend") and c.sesoi == pytest.approx(0.02), c.key
        assert "per doubling" in c.sesoi_why, c.key
    fig7 = claims.get("morita.fig7.trend")
    assert claims.grading.sesoi_of(fig7.rule, fig7.sesoi, {"x": [896, 960, 1024, 1088]}) == pytest.approx(
        0.02 / math.log2(1088 / 896))

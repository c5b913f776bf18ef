"""The scorecard and the chapters' claim displays: badges, forest plot, one line per claim, config tables.

Every expectation is computed here from the grades written (recorded through ``claims.grade`` on made-up
per-seed evidence), not read back from the page's own code.
"""
import json
import math
import re
from collections import Counter

import numpy as np
import pytest
from bs4 import BeautifulSoup
from scipy import stats

from penb import claims, presets, report
from penb.claims import display, forest, scorecard



def _first(kind: str, n: int) -> list[str]:
    """The first ``n`` of Morita's claims graded by rule ``kind`` (the registry grows; no key is pinned)."""
    return [c.key for c in claims.graded()
            if c.rule is not None and c.rule.kind == kind and c.source == claims.MORITA][:n]


GRU, LSTM, DIST = _first("better", 3)
(TREND,) = _first("trend", 1)


@pytest.fixture
def graded(tmp_path, monkeypatch):
    """Four of Morita's claims graded on fixed evidence into ``tmp_path``: a clear gain, a smaller one, an
    interval below 0 and a trend; returns (folder, grades)."""
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    b = [0.30, 0.32, 0.31, 0.29, 0.30]
    gs = [claims.grade(GRU, {"a": [0.97, 0.98, 0.99, 0.97, 0.98], "b": b, "baseline": 0.0}),
          claims.grade(LSTM, {"a": [0.60, 0.62, 0.61, 0.63, 0.60], "b": b, "baseline": 0.0}),
          claims.grade(DIST, {"a": [0.10, 0.11, 0.09, 0.10, 0.12], "b": [0.5, 0.52, 0.49, 0.51, 0.5],
                              "baseline": 0.0}),
          claims.grade(TREND, {"gaps": [[0.1, 0.2, 0.3], [0.1, 0.25, 0.3], [0.0, 0.2, 0.35]],
                               "x": [8, 16, 32]})]
    return tmp_path, gs


def test_one_colour_per_verdict_word():
    assert tuple(display.VERDICT_COLORS) == claims.VERDICTS
    assert tuple(display.VERDICT_MARKERS) == claims.VERDICTS
    assert len(set(display.VERDICT_COLORS.values())) == len(claims.VERDICTS)
    for v, color in display.VERDICT_COLORS.items():
        tag = BeautifulSoup(display.badge(v), "html.parser").span
        assert tag.text == v and tag["data-verdict"] == v and f"background:{color}" in tag["style"]
    assert display.figure_of("Fig. 2 (bottom row)") == "Fig. 2"
    assert display.text_color("#ffffff") == "#111" and display.text_color("#000000") == "#fff"


def test_short_phrase_is_the_first_sentence():
    assert display.short("PE helps. The vanilla one degrades.") == "PE helps"
    long = "word " * 60
    cut = display.short(long, limit=40)
    assert len(cut) <= 41 and cut.endswith("\u2026")


def test_forest_rows_scale_by_the_verdicts_own_interval(graded):
    folder, gs = graded
    table = scorecard.rows(folder)
    drawn = {r["key"]: r for r in forest.forest_rows(table)}
    assert set(drawn) == {GRU, LSTM, DIST, TREND}          # every comparative grade, no untested claim
    for g in gs:
        d = g.detail
        ev = g.evidence
        if "a" in ev:          # the effect is the mean paired difference, independently of the rule's code
            diff = np.subtract(ev["a"], ev["b"])
            half = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / math.sqrt(len(diff))
            assert (d["effect"], d["lo"], d["hi"]) == pytest.approx(
                (diff.mean(), diff.mean() - half, diff.mean() + half))
        r = drawn[g.claim]
        assert r["x"] == pytest.approx(d["effect"] / d["sesoi"])
        assert (r["x_lo"], r["x_hi"]) == pytest.approx((d["lo"] / d["sesoi"], d["hi"] / d["sesoi"]))
        assert r["group"] == "Morita" and r["figure"] == display.figure_of(claims.get(g.claim).where)
    assert all(forest._finite(r["x"]) for r in drawn.values())
    # a grade without a finite effect is left out, not drawn at 0
    assert forest.forest_rows([{**table[0], "detail": {"effect": math.nan, "sesoi": 0.02}}]) == []


def test_forest_plot_colours_points_by_verdict_and_draws_0_and_1(graded, tmp_path):
    import matplotlib.pyplot as plt

    folder, gs = graded
    rows = forest.forest_rows(scorecard.rows(folder))
    fig = forest.forest(rows)
    ax = fig.axes[0]
    verticals = sorted(l.get_xdata()[0] for l in ax.lines if len(set(l.get_xdata())) == 1
                       and l.get_linestyle() in ("-", "--") and len(l.get_xdata()) == 2
                       and tuple(l.get_ydata()) == (0, 1))
    assert verticals == [0, 1]
    points = [l for l in ax.lines if len(l.get_xdata()) == 1]
    want = {r["x"]: display.VERDICT_COLORS[r["verdict"]] for r in rows}
    assert sorted(p.get_xdata()[0] for p in points) == pytest.approx(sorted(want))
    for p in points:
        assert p.get_color() == want[p.get_xdata()[0]]
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "Morita"
    plt.close(fig)
    assert forest.save([], tmp_path / "f.svg") is None and not (tmp_path / "f.svg").exists()


def test_scorecard_page_one_line_and_one_badge_per_claim(graded):
    folder, gs = graded
    path = scorecard.write_page(folder)
    text = path.read_text()
    assert (folder / scorecard.FOREST).exists() and f"{{figure}} {scorecard.FOREST}" in text
    found = scorecard.collect(folder)
    soup = BeautifulSoup(text, "html.parser")
    rows = soup.select("details.penb-row")
    keys = [c.key for c in claims.graded()]
    assert [r["data-claim"] for r in rows] == keys           # every graded claim once, registry order
    for r in rows:
        want = found.get(r["data-claim"], {}).get("verdict", claims.NOT_TESTED)
        assert [b["data-verdict"] for b in r.summary.select(".penb-badge")] == [want]
    # the stacked bars count what was recorded, per text, less the exploratory claims (counted apart)
    bars = {b["data-source"]: {s["data-verdict"]: int(s.text) for s in b.select(".penb-bar span[data-verdict]")}
            for b in soup.select(".penb-bar-row")}
    morita = Counter(found.get(c.key, {}).get("verdict", claims.NOT_TESTED)
                     for c in claims.graded() if c.source == claims.MORITA and not c.exploratory)
    assert bars["Morita"] == dict(morita)
    assert "Grading protocol" in text


def test_scorecard_without_comparisons_has_no_empty_plot(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    text = scorecard.write_page(tmp_path).read_text()
    assert not (tmp_path / scorecard.FOREST).exists() and "{figure}" not in text
    assert "no effect to plot" in text


def test_chapter_verdict_table_keeps_its_frame_and_shows_rows(graded):
    folder, gs = graded
    t = claims.table(gs)
    assert list(t.index) == [g.claim for g in gs] and t.loc[GRU, "verdict"] == gs[0].verdict
    assert type(t.head()).__name__ == "DataFrame"
    soup = BeautifulSoup(t._repr_html_(), "html.parser")
    rows = soup.select("details.penb-row")
    assert [r["data-claim"] for r in rows] == [g.claim for g in gs]
    for r, g in zip(rows, gs):
        cells = r.summary.find_all("span", recursive=False)
        assert len(cells) == len(display.HEADER)
        assert cells[-1].span["data-verdict"] == g.verdict
        lo, hi = g.detail["lo"], g.detail["hi"]
        assert cells[3].select_one(".penb-ci").text == f"[{lo:.2g}, {hi:.2g}]"
        assert g.reason in r.select_one(".penb-more").text


def test_overview_gives_one_line_per_claim_with_the_rule_folded():
    keys = [c.key for c in claims.of_chapter("key_findings")]
    soup = BeautifulSoup(claims.overview(keys)._repr_html_(), "html.parser")
    rows = soup.select("details.penb-claim")
    assert [r["data-claim"] for r in rows] == keys
    for r, k in zip(rows, keys):
        c = claims.get(k)
        rule = c.rule.text if c.rule else c.not_tested
        assert rule in r.select_one(".penb-more").text and rule not in r.summary.text


def test_config_table_lists_the_differences_and_never_an_empty_table():
    cfg = presets.resolve("key_findings", "smoke")
    paper = presets.table("key_findings")["paper"]
    soup = BeautifulSoup(report.config_table(cfg), "html.parser")
    shown = [td.code.text for td in soup.find("table").select("tbody td:first-child")]
    assert shown == [k for k in cfg if cfg[k] != paper[k]]
    assert len(soup.details.select("tr")) == len(cfg)
    same = presets.resolve("encodings", "quick")            # quick is the paper's setting here
    assert all(same[k] == presets.table("encodings")["paper"][k] for k in same)
    soup = BeautifulSoup(report.config_table(same), "html.parser")
    assert soup.find("table").find_parent("details") is not None     # the only table is the folded list
    assert "Config[" not in str(soup) and re.search(r"every one of its \d+ settings", soup.text)
    json.dumps(str(soup))


def test_archived_gpu_executions_stand_beside_this_builds_verdicts(tmp_path):
    """Issue 36: each archive under book/archived is listed with device, commit, date and its largest budget, and
    its recorded verdicts stand beside this build's; an uncommitted tree is said to be one."""
    from penb.claims import archives

    a = tmp_path / "key_findings-lease"
    a.mkdir()
    (a / "manifest.json").write_text(json.dumps({
        "chapter": "key_findings", "preset": "lease", "device": "cuda", "device_name": ["NVIDIA H100"],
        "commit": ["3a2a3dd+dirty"], "date": "2026-11-25T14:27:47+00:00", "updates": {"gru": 4000, "lstm": 2500}}))
    (a / "key_findings.grades.json").write_text(json.dumps({"morita.fig2.gru": {"verdict": "inconclusive"}}))
    table = [{"key": "morita.fig2.gru", "verdict": "reproduced", "preset": "quick"}]
    text = "\n".join(archives.section(table, tmp_path))
    assert "NVIDIA H100" in text and "3a2a3dd+dirty" in text and "2026-11-25" in text
    assert "largest budget 4,000 updates" in text and "uncommitted tree" in text
    assert "| morita.fig2.gru | reproduced (quick) | inconclusive (lease) |" in text
    assert archives.section(table, tmp_path / "none") == []


def test_an_archives_doubling_moves_are_read_from_its_recorded_evidence():
    """``archives.moves_table``: one row per (claim, quantity) of a recorded doubling test, the two moves written from
    the recorded means and interval ends, the earlier one empty where the archive has none; no table without one."""
    from penb.claims import archives

    move = {"mean": 0.016015625, "lo": -0.0008415, "hi": 0.0328727, "holds": False}
    grades = {"c.one": {"detail": {"doubling": {"budgets": [32_000, 64_000],
                                                "moves": {"vanilla": move, "gap": {**move, "mean": -0.0034,
                                                                                    "holds": True}},
                                                "earlier_moves": {"vanilla": {"mean": 0.0187, "lo": -0.0048,
                                                                              "hi": 0.0421}}}}},
              "c.two": {"detail": {"rule_verdict": "reproduced"}}, "c.three": {}}
    t = archives.moves_table(grades)
    assert list(t.index) == [("c.one", "vanilla"), ("c.one", "gap")]
    assert t.loc[("c.one", "vanilla"), "N/2 -> N"] == "+0.016 [-0.001, +0.033]"
    assert t.loc[("c.one", "vanilla"), "N/4 -> N/2"] == "+0.019 [-0.005, +0.042]"
    assert t.loc[("c.one", "gap"), "N/4 -> N/2"] == "" and t.loc[("c.one", "gap"), "N"] == "64,000"
    assert list(t["last move within the bound"]) == ["no", "yes"]
    assert archives.moves_table({"c.two": grades["c.two"]}) is None


def test_at_a_glance_says_what_the_build_and_the_archives_decide_and_where_the_long_run_stands(tmp_path):
    """Issue 66, item 6: plain words (one doubling, one verdict: no '8-8 doublings', no 'The 1 decided verdicts'),
    what the archives add, where the long run stands (from its committed manifest), no stale plan."""
    import json

    from penb.claims.scorecard import at_a_glance

    hz = {"doublings": 3, "decided": False}
    move = {"mean": -0.03, "lo": -0.05, "hi": -0.01, "n": 5, "direction": "shrink", "holds": False, "kind": "gap"}
    rec = {"budgets": [16_000, 32_000], "held_by": ["gap"], "moves": {"gap": move}, "decided": False, "sesoi": 0.02}
    papers = [{"key": "a.decided", "verdict": "reproduced", "detail": {"horizon": {"decided": True}}},
              {"key": "b.open", "verdict": "inconclusive", "detail": {"doubling": rec, "horizon": hz}},
              {"key": "c.untested", "verdict": "not tested", "detail": {}}]
    root = tmp_path / "archived"
    (root / "key_findings-deep").mkdir(parents=True)
    (root / "key_findings-deep" / "manifest.json").write_text(json.dumps(
        {"chapter": "key_findings", "preset": "deep", "updates": {"gru": 32_000}, "commit": ["a" * 40]}))
    (root / "key_findings-deep" / "key_findings.grades.json").write_text(json.dumps(
        {"b.open": {"verdict": "inconclusive"}}))
    (root / "key_findings-deep_v2-trunks").mkdir()
    (root / "key_findings-deep_v2-trunks" / "manifest.json").write_text(json.dumps(
        {"chapter": "key_findings", "preset": "deep_v2", "parameters": {"device": "cpu", "gru_vocab": [256]},
         "segments": [{"minutes": 100.0, "host": {"cores": 2}}, {"minutes": 50.5, "host": {"cores": 2}}],
         "runs": {"k1": {"steps": 128_000, "reached": 96_000, "done": False},
                  "k2": {"steps": 32_000, "reached": 32_000, "done": True}}}))
    text = at_a_glance(papers, root)
    assert "decides 1 (a.decided)" in text and "1 are inconclusive and 1 not tested" in text
    assert "3 doublings short" in text and "3-3" not in text
    assert "The one decided verdict about trained models assumes" in text
    assert "The archived execution (key_findings-deep;" in text and "they decide no claim" in text
    assert "key_findings-deep_v2-trunks" in text and "96,000 updates over 2 segments (150 minutes of a 2-core CPU)" in text
    assert "1 of its 2 runs (budgets 32,000, 128,000) are finished" in text
    assert "100 minutes" not in text

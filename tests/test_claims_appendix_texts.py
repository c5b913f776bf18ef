"""App. E and App. A.1 as the registry states them (issue 28): the text's scale of Fig. 7's trend and Fig. 15's
early phase, and Fig. 15's curves meeting by about 30,000 updates (``morita.fig15.meet``). Numbers typed from
the text (App. A.1, App. E)."""
from types import SimpleNamespace

import pandas as pd
import pytest

from penb import claims
from penb.claims import grading, scale


def test_fig7_trend_and_fig15_early_scales():
    """App. A.1: V 896-1,088 at L 16 over 600,000 updates; App. E: the early phase ends by 10,000 updates."""
    sc = claims.get("morita.fig7.trend").scale
    assert (min(sc["vocab"]), max(sc["vocab"]), sc["length"], sc["updates"]) == (896, 1088, 16, 600_000)
    early = claims.get("morita.fig15.early").scale
    assert early["updates"] == 10_000 and early["vocab"] == 32_768
    assert scale.smaller({"updates": 600}, early) == ["updates 600 vs 10,000"]
    assert scale.smaller({"updates": 10_000}, early) == []


# --- App. E: the curves meet by about 30,000 updates (morita.fig15.meet) --------------------------------------
def _lm_frame(gap_at) -> pd.DataFrame:
    """Three seeds of both LSTMs, logged every 1,000 updates to 30,000; PE's loss is vanilla's minus
    ``gap_at(step, seed)``."""
    rows = []
    for seed in (1, 2, 3):
        steps = range(0, 30_001, 1000)
        van = [{"step": s, "loss": 7.0 - s / 10_000} for s in steps]
        pe = [{"step": h["step"], "loss": h["loss"] - gap_at(h["step"], seed)} for h in van]
        for enc, hist in (("none", van), ("sinusoidal", pe)):
            rows.append(dict(encoding=enc, variant=enc, seed=seed, history=hist, diverged=False))
    return pd.DataFrame(rows)


def test_fig15_meet_reads_the_window_before_30000():
    from penb.chapters.lm_appendix.grading import meet_evidence

    lead = {1: 0.001, 2: -0.002, 3: 0.0005}
    frame = _lm_frame(lambda s, seed: lead[seed] if 25_000 < s <= 30_000 else 0.3)   # big outside the window
    ev = meet_evidence(frame)
    assert ev["seeds"] == [1, 2, 3] and ev["b"] == [0.0] * 3
    assert ev["a"] == pytest.approx([lead[1], lead[2], lead[3]])
    g = claims.grade("morita.fig15.meet", ev)
    assert g.verdict == grading.REPRODUCED, g.reason


def test_fig15_meet_fails_when_pe_is_still_ahead():
    from penb.chapters.lm_appendix.grading import meet_evidence

    frame = _lm_frame(lambda s, seed: 0.10 + 0.01 * seed)
    g = claims.grade("morita.fig15.meet", meet_evidence(frame))
    assert g.verdict == grading.NOT_REPRODUCED, g.reason


def test_fig15_meet_not_tested_on_short_runs():
    from penb.chapters.lm_appendix.grading import too_short

    assert too_short("morita.fig15.meet", SimpleNamespace(steps=600)).startswith("not at this preset")
    assert too_short("morita.fig15.meet", SimpleNamespace(steps=30_000)) == ""
    assert claims.get("morita.fig15.meet").about == "early"

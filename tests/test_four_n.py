"""Issue 34's 4N check, on recorded runs: where the doubling test settles a gap at N, training on to 2N and 4N does
not flip the verdict.

The runs are search seeds (0-2), never graded: the quick GRU cell of Fig. 2 at V 32 on one WSD trunk per seed,
branched at N/2, N, 2N and 4N (``scripts/schedule_probe.py --factors``, written to
``penb/chapters/key_findings/schedule_probe_4n.csv``), and the quick LSTM cell at V 256 at N/2, N and 2N
(``schedule_probe.csv`` beside it). The moves and intervals are computed here with ``scipy.stats.t``, not with
the book's code; the book's doubling test (``penb.claims.doubling.test``) must reach the same decision on each
doubling. The claim read is "PE above vanilla" (``morita.fig2.*``): a gap that could be overturned by shrinking,
so it is settled at N when the 95% interval of its per-seed move from N/2 to N lies above minus the smallest effect.
"""
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from penb import claims
from penb.claims import doubling

HERE = Path(claims.__file__).resolve().parents[1] / "chapters" / "key_findings"
CELLS = {"gru V32": HERE / "schedule_probe_4n.csv", "lstm V256": HERE / "schedule_probe.csv"}
CLAIM = {"gru V32": "morita.fig2.gru", "lstm V256": "morita.fig2.lstm"}


def gaps(cell: str) -> pd.DataFrame:
    """[budget, seed] PE - vanilla token accuracy of the WSD runs of ``cell``."""
    d = pd.read_csv(CELLS[cell])
    d = d[(d["cell"] == cell) & (d["schedule"] == "wsd")]
    w = d.pivot_table(index=["steps", "seed"], columns="encoding", values="token_accuracy")
    return (w["sinusoidal"] - w["none"]).unstack("seed")


def t95(x) -> tuple[float, float, float]:
    x = np.asarray(x, float)
    h = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean(), x.mean() - h, x.mean() + h


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_the_book_settles_each_doubling_as_an_independent_interval_does(cell):
    g = gaps(cell)
    sesoi = claims.get(CLAIM[cell]).sesoi
    budgets = list(g.index)
    assert len(budgets) >= 3 and all(b2 == 2 * b1 for b1, b2 in zip(budgets, budgets[1:]))
    for b1, b2 in zip(budgets, budgets[1:]):
        _, lo, _ = t95(g.loc[b2] - g.loc[b1])
        seeds = [int(s) for s in g.columns]
        ev = {"a": list(g.loc[b2]), "b": [0.0] * len(seeds), "seeds": seeds}
        half = {"a": list(g.loc[b1]), "b": [0.0] * len(seeds), "seeds": seeds}
        rec = doubling.test("better", {}, claims.REPRODUCED, ev, half, (b1, b2), sesoi)
        assert rec["moves"]["gap"]["holds"] == (lo > -sesoi), (cell, b1, b2, lo)


def test_a_gap_settled_at_n_does_not_flip_at_2n_or_4n():
    sesoi = claims.get("morita.fig2.gru").sesoi
    checked = 0
    for cell in CELLS:
        g = gaps(cell)
        budgets = list(g.index)
        for i in range(1, len(budgets)):
            n_half, n = budgets[i - 1], budgets[i]
            _, lo_move, _ = t95(g.loc[n] - g.loc[n_half])
            _, lo_gap, _ = t95(g.loc[n])
            if not (lo_move > -sesoi and lo_gap > 0):      # not "PE ahead, settled" at N
                continue
            later = budgets[i + 1:i + 3]                   # 2N and 4N, where recorded
            for b in later:
                mean, lo, _ = t95(g.loc[b])
                assert mean > 0 and lo > 0, f"{cell}: settled at {n}, flipped at {b}: {mean:+.3f} [{lo:+.3f}]"
            checked += len(later) == 2
    # the records hold one such cell with both later budgets (the GRU at N = 2,000: moved +0.047
    # [-0.016, +0.109] from N/2; at 4N the gap is still +0.060 [+0.022, +0.097]): without it, nothing was checked
    assert checked >= 1

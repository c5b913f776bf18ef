"""Evidence for the comparative rules from a long table of runs (one row per run).

The table has a column naming each run's variant (``by``), a ``seed`` column, a boolean ``diverged`` column
and the metric columns. :func:`paired` builds what rule ``better`` and ``no_gain`` read: the per-seed values
of two variants over the seeds valid in both, in seed order, with each variant's count of diverged runs.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd


def wide(frame: pd.DataFrame, by: str, variants, metric: str = "token_accuracy") -> pd.DataFrame:
    """[seed, variant] of ``metric`` over the valid runs, restricted to the seeds valid in every variant."""
    ok = frame[~frame["diverged"].astype(bool)]
    out = ok.pivot_table(index="seed", columns=by, values=metric, aggfunc="first")
    return out.reindex(columns=list(variants)).dropna().sort_index()


def diverged(frame: pd.DataFrame, by: str, variants) -> dict[str, int]:
    """{variant: runs whose loss turned non-finite}."""
    return {v: int(frame.loc[frame[by] == v, "diverged"].astype(bool).sum()) for v in variants}


def paired(frame: pd.DataFrame, by: str, a: str, b: str, metric: str = "token_accuracy",
           baseline: Optional[float] = None, a_name: Optional[str] = None, b_name: Optional[str] = None,
           **extra) -> dict:
    """Evidence of rule ``better``/``no_gain``: ``a`` expected better (or the control), paired by seed."""
    w = wide(frame, by, (a, b), metric)
    return {"a": w[a].tolist(), "b": w[b].tolist(), "seeds": [int(s) for s in w.index],
            "baseline": baseline, "diverged": diverged(frame, by, (a, b)),
            "a_name": a_name or a, "b_name": b_name or b, "metric": metric, **extra}

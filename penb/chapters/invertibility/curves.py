"""Reading steps and orders off the invertibility study's mean loss curves (``penb.chapters.invertibility``).

Every reader takes a per-step mean frame (index ``step``, one column per encoding) or one of its columns;
``penb.chapters.invertibility.checks`` turns what they read into the blog's claims' evidence.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

NORMAL = ("normal", "normal_learned")


def crossing_step(df: pd.DataFrame, a: str, b: str) -> Optional[int]:
    """First step from which ``a`` stays strictly below ``b`` to the end; ``None`` if not below
    at the end."""
    below = (df[a] < df[b]).to_numpy()
    if not below[-1]:
        return None
    above = np.flatnonzero(~below)
    return int(df.index[0] if above.size == 0 else df.index[above[-1] + 1])


def settle_step(series: pd.Series, floor: float, rtol: float = 0.1) -> Optional[int]:
    """First step from which ``series`` stays within ``(1 + rtol) * floor``; ``None`` if it
    never does."""
    ok = (series <= floor * (1 + rtol)).to_numpy()
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return int(series.index[0] if bad.size == 0 else series.index[bad[-1] + 1])


def plateau_step(series: pd.Series, log_tol: float = 0.1) -> int:
    """First step from which ``|ln(loss / final loss)| <= log_tol`` to the end (the "near-horizontal
    asymptote" of the blog, within 10% in log by default)."""
    v = series.to_numpy(np.float64)
    ok = np.abs(np.log(v / v[-1])) <= log_tol
    bad = np.flatnonzero(~ok)
    return int(series.index[0] if bad.size == 0 else series.index[bad[-1] + 1])

def flat_step(series: pd.Series, fall_frac: float = 0.05) -> int:
    """First step from which ``series`` stays within ``fall_frac`` of its fall over the run (first value minus
    last) above its last value: where a plot of the whole run on a linear axis looks flat (reported beside
    ``hansen.normal_plateau``'s log reading, :func:`plateau_step`)."""
    v = series.to_numpy(np.float64)
    ok = v - v[-1] <= fall_frac * max(v[0] - v[-1], 0.0)
    bad = np.flatnonzero(~ok)
    return int(series.index[0] if bad.size == 0 else series.index[bad[-1] + 1])


def overtake_step(df: pd.DataFrame, a: str = "sincos", exclude: Sequence[str] = NORMAL) -> Optional[int]:
    """First step from which ``a`` stays below every other encoding except ``exclude``."""
    steps = [crossing_step(df, a, o) for o in df.columns if o != a and o not in exclude]
    return None if not steps or any(s is None for s in steps) else max(steps)


def lead_holds(df: pd.DataFrame, start: int, until: Optional[int]) -> bool:
    """Whether both normal encodings are below every other encoding (sincos aside: its place is
    the crossing) at every step from ``start`` up to ``until`` (exclusive; ``None``: the end)."""
    others = [c for c in df.columns if c not in (*NORMAL, "sincos")]
    part = df.loc[start:(until - 1 if until is not None else None)]
    return bool((part[list(NORMAL)].max(axis=1) < part[others].min(axis=1)).all())


def ranking(df: pd.DataFrame, step: int) -> list[str]:
    """Encodings ordered by mean loss at ``step`` (lowest first)."""
    return list(df.loc[step].sort_values().index)


def rankings(df: pd.DataFrame, steps: Sequence[int]) -> pd.DataFrame:
    """Rank (1 = lowest loss) of every encoding at each of ``steps`` that the run reached."""
    steps = [s for s in steps if s in df.index]
    return pd.DataFrame({f"step {s}": df.loc[s].rank().astype(int) for s in steps})


def compare(ours: pd.DataFrame, published: pd.DataFrame, steps: Sequence[int]) -> pd.DataFrame:
    """Rows ``(step, encoding)``: our mean, the published (corrected) mean and their ratio."""
    steps = [s for s in steps if s in ours.index and s in published.index]
    cols = [c for c in ours.columns if c in published.columns]
    rows = [(s, c, ours.at[s, c], published.at[s, c]) for s in steps for c in cols]
    out = pd.DataFrame(rows, columns=["step", "encoding", "ours", "published"])
    out = out.set_index(["step", "encoding"])
    out["ours / published"] = out["ours"] / out["published"]
    return out

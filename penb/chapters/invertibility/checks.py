"""Reading the blog's claims off a run of the invertibility study.

Every function takes the per-step mean frame of ``penb.chapters.invertibility.analysis.run_study``
(index ``step``, one column per encoding) and returns plain numbers or small tables. ``claim_checks``
puts each claim of ``penb.claims`` (``hansen.*``) and two statements of the blog's discussion next to
our value.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

from penb import claims

AFFINE = ("direct1", "directN", "linear_normal", "linear_normal_learned", "linear_uniform", "linear_uniform_learned")
NORMAL = ("normal", "normal_learned")
SETTLE_RTOL = 0.1   # "near-horizontal asymptote": within 10% of the exact floor from then on
ABOUT = 0.25        # "about N steps": within 25%
FLOOR_RTOL = 5e-3   # "ends at the floor": final mean within 0.5% (float32 Adam jitters there)


def crossing_step(df: pd.DataFrame, a: str, b: str) -> Optional[int]:
    """First step from which ``a`` stays strictly below ``b`` to the end; ``None`` if not below at the end."""
    below = (df[a] < df[b]).to_numpy()
    if not below[-1]:
        return None
    above = np.flatnonzero(~below)
    return int(df.index[0] if above.size == 0 else df.index[above[-1] + 1])


def settle_step(series: pd.Series, floor: float, rtol: float = SETTLE_RTOL) -> Optional[int]:
    """First step from which ``series`` stays within ``(1 + rtol) * floor``; ``None`` if it never does."""
    ok = (series <= floor * (1 + rtol)).to_numpy()
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return int(series.index[0] if bad.size == 0 else series.index[bad[-1] + 1])


def overtake_step(df: pd.DataFrame, a: str = "sincos", exclude: Sequence[str] = NORMAL) -> Optional[int]:
    """First step from which ``a`` stays below every other encoding except ``exclude``."""
    steps = [crossing_step(df, a, o) for o in df.columns if o != a and o not in exclude]
    return None if not steps or any(s is None for s in steps) else max(steps)


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
    out = pd.DataFrame(rows, columns=["step", "encoding", "ours", "published"]).set_index(["step", "encoding"])
    out["ours / published"] = out["ours"] / out["published"]
    return out


def _about(ours: Optional[int], blog: float) -> bool:
    return ours is not None and abs(ours - blog) <= ABOUT * blog


def _floor_gap(df: pd.DataFrame, keys: Sequence[str], floor: float) -> Optional[float]:
    keys = [k for k in keys if k in df.columns]
    return max(abs(df[k].iloc[-1] / floor - 1) for k in keys) if keys else None


def claim_checks(df: pd.DataFrame, floors: dict[str, float]) -> pd.DataFrame:
    """One row per claim: where, statement, the blog's value, ours, and whether it holds in this run."""
    rows = []

    def add(key, where, statement, blog, ours, holds):
        rows.append(dict(claim=key, where=where, statement=statement, blog=blog, ours=ours, holds=bool(holds)))

    c = claims.get("hansen.normal_best")
    cross = [crossing_step(df, "sincos", k) for k in NORMAL]
    last = max(cross) if all(x is not None for x in cross) else None
    add(c.key, c.where, c.statement, c.value, last, _about(last, c.value))
    c = claims.get("hansen.sincos_1200")
    ov = overtake_step(df)
    add(c.key, c.where, c.statement, c.value, ov, _about(ov, c.value))
    c = claims.get("hansen.normal_plateau")
    for k, blog in c.value.items():
        st = settle_step(df[k], floors["normal"])
        add(f"{c.key}.{k}", c.where, f"{k}: settles within 10% of its floor", blog, st, _about(st, blog))
    for key, group, floor in (("hansen.floor_affine", AFFINE, "affine"), ("hansen.floor_normal", NORMAL, "normal")):
        c, gap = claims.get(key), _floor_gap(df, group, floors[floor])
        add(c.key, c.where, c.statement + " (ours: largest |final mean / floor - 1|)", c.value, gap,
            gap is not None and gap < FLOOR_RTOL)
    pairs = [(k, k + "_learned", "normal" if k == "normal" else "affine")
             for k in ("linear_normal", "linear_uniform", "normal")]
    ok = [settle_step(df[a], floors[f]) is not None and settle_step(df[b], floors[f]) is not None
          and settle_step(df[b], floors[f]) < settle_step(df[a], floors[f]) for a, b, f in pairs]
    c = claims.get("hansen.learned_faster")
    add(c.key, c.where, c.statement, None,
        {a: (settle_step(df[a], floors[f]), settle_step(df[b], floors[f])) for a, b, f in pairs}, all(ok))
    pairs = [("linear_normal", "linear_uniform"), ("linear_normal_learned", "linear_uniform_learned")]
    st = {f"{a} vs {b}": (settle_step(df[a], floors["affine"]), settle_step(df[b], floors["affine"])) for a, b in pairs}
    c = claims.get("hansen.normal_faster")
    add(c.key, c.where, c.statement, None, st,
        all(x is not None and y is not None and x < y for x, y in st.values()))
    return pd.DataFrame(rows).set_index("claim")


def verdict(checks: pd.DataFrame) -> str:
    """A one-line verdict from ``claim_checks``."""
    n, k = len(checks), int(checks["holds"].sum())
    failed = ", ".join(checks.index[~checks["holds"]])
    if k == n:
        return f"reproduced: all {n} checks hold in this run"
    return f"{k} of {n} checks hold in this run; not: {failed}"

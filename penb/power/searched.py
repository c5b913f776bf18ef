"""A deep rule's power where the alternative is an effect searched on search seeds (issue 58): both sides of a claim
read by rule ``better`` ("a above b") measured on their own curves, never a confirmation seed.

A :class:`Spec` names the claim, the per-seed column, the two sides (encodings), the budgets read and the cell the
rule sizes; :mod:`penb.power.fig3` (Fig. 3's GRU, the harm of RARE disturbants) and :mod:`penb.power.fig2`
(Fig. 2's GRU under DEEP_RULE v2, token accuracy) are two such specs.

* **Each side's curve** at N/4, N/2 and N (:func:`curve`): the search's per-seed values at those budgets (a WSD run at a
  budget is the same run whichever trunk it branched from, so the searched budgets form one family per seed); a
  per-seed offset and an evaluation noise pooled over the table's cells (:func:`spread_and_noise`).
* **Beyond the search** (:func:`means`): each further doubling's move is the last one times the ratio of the last two
  (clipped to [0, 1]), an extrapolation, marked in the table.
* **The power** (:func:`power`): the share of draws that the composition settles as reproduced, both sides on their
  searched means (``"search"``) or side a at side b's plus the claim's SESOI (``"sesoi"``), through
  :func:`penb.power.simulate` with the claim's own rule parameters and horizon.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims, power as core
from penb.claims.intervals import t_interval
from penb.claims.outcomes import REPRODUCED
from penb.claims.protocol import PROTOCOL


@dataclass(frozen=True)
class Spec:
    claim: str                       # the claim whose power sizes the rule
    value: str                       # the per-seed column it compares
    sides: tuple                     # (encoding of side a, encoding of side b): a above b
    names: tuple                     # the sides' names in the simulated evidence
    budgets: tuple                   # the N the table reads (each at N/4, N/2, N)
    vocab: int                       # the cell the rule reads
    low: float = 0.0                 # the quantity's lower end (accuracy 0; a difference of two -1)
    baseline: Optional[float] = None  # the evidence's baseline, where the chapter's has one
    noise_budgets: tuple = ()        # the N whose searched curves the noise is pooled over (default: budgets)


def load(path: Path) -> pd.DataFrame:
    """A search table (or several, concatenated), diverged runs dropped."""
    paths = path if isinstance(path, (list, tuple)) else [path]
    d = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    return d[~d["diverged"].astype(bool)].copy()


def curve(table: pd.DataFrame, vocab: int, n: int, encoding: str, value: str) -> np.ndarray:
    """[seeds, 3]: each search seed's ``value`` at N/4, N/2 and N (seeds with all three), ``encoding``'s runs."""
    d = table[(table["vocab"] == vocab) & (table["encoding"] == encoding)]
    w = d.pivot_table(index="seed", columns="steps", values=value)
    cols = [n // 4, n // 2, n]
    if not set(cols) <= set(w.columns):
        raise ValueError(f"the search has no budgets {cols} at V {vocab} ({encoding})")
    return w[cols].dropna().to_numpy(float)


def spread_and_noise(table: pd.DataFrame, value: str, budgets) -> tuple[float, float]:
    """(per-seed offset sd, evaluation noise sd) of ``value``, pooled (:func:`penb.power.pooled`) over every
    (vocabulary, encoding, N of ``budgets``) cell whose N/4, N/2 and N were searched."""
    found = []
    for (v, e), _ in table.groupby(["vocab", "encoding"]):
        for n in budgets:
            try:
                found.append(curve(table, v, n, e, value))
            except ValueError:
                continue
    return core.pooled(found)


def means(table: pd.DataFrame, vocab: int, n: int, encoding: str, value: str) -> tuple[np.ndarray, bool]:
    """(the mean at N/4, N/2, N, extrapolated?): searched where the table has those budgets; else from the largest
    searched N below, each further doubling moving by the last move times the ratio of the last two (in [0, 1])."""
    try:
        return curve(table, vocab, n, encoding, value).mean(axis=0), False
    except ValueError:
        if n < 8:
            raise
        x, _ = means(table, vocab, n // 2, encoding, value)
    m1, m2 = x[1] - x[0], x[2] - x[1]
    ratio = min(max(m2 / m1, 0.0), 1.0) if m1 * m2 > 0 else 0.0
    return np.array([x[1], x[2], x[2] + ratio * m2]), True


def power(spec: Spec, a: np.ndarray, b: np.ndarray, seeds: int, offset: float, noise: float, n: int,
          alternative: str = "search", draws: int = core.DRAWS, seed: int = 0, params=None, horizon=None) -> float:
    """The share of ``draws`` draws in which ``spec.claim`` ("a above b") settles as reproduced: both sides on their
    searched means (``"search"``), or a at b's plus the SESOI (``"sesoi"``); the claim's rule parameters and horizon
    unless ``params`` / ``horizon`` are given."""
    c = claims.get(spec.claim)
    rng = np.random.default_rng([seed, seeds, n, int(1e4 * (b[-1] + 1))])
    extra = {} if spec.baseline is None else {"baseline": spec.baseline}
    hits = 0
    for _ in range(draws):
        verdict, settled = core.simulate(b, None if alternative == "sesoi" else a, seeds, offset, noise, n,
                                         rng, gap=c.sesoi if alternative == "sesoi" else None,
                                         horizon=horizon or c.horizon, params=params or c.rule.params,
                                         names=spec.names, low=spec.low, sesoi=c.sesoi, extra=extra)
        hits += settled and verdict == REPRODUCED
    return hits / draws


def rows(spec: Spec, table: pd.DataFrame, seed_counts, cost, draws: int = core.DRAWS) -> list[dict]:
    """One row per (vocabulary searched for both sides, N of ``spec.budgets``, seeds): each side's mean at N (searched
    or extrapolated), its last move on the search seeds (where searched), the power under the protocol in force at the
    searched effect and at the SESOI, and ``cost(n, seeds)`` (a dict of the cell's costs)."""
    offset, noise = spread_and_noise(table, spec.value, spec.noise_budgets or spec.budgets)
    out = []
    both = set.intersection(*(set(table.loc[table["encoding"] == e, "vocab"]) for e in spec.sides))
    for v in sorted(int(x) for x in both):
        for n in spec.budgets:
            a, ext = means(table, v, n, spec.sides[0], spec.value)
            b, _ = means(table, v, n, spec.sides[1], spec.value)
            row0 = dict(vocab=v, N=n, extrapolated=ext, a_at_n=round(a[2], 4), b_at_n=round(b[2], 4),
                        offset_sd=round(offset, 4), noise_sd=round(noise, 4))
            if not ext:
                for side, name in zip(spec.sides, ("a", "b")):
                    x = curve(table, v, n, side, spec.value)
                    mean, lo, hi = t_interval(x[:, 2] - x[:, 1])
                    row0.update({f"{name}_last_move": mean, f"{name}_last_lo": lo, f"{name}_last_hi": hi})
            for k in seed_counts:
                row = dict(row0, seeds=k)
                row[f"power_p{PROTOCOL}"] = power(spec, a, b, k, offset, noise, n, "search", draws)
                row[f"power_sesoi_p{PROTOCOL}"] = power(spec, a, b, k, offset, noise, n, "sesoi", draws)
                row.update(cost(n, k))
                out.append(row)
    return out


def view(path: Path, names: tuple, write: str):
    """What a chapter shows of a power table at ``path``: per vocabulary, budget and seed count, both sides at N
    (``names``: their display names) and their last moves on the search seeds, the power (the searched effect; the
    SESOI's beside) and the figure's cost; a Markdown line naming ``write`` where the table is not there."""
    from IPython.display import Markdown  # deferred: IPython is for display only (the device image has none)

    if not Path(path).exists():
        return Markdown(f"No power analysis table at `{Path(path).name}` (`{write}` writes it).")
    t = pd.read_csv(path)
    show = t[t["seeds"].isin((3, 5, 10))].copy()
    for side in ("a", "b"):
        show[f"{side} last move"] = core.move_texts(show, f"{side}_last")
    cols = {"vocab": "V", "N": "N", "seeds": "seeds", "a_at_n": f"{names[0]} at N", "b_at_n": f"{names[1]} at N",
            "a last move": f"{names[0]}'s last move", "b last move": f"{names[1]}'s last move",
            "power_p7": "power, protocol 7", "power_p6": "power, protocol 6",
            "power_sesoi_p7": "power at the SESOI (p7)", "cpu_min": "figure, CPU-min (2 cores)",
            "h100_min": "figure, H100-min"}
    return core.shown(show, cols)

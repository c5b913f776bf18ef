"""A claim that is itself a doubling test (Sec. 4.1: more updates did not improve the vanilla models; ``Claim.about ==
"doubling"``), as the protocol in force reads it: the premise for both verdicts and a model above chance (protocol 6),
then the horizon to the text's budget (:func:`read`), where the growth of the gains per doubling is shown or charged
(:func:`growth`, :func:`carried`: protocol 7's reading, which the protocol in force keeps for this claim).

Evidence: ``a`` per seed at N, ``b`` at N/2 (the same seeds), ``earlier_gain`` per seed from N/4 to N/2 where the runs
exist, ``baseline`` (chance).
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from penb.claims import doubling, horizon as horizon_test
from penb.claims.doubling import GROW
from penb.claims.intervals import no_narrower, seed_interval
from penb.claims.outcomes import DECIDED, INCONCLUSIVE, REPRODUCED
from penb.claims.protocol import PROTOCOL


def above_chance(verdict: str, reason: str, evidence: dict, sesoi: Optional[float]) -> tuple[str, str]:
    """Protocol 6, for a claim that is itself a doubling test (Sec. 4.1's extra updates): a model still at chance
    gains nothing from more updates because it has learnt nothing yet, so neither verdict is read until the
    model at N (evidence ``a``) has left chance (``baseline``) by more than the SESOI on its seed interval."""
    base = evidence.get("baseline")
    a = np.asarray(evidence.get("a", []), float)
    if verdict not in DECIDED or base is None or a.size < 2:
        return verdict, reason
    _, lo, _ = seed_interval(a - float(base))
    if lo > (sesoi or 0.0):
        return verdict, reason
    return INCONCLUSIVE, (f"{evidence.get('a_name', 'the model')} has not left chance ({float(base):.3f}) by more "
                          f"than {sesoi or 0:g} on its seed interval (lower end {lo + float(base):.3f}): a model "
                          f"that has learnt nothing yet gains nothing from more updates either way. The rule alone "
                          f"would say '{verdict}' ({reason})")


def read(verdict: str, reason: str, evidence: dict, budgets: tuple,
                    sesoi: Optional[float], horizon: Optional[int], resolution) -> tuple[str, str, dict]:
    """Protocol 6, for a claim that is itself the doubling test ("extra updates do not improve", evidence ``a`` at
    N and ``b`` at N/2, ``earlier_gain`` per seed from N/4 to N/2 where the runs exist): below the text's budget a
    gain found refutes nothing (the text speaks of its own budget), and no gain stands only where the gains do not
    grow and what ``D`` doublings of them could add (protocol 7: the growth of the gains shown or charged,
    :func:`growth` and :func:`carried`) stays below the SESOI."""
    n = int(budgets[1]) if budgets else 0
    D = horizon_test.doublings_left(horizon, n)
    hz = {"horizon": horizon, "doublings": D, "decided": D == 0}
    unknown = horizon_test.unknown_budget(horizon, n)
    if unknown:
        hz.update(decided=False, why=unknown)
        return INCONCLUSIVE, (f"{unknown} (protocol 7, fails closed). The rule alone would say '{verdict}' "
                              f"({reason})"), hz
    if D == 0:
        return verdict, reason, hz
    if verdict != REPRODUCED:
        hz["why"] = f"a gain at {n:,} updates says nothing of the text's {horizon:,}"
        return INCONCLUSIVE, (f"{hz['why']} (protocol {PROTOCOL}'s horizon): more training may yet stop it. The rule "
                              f"alone would say '{verdict}' ({reason})"), hz
    earlier = evidence.get("earlier_gain")
    if earlier is None:
        hz["why"] = (f"one doubling only ({n // 2:,} -> {n:,} updates): whether the gains shrink toward "
                     f"{horizon:,} updates needs the same seeds at {n // 4:,} too")
        return INCONCLUSIVE, (f"{hz['why']} (protocol {PROTOCOL}'s horizon). The rule alone would say '{verdict}' "
                              f"({reason})"), hz
    seeds = evidence.get("seeds") or list(range(len(evidence["a"])))
    m2 = doubling.move(dict(zip(seeds, np.asarray(evidence["a"], float))),
                       dict(zip(seeds, np.asarray(evidence["b"], float))), resolution)
    e = np.asarray(earlier, float)
    m1 = {"mean": float(np.nanmean(e)) if np.isfinite(e).any() else float("nan")}
    later = np.asarray(evidence["a"], float) - np.asarray(evidence["b"], float)
    base = {s: 0.0 for s in seeds}       # the growth of the gain per doubling shown or charged, as every quantity's
    g = growth(base, dict(zip(seeds, e)), dict(zip(seeds, e + later)), "grow", resolution or 0.001)
    grows, closable = not g["shown"], carried(horizon_test.bound(m2, "grow"), g, D)
    hz["growth"] = g
    hz.update(earlier=m1["mean"], later=m2["mean"], grows=bool(grows), closable=closable,
              decided=bool(closable < (sesoi or 0.02)))
    if hz["decided"]:
        hz["assumes"] = horizon_test.assumption(n)
        reason = f"{reason}; it {hz['assumes']} (protocol {PROTOCOL})"
        return verdict, reason, hz
    hz["why"] = (f"the gain per doubling went {m1['mean']:+.3f} then {m2['mean']:+.3f} (growing)" if grows else
                 f"the gain per doubling went {m1['mean']:+.3f} then {m2['mean']:+.3f}; over {D} more doublings it "
                 f"could add {closable:.3f}, not below {sesoi or 0.02:g}")
    return INCONCLUSIVE, (f"{hz['why']} (protocol {PROTOCOL}'s horizon). The rule alone would say '{verdict}' "
                          f"({reason})"), hz


GRID = np.linspace(0.0, 1.0, 101)        # the ratios a shrinking curve is shown to stay under


def growth(quarter: dict, half: dict, full: dict, direction: str, res: float) -> dict:
    """The reading of one quantity's two moves (per seed, at N/4, N/2 and N: {seed: value}) in the
    direction that could overturn (GROW or SHRINK). ``shown``: some r in [0, 1] (:data:`GRID`) makes the paired 95%
    interval of later - r x earlier end at most ``res`` (the later move is shown to be no larger than r times the
    earlier: not growing; r = 0, the later move itself shown not to move that way); ``ratio``: the smallest such r.
    Not shown, ``charge``: the growth per doubling that cannot be excluded, the smaller upper end of later - earlier
    (``hi``) and of the later move alone (``later_hi``): an earlier move the helpful way is not counted as growth.
    Every upper end is no narrower than ``res``."""
    sign = 1.0 if direction == GROW else -1.0
    seeds = sorted(set(quarter) & set(half) & set(full))
    x = np.array([[quarter[s], half[s], full[s]] for s in seeds], float).reshape(-1, 3)
    x = x[np.isfinite(x).all(axis=1)]
    out = {"hi": math.nan, "later_hi": math.nan, "shown": False, "ratio": 1.0, "charge": math.nan, "n": int(len(x))}
    if len(x) < 3:
        return out

    def upper(d):
        mean, lo, hi = seed_interval(d)
        return float(no_narrower(mean, lo, hi, res)[1])
    m1, m2 = sign * (x[:, 1] - x[:, 0]), sign * (x[:, 2] - x[:, 1])
    out.update(hi=upper(m2 - m1), later_hi=upper(m2), mean=float(np.mean(m2 - m1)))
    for r in GRID:
        if upper(m2 - r * m1) <= res:
            out.update(shown=True, ratio=float(r), charge=0.0)
            break
    if not out["shown"]:
        out["charge"] = max(0.0, min(out["hi"], out["later_hi"]))
    return out


def carried(b: float, g: dict, D: int) -> float:
    """What ``D`` doublings could move a quantity by (a doubling claim's gains), from the later move's bound ``b`` and
    its :func:`growth` ``g``: shown not to grow, the moves shrinking at the ratio shown (``b`` r + ``b`` r^2 + ... +
    ``b`` r^D, and never less than one more move of ``b``; ``D`` b at r = 1, protocol 6's bound); growth not
    excluded, each doubling adds its charge to the move before (``D`` b + charge D (D + 1) / 2): growth is charged,
    never assumed away."""
    if not math.isfinite(b) or not math.isfinite(g.get("charge", math.nan)):
        return math.nan
    if g["shown"]:
        r = g["ratio"]
        return float(b * max(1.0, sum(r ** j for j in range(1, D + 1)))) if D else 0.0
    return float(D * b + g["charge"] * D * (D + 1) / 2)

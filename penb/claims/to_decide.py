"""What would decide an undecided claim about trained models: seeds and updates at 80% power, computed (issue 59).

A planning estimate read off a verdict's own record, never a verdict. Protocol 4-7's doubling test holds a claim
back while a quantity that could overturn it moved by more than its smallest effect of interest ``e`` from N/2 to
N, on a Student-t 95% interval over seeds. Here each move of the record (its mean ``m``, per-seed SD ``s`` recovered
from its interval, direction) is projected forward:

* **Per-doubling ratio** ``r``: where the horizon (protocol 6-7) read the quantity's two moves, N/4 -> N/2 and
  N/2 -> N, ``r = |later| / |earlier|`` when they have one sign and shrink (in [0, 1]); otherwise the moves are
  not shown to shrink and ``r = 1``. A quantity with no earlier move recorded has no ratio: no budget is projected
  for it (only more seeds at N, where its move is already below ``e``).
* **At budget 2^j N** the move is ``r^j m`` with the same ``s``; the probability that its interval passes the test
  on ``n`` seeds is exact under normal seeds (noncentral t, :func:`pass_probability`). The quantities are taken
  as independent (the power of all passing is the product).
* **The estimate** is the cheapest (seeds x updates) pair with j from 0 up to the doublings left to the text's
  budget and n from 3 to ``PRACTICAL_SEEDS`` whose power reaches 80%; its cost scales the record's ``next_cost``
  (``penb.executors.cost`` for the next doubling) by updates and seeds.

What it leaves out, said beside it: below the text's budget, protocol 7 also bounds what the doublings left could
carry (the horizon), so a budget short of the text's may need more; a take-off after N is beyond any projection.
"""
from __future__ import annotations

import math
from typing import Optional

from scipy import stats

from penb.claims import horizon as horizon_test
from penb.claims.intervals import ALPHA, POWER, PRACTICAL_SEEDS


MIN_SEEDS = 3                      # the doubling test reads nothing on fewer (penb.claims.doubling)
MAX_DOUBLINGS = 8                  # where a record names no horizon: at most 2^8 N


def move_sd(m: dict) -> float:
    """The per-seed SD behind a move's Student-t 95% interval ``m`` ({"lo", "hi", "n"}): half-width x sqrt(n) / t."""
    n = int(m["n"])
    if n < 2:
        return math.nan
    return (m["hi"] - m["lo"]) / 2 * math.sqrt(n) / stats.t.ppf(1 - ALPHA / 2, n - 1)


def pass_probability(mean: float, sd: float, n: int, sesoi: float, direction: str) -> float:
    """P(the 95% t interval of ``n`` normal per-seed moves, true mean ``mean`` and SD ``sd``, passes the doubling
    test): "shrink" needs lo > -sesoi, "grow" hi < +sesoi, "still" both (its lower bound p_lo + p_hi - 1)."""
    if n < 2:
        return 0.0
    crit = stats.t.ppf(1 - ALPHA / 2, n - 1)

    def side(distance: float) -> float:            # P((distance-to-bound estimate) / (S / sqrt n) > crit)
        if sd <= 0:
            return float(distance > 0)
        return float(stats.nct.sf(crit, n - 1, distance * math.sqrt(n) / sd))

    low, high = side(mean + sesoi), side(sesoi - mean)
    if direction == "shrink":
        return low
    if direction == "grow":
        return high
    if direction == "still":
        return max(low + high - 1.0, 0.0)
    return 1.0                                      # "shown": nothing could overturn it


def ratio(name: str, rec: dict, horizon: Optional[dict] = None) -> Optional[float]:
    """A quantity's per-doubling ratio from its two moves (module docstring): the doubling record's
    ``earlier_moves`` (protocol 7, N/4 -> N/2) and its move N/2 -> N, else the horizon's reading of the same two;
    None where no earlier move is recorded."""
    q = ((horizon or {}).get("quantities") or {}).get(name) or {}
    early = ((rec.get("earlier_moves") or {}).get(name) or q.get("earlier") or {}).get("mean")
    late = ((rec.get("moves") or {}).get(name) or q.get("later") or {}).get("mean")
    if early is None or late is None:
        return None
    if late * early < 0:
        return 1.0                                  # changed sign: not shown to shrink (module docstring; issue 66)
    return 1.0 if early == 0 else min(abs(late) / abs(early), 1.0)


def _margin(name: str, hz: dict, sesoi: float) -> float:
    """How far a quantity may be carried before its verdict turns (the horizon's interval at N where it read one:
    a gap's lower end above 0, a ceiling's distance; else the smallest effect of interest)."""
    q = (hz.get("quantities") or {}).get(name) or {}
    lo_hi = q.get("interval_at_n")
    if lo_hi and q.get("kind") in ("gap", "part"):
        return lo_hi[0] if q.get("direction") == "shrink" else q.get("sesoi", sesoi) - lo_hi[1]
    return sesoi


def estimate(detail: dict, horizon: Optional[int] = None) -> Optional[dict]:
    """The cheapest decisive (doublings j, seeds n) for an undecided record (``detail``: a grade's detail with its
    "doubling" record and, under protocol 6-7, its "horizon"; ``horizon``: the text's budget where the record names
    none), or None where there is nothing to estimate (no doubling record, no budget, or nothing held it back).
    Returns {"j", "seeds", "updates", "power", "ratios", "cost", "unprojected", "most", "budget"}; "j" None where
    no pair up to the text's budget (or MAX_DOUBLINGS) and PRACTICAL_SEEDS seeds reaches 80% power.

    Where the horizon held it back, a budget 2^j N short of the text's also needs each quantity's projected
    moves toward overturning over the D - j doublings left (sum of m r^(j+k), k = 1..D-j, with m the part of the
    move in the direction that could overturn: the means, not the bounds protocol 7 charges) within its margin
    (:func:`_margin`); at the text's budget nothing is left to carry."""
    rec = (detail or {}).get("doubling")
    if not rec or not rec.get("moves") or not (rec.get("budgets") or [0, 0])[1]:
        return None
    hz = detail.get("horizon") or {}
    held = not rec.get("decided") or (hz and not hz.get("decided"))
    if not held:
        return None
    n_now = rec["budgets"][1]
    if hz.get("doublings") is not None:
        left = hz["doublings"]
    else:                                           # unknown where the record names no text's budget
        left = horizon_test.doublings_left(horizon, n_now) if horizon else None
    most = MAX_DOUBLINGS if left is None else left
    parts = []
    for name, m in rec["moves"].items():
        e = m.get("sesoi") or rec["sesoi"]
        parts.append((name, m["mean"], move_sd(m), e, m["direction"], ratio(name, rec, hz), _margin(name, hz, e)))
    unprojected = [p[0] for p in parts if p[5] is None]

    def carried_ok(j: int) -> bool:                 # the horizon's bound, projected (docstring)
        read = bool(hz) or "earlier_moves" in rec     # protocol 7 reads the horizon after the doubling test
        if left is None or j >= left or not read:
            return True
        for _, mean, _, _, direction, r, margin in parts:
            if direction == "shown":
                continue
            toward = {"shrink": max(-mean, 0.0), "grow": max(mean, 0.0)}.get(direction, abs(mean))
            if r is None or sum(toward * r ** (j + k) for k in range(1, left - j + 1)) > margin:
                return False
        return True

    best = None
    for j in range(0, most + 1):
        if not carried_ok(j):
            continue
        for n in range(MIN_SEEDS, PRACTICAL_SEEDS + 1):
            if best is not None and n * 2 ** j >= best[0]:
                break
            power = 1.0
            for _, mean, sd, e, direction, r, _ in parts:
                if j and r is None:
                    power = 0.0
                    break
                power *= pass_probability(mean * (r ** j if j else 1.0), sd, n, e, direction)
            if power >= POWER:
                best = (n * 2 ** j, j, n, power)
                break
    ratios = {p[0]: p[5] for p in parts}
    out = {"ratios": ratios, "unprojected": unprojected, "most": most, "budget": n_now}
    if best is None:
        return {**out, "j": None, "seeds": None, "updates": None, "power": None, "cost": None}
    _, j, n, power = best
    return {**out, "j": j, "seeds": n, "updates": n_now * 2 ** j, "power": power, "cost": _cost(rec, j, n)}


def _cost(rec: dict, j: int, n: int) -> Optional[dict]:
    """The record's ``next_cost`` (its runs at 2N on its seeds) scaled to budget 2^j N on ``n`` seeds."""
    cost, seeds = rec.get("next_cost") or {}, max(len(next(iter(rec["moves"].values())).get("seeds") or []), 1)
    if not cost.get("runs"):
        return None
    scale = 2.0 ** (j - 1) * n / seeds
    return {k: None if cost.get(k) is None else round(cost[k] * scale, 2) for k in ("cpu_min", "gpu_min")}


def words(detail: Optional[dict], horizon: Optional[int] = None) -> str:
    """One sentence for a row: the estimate, its assumptions and cost ('' where there is nothing to estimate)."""
    est = estimate(detail or {}, horizon)
    if est is None:
        return ""
    r = ", ".join(f"{k} {'not recorded' if v is None else f'{v:.2f}'}" for k, v in est["ratios"].items())
    if est["j"] is None:
        return (f"no budget up to {est['most']} doublings past {est['budget']:,} updates and no seed count up to "
                f"{PRACTICAL_SEEDS} reaches 80% power for the doubling test, with each move projected at the ratio "
                f"per doubling its last two moves showed ({r}; 1 where they did not shrink, no projection where "
                f"no earlier move was trained): a larger-scale preset has to decide it (a planning estimate)")
    cost = est["cost"] or {}
    price = ""
    if cost.get("gpu_min") is not None:
        cpu = f"about {cost['cpu_min']:,.0f} CPU-minutes on one core or " if cost.get("cpu_min") is not None else ""
        price = f", {cpu}{cost['gpu_min']:,.1f} GPU-minutes (penb.executors.cost)"
    where = "at this budget, more seeds" if est["j"] == 0 else f"{est['updates']:,} updates"
    return (f"{where} on {est['seeds']} seeds: {100 * est['power']:.0f}% power for the doubling test{price}. A "
            f"planning estimate: each move projected at the ratio per doubling its last two moves showed ({r}), "
            f"the seeds' spread as measured; below the text's budget protocol 7 also bounds the doublings left, "
            f"and no projection sees a take-off after N")

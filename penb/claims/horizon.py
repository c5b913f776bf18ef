"""The horizon (protocol 8, issue 66): would a verdict about trained models still hold at the text's budget H?

A verdict at N updates speaks of H (``Claim.horizon``) only where, for every quantity that could overturn it
(``penb.claims.doubling.reads``: a gap, a slope, a level, each model of a "no gain" and its gap):

1. **two doublings are there** (N/4 -> N/2 -> N, the same seeds): with one, whether the moves grow cannot be seen;
   the verdict stays inconclusive and says what the runs at N/4 would cost;
2. **their growth is bounded** (:func:`growth8`): the smallest ratio r (0-4) for which the paired 95% interval of
   later move - r x earlier move ends at most the grading resolution; a quantity seen moving that no r bounds is
   undecided; one that has not moved measurably is charged the growth its interval cannot exclude;
3. **what the span left could move it by leaves the verdict standing** (:func:`carried8`, over ``span_left``
   = log2(H/N) doublings, the last one in part): b r + b r^2 + ... from the later move's 95% bound b, or
   span b + charge span^2 / 2 for a quantity not moving. A gap found keeps its lower end above 0 after losing that;
   a gap denied keeps its upper end below the smallest effect of interest after gaining it; a level keeps its side
   of the text's value; a quantity that must stay still moves by less than its smallest effect in all. Models read
   through the gap or slope they move ("better", "gain_vs_reference", "trend") are charged into it (a slope by the
   least-squares weight of each x, :func:`slope_weights`) rather than gated on their own.

At N >= H the doubling test alone decides. An unknown budget decides nothing (:func:`unknown_budget`: fails closed),
and every verdict says what no test at N can see (:func:`assumption`: a take-off after N, or one under way below the
noise). The calibration (``tests/test_horizon_p8_calibration.py``, README's power table) runs at the resolution
``grade()`` uses. A claim that is itself a doubling test (Sec. 4.1's extra updates) is carried by
:mod:`penb.claims.doubling_claim`. Earlier protocols' verdicts are a committed table
(``penb/claims/protocol_history.csv``), not code.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from penb.claims import doubling, intervals
from penb.claims.doubling import FLIP, GAP, GROW, LEVEL, MODEL, PART, SHOWN, SHRINK, STILL
from penb.claims.intervals import DEFAULT_RESOLUTION, DEFAULT_SESOI, no_narrower, seed_interval
from penb.claims.protocol import PROTOCOL


def doublings_left(horizon: Optional[int], n: int) -> int:
    """``ceil(log2(horizon / n))``: the doublings from ``n`` updates to the horizon (0 at or past it)."""
    if not horizon or not n or n >= horizon:
        return 0
    return int(math.ceil(math.log2(horizon / n) - 1e-12))


def span_left(horizon: Optional[int], n: int) -> float:
    """``log2(horizon / n)``: the doublings from ``n`` updates to the horizon, the last one in part (0 at or past it);
    protocol 8 charges moves over this span, not over whole doublings past the horizon."""
    if not horizon or not n or n >= horizon:
        return 0.0
    return math.log2(horizon / n)


def bound(m: dict, direction: str) -> float:
    """The largest move in the direction that could overturn (the interval's end on that side, 0 if it lies on the
    other; NaN without an interval)."""
    lo, hi = m.get("lo", math.nan), m.get("hi", math.nan)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return math.nan
    return {SHRINK: max(0.0, -lo), GROW: max(0.0, hi), STILL: max(0.0, -lo, hi)}[direction]


def test(kind: str, params: dict, verdict: str, ev: dict, half: Optional[dict], quarter: Optional[dict],
         budgets: tuple, sesoi: Optional[float], horizon: Optional[int], late: dict, part: Optional[str] = None,
         resolution: Optional[float] = None) -> dict:
    """The horizon test of ``verdict`` (rule ``kind`` on evidence ``ev`` at N, ``half`` at N/2, ``quarter`` at N/4;
    ``budgets`` = (N/2, N); ``late``: the doubling test's record of N/2 -> N). Returns {"decided", "horizon",
    "doublings", "span", "budgets", "quantities": {name: {"earlier", "later", "grows", "closable", "holds", ...}},
    "held_by", "why"}."""
    sesoi = DEFAULT_SESOI if sesoi is None else float(sesoi)
    n = int(budgets[1]) if budgets else 0
    D = doublings_left(horizon, n)
    rec = {"decided": False, "horizon": horizon, "doublings": D, "budgets": [n // 4, n // 2, n], "quantities": {},
           "held_by": [], "why": "", "protocol": PROTOCOL, "span": span_left(horizon, n)}
    unknown = unknown_budget(horizon, n)
    if unknown:                                       # fail closed: never D = 0 for want of a number
        rec["why"] = unknown
        return rec
    rec["assumes"] = assumption(n)
    if D == 0:
        rec.update(decided=True, why=(f"the runs are at the text's budget ({horizon:,} updates)" if horizon else
                                      "the text states no budget beyond the runs'"))
        return rec
    if quarter is None:
        rec["why"] = (f"one doubling only ({n // 2:,} -> {n:,} updates): whether the moves shrink toward the text's "
                      f"{horizon:,} updates ({D} doublings on) needs the same seeds at {n // 4:,} updates too")
        return rec
    try:
        early = doubling.test(kind, params, verdict, half, quarter, (n // 4, n // 2), sesoi, part=part,
                              resolution=resolution)
        at_quarter, at_half, at_n = (doubling.reads(kind, params, verdict, x, part) for x in (quarter, half, ev))
    except (KeyError, ValueError, IndexError):
        rec["why"] = f"the runs at {n // 4:,} updates do not give this claim's evidence in full"
        return rec
    res = DEFAULT_RESOLUTION if resolution is None else float(resolution)
    span = rec["span"]
    q: dict = {}
    for name, m2 in late.get("moves", {}).items():
        direction = m2["direction"]
        if direction == SHOWN:
            continue
        m1 = early["moves"].get(name)
        per = [r.get(name, ({},))[0] for r in (at_quarter, at_half, at_n)]
        closable, g = carried_either(per, m2, direction, res, span)
        # the other side too: a slope's model at an x below the mean overturns it by moving the other way
        flip, g_other = carried_either(per, m2, FLIP[direction], res, span) if direction != STILL else (closable, g)
        q[name] = {"earlier": _short(m1), "later": _short(m2), "direction": direction, "kind": m2.get("kind"),
                   "grows": not g["shown"],
                   "closable": closable if math.isfinite(bound(m2, direction)) else math.nan,
                   "sesoi": m2.get("sesoi", sesoi), "growth": g, "closable_other_side": flip,
                   "growth_other_side": g_other}
    fold = kind in ("better", "gain_vs_reference")            # the models' moves in the gap's own unit
    models = [k for k, v in q.items() if v["kind"] == MODEL and " (reference)" not in k
              and k not in (ev.get("held_models") or {})]
    weights = slope_weights(ev, params, models) if kind == "trend" else {}
    moving = {k for k in models if q[k]["growth"].get("moving")}
    moving_other = {k for k in models if q[k].get("growth_other_side", {}).get("moving")}
    for name, v in q.items():
        values = at_n.get(name, ({},))[0]
        closable = v["closable"]
        if fold and v["kind"] == GAP and models:            # what the moving models could close the gap by
            closable = max(closable, sum(q[k]["closable"] for k in models if k in moving))
        if weights and v["kind"] == GAP:                    # what the models at each x could move the slope by
            closable = max(closable, sum(abs(w) * q[k]["closable" if w > 0 else "closable_other_side"]
                                         for k, w in weights.items() if k in (moving if w > 0 else moving_other)))
        v["closable"] = closable
        # every quantity's growth is charged into its own bound, models' into the gap's or the slope's; a
        # reference's models are gated on their own unless not moving: then read through the second part they move
        folded = (fold or bool(weights)) and name in models
        if kind == "gain_vs_reference" and " (reference)" in name and not v["growth"].get("moving"):
            folded = True
        v["holds"] = math.isfinite(closable) and _clear(v, values, closable, params, sesoi, res, folded)
    rec["quantities"] = q
    rec["held_by"] = [k for k, v in q.items() if not v["holds"]]
    rec["decided"] = bool(q) and not rec["held_by"]
    rec["why"] = words(rec) if q else "the evidence names no quantity whose moves could be carried to the horizon"
    return rec


# --- unknown budgets undecided, the assumption said (protocol 7 on, issue 59) -------------------------------------
def unknown_budget(horizon: Optional[int], n: int) -> str:
    """Fail closed: why a verdict cannot be carried to the text's budget for want of a number ("" when both are
    known)."""
    if not n:
        return "the runs' budget N is unknown, so the doublings left to the text's budget cannot be counted"
    if not horizon:
        return "the claim names no text's budget (horizon), so what more training could change cannot be bounded"
    return ""


def assumption(n: int) -> str:
    """What every verdict about trained models assumes and no test at ``n`` updates can see (protocol 7; protocol
    8's calibration adds a take-off under way whose moves sit below the noise: README, the power table)."""
    return (f"assumes no take-off after {n:,} updates, nor one under way below the noise: a curve flat up to N that "
            f"rises later looks trained to any test at N")


def carried_either(per: list, m2: dict, direction: str, res: float, span: float) -> tuple[float, dict]:
    """(what the ``span`` of doublings left could move a quantity by, its :func:`growth8`) in ``direction``; for a
    quantity that must stay still (STILL), the larger of its two sides."""
    if direction == STILL:
        sides = [(carried8(bound(m2, d), g, span), g) for d in (GROW, SHRINK) for g in [growth8(*per, d, res)]]
        best = max(sides, key=lambda cg: cg[0] if math.isfinite(cg[0]) else math.inf)
        return best[0], {**best[1], "moving": any(g.get("moving") for _, g in sides)}
    g = growth8(*per, direction, res)
    return carried8(bound(m2, direction), g, span), g


# --- growth bounded by a ratio where the moves are seen, charged where they are not (protocol 8, issue 66) -------
RATIOS = np.linspace(0.0, 4.0, 401)     # the growth ratios per doubling a quantity's moves are shown to stay under


def growth8(quarter: dict, half: dict, full: dict, direction: str, res: float) -> dict:
    """Protocol 8's reading of one quantity's two moves (per seed, at N/4, N/2 and N: {seed: value}) in the
    direction that could overturn (GROW or SHRINK):

    * ``ratio``: the smallest r in :data:`RATIOS` (0 to 4) for which the paired 95% interval of later - r x earlier
      ends at most ``res`` (one interval, the correlation of the two moves included): the later move shown to be at
      most r times the earlier, an upper bound on the growth per doubling (``shown`` where it is at most 1, as
      protocol 7 reads it); None where no r up to 4 does;
    * ``moving``: either move's 95% interval excludes 0 the overturning way (``earlier_lo``, ``later_lo`` > 0);
    * ``charge``: the growth per doubling that cannot be excluded (protocol 7's, for a quantity not moving).

    Every interval end is no narrower than ``res``."""
    sign = 1.0 if direction == GROW else -1.0
    seeds = sorted(set(quarter) & set(half) & set(full))
    x = np.array([[quarter[s], half[s], full[s]] for s in seeds], float).reshape(-1, 3)
    x = x[np.isfinite(x).all(axis=1)]
    out = {"hi": math.nan, "later_hi": math.nan, "shown": False, "ratio": None, "charge": math.nan,
           "moving": False, "n": int(len(x))}
    if len(x) < 3:
        return out
    m1, m2 = sign * (x[:, 1] - x[:, 0]), sign * (x[:, 2] - x[:, 1])
    t = intervals.t_quantile(len(x))                                                # the protocol's level
    d = m2[None, :] - RATIOS[:, None] * m1[None, :]                                  # [ratios, seeds]
    mean, half_width = d.mean(axis=1), t * d.std(axis=1, ddof=1) / math.sqrt(len(x))
    upper = np.maximum(mean + half_width, mean + res)
    ok = np.flatnonzero(upper <= res)
    ends = {}
    for name, v in (("earlier", m1), ("later", m2), ("growth", m2 - m1)):
        mu, h = float(v.mean()), t * float(v.std(ddof=1)) / math.sqrt(len(x))
        ends[name] = (min(mu - h, mu - res), max(mu + h, mu + res))
    out.update(hi=ends["growth"][1], later_hi=ends["later"][1], earlier_lo=ends["earlier"][0],
               later_lo=ends["later"][0], mean=float(np.mean(m2 - m1)))
    out["moving"] = out["earlier_lo"] > 0 or out["later_lo"] > 0
    if ok.size:
        out["ratio"] = float(RATIOS[ok[0]])
        out["shown"] = out["ratio"] <= 1.0
    out["charge"] = max(0.0, min(out["hi"], out["later_hi"]))
    return out


def carried8(b: float, g: dict, span: float) -> float:
    """What the doublings left could move a quantity by under protocol 8, from the later move's bound ``b``, its
    :func:`growth8` ``g`` and the ``span`` of doublings to the horizon (:func:`span_left`, the last in part):

    * a growth ratio bounded (``ratio`` r): the moves grow at most r a doubling: b r + b r^2 + ..., the last doubling
      in part, never less than one more move of b (protocol 7's reading where r <= 1, now up to r = 4);
    * no ratio bounds it while a move is seen (``moving``): the moves may grow without bound (inf: undecided);
    * neither move seen: a quantity that has not moved measurably over two doublings; its move a doubling may grow
      from b by the growth that cannot be excluded (``charge``), linearly over the span: span b + charge span^2 / 2
      (the integral of b + charge t over t in [0, span])."""
    if not math.isfinite(b) or not math.isfinite(g.get("charge", math.nan)):
        return math.nan
    if span <= 0:
        return 0.0
    if g.get("ratio") is not None:
        r, whole = g["ratio"], int(math.floor(span))
        total = sum(r ** j for j in range(1, whole + 1)) + (span - whole) * r ** (whole + 1)
        return float(b * max(1.0, total))
    if g.get("moving"):
        return math.inf
    return float(span * b + g["charge"] * span * span / 2)


def slope_weights(ev: dict, params: dict, models: list) -> dict:
    """Rule "trend": {model quantity "<model> at <x name> <x>": w}, how far a move of 1 in that model's
    gap at that x moves the least-squares slope (w = (x - mean) / sum (x - mean)^2, on log2 x where the rule fits
    it): where w < 0 the model overturns the slope by moving the other way (its ``closable_other_side``)."""
    x = np.asarray(ev.get("x", []), float)
    if x.size < 2:
        return {}
    xs = np.log2(x) if params.get("log2", True) else x
    w = (xs - xs.mean()) / ((xs - xs.mean()) ** 2).sum()
    label = ev.get("x_name", "x")
    out = {}
    for k in models:
        for xv, wv in zip(ev["x"], w):
            if k.endswith(f" at {label} {xv:g}"):
                out[k] = float(wv)
    return out


def _clear(v: dict, values: dict, closable: float, params: dict, sesoi: float, res: float, folded: bool) -> bool:
    """Whether a quantity, moved by ``closable`` toward overturning, leaves the verdict standing."""
    if folded:                       # a model of a gap: read through the gap it closes
        return True
    what, direction = v["kind"], v["direction"]
    if what in (GAP, PART, LEVEL) and direction in (SHRINK, GROW):
        x = np.asarray([values[s] for s in sorted(values)], float)
        x = x[np.isfinite(x)]
        if x.size < 2:
            return False
        mean, lo, hi = seed_interval(x)
        lo, hi = no_narrower(mean, lo, hi, res)
        level = params.get("level", params.get("threshold", 0.0))     # rule "level"'s level, "better"'s threshold
        floor = level if what == LEVEL else 0.0
        ceiling = level if what == LEVEL else v["sesoi"]              # a second part: its own (ref_sesoi)
        v["interval_at_n"] = [lo, hi]
        return lo - closable > floor if direction == SHRINK else hi + closable < ceiling
    return closable < v["sesoi"]


def _short(m: Optional[dict]) -> Optional[dict]:
    return None if not m else {k: m.get(k) for k in ("mean", "lo", "hi", "n")}


def words(rec: dict) -> str:
    """One clause per quantity, then what holds the verdict back."""
    parts = []
    for name, v in rec["quantities"].items():
        e, l = v["earlier"] or {}, v["later"] or {}
        g = v["growth"]
        state = (f"shown to grow at most {g['ratio']:.2f}x a doubling" if g.get("ratio") is not None else
                 "a move shown and no ratio up to 4x a doubling bounding them" if g["moving"] else
                 f"neither move shown; growth up to {g['charge']:.3f} a doubling charged")
        span = f"the {rec['span']:.1f} doublings left"
        could = "without bound" if v["closable"] == math.inf else f"{v['closable']:.3f}"
        parts.append(f"{name} moved {e.get('mean', math.nan):+.3f} then {l.get('mean', math.nan):+.3f} a doubling "
                     f"({state}); over {span} it could move {could} ({'clear' if v['holds'] else 'not clear'})")
    held = rec["held_by"]
    h = rec["horizon"]
    tail = f". At the text's {h:,} updates it could be overturned by: {', '.join(held)}" if held and h else ""
    return "; ".join(parts) + tail

"""The horizon (protocols 6-8): would a verdict about trained models still hold at the text's budget?

**Protocol 8** (issue 66; :func:`growth8`, :func:`carried8`, :func:`span_left`) reads each quantity's two moves for
a bound on their growth: a ratio r (0-4) the later move is shown to stay under, charged geometrically over the span
to the text's budget; undecided where a move is seen and no ratio bounds it; a quantity that has not moved
measurably charged its later move's bound growing linearly over the span. Models that do not move are read through
the gap or slope they move. What follows is protocol 6's design, which protocols 7 and 8 refine.

Protocol 5's doubling test asks whether the last doubling (N/2 -> N) moved anything that could overturn a verdict by
its smallest effect of interest (SESOI). A slow, steady creep passes it at every doubling and still adds up: 0.010
a doubling for the seven doublings from quick's 2,000 updates to Morita's 300,000 is 0.07. So a verdict at budget N
speaks of the text's budget H (``Claim.horizon``) only where, for every quantity that could overturn it
(``penb.claims.doubling.reads``):

1. **two doublings are there** (N/4 -> N/2 and N/2 -> N, the same seeds): with one, whether the moves shrink cannot
   be seen, and the verdict reads inconclusive with what the runs at N/4 would cost;
2. **the moves do not grow**: the later move's mean in the direction that could overturn the verdict is at most the
   earlier one's (or 0) plus the measure's resolution, unless the later move is not shown to be one (its 95%
   interval reaches 0: noise around a stopped model, which the bound below already carries). A curve that speeds up again (the records' V 64 and V 128
   GRU probes: a later move 1.3-1.8 times the earlier) is not extrapolated. A model read through the gap or the
   slope it moves ("better", "gain_vs_reference", "trend") is not gated on its own: a model that speeds up moves
   the gap or the slope faster, and their own moves are gated;
3. **what they could close leaves the verdict standing**: moves that do not grow add up to at most ``D`` times the
   later move's bound, ``b``: the end of its 95% interval on the overturning side (0 if that end lies on the other),
   over the ``D = ceil(log2(H / N))`` doublings left. Then
   * a gap found (a gap, a slope, a second part that must not shrink) keeps the lower end of its interval at N
     above 0 after losing ``C``; a gap denied keeps the upper end below the SESOI after gaining ``C``; a level
     likewise against its threshold. For "better" and "gain_vs_reference" ``C`` is the larger of the gap's own
     ``D x b`` and the sum of its two models' (both in the gap's unit);
   * a quantity that must stay still (both models of a "no gain", a held model, a checked level) moves by less
     than its SESOI in all: ``D x b`` below it.

At N >= H (``D = 0``) the doubling test alone decides. The derivation: with moves that do not grow, the move over
the k-th doubling after N is at most the last one's, and the last one's is at most ``b`` with 95% confidence; D
doublings add at most ``D x b``. It is conservative where curves saturate (their moves shrink geometrically, and
``D x b`` overstates the sum), and it says nothing of a curve that breaks out later (a plateau before a jump past N:
no doubling test sees it; ``tests/test_horizon_calibration.py`` reports it rather than requiring it).
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


def toward(m: Optional[dict], direction: str) -> float:
    """The move's mean in the direction that could overturn (its size either way for STILL)."""
    if not m or not math.isfinite(m.get("mean", math.nan)):
        return math.nan
    x = m["mean"]
    return {SHRINK: -x, GROW: x, STILL: abs(x)}[direction]


def shown(m: dict, direction: str) -> bool:
    """Whether the move's 95% interval excludes 0 on the side that could overturn (a move, not noise)."""
    lo, hi = m.get("lo", math.nan), m.get("hi", math.nan)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return True
    return {SHRINK: hi < 0, GROW: lo > 0, STILL: lo > 0 or hi < 0}[direction]


def test(kind: str, params: dict, verdict: str, ev: dict, half: Optional[dict], quarter: Optional[dict],
         budgets: tuple, sesoi: Optional[float], horizon: Optional[int], late: dict, part: Optional[str] = None,
         resolution: Optional[float] = None, protocol: int = PROTOCOL) -> dict:
    """The horizon test of ``verdict`` (rule ``kind`` on evidence ``ev`` at N, ``half`` at N/2, ``quarter`` at N/4;
    ``budgets`` = (N/2, N); ``late``: the doubling test's record of N/2 -> N). Returns {"decided", "horizon",
    "doublings", "budgets", "quantities": {name: {"earlier", "later", "grows", "closable", "holds", ...}},
    "held_by", "why"}."""
    sesoi = DEFAULT_SESOI if sesoi is None else float(sesoi)
    n = int(budgets[1]) if budgets else 0
    D = doublings_left(horizon, n)
    rec = {"decided": False, "horizon": horizon, "doublings": D, "budgets": [n // 4, n // 2, n], "quantities": {},
           "held_by": [], "why": "", "protocol": protocol,
           **({"span": span_left(horizon, n)} if protocol >= 8 else {})}
    if protocol >= 7:
        unknown = unknown_budget(horizon, n)
        if unknown:                                   # fail closed: never D = 0 for want of a number
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
        early = doubling.test(kind, params, verdict, half, quarter, (n // 4, n // 2), sesoi, protocol=5, part=part,
                              resolution=resolution)
    except (KeyError, ValueError, IndexError):
        rec["why"] = f"the runs at {n // 4:,} updates do not give this claim's evidence in full"
        return rec
    at_n = doubling.reads(kind, params, verdict, ev, 5, part)
    res = DEFAULT_RESOLUTION if resolution is None else float(resolution)
    if protocol >= 7:
        at_half = doubling.reads(kind, params, verdict, half, 5, part)
        at_quarter = doubling.reads(kind, params, verdict, quarter, 5, part)
    q: dict = {}
    for name, m2 in late.get("moves", {}).items():
        direction = m2["direction"]
        if direction == SHOWN:
            continue
        m1 = early["moves"].get(name)
        s1, s2, b2 = toward(m1, direction), toward(m2, direction), bound(m2, direction)
        if protocol >= 7:
            per = [r.get(name, ({},))[0] for r in (at_quarter, at_half, at_n)]
            span = span_left(horizon, n) if protocol >= 8 else D
            closable, g = carried_either(per, m2, direction, res, span, protocol)
            grows = not g["shown"]
            # the other side too: a slope's model at an x below the mean overturns it by moving the other way
            flip, g_other = carried_either(per, m2, FLIP[direction], res, span, protocol) if direction != STILL \
                else (closable, g)
            extra = {"growth": g, "closable_other_side": flip, "growth_other_side": g_other}
        else:
            grows = not (math.isfinite(s1) and math.isfinite(s2)) or (s2 > max(s1, 0.0) + res and shown(m2, direction))
            closable, extra = D * b2, {}
        q[name] = {"earlier": _short(m1), "later": _short(m2), "direction": direction, "kind": m2.get("kind"),
                   "grows": bool(grows), "closable": closable if math.isfinite(b2) else math.nan,
                   "sesoi": m2.get("sesoi", sesoi), **extra}
    fold = kind in ("better", "gain_vs_reference")            # the models' moves in the gap's own unit
    through = (fold or kind == "trend") and protocol < 7      # protocol 6: models read through the gap or slope
    models = [k for k, v in q.items() if v["kind"] == MODEL and " (reference)" not in k
              and k not in (ev.get("held_models") or {})]
    weights = slope_weights(ev, params, models) if protocol >= 7 and kind == "trend" else {}
    moving = {k for k in models if protocol < 8 or q[k]["growth"].get("moving")}
    moving_other = {k for k in models if protocol < 8 or q[k].get("growth_other_side", {}).get("moving")}
    for name, v in q.items():
        values = at_n.get(name, ({},))[0]
        closable = v["closable"]
        if fold and v["kind"] == GAP and models:
            closable = max(closable, sum(q[k]["closable"] for k in models if k in moving))
        if weights and v["kind"] == GAP:          # protocol 7: what the models at each x could move the slope by
            closable = max(closable, sum(abs(w) * q[k]["closable" if w > 0 else "closable_other_side"]
                                         for k, w in weights.items() if k in (moving if w > 0 else moving_other)))
        v["closable"] = closable
        folded = through and (name in models or (kind == "gain_vs_reference" and " (reference)" in name))
        # ... its growth shows in the gap's, the slope's or the second part's own moves
        if protocol >= 7:          # every quantity's growth is charged into its own bound, models' into the gap's
            folded = (fold or bool(weights)) and name in models    # a reference's models: gated on their own
            if protocol >= 8 and kind == "gain_vs_reference" and " (reference)" in name and \
                    not v.get("growth", {}).get("moving"):          # ... unless not moving: read through the second
                folded = True                                       # part it moves, as a gap's models are
            v["holds"] = math.isfinite(closable) and _clear(v, values, closable, params, sesoi, res, folded)
            continue
        v["holds"] = (folded or not v["grows"]) and math.isfinite(closable) and _clear(v, values, closable, params,
                                                                                         sesoi, res, folded)
    rec["quantities"] = q
    rec["held_by"] = [k for k, v in q.items() if not v["holds"]]
    rec["decided"] = bool(q) and not rec["held_by"]
    rec["why"] = words(rec) if q else "the evidence names no quantity whose moves could be carried to the horizon"
    return rec


# --- protocol 7 (issue 59): growth shown or charged, unknown budgets undecided, the assumption said ---------------
def unknown_budget(horizon: Optional[int], n: int) -> str:
    """Protocol 7 fails closed: why a verdict cannot be carried to the text's budget for want of a number ("" when
    both are known)."""
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


GRID = np.linspace(0.0, 1.0, 101)        # the ratios a shrinking curve is shown to stay under (protocol 7)


def growth(quarter: dict, half: dict, full: dict, direction: str, res: float) -> dict:
    """Protocol 7's reading of one quantity's two moves (per seed, at N/4, N/2 and N: {seed: value}) in the
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
    """What ``D`` doublings could move a quantity by under protocol 7, from the later move's bound ``b`` and its
    :func:`growth` ``g``: shown not to grow, the moves shrinking at the ratio shown (``b`` r + ``b`` r^2 + ... +
    ``b`` r^D, and never less than one more move of ``b``; ``D`` b at r = 1, protocol 6's bound); growth not
    excluded, each doubling adds its charge to the move before (``D`` b + charge D (D + 1) / 2): growth is charged,
    never assumed away."""
    if not math.isfinite(b) or not math.isfinite(g.get("charge", math.nan)):
        return math.nan
    if g["shown"]:
        r = g["ratio"]
        return float(b * max(1.0, sum(r ** j for j in range(1, D + 1)))) if D else 0.0
    return float(D * b + g["charge"] * D * (D + 1) / 2)


def carried_either(per: list, m2: dict, direction: str, res: float, D: int, protocol: int = PROTOCOL
                   ) -> tuple[float, dict]:
    """(what ``D`` doublings could move a quantity by, its :func:`growth`) in ``direction``; for a quantity that must
    stay still (STILL), the larger of its two sides."""
    carry, grow = (carried8, growth8) if protocol >= 8 else (carried, growth)
    if direction == STILL:
        sides = [(carry(bound(m2, d), g, D), g) for d in (GROW, SHRINK) for g in [grow(*per, d, res)]]
        best = max(sides, key=lambda cg: cg[0] if math.isfinite(cg[0]) else math.inf)
        return best[0], {**best[1], "moving": any(g.get("moving") for _, g in sides)}
    g = grow(*per, direction, res)
    return carry(bound(m2, direction), g, D), g


# --- protocol 8 (issue 66): growth bounded by a ratio where the moves are seen, charged where they are not -------
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
    """Protocol 7, rule "trend": {model quantity "<model> at <x name> <x>": w}, how far a move of 1 in that model's
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
        g = v.get("growth")
        if g is not None and "moving" in g:               # protocol 8's reading (growth8)
            state = (f"shown to grow at most {g['ratio']:.2f}x a doubling" if g.get("ratio") is not None else
                     "a move shown and no ratio up to 4x a doubling bounding them" if g["moving"] else
                     f"neither move shown; growth up to {g['charge']:.3f} a doubling charged")
        else:
            state = ('growing' if v['grows'] else 'not growing') if g is None else (
                f"later minus earlier up to {g['hi']:+.3f}: " + (f"shown not to grow, shrinking at most "
                                                                 f"{g['ratio']:.2f}x" if g["shown"] else
                                                                 f"growth not excluded, {g['charge']:.3f} a "
                                                                 f"doubling charged"))
        span = (f"the {rec['span']:.1f} doublings left" if rec.get("span") is not None else
                f"{rec['doublings']} more doublings")
        could = "without bound" if v["closable"] == math.inf else f"{v['closable']:.3f}"
        parts.append(f"{name} moved {e.get('mean', math.nan):+.3f} then {l.get('mean', math.nan):+.3f} a doubling "
                     f"({state}); over {span} it could move {could} ({'clear' if v['holds'] else 'not clear'})")
    held = rec["held_by"]
    h = rec["horizon"]
    tail = f". At the text's {h:,} updates it could be overturned by: {', '.join(held)}" if held and h else ""
    return "; ".join(parts) + tail

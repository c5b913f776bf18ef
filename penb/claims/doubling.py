"""The doubling test (protocol 4 on, as protocol 8 reads it): would more training change the verdict?

Morita's Sec. 4.1 states its own test of "trained": neither more updates nor larger batches improved the vanilla
models. A claim about trained models (``Claim.about == "trained"``) is graded at budget ``N``, and its verdict
stands only where going from ``N/2`` to ``N`` updates (the same seeds, paired) moved *each quantity that could
overturn it* by less than the claim's smallest effect of interest (SESOI), on a Student-t interval of the per-seed
moves; otherwise it is *inconclusive*, with the moves seen and what the next doubling (``2N``) would have to show.

A gap that grows while both models still learn says "A learns faster", not "A is better" (protocol 4 read the gap
alone, and equal plateaus reached at different speeds settled "PE better" in 67-100% of draws; protocol 5 read the
models too: ``tests/test_doubling_calibration.py``). Read on the claim's own measure, a gap found (``a > b``) stands
where the gap did not shrink, **the model behind (``b``) did not rise and the model ahead (``a``) did not fall**
(the latter for measures where lower is better); a gap denied where it did not grow, **``a`` did not rise and ``b``
did not fall**. ``trend``: the slope, and both models at every x (``a_by_x``, ``b_by_x``); ``gain_vs_reference``:
both parts (its second part's margin, its models and the reference's, each in the direction that could overturn
the part its verdict rests on); ``level``: the level; ``no_gain``: both models and the gap between them, each
within +-SESOI (protocol 8: two models moving apart by less than each's SESOI move the gap by more); ``check``: its
levels. Any evidence's ``held_models`` are read within +-SESOI. A constant compared with (evidence ``b_fixed``) has
no move.

No interval is narrower than the measure's resolution on either side of its mean (evidence or claim
``resolution``, by default ``DEFAULT_RESOLUTION``, 0.001: the book tells no closer values apart; a rank states its
own step), so identical values on every seed do not give an interval of zero width; a resolution stated as 0
leaves identical moves undecided. With fewer than three seeds common to both budgets, or no evidence at ``N/2``,
nothing is decided.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from penb.claims.intervals import DEFAULT_RESOLUTION, DEFAULT_SESOI, no_narrower, resolution_of, seed_interval
from penb.claims.margins import gains_over_room
from penb.claims.outcomes import NOT_REPRODUCED, REPRODUCED
from penb.claims.protocol import PROTOCOL


SHRINK, GROW, STILL, SHOWN = "shrink", "grow", "still", "shown"   # what could overturn: a fall, a rise, either; none
FLIP = {SHRINK: GROW, GROW: SHRINK, STILL: STILL, SHOWN: SHOWN}


def _per_seed(ev: dict, values) -> dict[int, float]:
    seeds = ev.get("seeds") or list(range(len(values)))
    return {int(s): float(v) for s, v in zip(seeds, values)}


def _names(ev: dict) -> tuple[str, str]:
    a, b = ev.get("a_name", "a"), ev.get("b_name", "b")
    return (a, b) if a != b else (f"{a} (a)", f"{b} (b)")


GAP, MODEL, LEVEL, PART = "gap", "model", "level", "part"      # what a quantity is (its SESOI and its count)


def reads(kind: str, params: dict, verdict: str, ev: dict,
          part: Optional[str] = None) -> dict[str, tuple[dict[int, float], str, str]]:
    """{quantity: ({seed: value}, the direction that could overturn ``verdict``, what it is: GAP, MODEL, LEVEL or
    PART)} of rule ``kind`` on evidence ``ev`` (at either budget: the directions depend on the verdict at ``N``
    only). ``part``: for rule ``gain_vs_reference``, the part a verdict rests on ("second" where the second part
    refuted it). Evidence ``held_models`` ({name: per-seed values}: models whose moves either way could overturn
    the verdict, e.g. the gains a rank is taken over) adds each of them, read within +-SESOI."""
    found = verdict != NOT_REPRODUCED or (kind == "gain_vs_reference" and part == "second")
    gap_dir = SHRINK if found else GROW
    out: dict[str, tuple[dict[int, float], str, str]] = {}
    out.update({name: (_per_seed(ev, v), STILL, MODEL) for name, v in dict(ev.get("held_models") or {}).items()})
    if kind in ("better", "gain_vs_reference", "no_gain"):
        a, b = np.asarray(ev["a"], float), np.asarray(ev["b"], float)
        a_name, b_name = _names(ev)
        if kind == "no_gain":
            out[a_name] = (_per_seed(ev, a), STILL, MODEL)
            if not ev.get("b_fixed"):
                out[b_name] = (_per_seed(ev, b), STILL, MODEL)
                out["gap"] = (_per_seed(ev, a - b), STILL, GAP)  # two models moving apart by less than each's
            return out                                             # SESOI move the gap by more (protocol 8)
        out["gap"] = (_per_seed(ev, a - b), gap_dir, GAP)
        a_dir, b_dir = gap_dir, FLIP[gap_dir]
        if kind == "gain_vs_reference" and "ref_b" in ev:
            second, a2, b2 = _second_part(ev, params, verdict, part)
            out.update(second)
            a_dir, b_dir = _both(a_dir, a2), _both(b_dir, b2)
        out[a_name] = (_per_seed(ev, a), a_dir, MODEL)
        if not ev.get("b_fixed"):
            out[b_name] = (_per_seed(ev, b), b_dir, MODEL)
        if params.get("threshold") is not None:      # a level reached could be lost, one short of it reached
            level_dir = GROW if verdict == NOT_REPRODUCED else (SHRINK if verdict == REPRODUCED else GROW)
            out[f"{ev.get('a_name', 'a')} level"] = (_per_seed(ev, a), level_dir, LEVEL)
        return out
    if kind == "level":
        a = np.asarray(ev["a"], float)
        out[f"{ev.get('a_name', 'a')} level"] = (_per_seed(ev, a), GROW if verdict == NOT_REPRODUCED else SHRINK,
                                                 LEVEL)
        return out
    if kind == "trend":
        gaps = np.asarray(ev["gaps"], float)
        if gaps.ndim != 2 or gaps.shape[1] < 2:
            return {}
        x = np.asarray(ev["x"], float)
        xs = np.log2(x) if params.get("log2", True) else x
        out["slope"] = (_per_seed(ev, np.polyfit(xs, gaps.T, 1)[0]), gap_dir, GAP)
        out.update(_models_by_x(ev, gap_dir))
        return out
    if kind == "check":
        return {name: (_per_seed({"seeds": ev.get("level_seeds")}, v), STILL, LEVEL)
                for name, v in dict(ev.get("levels", {})).items()}
    return out


def _both(first: str, second: Optional[str]) -> str:
    """One model's direction where two parts of a claim read it: the same, or STILL where they pull apart."""
    return first if second in (None, first) else STILL


def _models_by_x(ev: dict, gap_dir: str) -> dict:
    """A trend's models: both at every x (evidence ``a_by_x``, ``b_by_x``: seeds x values
    of x; ``b_fixed`` where the line is one model's own, e.g. a decline). Missing, the test has nothing to read
    them with: a quantity with no values, which decides nothing."""
    a_name, b_name = _names(ev)
    label = ev.get("x_name", "x")
    sides = [(a_name, "a_by_x", gap_dir)] + ([] if ev.get("b_fixed") else [(b_name, "b_by_x", FLIP[gap_dir])])
    if any(ev.get(key) is None for _, key, _ in sides):
        return {f"the models at each {label}": ({}, gap_dir, MODEL)}
    out = {}
    for name, key, direction in sides:
        values = np.asarray(ev[key], float)
        for j, x in enumerate(ev["x"]):
            out[f"{name} at {label} {x:g}"] = (_per_seed(ev, values[:, j]), direction, MODEL)
    return out


def _second_part(ev: dict, params: dict, verdict: str, part: Optional[str]) -> tuple[dict, Optional[str],
                                                                                      Optional[str]]:
    """``gain_vs_reference``'s second part: the difference ``d`` of the two gains over the
    room left, in the claim's direction, where the verdict rests on it; the reference's two models; and the
    directions in which this comparison's own ``a`` and ``b`` could overturn it (None where it does not rest on
    it). The gain (a - b) / (1 - b) rises with ``a`` and falls with ``b``."""
    ceiling = params.get("ceiling", 1.0)
    a, b = np.asarray(ev["a"], float), np.asarray(ev["b"], float)
    ref_b = np.asarray(ev["ref_b"], float)
    ref_a = ref_b + np.asarray(ev["ref_gain"], float)
    m = min(len(a), len(ref_b))
    larger = params.get("relation", "smaller") == "larger"
    gain, ref = gains_over_room(a[:m], b[:m], ceiling), gains_over_room(ref_a[:m], ref_b[:m], ceiling)
    d = gain - ref if larger else ref - gain
    if verdict == REPRODUCED:
        held = SHRINK                                    # the second part holds: its margin must not shrink
    elif verdict == NOT_REPRODUCED and part == "second":
        held = GROW                                      # refuted by it: the margin must not grow
    else:
        return {"second part": (_per_seed(ev, d), SHOWN, PART)}, None, None
    # d rises with this gain where the claim is "larger", falls with it where "smaller"; the reference's the reverse.
    # A quantity that raises d can overturn a margin that must not grow (GROW), one that lowers it one that must
    # not shrink (SHRINK): so the direction of a d-raiser is held, of a d-lowerer FLIP[held]
    raises_with_gain = held if larger else FLIP[held]
    a_name, b_name = _names(ev)
    return ({"second part": (_per_seed(ev, d), held, PART),
             f"{a_name} (reference)": (_per_seed(ev, ref_a[:m]), FLIP[raises_with_gain], MODEL),
             f"{b_name} (reference)": (_per_seed(ev, ref_b[:m]), raises_with_gain, MODEL)},
            raises_with_gain, FLIP[raises_with_gain])


def move(full: dict[int, float], half: dict[int, float], resolution: Optional[float] = None) -> dict:
    """The per-seed move from ``N/2`` to ``N`` over the seeds in both: {"mean", "lo", "hi", "n", "seeds",
    "zero_width"}. Identical moves on every seed give the interval ``mean +- resolution`` where the measure states
    one; without one the interval is undefined (NaN) and ``zero_width`` is set (protocol 4 took the zero-width
    interval as it came)."""
    seeds = sorted(set(full) & set(half))
    d = np.array([full[s] - half[s] for s in seeds], float)
    d = d[np.isfinite(d)]
    out = {"mean": float(d.mean()) if d.size else math.nan, "lo": math.nan, "hi": math.nan, "n": int(d.size),
           "seeds": seeds, "zero_width": False}
    if d.size < 2:
        return out
    mean, lo, hi = seed_interval(d)
    if np.all(d == d[0]) and not resolution:
        return {**out, "zero_width": True}
    return {**out, "mean": mean, **dict(zip(("lo", "hi"), no_narrower(mean, lo, hi, resolution)))}


def _holds(m: dict, direction: str, sesoi: float) -> bool:
    if direction == SHOWN:
        return True
    if m["n"] < 3 or not math.isfinite(m["lo"]):
        return False
    if direction == SHRINK:
        return m["lo"] > -sesoi
    if direction == GROW:
        return m["hi"] < sesoi
    return m["lo"] > -sesoi and m["hi"] < sesoi


def test(kind: str, params: dict, verdict: str, ev: dict, half: Optional[dict], budgets: tuple,
         sesoi: Optional[float], part: Optional[str] = None, resolution: Optional[float] = None) -> dict:
    """The doubling test of a verdict ``verdict`` of rule ``kind`` on evidence ``ev`` at budget ``N`` and
    ``half`` at ``N/2`` (``budgets`` = (N/2, N)). Returns {"decided": bool, "budgets", "sesoi", "protocol" (the
    one in force, for the record), "moves": {quantity: move + "direction" + "holds"}, "held_by": the quantities
    that keep it undecided, "why": words for readers}."""
    sesoi = DEFAULT_SESOI if sesoi is None else float(sesoi)
    rec = {"decided": False, "budgets": list(budgets), "sesoi": sesoi, "protocol": PROTOCOL, "moves": {},
           "held_by": [], "why": ""}
    if half is None:
        rec["why"] = (f"no runs at half the budget ({budgets[0]:,} updates) to test it with" if budgets[0] else
                      "no runs at half the budget to test it with")
        return rec
    resolution = resolution_of(ev.get("resolution", resolution))
    full_q = reads(kind, params, verdict, ev, part)
    half_q = reads(kind, params, verdict, half, part)
    if not full_q:
        rec["why"] = "the evidence names no quantity that the doubling test can read"
        return rec
    own = {MODEL: params.get("model_sesoi", DEFAULT_SESOI), PART: params.get("ref_sesoi", DEFAULT_SESOI)}
    for name, (values, direction, what) in full_q.items():
        # a trend's or a rank's models move in accuracy, not in the slope's or the rank's unit (nor at its
        # resolution); a second part in the unit of gains over the room left
        apart = what == MODEL and kind in ("trend", "no_gain") or what == PART or name in (ev.get("held_models") or {})
        s = own[what] if apart else sesoi
        m = move(values, half_q.get(name, ({},))[0], DEFAULT_RESOLUTION if apart else resolution)
        rec["moves"][name] = {**m, "direction": direction, "holds": _holds(m, direction, s), "kind": what,
                              **({"sesoi": s} if s != sesoi else {})}
    rec["held_by"] = [k for k, m in rec["moves"].items() if not m["holds"]]
    rec["decided"] = not rec["held_by"]
    rec["why"] = words(rec)
    return rec


def _fmt(m: dict) -> str:
    if m.get("zero_width"):
        return f"{m['mean']:+.3f} on every one of {m['n']} seeds (an interval of zero width, and no resolution stated)"
    if not math.isfinite(m["lo"]):
        return f"{m['mean']:+.3f} (over {m['n']} seeds: no interval)" if m["n"] else "(no values to read)"
    return f"{m['mean']:+.3f} [{m['lo']:+.3f}, {m['hi']:+.3f}]"


def words(rec: dict) -> str:
    """One clause per quantity (how far doubling moved it, and whether that could overturn the verdict), then
    which of them keep it undecided."""
    n_half, n = rec["budgets"]
    s = rec["sesoi"]
    parts = []
    for name, m in rec["moves"].items():
        if m["direction"] == SHOWN:
            parts.append(f"{name} moved {_fmt(m)} (shown; it cannot overturn this verdict)")
            continue
        e = m.get("sesoi", s)
        want = {SHRINK: f"above -{e:g}", GROW: f"below +{e:g}", STILL: f"within +-{e:g}"}[m["direction"]]
        parts.append(f"{name} moved {_fmt(m)} from {n_half:,} to {n:,} updates (needs {want}: "
                     f"{'holds' if m['holds'] else 'fails'})")
    held = rec.get("held_by") or []
    tail = f". Undecided because of: {', '.join(held)}" if held else ""
    return "; ".join(parts) + tail


def next_step(rec: dict) -> str:
    """What would decide an undecided verdict: the next doubling and what it has to show."""
    n = rec["budgets"][1]
    failing = [k for k, m in rec["moves"].items() if not m["holds"]]
    if not n:
        return "runs at half the budget on the same seeds, which this chapter does not train yet"
    if not rec["moves"]:
        return f"train {n // 2:,} and {n:,} updates on the same seeds"
    cost = rec.get("next_cost") or {}
    cpu = f"about {cost['cpu_min']:,.0f} CPU-minutes on one core, or " if cost.get("cpu_min") is not None else ""
    price = (f" ({cost['runs']} runs: {cpu}{cost['gpu_min']:,.1f} GPU-minutes on an H100 by "
             "penb.executors.cost)") if cost.get("runs") else ""
    return (f"train {2 * n:,} updates{price} and show that {', '.join(failing)} then moves by less than "
            f"{rec['sesoi']:g} from {n:,}, or more seeds to narrow the move's interval")

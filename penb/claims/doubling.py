"""The doubling test (grading protocols 4 and 5): would more training change the verdict?

Morita's Sec. 4.1 states its own test of "trained": neither more updates nor larger batches improved the vanilla
models. A claim about trained models (``Claim.about == "trained"``) is graded at budget ``N``, and its verdict
stands only where going from ``N/2`` to ``N`` updates moved *each quantity that could overturn it* by less than
the claim's smallest effect of interest (SESOI), on a Student-t interval of the per-seed moves (the same seeds at
both budgets, paired; per seed, move = value at ``N`` - value at ``N/2``). Otherwise the verdict is
*inconclusive*, with the moves seen and what the next doubling (``2N``) would have to show.

**Protocol 4** (2026-11-26) read, for "A better than B" (rules ``better``, ``gain_vs_reference``) and ``trend``,
the gap (or slope) alone: a gap found stood when it did not shrink, a gap denied when it did not grow.

**Protocol 5** (written 2026-11-27, before any confirmation run was read with it; issue 41's review): a gap that
grows while both models still learn says "A learns faster", not "A is better" (simulated: equal plateaus reached
at different speeds settled "PE better" in 68-100% of draws under protocol 4, ``tests/test_doubling_calibration.py``).
Morita's test is about the *model behind*: more training did not improve it. So, read on the claim's own measure:

* a gap found (*reproduced*, *direction only*, ``a > b``): the gap did not shrink (interval above ``-SESOI``),
  **and the model behind (``b``) did not rise** (interval below ``+SESOI``), **and the model ahead (``a``) did not
  fall** (above ``-SESOI``; the same test for a measure where lower is better, e.g. a loss);
* a gap denied (*not reproduced*): the gap did not grow, **the model that would have to pull ahead (``a``) did
  not rise, and ``b`` did not fall** (each below ``+SESOI`` in the direction that would open the gap);
* ``trend``: the per-seed slope as a gap, and both models at every x (``a_by_x``, ``b_by_x``: seeds x values) as
  above; ``gain_vs_reference``: its first part as a gap, its second part (the two gains over the room left) in the
  direction its verdict rests on, and the reference comparison's two models as a gap's models;
* ``level``, ``no_gain`` and ``check`` as in protocol 4: the level named (in the direction that could overturn),
  both models within ``(-SESOI, +SESOI)``, each named level within it.

A side that is a constant (evidence ``b_fixed``: a 0 or a ceiling to compare with, not a model) has no move.
An interval of zero width decides nothing: no interval is narrower than the measure's resolution on either side
of its mean (evidence or claim ``resolution``: the step between the values it can take; by default
``DEFAULT_RESOLUTION``, 0.001), and a resolution stated as 0 leaves identical moves undecided. With fewer than three seeds common to both
budgets, or no evidence at ``N/2``, nothing is decided either.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from penb.claims.intervals import DEFAULT_RESOLUTION, DEFAULT_SESOI, seed_interval
from penb.claims.protocol import PROTOCOL

SHRINK, GROW, STILL, SHOWN = "shrink", "grow", "still", "shown"   # what could overturn: a fall, a rise, either; none
FLIP = {SHRINK: GROW, GROW: SHRINK, STILL: STILL, SHOWN: SHOWN}


def _per_seed(ev: dict, values) -> dict[int, float]:
    seeds = ev.get("seeds") or list(range(len(values)))
    return {int(s): float(v) for s, v in zip(seeds, values)}


def _names(ev: dict) -> tuple[str, str]:
    a, b = ev.get("a_name", "a"), ev.get("b_name", "b")
    return (a, b) if a != b else (f"{a} (a)", f"{b} (b)")


def reads(kind: str, params: dict, verdict: str, ev: dict, protocol: int = PROTOCOL,
          part: Optional[str] = None) -> dict[str, tuple[dict[int, float], str]]:
    """{quantity: ({seed: value}, the direction that could overturn ``verdict``)} of rule ``kind`` on evidence
    ``ev`` (at either budget: the directions depend on the verdict at ``N`` only). ``part``: for rule
    ``gain_vs_reference``, the part a verdict rests on ("second" where the second part refuted it)."""
    from penb.claims.outcomes import NOT_REPRODUCED, REPRODUCED

    found = verdict != NOT_REPRODUCED or (kind == "gain_vs_reference" and part == "second")
    gap_dir = SHRINK if found else GROW
    out: dict[str, tuple[dict[int, float], str]] = {}
    if kind in ("better", "gain_vs_reference", "no_gain"):
        a, b = np.asarray(ev["a"], float), np.asarray(ev["b"], float)
        a_name, b_name = _names(ev)
        if kind == "no_gain":
            return {a_name: (_per_seed(ev, a), STILL), **({} if ev.get("b_fixed") and protocol >= 5 else
                                                          {b_name: (_per_seed(ev, b), STILL)})}
        out["gap"] = (_per_seed(ev, a - b), gap_dir)
        if protocol >= 5:
            out[a_name] = (_per_seed(ev, a), gap_dir)
            if not ev.get("b_fixed"):
                out[b_name] = (_per_seed(ev, b), FLIP[gap_dir])
        if params.get("threshold") is not None:      # a level reached could be lost, one short of it reached
            level_dir = GROW if verdict == NOT_REPRODUCED else (SHRINK if verdict == REPRODUCED else GROW)
            out[f"{ev.get('a_name', 'a')} level"] = (_per_seed(ev, a), level_dir)
        if kind == "gain_vs_reference" and protocol >= 5 and "ref_b" in ev:
            out.update(_second_part(ev, params, verdict, part))
        return out
    if kind == "level":
        a = np.asarray(ev["a"], float)
        return {f"{ev.get('a_name', 'a')} level": (_per_seed(ev, a), GROW if verdict == NOT_REPRODUCED else SHRINK)}
    if kind == "trend":
        gaps = np.asarray(ev["gaps"], float)
        if gaps.ndim != 2 or gaps.shape[1] < 2:
            return {}
        x = np.asarray(ev["x"], float)
        xs = np.log2(x) if params.get("log2", True) else x
        out["slope"] = (_per_seed(ev, np.polyfit(xs, gaps.T, 1)[0]), gap_dir)
        if protocol >= 5:
            out.update(_models_by_x(ev, gap_dir))
        return out
    if kind == "check":
        return {name: (_per_seed({"seeds": ev.get("level_seeds")}, v), STILL)
                for name, v in dict(ev.get("levels", {})).items()}
    return out


def _models_by_x(ev: dict, gap_dir: str) -> dict:
    """Protocol 5's reading of a trend: both models at every x (evidence ``a_by_x``, ``b_by_x``: seeds x values
    of x; ``b_fixed`` where the line is one model's own, e.g. a decline). Missing, the test has nothing to read
    them with: a quantity with no values, which decides nothing."""
    a_name, b_name = _names(ev)
    label = ev.get("x_name", "x")
    sides = [(a_name, "a_by_x", gap_dir)] + ([] if ev.get("b_fixed") else [(b_name, "b_by_x", FLIP[gap_dir])])
    if any(ev.get(key) is None for _, key, _ in sides):
        return {f"the models at each {label}": ({}, gap_dir)}
    out = {}
    for name, key, direction in sides:
        values = np.asarray(ev[key], float)
        for j, x in enumerate(ev["x"]):
            out[f"{name} at {label} {x:g}"] = (_per_seed(ev, values[:, j]), direction)
    return out


def _second_part(ev: dict, params: dict, verdict: str, part: Optional[str]) -> dict:
    """Protocol 5's reading of ``gain_vs_reference``'s second part: the difference of the two gains over the room
    left, in the claim's direction (it stands where the verdict rests on it), and the reference's two models."""
    from penb.claims.margins import gains_over_room
    from penb.claims.outcomes import NOT_REPRODUCED, REPRODUCED

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
        return {"second part": (_per_seed(ev, d), SHOWN)}
    # the reference gain could overturn it by shrinking (a "smaller" claim) or growing (a "larger" one)
    ref_dir = (GROW if larger else SHRINK) if held == SHRINK else (SHRINK if larger else GROW)
    a_name, b_name = _names(ev)
    return {"second part": (_per_seed(ev, d), held),
            f"{a_name} (reference)": (_per_seed(ev, ref_a[:m]), ref_dir),
            f"{b_name} (reference)": (_per_seed(ev, ref_b[:m]), FLIP[ref_dir])}


def move(full: dict[int, float], half: dict[int, float], resolution: Optional[float] = None,
         strict: bool = True) -> dict:
    """The per-seed move from ``N/2`` to ``N`` over the seeds in both: {"mean", "lo", "hi", "n", "seeds",
    "zero_width"}. ``strict`` (protocol 5): identical moves on every seed give the interval ``mean +-
    resolution`` where the measure states one; without one the interval is undefined (NaN) and ``zero_width`` is
    set. Protocol 4 took the zero-width interval as it came."""
    seeds = sorted(set(full) & set(half))
    d = np.array([full[s] - half[s] for s in seeds], float)
    d = d[np.isfinite(d)]
    out = {"mean": float(d.mean()) if d.size else math.nan, "lo": math.nan, "hi": math.nan, "n": int(d.size),
           "seeds": seeds, "zero_width": False}
    if d.size < 2:
        return out
    mean, lo, hi = seed_interval(d)
    if not strict:
        return {**out, "mean": mean, "lo": lo, "hi": hi}
    if np.all(d == d[0]):
        if not resolution:
            return {**out, "zero_width": True}
        lo, hi = mean - resolution, mean + resolution
    elif resolution:
        lo, hi = min(lo, mean - resolution), max(hi, mean + resolution)
    return {**out, "mean": mean, "lo": lo, "hi": hi}


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
         sesoi: Optional[float], protocol: int = PROTOCOL, part: Optional[str] = None,
         resolution: Optional[float] = None) -> dict:
    """The doubling test of a verdict ``verdict`` of rule ``kind`` on evidence ``ev`` at budget ``N`` and
    ``half`` at ``N/2`` (``budgets`` = (N/2, N)) under ``protocol`` (4 or 5). Returns {"decided": bool,
    "budgets", "sesoi", "protocol", "moves": {quantity: move + "direction" + "holds"}, "held_by": the quantities
    that keep it undecided, "why": words for readers}."""
    sesoi = DEFAULT_SESOI if sesoi is None else float(sesoi)
    rec = {"decided": False, "budgets": list(budgets), "sesoi": sesoi, "protocol": protocol, "moves": {},
           "held_by": [], "why": ""}
    if half is None:
        rec["why"] = (f"no runs at half the budget ({budgets[0]:,} updates) to test it with" if budgets[0] else
                      "no runs at half the budget to test it with")
        return rec
    resolution = ev.get("resolution", resolution)
    resolution = DEFAULT_RESOLUTION if resolution is None else resolution
    full_q = reads(kind, params, verdict, ev, protocol, part)
    half_q = reads(kind, params, verdict, half, protocol, part)
    if not full_q:
        rec["why"] = "the evidence names no quantity that the doubling test can read"
        return rec
    model_sesoi = params.get("model_sesoi", DEFAULT_SESOI)     # a trend's models move in the measure's own unit
    for name, (values, direction) in full_q.items():
        m = move(values, half_q.get(name, ({}, direction))[0], resolution, strict=protocol >= 5)
        s = model_sesoi if kind == "trend" and name != "slope" else sesoi
        rec["moves"][name] = {**m, "direction": direction, "holds": _holds(m, direction, s),
                              **({"sesoi": s} if s != sesoi else {})}
    rec["held_by"] = [k for k, m in rec["moves"].items() if not m["holds"]]
    rec["decided"] = not rec["held_by"]
    rec["why"] = words(rec)
    return rec


def settle(kind: str, params: dict, ev: dict, half: Optional[dict], budgets: tuple, sesoi: float,
           protocol: int = PROTOCOL, resolution: Optional[float] = None) -> tuple[str, bool]:
    """(the rule's verdict at ``N``, whether the doubling test under ``protocol`` lets it stand), as
    :func:`penb.claims.grade` composes them for a claim about trained models, without recording anything (the
    calibration on simulated curves, ``tests/test_doubling_calibration.py``)."""
    from penb.claims.grading import Rule, apply

    resolution = ev.get("resolution", resolution)
    resolution = DEFAULT_RESOLUTION if resolution is None else resolution
    verdict, _, _, detail = apply(Rule(kind, "", params), ev, protocol=protocol, sesoi=sesoi, resolution=resolution)
    if protocol >= 5 and not resolution and detail.get("sd") == 0.0:
        return verdict, False                            # an interval of zero width decides nothing
    rec = test(kind, params, verdict, ev, half, budgets, sesoi, protocol, detail.get("part"), resolution)
    return verdict, rec["decided"]


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

"""Grading protocol 4: the doubling test. Would more training change the verdict?

Morita's Sec. 4.1 states its own test of "trained": neither more updates nor larger batches improved the vanilla
models. Protocol 4 makes it the test of every claim about trained models (``Claim.about == "trained"``): the
claim is graded at budget ``N``, and its verdict stands only where going from ``N/2`` to ``N`` updates moved
*the quantity that could overturn it* by less than the claim's smallest effect of interest (SESOI), judged on a
Student-t interval over the seeds (the same seeds at both budgets, paired). Otherwise the verdict is
*inconclusive*, with the move seen and what the next doubling (``2N``) would have to show.

**The rule** (written on 2026-11-26, before any confirmation run of protocol 4 was read):

* the quantity is the claim's own evidence at each budget, computed by the chapter with the same function on
  the runs of each budget (RARE targets for Sec. 4.2, positions for "where", the loss for a language model);
  per seed, its *move* is (value at ``N``) - (value at ``N/2``);
* "A better than B" (rules ``better``, ``gain_vs_reference``): the gap ``a - b``. A verdict that the gap exists
  (*reproduced*, *direction only*) could be overturned by the gap shrinking: it stands when the move's interval
  lies above ``-SESOI``. A *not reproduced* (no gap, or the opposite) could be overturned by the gap growing:
  it stands when the interval lies below ``+SESOI``;
* a trend (rule ``trend``): the per-seed slope, read as a gap is;
* a level the text states (rule ``level``, or ``better`` with a ``threshold``): the level of the model named, in
  the direction that could overturn the verdict (a rise for a level not reached, a fall for one reached);
* "no gain" (rule ``no_gain``): both models: each model's move lies within ``(-SESOI, +SESOI)``, since either
  one still moving could open the gap the claim denies;
* a check (rule ``check``) about trained models: the per-seed ``levels`` that the chapter names in the
  evidence, each within ``(-SESOI, +SESOI)``; a check with no levels cannot be tested for training.

With fewer than three seeds common to both budgets, or no evidence at ``N/2``, nothing is decided by the test.
A trained model passes it by construction of the rule; a model still learning in the quantity that matters
fails it; a model still polishing in a way that cannot overturn the verdict (the better model rising further)
passes it, which protocol 3's rise criterion did not allow.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from penb.claims.intervals import DEFAULT_SESOI, seed_interval

SHRINK, GROW, STILL = "shrink", "grow", "still"     # which move could overturn: a fall, a rise, either


def _per_seed(ev: dict, values) -> dict[int, float]:
    seeds = ev.get("seeds") or list(range(len(values)))
    return {int(s): float(v) for s, v in zip(seeds, values)}


def quantities(kind: str, params: dict, ev: dict) -> dict[str, dict[int, float]]:
    """{name: {seed: value}} of the quantities of rule ``kind`` that more training could move."""
    if kind in ("better", "gain_vs_reference", "no_gain"):
        a, b = np.asarray(ev["a"], float), np.asarray(ev["b"], float)
        out = {"gap": _per_seed(ev, a - b)}
        if kind == "no_gain":
            out = {ev.get("a_name", "a"): _per_seed(ev, a), ev.get("b_name", "b"): _per_seed(ev, b)}
        elif params.get("threshold") is not None:
            out[f"{ev.get('a_name', 'a')} level"] = _per_seed(ev, a)
        return out
    if kind == "level":
        return {f"{ev.get('a_name', 'a')} level": _per_seed(ev, np.asarray(ev["a"], float))}
    if kind == "trend":
        gaps = np.asarray(ev["gaps"], float)
        x = np.log2(np.asarray(ev["x"], float)) if params.get("log2", True) else np.asarray(ev["x"], float)
        if gaps.ndim != 2 or gaps.shape[1] < 2:
            return {}
        return {"slope": _per_seed(ev, np.polyfit(x, gaps.T, 1)[0])}
    if kind == "check":
        return {name: _per_seed({"seeds": ev.get("level_seeds")}, v) for name, v in dict(ev.get("levels", {})).items()}
    return {}


def _direction(kind: str, name: str, verdict: str) -> str:
    from penb.claims.grading import NOT_REPRODUCED

    if kind in ("no_gain", "check"):
        return STILL
    if kind == "level":                 # a level reached could be lost, one not reached could be reached
        return GROW if verdict == NOT_REPRODUCED else SHRINK
    if name.endswith(" level") and verdict != NOT_REPRODUCED:
        # a level reached could be lost (a fall), a level short of the text's (direction only) could be reached
        return SHRINK if verdict == "reproduced" else GROW
    return GROW if verdict == NOT_REPRODUCED else SHRINK


def move(full: dict[int, float], half: dict[int, float]) -> dict:
    """The per-seed move from ``N/2`` to ``N`` over the seeds in both: {"mean", "lo", "hi", "n", "seeds"}."""
    seeds = sorted(set(full) & set(half))
    d = np.array([full[s] - half[s] for s in seeds], float)
    d = d[np.isfinite(d)]
    if d.size < 2:
        return {"mean": float(d.mean()) if d.size else math.nan, "lo": math.nan, "hi": math.nan, "n": int(d.size),
                "seeds": seeds}
    mean, lo, hi = seed_interval(d)
    return {"mean": mean, "lo": lo, "hi": hi, "n": int(d.size), "seeds": seeds}


def _holds(m: dict, direction: str, sesoi: float) -> bool:
    if m["n"] < 3 or not math.isfinite(m["lo"]):
        return False
    if direction == SHRINK:
        return m["lo"] > -sesoi
    if direction == GROW:
        return m["hi"] < sesoi
    return m["lo"] > -sesoi and m["hi"] < sesoi


def test(kind: str, params: dict, verdict: str, ev: dict, half: Optional[dict], budgets: tuple,
         sesoi: Optional[float]) -> dict:
    """The doubling test of a verdict ``verdict`` of rule ``kind`` on evidence ``ev`` at budget ``N`` and
    ``half`` at ``N/2`` (``budgets`` = (N/2, N)). Returns {"decided": bool, "budgets", "sesoi", "moves":
    {quantity: move + "direction" + "holds"}, "why": words for readers}."""
    sesoi = DEFAULT_SESOI if sesoi is None else float(sesoi)
    rec = {"decided": False, "budgets": list(budgets), "sesoi": sesoi, "moves": {}, "why": ""}
    if half is None:
        rec["why"] = (f"no runs at half the budget ({budgets[0]:,} updates) to test it with" if budgets[0] else
                      "no runs at half the budget to test it with")
        return rec
    full_q, half_q = quantities(kind, params, ev), quantities(kind, params, half)
    if not full_q:
        rec["why"] = "the evidence names no quantity that the doubling test can read"
        return rec
    for name, values in full_q.items():
        m = move(values, half_q.get(name, {}))
        direction = _direction(kind, name, verdict)
        rec["moves"][name] = {**m, "direction": direction, "holds": _holds(m, direction, sesoi)}
    rec["decided"] = all(m["holds"] for m in rec["moves"].values())
    rec["why"] = words(rec)
    return rec


def _fmt(m: dict) -> str:
    if not math.isfinite(m["lo"]):
        return f"{m['mean']:+.3f} (over {m['n']} seeds: no interval)"
    return f"{m['mean']:+.3f} [{m['lo']:+.3f}, {m['hi']:+.3f}]"


def words(rec: dict) -> str:
    """One sentence per quantity: how far doubling moved it, and whether that could overturn the verdict."""
    n_half, n = rec["budgets"]
    s = rec["sesoi"]
    parts = []
    for name, m in rec["moves"].items():
        want = {SHRINK: f"above -{s:g}", GROW: f"below +{s:g}", STILL: f"within +-{s:g}"}[m["direction"]]
        parts.append(f"{name} moved {_fmt(m)} from {n_half:,} to {n:,} updates (needs {want}: "
                     f"{'holds' if m['holds'] else 'fails'})")
    return "; ".join(parts)


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

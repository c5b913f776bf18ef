"""A slice that sizes itself on the device it runs on (issue 50, item 3).

The written rule (:data:`RULE`, before any slice confirmation run; it reads the device's speed, never a verdict):

* the runs are the slice preset's (its cells and its seeds: at least ``SLICE_SEEDS`` = 5 confirmation seeds), each
  model's budget ``N = base N x 2^j`` (the base preset's N: quick's for ``slice``), trained as WSD branches N/4, N/2
  and N of one trunk (the preset's ``earlier``);
* in its first seconds the call measures, on this device, one update of each batch it will train: a few updates of
  the batch itself, uncompiled (:func:`measure`). A batch that trains eager is charged its updates at that rate; one
  that will compile (``penb.trainer.policy.compiles``: on CUDA, 2,000 updates or more) is charged
  :data:`COMPILE_ALLOWANCE_S` plus its eager seconds over the compiled speed-up measured at its number of runs
  (``penb.executors.cost.compiled_speedup``: 10.6x at K = 10 on an H100, 2.0x at K = 1,024 on an H200, log-linear in
  K between; on the CPU its eager seconds, an upper bound) (:func:`estimate`);
* ``j`` is the largest in ``[J_MIN, J_MAX]`` whose batches (their updates x the measured seconds per update, plus the
  compile allowances), the measuring itself and the call's overhead (``penb.call.limits.OVERHEAD_S``) fit the call's
  minutes.
* **Never refused** (version 3, issue 60, before any call sized by it): where no such ``j`` fits, the call trains
  less, in this order, and stops at the first that fits: the base N (``j = 0``); N and N/2 only (``earlier = 0``);
  the first model only; then that plan's batches in order, as many as fit, and at least the first (cut by the
  deadline if it must be: its runs keep their checkpoints for the next call). Each step taken is recorded
  (``fallbacks``: what was tried, what it needed, and why the next was taken), in the manifest and in
  ``device_run.json``.

Version 2 of the rule (2026-11-27, before any slice had trained: nothing was graded under version 1). Version 1
charged every compiled batch 90 s plus its eager seconds over 2, the speed-up measured at K = 1,024. On the first
lent H100 it refused key findings alone three times (4.1 to 5.8 minutes): its batches are small (LSTM K = 10, GRU
K = 30), where an eager CUDA update is launch-bound and the graph ran 10.6x the eager batch, and compiling took up to
114 s (benchmarks/README.md, "On an H100").

The manifest records the measured seconds per update of every batch shape, the chosen ``j`` and budgets, and the
estimate against the minutes spent (``penb.call.slice.collect``).
"""
from __future__ import annotations

import json
import time
from typing import Callable, Optional

import torch

from penb import presets
from penb.sizing import FIXED_TARGETS   # presets of fixed targets: a call trains toward them, depth first, and the next continues
from penb.executors import cost         # cost.chosen_seconds read at the call: tests/test_call.py replaces it
from penb.executors.cost import CUDA_COMPILE_ALLOWANCE_S as COMPILE_ALLOWANCE_S   # 120 s a compiled batch
from penb.executors.cost import compile_choice, timed_updates
from penb.trainer import Trainer, group_key

J_MIN, J_MAX = 1, 6           # quick's N x 2 (the smallest slice budget beyond quick) to quick's N x 64
RULE_VERSION = 3
MEASURE_UPDATES = 5           # timed uncompiled updates per batch shape, after one untimed
FIGURE_BATCH = 1024           # ... with a figure's runs of one shape in one batch (the slice's batch_runs, issue 48):
                              # the deep GRU figure is 3 batches (N, then the N/2 and N/4 decays) of 40 runs


def call_overrides(preset: str, overrides: Optional[dict], device: str) -> dict:
    """A device call's parameters for ``preset``: ``overrides``, on the CPU ``device="cpu"``, and for a fixed-target
    preset the figure in one batch per shape (:data:`FIGURE_BATCH`) unless given."""
    out = {**(overrides or {}), **({"device": "cpu"} if device == "cpu" else {})}
    if preset in FIXED_TARGETS:
        out.setdefault("batch_runs", FIGURE_BATCH)
    return out


RULE = (f"penb.call.fit.RULE v{RULE_VERSION} (issues 50 and 60): the slice preset's cells and seeds, each "
        f"model's N = base N x 2^j for the largest j in [{J_MIN}, {J_MAX}] whose batches fit the call at this device's "
        f"measured (uncompiled) seconds per update (a compiled batch: {COMPILE_ALLOWANCE_S:g} s plus its eager seconds "
        f"over the compiled speed-up measured at its number of runs); where none fits, less (j = 0, then N and N/2 "
        f"only, then one model, then as many batches as fit, at least one), each step recorded: never refused")


def base_budgets(chapter: str, preset: str, overrides: Optional[dict] = None) -> dict[str, int]:
    """{core: N} of the base preset (quick's for ``slice``; a preset's own otherwise, as smoke in the rehearsal) for
    the cores the slice trains."""
    cfg = presets.resolve(chapter, preset, **(overrides or {}))
    base = presets.resolve(chapter, "quick" if preset == "slice" else preset,
                           **{k: v for k, v in (overrides or {}).items() if k not in ("per_core",)})
    return {core: base.per_core.get(core, {}).get("steps", base.steps) for core in cfg.cores}


def overrides_at(chapter: str, preset: str, j: int, overrides: Optional[dict] = None) -> dict:
    """The overrides that make ``preset``'s runs of ``chapter`` train each model ``base N x 2^j`` updates."""
    cfg = presets.resolve(chapter, preset, **(overrides or {}))
    budgets = {core: n * 2 ** j for core, n in base_budgets(chapter, preset, overrides).items()}
    per_core = {core: {**cfg.per_core.get(core, {}), "steps": n} for core, n in budgets.items()}
    return {**(overrides or {}), "per_core": per_core, "checkpoint_every": max(budgets.values())}


def measure(configs: list, updates: int = MEASURE_UPDATES) -> float:
    """Seconds per update of ``configs`` trained here as the trainer trains them, uncompiled: as one batch, or, where
    a batch does not pay (``penb.trainer.policy.batch_pays``: the CPU's LSTM), one run at a time (the mean over
    ``updates`` after one untimed update, times the runs per packing)."""
    t = Trainer(configs, compile="never")
    seconds = timed_updates(t, updates)
    packed = len(t.batch.slots) if t.batch is not None else len(configs)   # a batch that does not pay trains
    return seconds / updates * len(configs) / packed                          # its runs one at a time


def size(chapters: list[str], preset: str, overrides: Optional[dict], minutes: float, planner: Callable,
         overhead_s: float, timer: Callable[[list], float] = measure, clock: Callable[[], float] = time.monotonic,
         charge_device: Optional[str] = None, fixed: Optional[dict] = None) -> dict:
    """Apply the rule with ``planner`` (``penb.call.slice.contents``) and the call's ``overhead_s``: {"j", "overrides",
    "plan" (the plan chosen, each batch's "seconds" the rule's estimate), "seconds_per_update" ({batch shape: s}),
    "measure_s", "estimate_s", "fits" (False only where even the first batch runs past the call), "fallbacks" (the
    steps down the ladder, [] where a j in [J_MIN, J_MAX] fits)}. Never refuses (the module's docstring).
    ``charge_device``: charge the batches as on that device (a dry run here charges as CUDA does). ``fixed``: the
    overrides an earlier call was sized to (its manifest's ``sizing``): the targets stay, the call trains what is
    left of them (as many batches as fit), and no other j is tried."""
    start = clock()
    first = ({ch: dict(overrides or {}) for ch in chapters} if preset in FIXED_TARGETS
             else {ch: overrides_at(ch, preset, J_MIN, overrides) for ch in chapters})
    per: dict = {}
    for b in planner(chapters, preset, _merged(first)).get("batches", []):
        shape = (group_key(b["configs"][0]), len(b["configs"]))
        if shape not in per:
            per[shape] = timer(b["configs"])
    spent = clock() - start
    budget = minutes * 60 - spent - overhead_s

    def charge(p: dict) -> float:                     # each batch's seconds and compile choice; the plan's total
        for b in p["batches"]:
            each = per.get((group_key(b["configs"][0]), len(b["configs"])), max(per.values(), default=0.0))
            b["seconds"] = estimate(b["configs"], b["updates"], each, charge_device)
            b["compile"] = compile_for(b["configs"], b["updates"], each, charge_device)
            b["measured"] = True
        return sum(b["seconds"] for b in p["batches"])

    def charged(extra: dict, j: int) -> tuple[dict, dict, float]:
        ov = {ch: overrides_at(ch, preset, j, {**(overrides or {}), **extra}) for ch in chapters}
        p = planner(chapters, preset, _merged(ov))
        return ov, p, charge(p)

    def result(j, ov, p, est, fallbacks, fits=True) -> dict:
        return {"j": j, "overrides": _merged(ov), "plan": p, "measure_s": round(spent, 1), "estimate_s": round(est, 1),
                "rule": RULE, "fits": fits, "fallbacks": fallbacks,
                "seconds_per_update": {f"{json_shape(k)} x{n}": round(v, 5) for (k, n), v in per.items()}}

    what = "the earlier call's budgets"
    if fixed is None and preset in FIXED_TARGETS:
        fixed, what = dict(overrides or {}), f"the {preset} preset's fixed targets"   # never scaled by j
    if fixed is not None:                              # calls continue each other toward the same targets
        p = planner(chapters, preset, fixed)
        est = charge(p)
        if est <= budget:
            return result("continued", {"": fixed}, p, est, [])
        return _as_many_as_fit("continued", {"": fixed}, p, budget, spent, overhead_s, result, [
            {"tried": what, "needs_min": round((est + spent + overhead_s) / 60, 2),
             "why": "does not fit this call"}])
    lowest = J_MIN if preset == "slice" else 0
    for j in range(J_MAX, lowest - 1, -1):
        ov, p, est = charged({}, j)
        if est <= budget:
            return result(j, ov, p, est, [])
    fallbacks = [{"tried": f"N = base N x 2^{lowest} and up", "needs_min": round((est + spent + overhead_s) / 60, 2),
                  "why": f"not even j = {lowest} fits {minutes:g} minutes at the measured rates"}]
    cores = presets.resolve(chapters[0], preset, **(overrides or {})).get("cores") or ()
    ladder = ([("the base N (j = 0)", {}, 0)] if lowest > 0 else []) + [
        ("N and N/2 only (earlier = 0)", {"earlier": 0}, 0)]
    if len(cores) > 1:
        ladder.append((f"one model ({cores[0]})", {"earlier": 0, "cores": (cores[0],)}, 0))
    for what, extra, j in ladder:
        ov, p, est = charged(extra, j)
        fits = est <= budget
        fallbacks.append({"tried": what, "needs_min": round((est + spent + overhead_s) / 60, 2),
                          "why": "fits" if fits else "does not fit either"})
        if fits:
            return result(j, ov, p, est, fallbacks)
    return _as_many_as_fit(j, ov, p, budget, spent, overhead_s, result, fallbacks)


def _as_many_as_fit(j, ov: dict, p: dict, budget: float, spent: float, overhead_s: float, result: Callable,
                    fallbacks: list) -> dict:
    """The last rung: plan ``p``'s batches in order, as many as fit ``budget`` seconds, and at least the first."""
    keep, total = [], 0.0
    for b in p["batches"]:
        if keep and total + b["seconds"] > budget:
            break
        keep.append(b)
        total += b["seconds"]
    fallbacks.append({"tried": f"the first {len(keep)} of {len(p['batches'])} batches of the last plan",
                      "needs_min": round((total + spent + overhead_s) / 60, 2),
                      "why": "the rest are left for the next call" + (
                          "; the first batch alone runs past the call and is cut by its deadline"
                          if total > budget else "")})
    p["batches"] = keep
    return result(j, ov, p, total, fallbacks, fits=total <= budget)


def estimate(configs: list, updates: int, eager_s: float, device: Optional[str] = None) -> float:
    """The rule's seconds for one batch of ``updates`` at ``eager_s`` measured seconds per uncompiled update: as
    measured where it trains eager, else :data:`COMPILE_ALLOWANCE_S` plus its eager seconds over the compiled
    speed-up measured at its number of runs (``penb.executors.cost.compiled_speedup``; the CPU's compiled
    batches are charged eager). Since rule v3 a batch compiles only where that charge is below its eager seconds
    (``penb.executors.cost.chosen_seconds``; :func:`compile_for` tells the trainer)."""
    return cost.chosen_seconds(torch.device(device or configs[0]["device"]), len(configs), updates, eager_s)


def compile_for(configs: list, updates: int, eager_s: float, device: Optional[str] = None) -> str:
    """Whether the trainer compiles this batch ("always" or "never"): only where its charge is below its eager
    seconds (``penb.executors.cost.compile_choice``, issue 60); the call's driver passes it to the trainer."""
    return compile_choice(torch.device(device or configs[0]["device"]), len(configs), updates, eager_s)


def _merged(per_chapter: dict) -> dict:
    """One chapter's overrides (a slice plans its chapters with one set of parameters)."""
    values = list(per_chapter.values())
    return values[0] if len(values) == 1 else {k: v for d in values for k, v in d.items()}


def json_shape(key: str) -> str:
    c = json.loads(key)
    return f"{c.get('core')} h{c.get('hidden')} L{c.get('length')} B{c.get('batch_size')}"

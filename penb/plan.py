"""What a preset would train, per chapter, before anything trains (``python -m penb plan --preset gpu``).

For each chapter of the book: its runs at the preset the book would execute it at (``run-all``'s choice: a
chapter without a ``gpu`` preset runs ``quick``), each run counted once over the whole book (chapters share runs
through the store), the updates they make and an estimate of the GPU-hours one H100 needs, one run at a time
(``penb.executors.cost.step_seconds``, from the step times measured at paper size). Runs on the warm-up / stable /
decay schedule that share a trunk (``penb.trunks``) count the trunk once and each shorter budget's decay branch.
An estimate to plan a GPU session with, not a measurement: the chapter's own status page gives the real times.

A second estimate (:func:`batched_hours`) trains the same runs as the one trainer would on CUDA: each stage's runs
of one shape as batches of at most the preset's ``batch_runs`` (``penb.executors.batched.schedule``), at the
batched rates measured on a lent H200 and H100 (``penb.executors.cost.batch_seconds``), one batch after another.
"""
from __future__ import annotations

import importlib
from typing import Callable, Iterable, Optional

from penb import notebook, presets, runs, trunks
from penb.chapters.rnn_common import all_budgets
from penb.executors import cost
from penb.executors.batched import groups
from penb.executors.cost import batch_seconds
from penb.runs import key

# chapter -> the functions (module, name, *extra arguments after cfg) that list its run configs, where they are not
# the chapter's ``analysis.run_configs``
LISTS = {
    "irie": (("penb.chapters.irie.q4", "order_configs"), ("penb.chapters.irie.q4", "lm_configs"),
             ("penb.chapters.irie.q4", "half_configs", "order"), ("penb.chapters.irie.q4", "half_configs", "lm"),
             ("penb.chapters.irie.q4", "quarter_configs", "order"), ("penb.chapters.irie.q4", "quarter_configs", "lm")),
    "beyond_transformers": (("penb.chapters.beyond_transformers.analysis", "run_configs"),
                            ("penb.chapters.beyond_transformers.analysis", "lstm_configs"),
                            ("penb.chapters.beyond_transformers.analysis", "half_configs"),
                            ("penb.chapters.beyond_transformers.analysis", "quarter_configs")),
    **{f"appendix_{x}": ((f"penb.chapters.appendix.appendix_{x}", "run_configs"),) for x in "abcd"},
}
OWN_HALF = ("irie", "beyond_transformers")   # chapters that list their shorter budgets themselves (cosine runs of
                                             # the models protocols 4-7 read), not every run's (rnn_common)


def _listers(chapter: str) -> list[Callable]:
    found = LISTS.get(chapter, ((f"penb.chapters.{chapter}.analysis", "run_configs"),))
    out = []
    for module, name, *args in found:
        try:
            fn = getattr(importlib.import_module(module), name, None)
        except ImportError:
            fn = None
        if fn is not None:
            out.append(lambda cfg, fn=fn, args=args: fn(cfg, *args))
    return out


def chapter_configs(chapter: str, preset: str) -> tuple[str, list[dict], str, int]:
    """(the preset the book runs ``chapter`` at, its normalised run configs with protocol 4's half budgets, a
    note: why it runs another preset, or that it trains nothing of its own, the most runs it puts in one batch)."""
    chosen, overrides, note = presets.book_preset(chapter, preset)
    table = presets.table(chapter)
    if chosen not in table:                              # one clear line, before anything is listed
        raise ValueError(f"unknown preset {preset!r} for {chapter}{presets.suggest([preset], table)}; valid presets: "
                         f"{', '.join(table)}")
    if "device" in table[chosen]:
        overrides = {**overrides, "device": "cpu"}     # planned here, not trained: CUDA need not be present
    cfg = presets.resolve(chapter, chosen, **overrides)
    most = getattr(cfg, "batch_runs", 64)
    if not _listers(chapter):
        return chosen, [], note or "no runs of its own (its computation is not a run of the store)", most
    return chosen, configs_for(chapter, cfg), note, most


def planned_runs(chapter: str, params: dict) -> int:
    """The distinct runs ``chapter`` lists at ``params`` (a preset and overrides, as ``python -m penb run`` takes
    them), 0 where it lists none or they cannot be listed here (a progress line then counts cells only)."""
    try:
        return len({key(c) for c in configs_for(chapter, notebook.validate(chapter, params))})
    except Exception:  # noqa: BLE001 (a plan for the progress line only: the chapter itself says what is wrong)
        return 0


def configs_for(chapter: str, cfg) -> list[dict]:
    """The normalised run configs that ``chapter`` lists at ``cfg`` (a resolved config: any preset and
    parameters), with protocol 4's half budgets; [] for a chapter that lists none."""
    full = [c for fn in _listers(chapter) for c in fn(cfg)]
    return runs.settle(full if chapter in OWN_HALF or not full else all_budgets(full, cfg))


updates = trunks.updates           # the updates a plan trains, each trunk once (one home: penb.trunks)


def batched_hours(configs: Iterable[dict], max_runs: int = 64) -> float:
    """Hours one H100 takes to train ``configs`` as the one trainer batches them there: stage by stage (a WSD trunk's
    longest budget first, then each shorter budget's decay branch), each group of ``penb.executors.batched.schedule``
    on CUDA (at most ``max_runs`` runs of one shape) for the updates it has to go, at
    ``penb.executors.cost.batch_seconds``, one group after another."""
    # on CUDA every batch of two or more pays (penb.trainer.policy.batch_pays), so these are schedule()'s groups there
    seconds = sum(batch_seconds(g, to_go) for g, to_go in groups(list(configs), max_runs))
    return seconds / 3600


def book(preset: str, chapters: Optional[list[str]] = None) -> list[dict]:
    """One row per chapter: chapter, preset, runs (new to the plan: a run an earlier chapter lists is counted
    there), shared (runs listed by an earlier chapter), updates, gpu_hours (one run at a time), batched_hours (as
    the one trainer batches them on CUDA, :func:`batched_hours`), note."""
    seen: set = set()
    rows = []
    for name in chapters or notebook.book_chapters():
        chosen, configs, note, most = chapter_configs(name, preset)
        mine = [c for c in configs if runs.key(c) not in seen]
        seen.update(runs.key(c) for c in configs)
        rows.append(dict(chapter=name, preset=chosen, runs=len(mine), shared=len(configs) - len(mine),
                         updates=updates(mine), gpu_hours=round(cost.gpu_hours(mine), 2),
                         batched_hours=round(batched_hours(mine, most), 2), note=note))
    return rows


def describe(rows: list[dict]) -> str:
    """The plan as lines for the terminal, with the total."""
    lines = [f"{'chapter':<22}{'preset':<8}{'runs':>6}{'shared':>8}{'updates':>13}{'H100 h':>9}{'batched':>9}"]
    for r in rows:
        lines.append(f"{r['chapter']:<22}{r['preset']:<8}{r['runs']:>6}{r['shared']:>8}{r['updates']:>13,}"
                     f"{r['gpu_hours']:>9.2f}{r['batched_hours']:>9.2f}" + (f"  ({r['note']})" if r["note"] else ""))
    lines.append(f"{'total':<30}{sum(r['runs'] for r in rows):>6}{'':>8}{sum(r['updates'] for r in rows):>13,}"
                 f"{sum(r['gpu_hours'] for r in rows):>9.2f}{sum(r['batched_hours'] for r in rows):>9.2f}")
    lines.append("H100 h: estimated from step times measured at paper size on one H100, one run at a time; batched: "
                 "as the one trainer batches them on CUDA, at the batched rates measured on a lent H200 and H100 "
                 "(penb.executors.cost); runs shared between chapters count once.")
    return "\n".join(lines)

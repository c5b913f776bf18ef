"""The one trainer: K >= 1 runs over a leading run axis, one loop (issue 48).

A single run is the K = 1 case. :class:`Trainer` holds, for every run, its own task and held-out set, its own model
at its own shape (the canonical copy that checkpoints, evaluation and results read), its history and its step; and
for the batch, a packing (``penb.trainer.packing``): a kernel (``penb.trainer.kernels``: the run's own module at
K = 1, or ``stacked`` per-run weights), Adam's moments, the per-run schedule, clipping norms and update counts as
``[K]`` tensors, and the data feed (``penb.trainer.data``: keyed by seed and update, so a run's batches are the
same alone or in any batch).

One loop (:meth:`Trainer.run`): an update of every live run (:func:`penb.trainer.update.update`, compiled whole where
``compile`` says so); then, on the host, which runs are due to log (one read of the device, every ``log_every``
updates of some run), to checkpoint (``checkpoint_every`` and its last update), to save a WSD branch point
(``penb.trunks``), or to leave (its budget reached, or a bad update: :class:`Diverged`). A run that leaves is written
back to its own model first; its slot stays in the batch, at rate 0, until half the batch has left, when the live
runs are packed anew. No number of one run enters another's (``stacked`` multiplies per run), so a diverging
batch-mate changes nothing of the others.

Settings follow the paper and its official code (REFERENCE_NOTES.md): Adam with eps 1e-9 and no weight decay, the
schedule of ``penb.trainer.schedule``, gradient-norm clipping at 1.0, mean cross-entropy over the scored steps.
Seeding: ``derive_seed`` gives a run's initial weights ("model") and its held-out set ("test", drawn first and
excluded from training); its training batches come from ``penb.trainer.data`` ("train/<block>"). A checkpoint holds
the run's model, Adam's moments, its step, history and accumulators: a resumed run continues where it stopped (bit
for bit on the CPU at one thread count). Checkpoints load with ``weights_only=True``.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import torch
from tqdm.auto import tqdm

from penb import trunks
from penb.progress import Heartbeat
from penb.store.paths import checkpoint_path
from penb.tasks import Batch
from penb.trainer import kernels, policy, schedule
from penb.trainer.packing import Packing
from penb.trainer.run import Diverged, Run

# the fields in which runs of one batch may differ (each a [K] value or a padded slot); all others they share
FREE = ("seed", "vocab_size", "encoding", "input_mode", "steps", "lr", "warmup", "schedule", "decay", "clip",
        "held_out", "checkpoint_every", "log_every")
COMPILE = ("auto", "never", "always")


def group_key(config: Mapping[str, Any]) -> str:
    """What the runs of one batch share: the normalised config less :data:`FREE`, as canonical JSON."""
    return json.dumps({k: v for k, v in config.items() if k not in FREE}, sort_keys=True, default=str)


class Trainer:
    """K >= 1 runs trained together (one :func:`group_key`; K > 1 only for ``kernels.stackable`` runs).

    ``configs``: one run config or a sequence; ``run_dirs[k]`` receives run k's checkpoints, ``trunk_dirs[k]`` (a WSD
    run's trunk folder) its branch points; ``kernel``: "auto" (``module`` for one run, else ``stacked``), "module" or
    "stacked"; ``compile``: "auto" (``penb.trainer.policy.compiles``), "always" or "never". ``run()`` trains every
    run to its budget; each run's ``outcome`` is then "done" or its :class:`Diverged`. With one run the trainer also
    reads as that run (``model``, ``task``, ``test``, ``config``, ``step``, ``history``, ``evaluate``, ``save``, ``resume``).
    """

    def __init__(self, configs: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]],
                 run_dirs: Optional[Sequence[Optional[Path]]] = None,
                 trunk_dirs: Optional[Sequence[Optional[Path]]] = None, kernel: str = "auto", compile: str = "auto"):
        configs = [configs] if isinstance(configs, Mapping) else list(configs)
        if kernel not in ("auto",) + kernels.KERNELS:
            raise ValueError(f"unknown kernel {kernel!r}; valid: auto, {', '.join(kernels.KERNELS)}")
        if compile not in COMPILE:
            raise ValueError(f"unknown compile {compile!r}; valid: {', '.join(COMPILE)}")
        self.runs = [Run(c) for c in configs]
        n = len(self.runs)
        cs = [r.config for r in self.runs]
        if not n:
            raise ValueError("a trainer needs at least one run")
        if (n > 1 or kernel == "stacked") and (not all(kernels.stackable(c) for c in cs)
                                               or len({group_key(c) for c in cs}) > 1):
            raise ValueError("a batch takes GRU/LSTM runs without encoding parameters that differ only in "
                             f"{', '.join(FREE)}")
        if kernel == "module" and n > 1:
            raise ValueError("the module kernel trains one run; a batch takes kernel='stacked'")
        self.kind = kernel if kernel != "auto" else ("module" if n == 1 else "stacked")
        self.auto = kernel == "auto"
        self.when = compile
        self.run_dirs = list(run_dirs) if run_dirs is not None else [None] * n
        self.trunk_dirs = list(trunk_dirs) if trunk_dirs is not None else [None] * n
        self.batch: Optional[Packing] = None
        self.compile_s = 0.0                       # seconds of the first (compiling) update of each packing

    # -- one run: the trainer reads as it -------------------------------------------------------------------
    def _one(self) -> Run:
        if len(self.runs) != 1:
            raise AttributeError("a trainer of several runs has no single model, step or history: see .runs")
        return self.runs[0]

    config = property(lambda self: self._one().config)
    model = property(lambda self: self._one().model)
    task = property(lambda self: self._one().task)
    test = property(lambda self: self._one().test)
    device = property(lambda self: self.runs[0].device)
    step = property(lambda self: self._one().step)
    history = property(lambda self: self._one().history)

    def lr_at(self, step: int) -> float:
        """The run's learning rate at update ``step`` (0-based)."""
        return schedule.lr_at(self._one().config, step)

    def loss(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean cross-entropy, token accuracy) of the run over the scored steps of ``batch`` (what an update
        minimises, for tests)."""
        r = self._one()
        s0 = r.task.scored_from
        with r.autocast():
            loss, acc = kernels.Module(r.model, s0).losses(None, batch.inputs[None], batch.targets[None, :, s0:])
        return loss[0], acc[0]

    def evaluate(self, max_logits: int = 2**25):
        self.sync()
        return self._one().evaluate(max_logits)

    def save(self, path: Path, trunk: bool = False) -> Path:
        self.sync()
        return self._one().save(path, trunk)

    def resume(self, run_dir: Optional[Path], trunk: bool = False) -> bool:
        """Resume the run from ``run_dir`` (or a trunk folder); see :meth:`Run.resume`."""
        self.batch = None
        return self._one().resume(run_dir, trunk)

    # -- the loop ---------------------------------------------------------------------------------------------
    def sync(self) -> None:
        """Write every active slot back into its run's own state (weights, moments, accumulators)."""
        if self.batch is not None:
            for i in self.batch.active:
                self.batch.write_back(i, self.runs[self.batch.slots[i]])

    def _pack(self) -> bool:
        """Pack the runs still to train into a new batch; False when none is left."""
        for r in self.runs:
            if r.outcome is None and r.step >= r.config["steps"]:
                r.outcome = "done"
        slots = [j for j, r in enumerate(self.runs) if r.outcome is None]
        kind = self.kind
        if slots and self.auto and len(slots) > 1 and not self._batch_pays(slots):
            slots, kind = slots[:1], "module"            # one at a time, each with its own fused module
        elif len(slots) == 1 and self.auto:
            kind = "module"
        self.batch = Packing(self.runs, slots, kind, self.when) if slots else None
        return self.batch is not None

    def _batch_pays(self, slots: list[int]) -> bool:
        to_go = max(self.runs[j].config["steps"] - self.runs[j].step for j in slots)
        return policy.batch_pays([self.runs[j].config for j in slots], to_go, self.when)

    def train_step(self) -> None:
        """One update of every active run, then each run's logging, checkpoints, branch points and exit."""
        if self.batch is None and not self._pack():
            return
        b, start = self.batch, time.perf_counter()
        inputs, targets = b.feed.next([self.runs[j].step for j in b.slots])
        b.step(b.kernel.params, b.exp_avg, b.exp_avg_sq, inputs, targets, b.count, b.acc)
        if b.compiled and not self.compile_s:
            self.compile_s = time.perf_counter() - start
        for i in b.active:
            self.runs[b.slots[i]].step += 1
        self._after_update(b)

    def _after_update(self, b: Packing) -> None:
        runs = self.runs
        due = [i for i in sorted(b.active) if runs[b.slots[i]].step % runs[b.slots[i]].config["log_every"] == 0
               or runs[b.slots[i]].step == runs[b.slots[i]].config["steps"]]
        if due:
            sums = b.acc.tolist()                                     # the one read of the device
            for i in due:
                r, (loss, acc, n, nbad) = runs[b.slots[i]], sums[i]
                if nbad > 0:
                    last = r.history[-1]["loss"] if r.history else None
                    r.outcome = Diverged(r.step, r.step - int(n), last, int(nbad))
                else:
                    r.history.append({"step": r.step, "loss": loss / n, "accuracy": acc / n})
                    b.acc[i].zero_()
        leave = {i for i in b.active if runs[b.slots[i]].outcome is not None
                 or runs[b.slots[i]].step >= runs[b.slots[i]].config["steps"]}
        save, grow = [], []
        for i in b.active:
            j = b.slots[i]
            r, c = runs[j], runs[j].config
            if isinstance(r.outcome, Diverged):
                continue
            if self.run_dirs[j] is not None and (r.step % c["checkpoint_every"] == 0 or r.step == c["steps"]):
                save.append(i)
            if (self.trunk_dirs[j] is not None and r.step in trunks.branch_points(c)
                    and not trunks.path(self.trunk_dirs[j], r.step).exists()):
                grow.append(i)
        if save or grow:                                              # a bad update since the last log: no
            bad = b.acc[:, 3].tolist()                                # checkpoint of non-finite weights (its
            save, grow = [i for i in save if not bad[i]], [i for i in grow if not bad[i]]   # next log ends it)
        for i in sorted(set(save) | set(grow) | leave):
            b.write_back(i, runs[b.slots[i]])
        for i in grow:                                                # the branch point first: a kill between the
            runs[b.slots[i]].save(trunks.path(self.trunk_dirs[b.slots[i]], runs[b.slots[i]].step), trunk=True)
        for i in save:                                                # two resumes before it, and saves it again
            runs[b.slots[i]].save(checkpoint_path(self.run_dirs[b.slots[i]], runs[b.slots[i]].step))
        for i in leave:
            r = runs[b.slots[i]]
            if r.outcome is None:
                r.outcome = "done"
            b.active.discard(i)
        if leave and len(b.active) <= len(b.slots) // 2:              # half the batch has left: pack anew
            self.sync()
            self.batch = None

    def run(self, run_dir: Optional[Path] = None, callback: Optional[Callable[["Trainer"], None]] = None,
            progress: bool = True, trunk: Optional[Path] = None) -> dict[int, Union[str, Diverged]]:
        """Train every run to its budget, resuming each from its run folder first, else from its trunk folder;
        ``run_dir``/``trunk`` set them for a single run. ``callback(trainer)`` runs after every update (an
        exception there stops the training, as a kill would). Returns each run's outcome by index; the runs hold
        their final state."""
        if run_dir is not None or trunk is not None:
            self._one()
            self.run_dirs, self.trunk_dirs = [run_dir], [trunk]
        for r, d, t in zip(self.runs, self.run_dirs, self.trunk_dirs):
            if r.outcome is None and not r.resume(d):
                r.resume(t, trunk=True)
            if (t is not None and r.step in trunks.branch_points(r.config)       # resumed at a branch point that a
                    and not trunks.path(t, r.step).exists()):                   # kill kept from the trunk folder
                r.save(trunks.path(t, r.step), trunk=True)
        self.batch = None
        first = self.runs[0].config
        total = sum(max(r.config["steps"] - r.step, 0) for r in self.runs)
        depth = f"x{first['layers']}" if "layers" in first else ""
        desc = (f"{first['core']}{depth}/{first['encoding']} V={first['vocab_size']} seed={first['seed']}"
                if len(self.runs) == 1 else f"{first['core']} h{first['hidden']}: {len(self.runs)} runs")
        beat = Heartbeat(desc, total, start=0)                     # what a watched build shows (penb.progress)
        done = 0
        with tqdm(total=total, desc=desc, disable=not progress, mininterval=1.0) as bar:
            while self.batch is not None or self._pack():
                active = len(self.batch.active)
                self.train_step()
                done += active
                beat.update(done)
                bar.update(active)
                if len(self.runs) == 1 and self.history and self.history[-1]["step"] == self.step:
                    bar.set_postfix(loss=f"{self.history[-1]['loss']:.3f}", acc=f"{self.history[-1]['accuracy']:.3f}")
                if callback is not None:
                    callback(self)
        return {j: r.outcome for j, r in enumerate(self.runs)}

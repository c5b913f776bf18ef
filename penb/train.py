"""Training one experiment run: task + model + Adam + schedule, checkpoints, resume, final test.

A run is a flat dict of fields (``penb.run_config``: ``DEFAULTS``, ``normalize``). Settings follow the paper and
its official code (REFERENCE_NOTES.md): Adam with eps 1e-9 and no weight decay, lr 1e-3 with linear warm-up from 0
over 1,000 updates, then cosine decay to 0; gradient-norm clipping at 1.0; batch 512; mean cross-entropy over the
scored (output-phase) steps. Betas: the paper's text (Sec. 3.3) says (0.9, 0.999), the official training script
passes (0.9, 0.98), the default here; ``betas`` chooses.

Schedule: update ``s`` (0-based) uses lr * s / warmup while s < warmup, then
lr * (1 + cos(pi (s - warmup) / (steps - warmup))) / 2. (The original timm scheduler, with
``warmup_prefix=True``, stretches the cosine over ``steps`` instead of ``steps - warmup``: the two
differ by under 0.6% of lr at any step at the paper's 300,000 steps.)

``schedule="wsd"``: the warm-up, then lr until ``D = steps - round(decay * steps)``, then linear to 0 at
``steps``. Before ``D`` the rate does not depend on ``steps``: budgets share one trunk (``penb.trunks``).

Seeding: one run seed gives three independent streams (``derive_seed``): the model's initial weights, the held-out
set (drawn first and excluded from training), and the training batches. A checkpoint (every ``checkpoint_every``
updates, kept) stores the model, the optimiser, the schedule position, the training-data generator's state and the
loss history, so a resumed run continues bit for bit (on the CPU) where it stopped. Checkpoints load with
``weights_only=True`` (a stored file cannot run code); an unreadable last checkpoint falls back to the one before.

Divergence: every update counts whether its loss or gradient norm was non-finite; at every logging
interval a non-zero count stops the run with :class:`Diverged`, and ``train`` stores it as a diverged
run (``result.json`` with ``"status": "diverged"``, the step, the last finite logged loss, no metrics),
never as a finished result.
"""
from __future__ import annotations

import json
import math
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

import numpy as np
import torch
import torch.nn.functional as F

from penb import models, trunks
from penb.store import atomic
from penb.metrics import summarize  # noqa: F401 (re-exported: train.summarize)
from penb.progress import Heartbeat, emit
from penb.store.identity import STORE_VERSION, environment
from penb.run_config import AMP, DEFAULTS, RunConfig, decay_start, derive_seed, normalize  # noqa: F401 (re-exported)
from penb.store.paths import checkpoint_path, checkpoints  # noqa: F401 (re-exported: train.checkpoint_path)
from penb.tasks import IGNORE, Batch, make_task


class Diverged(RuntimeError):
    """Training produced a non-finite loss or gradient norm between updates ``since`` and ``step``."""

    def __init__(self, step: int, since: int, last_finite_loss: Optional[float], bad_updates: int):
        self.step, self.since, self.last_finite_loss, self.bad_updates = step, since, last_finite_loss, bad_updates
        super().__init__(f"non-finite loss or gradient in {bad_updates} of the updates {since + 1}..{step} "
                         f"(last finite logged loss: {last_finite_loss})")

    def as_dict(self) -> dict:
        return {"step": self.step, "since": self.since, "last_finite_loss": self.last_finite_loss,
                "bad_updates": self.bad_updates}


def build_model(config: Mapping[str, Any], device: Optional[str] = None) -> models.SequenceModel:
    """The run's model with its initial weights (seeded by ``derive_seed(seed, "model")``).

    ``device`` overrides the config's (e.g. "cpu" to inspect a run trained on a GPU).
    """
    c = normalize(config) if device is None else normalize({**config, "device": device})
    num_steps = make_task(c["task"], c["vocab_size"], c["length"], **c["task_options"]).num_steps
    options = {k: c[k] for k in models.CORE_OPTIONS.get(c["core"], {})}
    return models.build(c["vocab_size"], num_steps, c["core"], c["encoding"], c["input_mode"], c["hidden"],
                        c["embed"], c["s4d_state"], torch.Generator().manual_seed(derive_seed(c["seed"], "model")),
                        c["device"], c["dtype"], **options)


class Trainer:
    """Holds one run's task, held-out set, model, optimiser and data generator.

    ``run(run_dir)`` trains to ``steps`` (resuming from the last checkpoint in ``run_dir``),
    ``evaluate()`` scores the held-out set. ``step`` counts the updates done.
    """

    def __init__(self, config: Mapping[str, Any]):
        from penb.device import check_device

        self.config = c = normalize(config)
        check_device(c["device"])                        # a cluster job checks its node's device here
        self.device = torch.device(c["device"])
        self.task = make_task(c["task"], c["vocab_size"], c["length"], **c["task_options"])
        test_gen = torch.Generator(device=self.device).manual_seed(derive_seed(c["seed"], "test"))
        self.test = self.task.held_out(c["held_out"], test_gen)                  # drawn first, excluded
        self.data_gen = torch.Generator(device=self.device).manual_seed(derive_seed(c["seed"], "train"))
        self.model = build_model(c)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=0.0, betas=c["betas"], eps=c["eps"],
                                          weight_decay=c["weight_decay"])
        self.step = 0
        self.history: list[dict] = []        # {"step", "loss", "accuracy"}: means over log_every updates
        # loss sum, accuracy sum, updates, non-finite updates (loss or gradient norm), since the last log
        self._acc = torch.zeros(4, dtype=torch.float64, device=self.device)

    # -- one update ---------------------------------------------------------------------------------
    def lr_at(self, step: int) -> float:
        """Learning rate of update ``step`` (0-based)."""
        c = self.config
        if step < c["warmup"]:
            return c["lr"] * step / c["warmup"]
        if c.get("schedule") == "wsd":
            start = decay_start(c["steps"], c["decay"])
            return c["lr"] if step < start else c["lr"] * max(c["steps"] - step, 0) / max(c["steps"] - start, 1)
        span = max(c["steps"] - c["warmup"], 1)
        return c["lr"] * 0.5 * (1 + math.cos(math.pi * min(step - c["warmup"], span) / span))

    def _autocast(self):
        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.config["amp"] == "bf16")

    def loss(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean cross-entropy, token accuracy) over the scored steps of ``batch``."""
        mask = batch.targets != IGNORE                                    # [B, T]
        with self._autocast():
            logits = self.model.readout(self.model.features(batch.inputs)[mask])   # [N, V]
        target = batch.targets[mask]
        loss = F.cross_entropy(logits.float(), target)
        return loss, (logits.argmax(-1) == target).float().mean()

    def train_step(self, batch: Optional[Batch] = None) -> torch.Tensor:
        """One update (on a fresh batch unless given); returns the loss (no device sync)."""
        c = self.config
        batch = batch if batch is not None else self.task.sample(c["batch_size"], self.data_gen)
        for group in self.optimizer.param_groups:
            group["lr"] = self.lr_at(self.step)
        self.model.train()
        loss, acc = self.loss(batch)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), c["clip"])
        self.optimizer.step()
        self.step += 1
        bad = ~(torch.isfinite(loss.detach()) & torch.isfinite(norm))
        self._acc += torch.stack([loss.detach().double(), acc.detach().double(), torch.ones_like(self._acc[0]),
                                  bad.double()])
        if self.step % c["log_every"] == 0 or self.step == c["steps"]:
            s = self._acc.tolist()
            if s[3] > 0:                                # checked at every logging interval (one sync)
                last = self.history[-1]["loss"] if self.history else None
                raise Diverged(self.step, self.step - int(s[2]), last, int(s[3]))
            self.history.append({"step": self.step, "loss": s[0] / s[2], "accuracy": s[1] / s[2]})
            self._acc.zero_()
        return loss

    # -- checkpoints ----------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        kind = "warmup_" + self.config.get("schedule", "cosine")
        return {"step": self.step, "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "schedule": {"kind": kind, "next_update": self.step, "lr": self.lr_at(self.step)},
                "data_generator": self.data_gen.get_state(), "history": list(self.history),
                "accumulators": self._acc.cpu(), "config": dict(self.config), "store_version": STORE_VERSION}

    def load_state_dict(self, state: dict, trunk: bool = False) -> None:
        if state.get("store_version") != STORE_VERSION:
            raise ValueError(f"checkpoint was written under store version {state.get('store_version')}, this code "
                             f"is version {STORE_VERSION} (penb.store.identity): it will not resume a run under "
                             f"other code; delete the run folder to train it afresh")
        if trunk:
            limit = trunks.branch_limit(self.config)
            if state.get("trunk_key") != trunks.trunk_key(self.config) or state["step"] > limit:
                raise ValueError("trunk checkpoint belongs to another trunk, or lies past this run's decay start")
        elif state["config"] != self.config:
            raise ValueError("checkpoint belongs to another configuration")
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.data_gen.set_state(state["data_generator"].cpu())
        self.history = list(state["history"])
        self._acc = state["accumulators"].to(self.device)
        self.step = state["step"]

    def save(self, path: Path, trunk: bool = False) -> Path:
        """Write the state to ``path`` atomically; a ``trunk`` checkpoint (``penb.trunks``) also records the
        trunk's key, which is what a run resuming from it checks instead of its whole config."""
        extra = {"trunk_key": trunks.trunk_key(self.config)} if trunk else {}
        return atomic.atomic_write(path, lambda tmp: torch.save({**self.state_dict(), **extra}, tmp))

    def resume(self, run_dir: Optional[Path], trunk: bool = False) -> bool:
        """Load the latest readable checkpoint in ``run_dir`` (with ``trunk``: the latest in the trunk folder
        ``run_dir`` at or before this run's decay start, ``penb.trunks``); True when one was loaded. An
        unreadable checkpoint (truncated by a crash) is skipped with a warning for the one before it."""
        if run_dir is None:
            return False
        found = trunks.latest(run_dir, trunks.branch_limit(self.config)) if trunk else reversed(checkpoints(run_dir))
        for step, path in found:
            try:
                state = torch.load(path, map_location="cpu", weights_only=True)
            except Exception as e:   # noqa: BLE001 (torch raises several kinds for a torn or foreign file)
                warnings.warn(f"unreadable checkpoint {path} ({type(e).__name__}: {e}); trying the one before it")
                continue
            self.load_state_dict(state, trunk=trunk)
            return True
        return False

    # -- the whole run ------------------------------------------------------------------------------
    def run(self, run_dir: Optional[Path] = None, callback: Optional[Callable[["Trainer"], None]] = None,
            progress: bool = True, trunk: Optional[Path] = None) -> None:
        """Train to ``steps``, checkpointing into ``run_dir/checkpoints`` (resume from there first, else from
        the trunk folder ``trunk`` of a WSD run, whose branch points it also saves there: ``penb.trunks``).

        ``callback(trainer)`` runs after every update (an exception there stops the run, as a kill would).
        """
        from tqdm.auto import tqdm

        c = self.config
        if not self.resume(run_dir):
            self.resume(trunk, trunk=True)
        branch = set(trunks.branch_points(c)) if trunk is not None else set()
        depth = f"x{c['layers']}" if "layers" in c else ""
        desc = f"{c['core']}{depth}/{c['encoding']} V={c['vocab_size']} seed={c['seed']}"
        beat = Heartbeat(desc, c["steps"], start=self.step)        # what a watched build shows (penb.progress)
        with tqdm(total=c["steps"], initial=self.step, desc=desc, disable=not progress, mininterval=1.0) as bar:
            while self.step < c["steps"]:
                self.train_step()
                beat.update(self.step)
                if run_dir is not None and (self.step % c["checkpoint_every"] == 0 or self.step == c["steps"]):
                    self.save(checkpoint_path(run_dir, self.step))
                if self.step in branch and not trunks.path(trunk, self.step).exists():
                    self.save(trunks.path(trunk, self.step), trunk=True)
                bar.update(1)
                if self.history and self.history[-1]["step"] == self.step:
                    bar.set_postfix(loss=f"{self.history[-1]['loss']:.3f}", acc=f"{self.history[-1]['accuracy']:.3f}")
                if callback is not None:
                    callback(self)

    @torch.no_grad()
    def evaluate(self, max_logits: int = 2**25) -> dict[str, np.ndarray]:
        """Argmax predictions on the held-out set: {"predictions", "targets", "inputs": int [n, T],
        "lengths": int [n], plus the task's per-sequence info}; unscored steps hold -100.

        For a task with ``reports_perplexity`` (the ``lm`` task) also ``"nll"``: float64 [n], each
        sequence's summed cross-entropy (nats) over its scored steps.
        """
        self.model.eval()
        test = self.test
        per_row = max(int((test.targets != IGNORE).sum(1).max()), 1) * self.config["vocab_size"]
        chunk = max(1, max_logits // per_row)
        with_nll = getattr(self.task, "reports_perplexity", False)
        preds, nlls = [], []
        for i in range(0, len(test), chunk):
            part = test.select(slice(i, i + chunk))
            mask = part.targets != IGNORE
            with self._autocast():
                logits = self.model.readout(self.model.features(part.inputs)[mask])
            pred = torch.full_like(part.targets, IGNORE)
            pred[mask] = logits.argmax(-1)
            preds.append(pred)
            if with_nll:
                per = F.cross_entropy(logits.float(), part.targets[mask], reduction="none").double()
                rows = torch.zeros(len(part), dtype=torch.float64, device=per.device)
                nlls.append(rows.index_add_(0, mask.nonzero()[:, 0], per))     # row-major, as mask indexing
        out = {"predictions": torch.cat(preds), "targets": test.targets, "inputs": test.inputs,
               "lengths": test.lengths, **test.info}
        if with_nll:
            out["nll"] = torch.cat(nlls)
        return {k: v.cpu().numpy() for k, v in out.items()}


def train(config: Mapping[str, Any], run_dir: Path, callback: Optional[Callable[[Trainer], None]] = None,
          progress: bool = True, trunk: Optional[Path] = None) -> dict:
    """Train (or resume) the run ``config`` in ``run_dir``, test it, and write its results there.

    Writes (atomically) ``predictions.npz`` (see ``Trainer.evaluate``) and then ``result.json``
    ({"status": "done", "config", "metrics", "history", "wall_s", "environment"}); returns the result dict.
    A run that diverges writes no predictions and a ``result.json`` with ``"status": "diverged"``,
    ``"diverged"`` (step, last finite loss) and empty metrics.
    """
    run_dir = Path(run_dir)
    start = time.time()
    trainer = Trainer(config)
    atomic.write_json(run_dir / "config.json", trainer.config)
    try:
        trainer.run(run_dir, callback, progress, trunk=trunk)
    except Diverged as d:
        return finish(trainer, run_dir, start, d)
    return finish(trainer, run_dir, start)


def finish(trainer: Trainer, run_dir: Path, start: float, diverged: Optional[Diverged] = None,
           **extra: Any) -> dict:
    """Test a trained run (unless it ``diverged``) and write its ``predictions.npz`` and ``result.json`` (see
    :func:`train`; ``wall_s`` counts from ``start``, a ``time.time()``; ``extra`` fields are added at the end)."""
    result = {"config": trainer.config, "environment": environment(trainer.config["device"])}
    if diverged is not None:
        result.update(status="diverged", diverged=diverged.as_dict(), metrics={}, history=trainer.history)
    else:
        pred = trainer.evaluate()
        atomic.write_npz(Path(run_dir) / "predictions.npz", pred)
        result.update(status="done", metrics=summarize(pred), history=trainer.history)
    result["wall_s"] = round(time.time() - start, 2)
    result.update(extra)
    atomic.write_json(Path(run_dir) / "result.json", result)
    emit({"event": "run", "trained": True})       # every training path ends here: what a watched build counts
    return json.loads(json.dumps(result, default=str))

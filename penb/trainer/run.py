"""One run's own state inside the trainer: its config, task, held-out set, model at its own shape, Adam's moments,
step, history and accumulators; its checkpoints (save, resume, trunk branch points) and its evaluation.

The packing (``penb.trainer.packing.Packing``) lays runs into a kernel's parameters and writes them back here
before a checkpoint, at a run's exit and at the end (the trainer, ``penb.trainer.loop.Trainer``, says when), so
that checkpoints, evaluation and results read one run's own model.
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Mapping, Optional, Union

import numpy as np
import torch
import torch.nn.functional as F

from penb import models, trunks
from penb.device import check_device
from penb.store import atomic
from penb.store.identity import STORE_VERSION
from penb.run_config import derive_seed, normalize
from penb.store.paths import checkpoints
from penb.tasks import IGNORE, make_task
from penb.trainer import schedule



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
    """The run's model with its initial weights (seeded by ``derive_seed(seed, "model")``); ``device`` overrides the
    config's (e.g. "cpu" to inspect a run trained on a GPU)."""
    c = normalize(config) if device is None else normalize({**config, "device": device})
    num_steps = make_task(c["task"], c["vocab_size"], c["length"], **c["task_options"]).num_steps
    options = {k: c[k] for k in models.CORE_OPTIONS.get(c["core"], {})}
    return models.build(c["vocab_size"], num_steps, c["core"], c["encoding"], c["input_mode"], c["hidden"],
                        c["embed"], c["s4d_state"], torch.Generator().manual_seed(derive_seed(c["seed"], "model")),
                        c["device"], c["dtype"], **options)


def load_model(result, step: Optional[int] = None, device: Optional[str] = None) -> models.SequenceModel:
    """The model of a stored run (``penb.store.run_result.RunResult``) with the weights of its checkpoint ``step``
    (default: the last), in eval mode; ``device`` overrides the run's."""
    found = dict(result.checkpoints())
    step = max(found) if step is None else step
    if step not in found:
        raise ValueError(f"run {result.key} has no checkpoint at step {step}; kept: {sorted(found)}")
    model = build_model(result.config, device=device)
    state = torch.load(found[step], map_location="cpu", weights_only=True)
    model.load_state_dict(state["model"])
    return model.eval()


class Run:
    """One run's own state: config, task, held-out set, model (its shape), Adam moments by parameter name (None
    before its first update), step, history, accumulators ``[4]``, and where it stands (``outcome``: None while it
    trains, "done", or its :class:`Diverged`)."""

    def __init__(self, config: Mapping[str, Any]):
        self.config = c = normalize(config)
        check_device(c["device"])                        # a cluster job checks its node's device here
        self.device = torch.device(c["device"])
        self.task = make_task(c["task"], c["vocab_size"], c["length"], **c["task_options"])
        test_gen = torch.Generator(device=self.device).manual_seed(derive_seed(c["seed"], "test"))
        self.test = self.task.held_out(c["held_out"], test_gen)                  # drawn first, excluded
        self.model = build_model(c)
        self.moments: Optional[dict] = None
        self.step, self.history = 0, []                  # history: {"step", "loss", "accuracy"} over log_every updates
        self.acc = torch.zeros(4, dtype=torch.float64)   # loss sum, accuracy sum, updates, bad updates since the log
        self.outcome: Union[None, str, Diverged] = None

    def state_dict(self) -> dict:
        c = self.config
        return {"step": self.step, "model": self.model.state_dict(), "moments": self.moments,
                "schedule": {"kind": "warmup_" + c.get("schedule", "cosine"), "next_update": self.step,
                             "lr": schedule.lr_at(c, self.step)},
                "history": list(self.history), "accumulators": self.acc.cpu(), "config": dict(c),
                "store_version": STORE_VERSION}

    def load_state_dict(self, state: dict, trunk: bool = False) -> None:
        if state.get("store_version") != STORE_VERSION:
            raise ValueError(f"checkpoint was written under store version {state.get('store_version')}, this code "
                             f"is version {STORE_VERSION} (penb.store.identity): it will not resume a run under "
                             f"other code; delete the run folder to train it afresh")
        if trunk:
            if state.get("trunk_key") != trunks.trunk_key(self.config) or state["step"] > trunks.branch_limit(
                    self.config):
                raise ValueError("trunk checkpoint belongs to another trunk, or lies past this run's decay start")
        elif state["config"] != self.config:
            raise ValueError("checkpoint belongs to another configuration")
        self.model.load_state_dict(state["model"])
        self.moments = state["moments"]
        self.history, self.acc, self.step = list(state["history"]), state["accumulators"].cpu(), state["step"]

    def save(self, path: Path, trunk: bool = False) -> Path:
        """Write the state to ``path`` atomically; a ``trunk`` checkpoint (``penb.trunks``) also records the trunk's
        key, which is what a run resuming from it checks instead of its whole config."""
        extra = {"trunk_key": trunks.trunk_key(self.config)} if trunk else {}
        return atomic.atomic_write(path, lambda tmp: torch.save({**self.state_dict(), **extra}, tmp))

    def resume(self, run_dir: Optional[Path], trunk: bool = False) -> bool:
        """Load the latest readable checkpoint in ``run_dir`` (with ``trunk``: the latest in the trunk folder at or
        before this run's decay start); True when one was loaded. An unreadable checkpoint (torn by a crash) is
        skipped with a warning for the one before it."""
        if run_dir is None:
            return False
        found = trunks.latest(run_dir, trunks.branch_limit(self.config)) if trunk else reversed(checkpoints(run_dir))
        for step, path in found:
            try:
                state = torch.load(path, map_location=self.device, weights_only=True)
            except Exception as e:   # noqa: BLE001 (torch raises several kinds for a torn or foreign file)
                warnings.warn(f"unreadable checkpoint {path} ({type(e).__name__}: {e}); trying the one before it")
                continue
            self.load_state_dict(state, trunk=trunk)
            return True
        return False

    def autocast(self):
        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.config["amp"] == "bf16")

    @torch.no_grad()
    def evaluate(self, max_logits: int = 2**25) -> dict[str, np.ndarray]:
        """Argmax predictions on the held-out set: {"predictions", "targets", "inputs": int [n, T], "lengths": int
        [n], plus the task's per-sequence info}; unscored steps hold -100. For a task with ``reports_perplexity``
        (``lm``) also ``"nll"``: float64 [n], each sequence's summed cross-entropy (nats) over its scored steps."""
        self.model.eval()
        test = self.test
        per_row = max(int((test.targets != IGNORE).sum(1).max()), 1) * self.config["vocab_size"]
        chunk = max(1, max_logits // per_row)
        with_nll = getattr(self.task, "reports_perplexity", False)
        preds, nlls = [], []
        for i in range(0, len(test), chunk):
            part = test.select(slice(i, i + chunk))
            mask = part.targets != IGNORE
            with self.autocast():
                logits = self.model.readout(self.model.features(part.inputs)[mask])
            pred = torch.full_like(part.targets, IGNORE)
            pred[mask] = logits.argmax(-1)
            preds.append(pred)
            if with_nll:
                per = F.cross_entropy(logits.float(), part.targets[mask], reduction="none").double()
                rows = torch.zeros(len(part), dtype=torch.float64, device=per.device)
                nlls.append(rows.index_add_(0, mask.nonzero()[:, 0], per))     # row-major, as mask indexing
        self.model.train()
        out = {"predictions": torch.cat(preds), "targets": test.targets, "inputs": test.inputs,
               "lengths": test.lengths, **test.info}
        if with_nll:
            out["nll"] = torch.cat(nlls)
        return {k: v.cpu().numpy() for k, v in out.items()}

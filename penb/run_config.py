"""One run's configuration: the fields and their defaults, checked and filled once.

A run is a flat dict of the fields in :data:`DEFAULTS` plus the core's own options for a core that has
some (``penb.models.CORE_OPTIONS``: ``layers``, ``heads``, ``ffn``, ``norm`` for ``core="transformer"``).
Those are filled in only for that core, so the normalised config (and the run key) of every other core is
what it was before the transformer core existed; giving one to an RNN core is an error.

The learning-rate schedule (``schedule``): "cosine", the paper's (warm-up, then cosine to 0 at ``steps``), or
"wsd" (warm-up, a stable rate, then a linear decay to 0 over the last ``decay`` fraction of ``steps``; grading
protocol 4's budgets that grow, :mod:`penb.trunks`). Like a core's options, ``schedule`` and ``decay`` stand in a
normalised config only when the schedule is not the cosine, so the keys of every cosine run stay what they were.

``normalize(config)`` returns a :class:`RunConfig` (a plain dict, marked as checked): the run store
normalises each configuration once, where a sweep starts, and every later ``normalize`` of a
``RunConfig`` (the run key, the trainer, the model builder) returns it unchanged.
"""
from __future__ import annotations

import hashlib
import math
from typing import Any, Mapping

from penb import models
from penb.device import check_amp, resolve_device
from penb.tasks import make_task


class RunConfig(dict):
    """A run configuration that :func:`normalize` has already filled and checked."""


DEFAULTS: dict[str, Any] = dict(
    task="reverse", task_options={}, vocab_size=None, length=64,       # the task (vocab_size required)
    core="lstm", encoding="sinusoidal", input_mode="concat",           # the model
    hidden=512, embed=None, s4d_state=64,
    steps=300_000, batch_size=512, lr=1e-3, warmup=1000,               # the optimisation
    betas=(0.9, 0.98), eps=1e-9, weight_decay=0.0, clip=1.0,
    seed=111, held_out=1024, checkpoint_every=5000, log_every=100,     # seeds, test set, records
    device="auto", dtype="float32", amp="none",                        # where and how
)
AMP = ("none", "bf16")
SCHEDULES = ("cosine", "wsd")
# Fields of the schedule, present in a normalised config only for a schedule other than the cosine. decay 0.2: the
# cool-down share of Hagele et al. (2024) and of shared/anchors/schedule-probe.md, whose WSD used it.
SCHEDULE_DEFAULTS: dict[str, Any] = dict(schedule="cosine", decay=0.2)


def derive_seed(seed: int, stream: str) -> int:
    """An independent 63-bit seed for ``stream`` ("model", "test", "train") of run seed ``seed``."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{stream}".encode()).digest()[:8], "big") >> 1


def normalize(config: Mapping[str, Any], job_device: str | None = None) -> RunConfig:
    """The full run config: defaults filled, types checked, ``device`` resolved to "cpu"/"cuda[:n]".

    ``job_device`` ("cpu" or "cuda"): the run goes to a cluster job that will have that device, so
    ``device="auto"`` resolves to it rather than to this machine's (a Slurm login node has no GPU), and
    "cuda" is not required here; the job checks it on its own node (``penb.trainer.Trainer``).

    Raises ``ValueError`` for an unknown field or an impossible value (before any work). A
    :class:`RunConfig` is returned as it is: it was checked when it was made.
    """
    if isinstance(config, RunConfig):
        return config

    unknown = set(config) - set(DEFAULTS) - set(models.OPTION_NAMES) - set(SCHEDULE_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown run field(s) {sorted(unknown)}; valid: {sorted(DEFAULTS)}, "
                         f"{sorted(SCHEDULE_DEFAULTS)} and, for a core that takes them, {list(models.OPTION_NAMES)}")
    options = {k: v for k, v in config.items() if k in models.OPTION_NAMES}
    c = {**DEFAULTS, **{k: v for k, v in config.items() if k in DEFAULTS}}
    if "input_mode" not in config:
        c["input_mode"] = models.default_input_mode(c["core"])
    c["task_options"] = dict(sorted(dict(c["task_options"] or {}).items()))
    c["betas"] = tuple(float(b) for b in c["betas"])
    for k in ("lr", "eps", "weight_decay", "clip"):
        c[k] = float(c[k])
    ints = ("vocab_size", "length", "hidden", "s4d_state", "steps", "batch_size", "warmup", "seed",
            "held_out", "checkpoint_every", "log_every")
    for k in ints:
        if isinstance(c[k], bool) or not isinstance(c[k], int):
            raise ValueError(f"run field {k!r} must be an int, got {c[k]!r}")
    for k in ("steps", "batch_size", "held_out", "checkpoint_every", "log_every"):
        if c[k] < 1:
            raise ValueError(f"run field {k!r} must be >= 1, got {c[k]}")
    bad = [k for k in ("lr", "eps", "weight_decay", "clip") if not math.isfinite(c[k])]
    if bad:
        raise ValueError(f"run field(s) {bad} must be finite numbers, got {[c[k] for k in bad]}")
    if c["warmup"] < 0 or c["lr"] <= 0 or c["eps"] <= 0 or c["clip"] <= 0 or c["weight_decay"] < 0:
        raise ValueError(f"need warmup >= 0, lr > 0, eps > 0, clip > 0, weight_decay >= 0; got {c}")
    if len(c["betas"]) != 2 or not all(0 <= b < 1 for b in c["betas"]):
        raise ValueError(f"betas must be two numbers in [0, 1), got {c['betas']}")
    if c["amp"] not in AMP:
        raise ValueError(f"unknown amp {c['amp']!r}; valid: {', '.join(AMP)}")
    task = make_task(c["task"], c["vocab_size"], c["length"], **c["task_options"])
    task.check_held_out(c["held_out"])
    models.check(c["vocab_size"], task.num_steps, c["core"], c["encoding"], c["input_mode"], c["hidden"],
                 c["embed"], c["s4d_state"], c["dtype"], **options)
    c.update(models.core_options(c["core"], options, c["hidden"]))            # {} for the RNN cores
    c.update(schedule_fields(config, c["steps"], c["warmup"]))                 # {} for the cosine
    if job_device is not None and c["device"] in ("auto", job_device):
        c["device"] = job_device
    else:
        c["device"] = str(resolve_device(c["device"]))
    check_amp(c["amp"], c["device"])
    return RunConfig(c)


def schedule_fields(config: Mapping[str, Any], steps: int, warmup: int) -> dict:
    """The schedule's fields of a normalised config: {} for the cosine (a ``decay`` given with it is an error),
    {"schedule": "wsd", "decay": float} for the warm-up/stable/decay schedule, checked."""
    s = {**SCHEDULE_DEFAULTS, **{k: v for k, v in config.items() if k in SCHEDULE_DEFAULTS}}
    if s["schedule"] not in SCHEDULES:
        raise ValueError(f"unknown schedule {s['schedule']!r}; valid: {', '.join(SCHEDULES)}")
    if s["schedule"] == "cosine":
        if "decay" in config and config["decay"] != SCHEDULE_DEFAULTS["decay"]:
            raise ValueError("decay is a field of schedule='wsd'; the cosine decays over the whole run")
        return {}
    decay = s["decay"]
    if isinstance(decay, bool) or not isinstance(decay, (int, float)) or not 0 < decay <= 1:
        raise ValueError(f"decay must be a fraction in (0, 1], got {decay!r}")
    if decay_start(steps, float(decay)) < warmup:
        raise ValueError(f"schedule='wsd': the decay of the last {decay:g} of {steps} updates would start at "
                         f"update {decay_start(steps, float(decay))}, inside the {warmup}-update warm-up")
    return {"schedule": "wsd", "decay": float(decay)}


def decay_start(steps: int, decay: float) -> int:
    """The first update of a WSD run's decay: ``steps`` less its last ``decay`` share (rounded)."""
    return steps - int(round(decay * steps))

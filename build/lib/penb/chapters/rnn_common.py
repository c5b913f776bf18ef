"""Helpers shared by the chapters that train vanilla vs. position-encoded RNNs on several cores
(key findings, frequency, gradient stability): per-model settings and the training checks.

A chapter's config holds common settings (``hidden``, ``batch_size``, ``steps``, ``lr``, ``warmup``) and a
``per_core`` dict that overrides some of them per model, e.g. ``{"lstm": {"batch_size": 128}}``: the CPU
presets give each model the regime its search found, while the paper preset uses one setting for all.
"""
from __future__ import annotations

from penb import encodings
from penb.names import MODEL_NAMES, RNN_CORES
from penb.presets import require, require_ints, require_names

KEYS = ("hidden", "batch_size", "steps", "lr", "warmup")     # what ``per_core`` may override


def settings(cfg, core: str) -> dict:
    """The training settings of ``core``: the common ones with ``per_core[core]`` applied."""
    base = dict(hidden=cfg.hidden, batch_size=cfg.batch_size, steps=cfg.steps, lr=cfg.lr, warmup=cfg.warmup)
    return {**base, **cfg.per_core.get(core, {})}


def check_per_core(cfg) -> None:
    """``ValueError`` unless ``cfg.per_core`` maps model names to possible overrides of :data:`KEYS`."""
    require(isinstance(cfg.per_core, dict) and set(cfg.per_core) <= set(RNN_CORES),
            f"per_core must map gru, lstm or s4d to overrides, got {cfg.per_core!r}")
    for core, over in cfg.per_core.items():
        require(isinstance(over, dict) and set(over) <= set(KEYS),
                f"per_core[{core!r}] may only set {', '.join(KEYS)}; got {over!r}")
        for k, v in over.items():
            ok = (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0) if k == "lr" else \
                (isinstance(v, int) and not isinstance(v, bool) and v >= (0 if k == "warmup" else 1))
            require(ok, f"per_core[{core!r}][{k!r}] is impossible: {v!r}")


def provenance_extra(cfg) -> dict:
    """Extra fields for ``penb.report.provenance``/``stamp``: L and, when models differ, each one's settings."""
    extra = {"L": cfg.length}
    if cfg.per_core:
        extra["per model"] = "; ".join(
            f"{MODEL_NAMES[c]} h{s['hidden']} B{s['batch_size']} {s['steps']} steps lr {s['lr']:g}"
            for c in cfg.cores for s in [settings(cfg, c)])
    else:
        extra["hidden"] = cfg.hidden
    return extra


def check_training(cfg, ints) -> None:
    """``ValueError`` for an impossible training setting: ``ints`` positive ints, warm-up, lr, betas, seeds,
    cores, encodings, amp and the per-model overrides."""
    require_ints(cfg, ints)
    require(cfg.warmup >= 0 and cfg.lr > 0, f"need warmup >= 0 and lr > 0, got {cfg.warmup}, {cfg.lr}")
    require(len(cfg.betas) == 2 and all(0 <= b < 1 for b in cfg.betas),
            f"betas must be two numbers in [0, 1), got {cfg.betas}")
    require(len(cfg.seeds) >= 1 and len(set(cfg.seeds)) == len(cfg.seeds), f"seeds must be distinct, got {cfg.seeds}")
    require(all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in cfg.seeds),
            f"seeds must be ints >= 0, got {cfg.seeds}")
    require_names("cores", cfg.cores, RNN_CORES)
    require(len(cfg.encodings) >= 1 and len(set(cfg.encodings)) == len(cfg.encodings),
            f"encodings must be distinct, got {cfg.encodings}")
    for e in cfg.encodings:
        require(e in encodings.PAPER_KEYS, f"unknown encoding {e!r}; valid: {', '.join(encodings.PAPER_KEYS)}")
    require(cfg.amp in ("none", "bf16"), f"amp must be 'none' or 'bf16', got {cfg.amp!r}")
    check_per_core(cfg)

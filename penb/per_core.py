"""Per-model training settings of a chapter that trains several cores (``per_core`` parameter).

A chapter's config holds common settings (``hidden``, ``batch_size``, ``steps``, ``lr``, ``warmup``) and a
``per_core`` dict that overrides some of them per model, e.g. ``{"lstm": {"batch_size": 128}}``: the CPU
presets give each model the regime its search found, while the paper preset uses one setting for all.
"""
from __future__ import annotations

from penb.presets import require

KEYS = ("hidden", "batch_size", "steps", "lr", "warmup")
MODELS = {"gru": "GRU", "lstm": "LSTM", "s4d": "S4D"}


def settings(cfg, core: str) -> dict:
    """The training settings of ``core``: the common ones with ``per_core[core]`` applied."""
    base = dict(hidden=cfg.hidden, batch_size=cfg.batch_size, steps=cfg.steps, lr=cfg.lr, warmup=cfg.warmup)
    return {**base, **cfg.per_core.get(core, {})}


def check(cfg) -> None:
    """``ValueError`` unless ``cfg.per_core`` maps model names to possible overrides of :data:`KEYS`."""
    require(isinstance(cfg.per_core, dict) and set(cfg.per_core) <= set(MODELS),
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
            f"{MODELS[c]} h{s['hidden']} B{s['batch_size']} {s['steps']} steps lr {s['lr']:g}"
            for c in cfg.cores for s in [settings(cfg, c)])
    else:
        extra["hidden"] = cfg.hidden
    return extra

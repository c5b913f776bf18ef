"""Provenance: every number and figure says which run made it.

``provenance(cfg, ...)`` gives a one-line string (preset, device, seeds, steps, ...) to print
under a table; ``stamp(fig, cfg, ...)`` writes the same line into a figure's bottom margin.
"""
from __future__ import annotations

from typing import Any

PROVENANCE_KEYS = ("seeds", "seed", "steps", "iterations", "inits", "batch_size")


def provenance(cfg, **extra: Any) -> str:
    """'preset quick · device cpu · seeds (0, 1, 2) · steps 6000' for a resolved config."""
    from penb.device import resolve_device

    parts = [f"preset {cfg.preset}"]
    if "device" in cfg:
        parts.append(f"device {resolve_device(cfg['device'])}")
    parts += [f"{k} {cfg[k]}" for k in PROVENANCE_KEYS if k in cfg]
    parts += [f"{k} {v}" for k, v in extra.items()]
    return " · ".join(parts)


def stamp(fig, cfg, **extra: Any):
    """Write ``provenance(cfg)`` small and grey at the bottom-left of ``fig``; returns ``fig``."""
    fig.text(0.005, 0.002, provenance(cfg, **extra), fontsize=7, color="0.4", ha="left", va="bottom")
    return fig

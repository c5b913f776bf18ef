"""Checks of a chapter's resolved values that hold for every chapter (``penb.presets.resolve`` runs them after
the chapter's own ``check``), and :func:`require`, the building block of every chapter check."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator


def _numbers(value: Any, where: str) -> Iterator[tuple[str, float]]:
    """(path, number) of every float inside ``value`` (tuples, lists and dicts searched)."""
    if isinstance(value, float):
        yield where, value
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _numbers(v, f"{where}[{i}]")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _numbers(v, f"{where}[{k!r}]")


def require_finite(chapter: str, values: Mapping[str, Any]) -> None:
    """``ValueError`` naming the first NaN or infinite number anywhere in ``values`` (checked first)."""
    import math

    for where, v in (hit for k, v in values.items() for hit in _numbers(v, k)):
        require(math.isfinite(v), f"{chapter}: {where} must be a finite number, got {v!r}")


def cross_check(chapter: str, values: Mapping[str, Any]) -> None:
    """Checks across fields that hold for every chapter, after the chapter's own: ``amp="bf16"`` (also per
    model, in ``per_core``) only where the device resolves to CUDA or a CPU with AMX; ``warmup`` no larger than ``steps`` (per model too, where
    ``per_core`` overrides them)."""
    if "device" in values:
        from penb.device import check_amp

        amps = {values.get("amp", "none")} | {o.get("amp", "none") for o in dict(values.get("per_core") or {}).values()
                                              if isinstance(o, Mapping)}
        for amp in sorted(a for a in amps if isinstance(a, str)):
            try:
                check_amp(amp, values["device"])
            except ValueError as e:
                require(False, f"{chapter}: {e}")
    if "warmup" in values and "steps" in values:
        runs = {"": {}} | {f" for {c}": o for c, o in dict(values.get("per_core") or {}).items()
                           if isinstance(o, Mapping)}
        for label, over in runs.items():
            w, n = over.get("warmup", values["warmup"]), over.get("steps", values["steps"])
            if isinstance(w, int) and isinstance(n, int):
                require(w <= n, f"{chapter}: warmup ({w}) must not exceed steps ({n}){label}")


def require(cond: bool, message: str) -> None:
    """Raise ``ValueError(message)`` unless ``cond``: the building block of chapter checks."""
    if not cond:
        raise ValueError(message)

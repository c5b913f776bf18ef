"""Device selection from the config: ``auto`` picks CUDA when present, else the CPU."""
from __future__ import annotations

import torch

CHOICES = ("auto", "cpu", "cuda")


def check_device(name: str) -> None:
    """Raise ``ValueError`` for an unknown device name or ``cuda`` on a machine without CUDA."""
    base = name.split(":")[0]
    if base not in CHOICES:
        raise ValueError(f"unknown device {name!r}; valid: {', '.join(CHOICES)} (or cuda:N)")
    if base == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={name!r} was asked for, but CUDA is not available here; use 'auto' or 'cpu'")
    if base == "cuda" and ":" in name:
        index = name.split(":", 1)[1]
        if not index.isdigit() or int(index) >= torch.cuda.device_count():
            raise ValueError(f"device={name!r}: this machine has {torch.cuda.device_count()} GPU(s) "
                             f"(cuda:0..cuda:{torch.cuda.device_count() - 1})")


def resolve_device(name: str = "auto") -> torch.device:
    """The ``torch.device`` for a config's device name."""
    check_device(name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)

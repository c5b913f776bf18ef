"""Device selection from the config: ``auto`` picks CUDA when present, else the CPU."""
from __future__ import annotations

import os

import torch

CHOICES = ("auto", "cpu", "cuda")
# Set (to "cuda") only while a chapter is executed against an archived store whose runs were made on that device
# elsewhere (``penb.call.archive.archive``): device names resolve to it although this machine lacks it, and no run may
# train (``penb.runs`` refuses). Never set it by hand to train.
ARCHIVED = "PENB_ARCHIVED_DEVICE"


def archived() -> str:
    """The device type of the archived store being read ("" when none is: the normal case)."""
    return os.environ.get(ARCHIVED, "").strip()


def check_device(name: str) -> None:
    """Raise ``ValueError`` for an unknown device name or ``cuda`` on a machine without CUDA."""
    base = name.split(":")[0]
    if base not in CHOICES:
        raise ValueError(f"unknown device {name!r}; valid: {', '.join(CHOICES)} (or cuda:N)")
    if base == archived():
        return                                    # reading runs made there: this machine need not have it
    if base == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={name!r} was asked for, but CUDA is not available here; use 'auto' or 'cpu'")
    if base == "cuda" and ":" in name:
        index = name.split(":", 1)[1]
        if not index.isdigit() or int(index) >= torch.cuda.device_count():
            raise ValueError(f"device={name!r}: this machine has {torch.cuda.device_count()} GPU(s) "
                             f"(cuda:0..cuda:{torch.cuda.device_count() - 1})")


def cpu_bf16_native() -> bool:
    """True when this CPU multiplies bf16 with AMX (the ``amx_bf16`` flag of ``/proc/cpuinfo``), unless
    the environment says ``PENB_CPU_BF16=0`` (then the machine is treated as one without AMX: fp32 throughout).

    Only there has bf16 autocast been measured to pay: the quick LSTM update (h128, B64, 32 steps, one thread) ran
    at 1.9x fp32's speed on this project's Xeon (``benchmarks/bf16_cpu.py --step``). A CPU with ``avx512_bf16``
    but no AMX (AMD Zen 4, some Intel parts) runs bf16 in hardware too, not emulated, but its gain is unsettled:
    issue 26 read 1.6x on a Zen 4 (once, beside other work), while the Xeon with oneDNN capped to those
    instructions (``--isa AVX512_CORE_BF16``) ran the LSTM update at 0.70x and the GRU's at 0.65x fp32's speed.
    Only without any bf16 instruction (``--isa AVX512_CORE``) is bf16 emulated: 0.35-0.45x. So the CPU presets keep
    fp32 without AMX (``QUICK_AMP``); the book's hour is measured in fp32 anyway (``PENB_CPU_BF16=0``)."""
    if os.environ.get("PENB_CPU_BF16", "") == "0":
        return False
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and "amx_bf16" in line.split() for line in f)
    except OSError:
        return False


def check_amp(amp: str, device: str) -> None:
    """``ValueError`` unless ``amp`` can run on ``device`` (a resolved or config device name): bf16 autocast
    needs CUDA, or a CPU with AMX (:func:`cpu_bf16_native`)."""
    if amp == "none":
        return
    if amp != "bf16":
        raise ValueError(f"unknown amp {amp!r}; valid: none, bf16")
    if resolve_device(device).type == "cpu" and not cpu_bf16_native():
        raise ValueError(f"amp='bf16' needs a CUDA device or a CPU with AMX (amx_bf16 in /proc/cpuinfo), but "
                         f"device={device!r} resolves to a CPU without it; use amp='none'")


# What the CPU presets train the LSTM with: bf16 autocast where the CPU has AMX, else fp32, also on CPUs with
# avx512_bf16 but no AMX (why: cpu_bf16_native; the numbers: benchmarks/README.md and the key_findings presets).
# It enters every run's key (``amp``).
QUICK_AMP = "bf16" if cpu_bf16_native() else "none"


def resolve_device(name: str = "auto") -> torch.device:
    """The ``torch.device`` for a config's device name."""
    check_device(name)
    if name == "auto" and archived():
        return torch.device(archived())
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)

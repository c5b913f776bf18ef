"""Checks shared by the chapters that train vanilla vs. position-encoded RNNs on several cores
(key findings, frequency, gradient stability)."""
from penb import encodings, per_core
from penb.presets import require, require_ints, require_names

CORES = ("gru", "lstm", "s4d")


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
    require_names("cores", cfg.cores, CORES)
    require(len(cfg.encodings) >= 1 and len(set(cfg.encodings)) == len(cfg.encodings),
            f"encodings must be distinct, got {cfg.encodings}")
    for e in cfg.encodings:
        require(e in encodings.PAPER_KEYS, f"unknown encoding {e!r}; valid: {', '.join(encodings.PAPER_KEYS)}")
    require(cfg.amp in ("none", "bf16"), f"amp must be 'none' or 'bf16', got {cfg.amp!r}")
    per_core.check(cfg)

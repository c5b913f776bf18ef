"""Presets of the chapter "Invertibility of position encodings" (Hansen's blog study).

The whole study (9 encodings x 100 initialisations x 20,000 Adam steps) runs batched in well under a
minute on a CPU, so the book's default preset (``quick``) *is* the published study; ``smoke`` only
checks that the chapter executes.
"""
import math

from penb.presets import require

PAPER = dict(
    device="cpu",             # the tensors are tiny; a GPU does not help
    dtype="float32",          # float32 like the original (JAX default); float64 for checks
    inits=100,                # random initialisations per encoding
    iterations=20_000,        # full-batch Adam steps
    dim=32,                   # K, the encoding dimension
    length=100,               # N, positions 0..N-1, target t = pos / N
    lr=1e-3,                  # Adam learning rate (optax defaults otherwise)
    sentinel=-9999999.0,      # row 0 of the normal encodings (ndtri(0) = -inf), as the original
    alt_sentinel=-5.0,        # a finite sentinel for the side study of the normal encodings
    seed=0,                   # seed of all initial draws
)
QUICK = dict()                # the published study itself runs in under a minute: nothing to shrink
SMOKE = dict(
    inits=4,                  # a few initialisations: the spreads and quantiles still have rows
    iterations=300,           # enough to draw every view and fill every table (claims not expected)
)


def check(cfg):
    require(cfg.dtype in ("float32", "float64"), f"dtype must be 'float32' or 'float64', got {cfg.dtype!r}")
    require(cfg.inits >= 1, f"inits must be >= 1, got {cfg.inits}")
    require(cfg.iterations >= 2, f"iterations must be >= 2, got {cfg.iterations}")
    require(cfg.dim >= 2 and cfg.dim % 2 == 0, f"dim must be an even number >= 2 (sincos), got {cfg.dim}")
    require(cfg.length >= 2, f"length must be >= 2, got {cfg.length}")
    require(math.isfinite(cfg.lr) and cfg.lr > 0, f"lr must be a finite number > 0, got {cfg.lr}")
    for name in ("sentinel", "alt_sentinel"):
        require(math.isfinite(cfg[name]), f"{name} must be a finite number, got {cfg[name]}")
    require(cfg.seed >= 0, f"seed must be >= 0, got {cfg.seed}")

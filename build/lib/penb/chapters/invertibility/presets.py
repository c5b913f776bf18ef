"""Presets of the chapter "Invertibility of position encodings" (Hansen's blog study).

The whole study (9 encodings x 100 initialisations x 20,000 Adam steps) runs batched in about 6 s
per seed on one CPU core, so ``quick`` is the published study itself, repeated for the five
confirmation seeds (``penb.presets.CONFIRMATION_SEEDS``): the verdicts are read off the mean curve
over all 500 initialisations, as the registered rules say, and each seed's own curve gives the
spread. Quick cost: one study run before (seed 0, about 6 s, plus the sentinel side study, about
3 s), five now (about 35 s with the side study, which stays on one seed); nothing is dropped.
``smoke`` keeps the blog's 20,000 steps (so that every claim is graded and every view drawn) with
a few initialisations and two seeds, in seconds; its numbers are noisy.
"""
import math

from penb.presets import require

PAPER = dict(
    device="cpu",             # the tensors are tiny; a GPU does not help
    dtype="float32",          # float32 like the original (JAX default); float64 for checks
    inits=100,                # random initialisations per encoding and seed
    iterations=20_000,        # full-batch Adam steps
    dim=32,                   # K, the encoding dimension
    length=100,               # N, positions 0..N-1, target t = pos / N
    lr=1e-3,                  # Adam learning rate (optax defaults otherwise)
    sentinel=-9999999.0,      # row 0 of the normal encodings (ndtri(0) = -inf), as the original
    alt_sentinel=-5.0,        # a finite sentinel for the side study of the normal encodings
    seeds=(0,),               # seeds of the initial draws: one study, as the blog ran it
)
QUICK = dict(
    seeds=(1001, 1002, 1003, 1004, 1005),  # the five confirmation seeds (no search ever used them):
                                           # 5 x 100 initialisations, about 6 s per seed
)
SMOKE = dict(
    inits=4,                  # a few initialisations: the spreads and quantiles still have rows
    seeds=(1001, 1002),       # two confirmation seeds, so the per-seed spread exists
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
    seeds = cfg.seeds
    require(len(seeds) >= 1 and len(set(seeds)) == len(seeds)
            and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds),
            f"seeds must be distinct ints >= 0, got {seeds!r}")

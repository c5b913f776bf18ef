"""Presets of the chapter "Invertibility of position encodings" (Hansen's blog study).

The whole study (9 encodings x 100 initialisations x 20,000 Adam steps) runs batched in about 6 s
per seed on one free CPU core (about 14 s when the two cores are shared), so ``quick`` is the published
study itself, repeated for five confirmation seeds (``penb.presets.confirmation``, 2001-2005; 1001-1005
were the pilot, issue 22): the verdicts are read off the mean curve over all 500 initialisations, as the
registered rules say, and each seed's own curve gives the spread. Quick cost: about 35 s with the
sentinel side study, which stays on one seed (the chapter took 0.7 minutes in the pilot build).
``smoke`` keeps the blog's 20,000 steps (so that every claim is graded and every view drawn) with
a few initialisations and two seeds, in seconds; its numbers are noisy.
"""
import math

from penb.presets import confirmation, require

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
    seeds=confirmation(5),    # the rules are checks on the pooled mean curve (no interval for the power
                              # calculation to size). In the pilot (1001-1005) one claim turned on the
                              # draws: hansen.normal_faster held on 2 of the 5 seeds' own curves, so the
                              # pooled curve keeps all 500 initialisations; a seed costs 6-14 s, and the
                              # five take about 0.6 minutes of the 11 that irie, invertibility and
                              # beyond_transformers may spend (issue 22)
)
SMOKE = dict(
    inits=4,                  # a few initialisations: the spreads and quantiles still have rows
    seeds=confirmation(2),    # two confirmation seeds, so the per-seed spread exists
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

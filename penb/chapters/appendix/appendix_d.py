"""Presets, panels and runs of the chapter "Appendix D: alternative encodings" (Morita,
App. D, Fig. 13-14).

PAPER: LSTM, reverse ordering, V = 16,384, vanilla and three encodings concatenated to
the embedding: sinusoidal, random (fixed standard-normal vectors scaled to unit length,
i.e. uniform on the sphere) and learnable (an ``nn.Embedding`` row per position).
Fig. 13 at the fixed length L = 64, Fig. 14 with lengths drawn from 32..64 (1,024
held-out sequences per length); hidden = embedding = 512, batch 512, 300,000 updates,
five seeds.

QUICK is a CPU regime for the 2-core machine: L = 16 (lengths 8-16 when variable),
V = 256, the LSTM regime of appendix A (hidden 64, batch 128, lr 1e-2, 2,000 updates).
Its vanilla and sinusoidal runs are those of appendices A and C (fixed length) and B
(variable length) at equal settings, so the run store reuses them.

Seeds (issue 22): five confirmation seeds, from the pilot (seeds 1001-1005, sd = half-
width x sqrt(5) / t(0.975, 4)) and 80% power at the pilot's effect:

* ``morita.fig13.random`` +0.058 [+0.021, +0.095], sd 0.030: 89% at 5 (73% at 4);
* ``morita.fig14`` -0.064 [-0.126, -0.003], sd 0.050 (not reproduced: the interval must
  end below +0.02): 81% at 5 (63% at 4). It needs every variant in both settings, so
  the whole chapter takes five;
* ``morita.fig13.learnable`` -0.077 [-0.112, -0.042] would be decided at 3 (83%) and
  ``morita.fig13.sinusoidal_best`` +0.007 [-0.065, +0.078] needs about 65 (no quick
  budget buys it): both read the five that Fig. 14 needs anyway.

Runs: 40, of which 26 are new after A-C (random and learnable in both settings, the
variable-length vanilla and sinusoidal seeds 4-5 beyond B's three, and the fixed-length
ones of seed 5 beyond A's four), at about 28 s per run (the book build before issue 22:
20 runs in 4.8 minutes, two workers): about 6.1 minutes.
SMOKE only exercises every cell.

``panels(cfg)`` gives one panel per setting, ``run_configs(cfg)`` their runs and
``run(cfg)`` trains or reuses them (``common.run``).
"""
from penb.chapters.appendix import common, regimes
from penb.chapters.appendix.common import Panel
from penb.presets import QUICK_SEEDS, confirmation, require, require_ints, require_names

SETTINGS = ("fixed", "variable")
ALLOWED = ("vanilla", "sinusoidal", "random", "learnable")

PAPER = dict(regimes.PAPER_REGIME,  # the published setting (Sec. 3.3, App. B-D)
    settings=SETTINGS,              # fixed (Fig. 13) and variable length (Fig. 14)
    variants=ALLOWED,               # vanilla and the three encodings
    length=64,                      # the (longest) input length
    min_length=32,                  # shortest input length of the variable setting
    vocab=16384,                    # vocabulary size
)
QUICK = dict(regimes.QUICK_REGIME,  # appendix A's regime (see the docstring)
    seeds=confirmation(QUICK_SEEDS),  # why 3: penb.presets.QUICK_SEEDS; the pilot's 5
                                    # for fig13.random and fig14 (docstring) served
                                    # protocol 2
    length=16,                      # appendix C's L (fixed), B's (variable): reused
    min_length=8,                   # appendix B's shortest length: its runs reused
    vocab=256,                      # appendix B's and C's vocabulary: runs reused
)
GPU = dict(regimes.GPU_REGIME,   # paper-sized models, shortened schedule (regimes.py)
    vocab=regimes.GPU_VOCAB,         # 4,096, a quarter of the paper's (regimes.GPU_VOCAB)
)
# Estimated cost (penb.executors.gpu_hours): 40 runs x 6k x 26.6 ms (LSTM V4096, L64)
# = 107 min one run at a time, 1.8 GPU-hours from an empty store; after appendices B and
# C (their vanilla/PE runs) the 20 random and learnable runs are new: 53 min, 0.9
# GPU-hours. Measure it before trusting it.
SMOKE = dict(regimes.SMOKE_REGIME,  # toy sizes: only exercises every cell (seconds)
    length=4,                       # toy L, as appendix B's and C's smoke
    min_length=2,                   # appendix B's smoke range: its runs reused
    vocab=16,                       # toy vocabulary, as appendix B's and C's smoke
)


def panels(cfg) -> list[Panel]:
    out = []
    if "fixed" in cfg.settings:
        out.append(Panel("fixed", f"Fixed length {cfg.length}", "reverse", "lstm",
                         (cfg.vocab,), tuple(cfg.variants), cfg.length, cfg.steps))
    if "variable" in cfg.settings:
        out.append(Panel("variable", f"Lengths {cfg.min_length}-{cfg.length}",
                         "reverse_variable", "lstm", (cfg.vocab,), tuple(cfg.variants),
                         cfg.length, cfg.steps, {"min_length": cfg.min_length}))
    return out


run_configs, run = common.bind(panels, "App. D runs")  # configs and sweep


def check(cfg):
    common.check_common(cfg)
    require_names("settings", cfg.settings, SETTINGS)
    common.check_variants("variants", cfg.variants, ALLOWED)
    require_ints(cfg, ("length", "min_length", "steps"))
    if "variable" in cfg.settings:
        require(cfg.min_length <= cfg.length,
                f"empty length range: min_length ({cfg.min_length}) must not exceed "
                f"length ({cfg.length})")
    common.check_vocab("vocab", (cfg.vocab,))
    common.validate(cfg, panels(cfg))

"""Presets, panels and runs of the chapter "Appendix D: alternative encodings" (Morita,
App. D, Fig. 13-14).

PAPER: LSTM, reverse ordering, V = 16,384, vanilla and three encodings concatenated to
the embedding: sinusoidal, random (fixed standard-normal vectors scaled to unit length,
i.e. uniform on the sphere) and learnable (an ``nn.Embedding`` row per position).
Fig. 13 at the fixed length L = 64, Fig. 14 with lengths drawn from 32..64 (1,024
held-out sequences per length); hidden = embedding = 512, batch 512, 300,000 updates,
five seeds.

QUICK is a CPU regime for the 2-core machine: L = 16 (lengths 8-16 when variable),
V = 256, the LSTM regime of appendix A (hidden 64, batch 128, lr 1e-2, 2,000 updates)
and the five confirmation seeds (``penb.presets.CONFIRMATION_SEEDS``) in every cell: all
eight (setting, encoding) cells are graded (Fig. 13 at fixed length, and Fig. 14, which
compares the sinusoidal encoding's lead at variable length with its lead at fixed
length). Its vanilla and sinusoidal runs are those of appendix C (fixed length) and
appendix B (variable length) at equal settings, so the run store reuses them. Runs: 40
(before: 24, three seeds), of which 20 (random and learnable) are new after B and C; at
about 55 CPU-seconds per run (the key-findings search log's L = 16 LSTM runs) and the
overhead measured for appendix A, about 12 minutes with two workers (before: 7).
SMOKE only exercises every cell.

``panels(cfg)`` gives one panel per setting, ``run_configs(cfg)`` their runs and
``run(cfg)`` trains or reuses them (``common.run``).
"""
from penb.chapters.appendix import common
from penb.chapters.appendix.common import Panel
from penb.presets import require, require_ints, require_names

SETTINGS = ("fixed", "variable")
ALLOWED = ("vanilla", "sinusoidal", "random", "learnable")

PAPER = dict(common.PAPER_REGIME,  # the published setting (Sec. 3.3, App. B-D)
    settings=SETTINGS,              # fixed (Fig. 13) and variable length (Fig. 14)
    variants=ALLOWED,               # vanilla and the three encodings
    length=64,                      # the (longest) input length
    min_length=32,                  # shortest input length of the variable setting
    vocab=16384,                    # vocabulary size
)
QUICK = dict(common.QUICK_REGIME,  # appendix A's regime (see the docstring)
    length=16,                      # appendix C's L (fixed), B's (variable): reused
    min_length=8,                   # appendix B's shortest length: its runs reused
    vocab=256,                      # appendix B's and C's vocabulary: runs reused
)
GPU = dict(common.GPU_REGIME,   # paper-sized models, shortened schedule (common.py)
    vocab=common.GPU_VOCAB,         # 4,096, a quarter of the paper's (common.GPU_VOCAB)
)
# Estimated cost (penb.executors.gpu_hours): 40 runs x 6k x 26.6 ms (LSTM V4096, L64)
# = 107 min one run at a time, 1.8 GPU-hours from an empty store; after appendices B and
# C (their vanilla/PE runs) the 20 random and learnable runs are new: 53 min, 0.9
# GPU-hours. Measure it before trusting it.
SMOKE = dict(common.SMOKE_REGIME,  # toy sizes: only exercises every cell (seconds)
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

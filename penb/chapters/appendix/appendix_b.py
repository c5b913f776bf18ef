"""Presets, panel and runs of the chapter "Appendix B: variable input length" (Morita,
App. B, Fig. 11).

PAPER: reverse ordering with input lengths drawn uniformly from 32..64 per sequence,
LSTM, V = 16,384, vanilla vs. sinusoidal PE (concatenated; positions 0..127 count
through both phases), hidden = embedding = 512, batch 512, 300,000 updates, five seeds,
1,024 held-out sequences per length.

QUICK is a CPU regime for the 2-core machine: lengths 8-16, V = 256, the LSTM regime of
appendix A (hidden 64, batch 128, lr 1e-2, 2,000 updates) and the five confirmation
seeds (``penb.presets.CONFIRMATION_SEEDS``), since its one cell is graded
(``morita.fig11``). Appendix D reuses these runs as its variable-length vanilla and
sinusoidal runs. Runs: 10 (before the confirmation seeds: 6, three seeds); at about 55
CPU-seconds per run (the key-findings search log's L = 16 LSTM runs) and the overhead
measured for appendix A, about 6 minutes with two workers (before: 4).
SMOKE only exercises every cell.

``panels(cfg)`` gives the one panel, ``run_configs(cfg)`` its runs and ``run(cfg)``
trains or reuses them (``common.run``).
"""
from penb.chapters.appendix import common
from penb.chapters.appendix.common import Panel
from penb.presets import require, require_ints

PAPER = dict(common.PAPER_REGIME,  # the published setting (Sec. 3.3, App. B-D)
    min_length=32,                  # shortest input length (App. B)
    length=64,                      # longest input length (App. B)
    vocab=16384,                    # vocabulary size (App. B)
)
QUICK = dict(common.QUICK_REGIME,  # appendix A's regime (see the docstring)
    min_length=8,                   # half of L, as in the paper: phases overlap
    length=16,                      # the key-findings regime's L (a quarter of 64)
    vocab=256,                      # the smallest LSTM V of Fig. 2 (= appendix D's)
)
GPU = dict(common.GPU_REGIME,   # paper-sized models, shortened schedule (common.py)
    vocab=common.GPU_VOCAB,         # 4,096, a quarter of the paper's (common.GPU_VOCAB)
)
# Estimated cost (penb.executors.gpu_hours): 10 runs x 6k x 26.6 ms (LSTM V4096, L up
# to 64) = 27 min one run at a time, 0.44 GPU-hours. Measure it before trusting it.
SMOKE = dict(common.SMOKE_REGIME,  # toy sizes: only exercises every cell (seconds)
    min_length=2,                   # half of L, as at the other presets
    length=4,                       # toy L: lengths 2-4, three per-length points
    vocab=16,                       # toy vocabulary
)
VARIANTS = ("vanilla", "sinusoidal")


def panels(cfg) -> list[Panel]:
    title = f"Reverse, lengths {cfg.min_length}-{cfg.length}, LSTM"
    return [Panel("variable", title, "reverse_variable", "lstm", (cfg.vocab,), VARIANTS,
                  cfg.length, cfg.steps, {"min_length": cfg.min_length})]


run_configs, run = common.bind(panels, "App. B runs")  # configs and sweep


def check(cfg):
    common.check_common(cfg)
    require_ints(cfg, ("min_length", "length", "steps"))
    require(cfg.min_length <= cfg.length,
            f"empty length range: min_length ({cfg.min_length}) must not exceed length "
            f"({cfg.length})")
    common.check_vocab("vocab", (cfg.vocab,))
    common.validate(cfg, panels(cfg))

"""Presets, panel and runs of the chapter "Appendix B: variable input length" (Morita,
App. B, Fig. 11).

PAPER: reverse ordering with input lengths drawn uniformly from 32..64 per sequence,
LSTM, V = 16,384, vanilla vs. sinusoidal PE (concatenated; positions 0..127 count
through both phases), hidden = embedding = 512, batch 512, 300,000 updates, five seeds,
1,024 held-out sequences per length.

QUICK is a CPU regime for the 2-core machine: lengths 8-16, V = 256, the LSTM regime of
appendix A (hidden 64, batch 128, lr 1e-2, 2,000 updates). Seeds (issue 22): three
confirmation seeds, the fewest the rule accepts: the pilot (seeds 1001-1005) gave
``morita.fig11`` -0.048 [-0.136, +0.040], a per-seed sd of 0.071, and 80% power at the
smallest effect of interest (0.02) would need about 98 seeds, which no quick budget
buys; the claim stays inconclusive, with its seed count. Appendix D reuses these runs as
its variable-length vanilla and sinusoidal runs (and trains seeds 4-5 of them for
Fig. 14). Runs: 6, at about 28 s per run (the book build before issue 22: 10 runs in
2.3 minutes with two workers), about 1.4 minutes.
SMOKE only exercises every cell.

``panels(cfg)`` gives the one panel, ``run_configs(cfg)`` its runs and ``run(cfg)``
trains or reuses them (``common.run``).
"""
from penb.chapters.appendix import common, regimes
from penb.chapters.appendix.common import Panel
from penb.presets import confirmation, require, require_ints

PAPER = dict(regimes.PAPER_REGIME,  # the published setting (Sec. 3.3, App. B-D)
    min_length=32,                  # shortest input length (App. B)
    length=64,                      # longest input length (App. B)
    vocab=16384,                    # vocabulary size (App. B)
)
QUICK = dict(regimes.QUICK_REGIME,  # appendix A's regime (see the docstring)
    seeds=confirmation(3),          # fig11 needs ~98 (pilot): the minimum (docstring)
    min_length=8,                   # half of L, as in the paper: phases overlap
    length=16,                      # the key-findings regime's L (a quarter of 64)
    vocab=256,                      # the smallest LSTM V of Fig. 2 (= appendix D's)
)
GPU = dict(regimes.GPU_REGIME,   # paper-sized models, shortened schedule (regimes.py)
    vocab=regimes.GPU_VOCAB,         # 4,096, a quarter of the paper's (regimes.GPU_VOCAB)
)
# Estimated cost (penb.executors.gpu_hours): 10 runs x 6k x 26.6 ms (LSTM V4096, L up
# to 64) = 27 min one run at a time, 0.44 GPU-hours. Measure it before trusting it.
SMOKE = dict(regimes.SMOKE_REGIME,  # toy sizes: only exercises every cell (seconds)
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

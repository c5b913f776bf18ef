"""Presets, panels and runs of the chapter "Appendix C: the parameter control" (Morita,
App. C, Fig. 12).

PAPER: LSTM, L = 64, V = 16,384, reverse ordering and sorting; vanilla, "double vanilla"
(the input is [embedding, embedding], so the input-to-hidden weights are as large as the
position-encoded model's) and sinusoidal PE (concatenated); hidden = embedding = 512,
batch 512, 300,000 updates, five seeds, 1,024 held-out sequences.

QUICK is a CPU regime for the 2-core machine: L = 16, V = 256, the LSTM regime of
appendix A (hidden 64, batch 128, lr 1e-2, 2,000 updates). Each task is graded on its
own (issue 22): double vanilla against vanilla (``morita.fig12.no_gain.*``, gated on
vanilla above chance) and PE against double vanilla (``morita.fig12.pe_ahead.*``). The
vanilla and position-encoded runs are appendix A's sorting runs and its reversal
reference (and D's fixed-length runs), so only the double-vanilla runs are new.

Seeds (issue 22): three confirmation seeds, the fewest the rules accept. The pilot
(seeds 1001-1005, both tasks stacked) gave double minus vanilla +0.001 [-0.046, +0.048]
over 10 units, a per-unit sd of 0.066: excluding a gain of 0.02 would need about 85
seeds per task, which no quick budget buys, so "no gain" stays inconclusive with its
seed count. PE against double vanilla was not in the pilot (no SD to size it): it takes
the same three seeds. Runs: 18, of which 6 (double vanilla) are new after appendix A,
at about 28 s per run: about 1.4 minutes (before: 10 new, 2.4 minutes).
SMOKE only exercises every cell.

``panels(cfg)`` gives one panel per task, ``run_configs(cfg)`` their runs and
``run(cfg)`` trains or reuses them (``common.run``); ``summary.parameter_counts`` shows
the control's size.
"""
from penb.chapters.appendix import common, regimes
from penb.chapters.appendix.common import Panel
from penb.presets import confirmation, require, require_ints

TASKS = ("reverse", "sort")
ALLOWED = ("vanilla", "double", "sinusoidal")

PAPER = dict(regimes.PAPER_REGIME,  # the published setting (Sec. 3.3, App. B-D)
    tasks=TASKS,                    # reverse ordering and sorting (Fig. 12)
    variants=ALLOWED,               # vanilla, double vanilla, sinusoidal PE
    length=64,                      # input length L
    vocab=16384,                    # vocabulary size
)
QUICK = dict(regimes.QUICK_REGIME,  # appendix A's regime (see the docstring)
    seeds=confirmation(3),          # no_gain needs ~85 (pilot): the minimum (docstring)
    length=16,                      # appendix A's sorting L: its runs are shared
    vocab=256,                      # appendix A's sorting V: its runs are shared
)
GPU = dict(regimes.GPU_REGIME,   # paper-sized models, shortened schedule (regimes.py)
    vocab=regimes.GPU_VOCAB,         # 4,096, a quarter of the paper's (regimes.GPU_VOCAB)
)
# Estimated cost (penb.executors.gpu_hours): 30 runs x 6k x 26.6 ms (LSTM V4096, L64)
# = 80 min one run at a time, 1.3 GPU-hours from an empty store; after key findings (the
# vanilla/PE reversal runs) and appendix A (the vanilla/PE sorting runs) only the 10
# double-vanilla runs are new: 27 min. Measure it before trusting it.
SMOKE = dict(regimes.SMOKE_REGIME,  # toy sizes: only exercises every cell (seconds)
    length=4,                       # toy L
    vocab=16,                       # toy vocabulary
)


def panels(cfg) -> list[Panel]:
    names = {"reverse": "Reverse ordering", "sort": "Sorting"}
    return [Panel(t, f"{names.get(t, t)}, LSTM", t, "lstm", (cfg.vocab,),
                  tuple(cfg.variants), cfg.length, cfg.steps) for t in cfg.tasks]


run_configs, run = common.bind(panels, "App. C runs")  # configs and sweep


def check(cfg):
    common.check_common(cfg)
    require(len(cfg.tasks) >= 1 and len(set(cfg.tasks)) == len(cfg.tasks),
            f"tasks must be distinct, got {cfg.tasks!r}")
    for t in cfg.tasks:
        require(t in TASKS,
                f"unknown task {t!r}; this chapter runs: {', '.join(TASKS)}")
    common.check_variants("variants", cfg.variants, ALLOWED)
    require_ints(cfg, ("length", "steps"))
    common.check_vocab("vocab", (cfg.vocab,))
    common.validate(cfg, panels(cfg))

"""The fixed-target presets of the chapter "Key findings": Fig. 2's GRU at budgets
and seed counts a power analysis chose before the runs (``penb.sizing``: DEEP_RULE
v1-v3), the same on every host and device (``presets.check`` refuses others). Each is
written as what it changes in the one before it (deep: quick's; deep_v2: deep's;
deep_v3: deep_v2's), a reason per value; ``presets`` composes them.
"""
from penb.presets import confirmation
from penb.sizing import DEEP_V2_SEEDS, DEEP_V3_N, DEEP_V3_SEEDS, DEEP_V3_VOCAB

# Fig. 2's GRU where the protocol can decide (issue 58): the paper's vocabulary range
# at quick's shapes, trained to a fixed budget N with its N/2 and N/4 on each run's
# trunk, on the confirmation seeds the power analysis names. The rule is
# penb.sizing.DEEP_RULE; penb.power.fig2_v1 reads the vanilla GRU's curves on search
# seeds (deep_search.csv beside this module, scripts/search_deep.py) and writes
# power_analysis.csv beside it, landed before any deep confirmation run. The CPU trains
# it through the one batched trainer over both cores (``python -m penb run
# key_findings --preset deep``); a kill loses at most checkpoint_every updates of each
# run, and a second invocation trains only what is left. Its budgets are the same on
# every host and device (check() refuses others).
DEEP_N = 32_000        # DEEP_RULE on power_analysis.csv (tests/test_power.py checks it)
DEEP_SEEDS = 5         # DEEP_RULE: the fewest from 5 reaching the power, within the CPU
FIGURE_VOCAB = (32, 64, 128, 256)   # the paper's range (Sec. 4.1), every V kept
DEEP_FROM_QUICK = dict(                 # deep = quick's shapes and regime, then:
    device="auto",                      # the CPU here; CUDA where a GPU continues it
    seeds=confirmation(DEEP_SEEDS),     # graded: confirmation seeds, none searched
    core_seeds={},                      # every cell on all of them
    cores=("gru",),                     # the CPU's depth goes to one figure (the LSTM
                                        # and the S4D: a GPU's)
    gru_vocab=FIGURE_VOCAB,             # the paper's range, every V kept
    per_core={"gru": {"batch_size": 64, "steps": DEEP_N}},   # quick's GRU regime
    earlier=1,                          # N/4 on the trunk too: two doublings
    checkpoint_every=2000,              # a kill loses at most ~2 minutes of a batch
    batch_runs=20,                      # two batches of 20 runs, one per core
                                        # (penb.executors.batched.deal mixes the V)
    workers=2,                          # the 2-core CPU machine
)

# Fig. 2's GRU again, under DEEP_RULE v2 (penb.sizing, issue 58): the deep run above
# decided no comparison of the figure, so v2 reads the effect searched for both
# variants (deep_search.csv and deep_search_pe.csv, search seeds 0-2) and sizes N on
# one H100 (penb.power.fig2, power_analysis_v2.csv beside this module, landed before
# any of its runs). Trained by device calls that continue each other (``make
# device-run DEVICE_PRESET=deep_v2``), archived beside v1's run
# (book/archived/key_findings-deep_v2); the CPU would take about 5.4 hours (the
# table's cpu_min), so it is refused there unless device="cpu" is given.
DEEP_V2_N = 128_000    # DEEP_RULE v2 on power_analysis_v2.csv (tests/test_deep.py)
V2_FROM_DEEP = dict(                    # deep_v2 = v1's figure, shapes, regime, then:
    seeds=DEEP_V2_SEEDS,                # the five confirmation seeds v1 did not read
    per_core={"gru": {"batch_size": 64, "steps": DEEP_V2_N}},  # quick's regime
    checkpoint_every=8000,              # a cut call loses at most ~30 s of a batch
)

# Fig. 2's headline at the text's budget, under DEEP_RULE v3 (penb.sizing, issue 65):
# deep_v2's V 256 runs, their WSD trunks continued from 102,400 updates (the long
# run's state of deep_v2, penb.sizing.DEEP_V3_CONTINUES) to 300,000 with 150,000 and
# 75,000 on them; archived as book/archived/key_findings-deep_v3.
V3_FROM_V2 = dict(                      # deep_v3 = v2's shapes, regime, seeds, then:
    seeds=DEEP_V3_SEEDS,                # v2's five: one set of runs per seed
    gru_vocab=DEEP_V3_VOCAB,            # the headline's cell, V 256 (the rest stay
                                        # at v2's 128,000)
    per_core={"gru": {"batch_size": 64, "steps": DEEP_V3_N}},  # the text's budget
)

# The fixed-target presets: {preset: (N, seeds, V, the rule that chose them)}.
FIXED = {"deep": (DEEP_N, confirmation(DEEP_SEEDS), FIGURE_VOCAB,
                  "penb.sizing.DEEP_RULE"),
         "deep_v2": (DEEP_V2_N, DEEP_V2_SEEDS, FIGURE_VOCAB,
                     "penb.sizing, DEEP_RULE v2"),
         "deep_v3": (DEEP_V3_N, DEEP_V3_SEEDS, DEEP_V3_VOCAB,
                     "penb.sizing, DEEP_RULE v3")}

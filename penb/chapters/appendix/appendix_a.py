"""Presets, panels and runs of the chapter "Appendix A: other tasks" (Morita, App. A,
Fig. 7, 8, 10).

PAPER is the published configuration: hidden = embedding = 512, batch 512, five seeds,
1,024 held-out sequences, vanilla vs. sinusoidal PE (concatenated), and per section

* A.1 reverse ordering + delayed addition: LSTM, L = 16, V = 896-1,088, 600,000 updates
  (Fig. 7);
* A.2 sorting: GRU and LSTM, L = 64, 300,000 updates (Fig. 8). The vocabularies are not
  printed in the text; we use those of Fig. 2 (GRU 32-256, LSTM 256-16,384). The claim
  that sorting gains less than reversal needs reversal runs of the same models, settings
  and seeds at the largest sorting vocabulary: the chapter makes them (``reverse-*``
  panels), and where the key-findings chapter already made them (same settings) the run
  store hands them back;
* A.3 predecessor query: LSTM, L = 16, 300,000 updates (Fig. 10). Vocabularies not
  printed either; we use the LSTM's of Fig. 2.

QUICK is a CPU regime for the 2-core machine: the LSTM regime of the key-findings
search's rounds r1-r8 (hidden 64, batch 128, lr 1e-2, 2,000 updates; that chapter has
since moved its LSTM to hidden 128, batch 64, lr 3e-3, 4,000 updates, about twice the
cost per run, which the appendices have not adopted), the GRU in the key-findings GRU
regime (batch 64). Per section:

* A.1 at L = 8 with V = 16, 32 and 64: ``morita.fig7`` reads the largest, ``morita.fig7.trend``
  all three (the two small sizes are 16 runs of 10-20 s, issue 28);
* A.2 at L = 16 with V = 32 (GRU) and 256 (LSTM), plus the reversal runs of both at the
  same settings: the LSTM's are appendix C's and D's reversal runs, the GRU's the
  key-findings chapter's GRU runs at V = 32 (shared through the run store when that
  chapter trains the same seeds; else trained here);
* A.3 is not run: at these settings (L = 8) both variants stayed near the blind-guess
  baseline 1/(L-1) in a probe (search seeds 111/222/333: vanilla 0.180, PE 0.172 after
  8,000 updates), so its runs would decide nothing (``NOT_RUN``); the paper preset runs
  it.

Seeds (issue 22): four confirmation seeds (``penb.presets.confirmation(4)``), from the
pilot (seeds 1001-1005, graded before issue 22; sd = half-width x sqrt(n) /
t(0.975, n-1)) and 80% power to keep the interval above 0 at the pilot's effect:

* ``morita.fig7``: +0.079 [+0.041, +0.117] over 5 seeds, sd 0.031: 91% at 4 (64% at 3);
* ``morita.fig8.*``: pooled over both models, +0.050 [+0.034, +0.066] over 10 (model,
  seed) units, sd 0.022 at most per model: 83% at 4 (54% at 3). Its second part (the
  gain smaller than in reversal) was not shown by the pilot and has no SD of its own:
  more seeds were not bought for it.

Runs at quick: 40 (8 A.1, 16 sorting, 16 reversal; 32 new after key findings) at about
10 s (L = 8), 19 s (GRU) and 28 s (LSTM, L = 16) per run, the per-run times of the
book build before issue 22 (appendix A 6.6 min for 40 runs, B 2.3 for 10, C 2.4 for
10, two workers): about 5.7 minutes (before: 50 runs, 6.6 minutes).
SMOKE only exercises every cell.

``panels(cfg)`` lists the figure panels of the selected sections, ``run_configs(cfg)``
their runs and ``run(cfg)`` trains or reuses them (``common.run``).
"""
from penb.chapters import rnn_common
from penb.chapters.appendix import common, regimes
from penb.chapters.appendix.common import Panel
from penb.presets import QUICK_SEEDS, confirmation, left_out, require, require_ints, require_names

SECTIONS = ("add", "sort", "predecessor")

PAPER = dict(
    device="auto",                  # auto: CUDA when present, else the CPU
    hidden=512,                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                 # Sec. 3.3
    warmup=1000,                    # linear warm-up updates, then cosine to 0
    lr=1e-3,                        # peak learning rate
    betas=(0.9, 0.98),              # Adam betas of the official code (text: 0.999)
    held_out=1024,                  # test sequences per trial (Fig. 7, 8, 10)
    seeds=(111, 222, 333, 444, 555),  # five trials (official replication seeds)
    sections=SECTIONS,              # which of A.1 (add), A.2 (sort), A.3 to run
    add_length=16,                  # A.1: input length L
    add_vocab=(896, 960, 1024, 1088),  # A.1: vocabularies (= modulus of the addition)
    add_steps=600_000,              # A.1: twice the other tasks' updates
    sort_length=64,                 # A.2: input length L
    sort_cores=("gru", "lstm"),     # A.2: models
    sort_gru_vocab=(32, 64, 128, 256),  # A.2: not printed; Fig. 2's GRU range
    sort_lstm_vocab=(256, 512, 1024, 2048, 4096, 8192, 16384),  # A.2: Fig. 2's LSTMs
    sort_steps=300_000,             # A.2: updates
    gru_batch_size=512,             # A.2: the GRU's batch (Sec. 3.3: as the LSTM's)
    pred_length=16,                 # A.3: input length L (distinct tokens: V >= L)
    pred_vocab=(256, 512, 1024, 2048, 4096, 8192, 16384),  # A.3: Fig. 2's LSTM range
    pred_steps=300_000,             # A.3: updates
    checkpoint_every=5000,          # kept checkpoints
    bootstrap=10_000,               # bootstrap resamples of the 95% intervals
    amp="none",                     # fp32; "bf16" autocast on CUDA
    workers=1,                      # runs at a time (CPU: one thread each)
    **rnn_common.EXECUTION,         # where runs execute (rnn_common.EXECUTION)
    **rnn_common.BUDGETS,           # schedule and doubling test (rnn_common.BUDGETS)
)
QUICK = dict(                       # the key-findings r1-r8 regime (docstring)
    device="cpu",                   # a CPU regime, for the 2-core machine
    hidden=64,                      # the key-findings search's r1-r8 LSTM width
    batch_size=128,                 # the key-findings search's r1-r8 LSTM batch
    warmup=100,                     # the regime's warm-up (5% of 2,000 updates)
    lr=1e-2,                        # the key-findings search's r1-r8 lr
    seeds=confirmation(QUICK_SEEDS),  # why 3: penb.presets.QUICK_SEEDS; the pilot's 4
                                    # (fig7 91%, fig8 83% power, docstring) served
                                    # protocol 2
    sections=("add", "sort"),       # A.3 sits at its baseline here: not run
    add_length=8,                   # A.1: half the paper's L = 16, for the CPU
    add_vocab=(16, 32, 64),         # A.1: three sizes, the fewest the trend reads; the
                                    # two small ones are 16 runs of ~10-20 s (issue 28)
    add_steps=2000,                 # A.1: the regime's updates
    sort_length=16,                 # A.2: the key-findings L (GRU runs shared)
    sort_gru_vocab=(32,),           # A.2: the key-findings GRU's largest V
    sort_lstm_vocab=(256,),         # A.2: appendix C's V: its runs are shared
    sort_steps=2000,                # A.2: the regime's updates
    gru_batch_size=64,              # A.2: the key-findings GRU's batch
    pred_length=8,                  # A.3 (not run): half the paper's L
    pred_vocab=(256,),              # A.3 (not run): the smallest LSTM V of Fig. 2
    pred_steps=2000,                # A.3 (not run): the regime's updates
    checkpoint_every=1000,          # two checkpoints per run
    bootstrap=2000,                 # a fifth of the paper's resamples: faster
    workers=2,                      # one run per core of the 2-core machine
    schedule=regimes.QUICK_REGIME["schedule"],  # WSD, probed here (regimes.QUICK_REGIME):
                                    # the GRU reversal runs are key findings' own again
    doubling=regimes.QUICK_REGIME["doubling"],  # each run also at N/2 (protocol 4)
    earlier=regimes.QUICK_REGIME["earlier"],    # and at N/4 (protocol 7's two doublings)
)
# Paper-sized models on a shortened schedule for one GPU: appendices B-D's GPU regime
# (regimes.GPU_REGIME: key findings' GPU settings) with updates per section. Only a
# panel's largest vocabulary is graded (Fig. 7's trend reads three): the others are
# left to the paper preset.
GPU = dict(
    {k: v for k, v in regimes.GPU_REGIME.items() if k != "steps"},  # lr 3e-3, seeds,
                                    # checkpoints, fp32, 4 runs packed (regimes.py)
    add_vocab=(896, 1024, 1088),    # A.1: three of the paper's four: the trend's fewest
    add_steps=12_000,               # A.1: twice the other sections' updates (paper)
    sort_gru_vocab=(256,),          # A.2: graded (largest) GRU V of Fig. 2, anchors'
    sort_lstm_vocab=(4096,),        # A.2: graded; key findings' largest GPU LSTM V (its
                                    # reversal runs shared), C's V (sorting shared)
    sort_steps=6000,                # A.2: key findings' GPU LSTM (runs shared); the GRU
                                    # at V256 had parted by 4-7k in the anchors
    pred_vocab=(4096,),             # A.3: the graded (largest) V, as other LSTMs
    pred_steps=6000,                # A.3: as the LSTM's other tasks
)
# Estimated cost (penb.executors.gpu_hours: the anchors' fp32 step times moved to each V
# and L), one run at a time: A.1 30 runs x 12k x 5.1 ms (L16) = 30 min; sorting GRU
# 10 x 6k x 14.0 ms = 14 min, its reversal reference 14 min; sorting LSTM V4096
# 10 x 6k x 26.6 ms = 27 min, its reversal reference 27 min (key findings' runs: free
# after that chapter); A.3 10 x 6k x 6.7 ms (L16) = 7 min. About 2.0 GPU-hours from an
# empty store (80 runs), 1.5 after key findings (70 new); about one with four runs
# packed if packing gains 1.5x (short L16 updates leave the GPU idle: they should pack
# well). Measure it before trusting it.
SMOKE = dict(                       # toy sizes: only exercises every cell
    device="cpu",                   # runs anywhere
    hidden=16,                      # toy width
    batch_size=16,                  # toy batch
    warmup=5,                       # a quarter of the 20 updates
    held_out=16,                    # a few test sequences: the summaries need some
    seeds=confirmation(2),          # two confirmation seeds (too few to decide)
    add_length=4,                   # toy L
    add_vocab=(8, 16),              # two sizes: the vocabulary axis has two points
    add_steps=20,                   # a few updates
    sort_length=4,                  # toy L
    sort_gru_vocab=(8,),            # one size is enough for the GRU
    sort_lstm_vocab=(8, 16),        # two sizes: the vocabulary axis has two points
    sort_steps=20,                  # a few updates
    gru_batch_size=16,              # toy batch, as the LSTM's
    pred_length=4,                  # toy L (<= the smallest pred_vocab)
    pred_vocab=(8, 16),             # two sizes: the vocabulary axis has two points
    pred_steps=20,                  # a few updates
    checkpoint_every=10,            # two checkpoints per run, as at other presets
    bootstrap=200,                  # enough resamples to draw an interval, fast
    workers=1,                      # in-process: no worker start-up
    schedule="wsd",                 # exercises the doubling test's shared trunks
)
VARIANTS = ("vanilla", "sinusoidal")
# (preset, section) -> why the preset does not run the section (``claims.not_tested``)
NOT_RUN = {
    ("quick", "predecessor"): (
        "the predecessor query (A.3) is not run at quick: at its settings (L = 8) "
        "both variants stayed near the blind-guess baseline 1/(L-1) = 0.14 in a probe "
        "(search seeds, 8,000 updates: vanilla 0.180, PE 0.172), so its runs would "
        "decide nothing; the paper preset runs it"),
}


def skipped(cfg, section: str) -> str:
    """Why ``section`` (or a sorting model, "sort-gru" / "sort-lstm") is not run at ``cfg`` (for
    ``claims.not_tested``)."""
    default = (f"the {section[len('sort-'):].upper()} is not among sort_cores={cfg.sort_cores}"
               if section.startswith("sort-") else f"section {section!r} is not among sections={cfg.sections}")
    return left_out(NOT_RUN, cfg, section) or default


def panels(cfg) -> list[Panel]:
    """The panels of the selected sections, in the paper's order (Fig. 7, Fig. 8 GRU and
    LSTM each followed by its reversal reference, Fig. 10)."""
    out = []
    if "add" in cfg.sections:
        out.append(Panel("add", "Reverse + delayed addition, LSTM", "reverse_add",
                         "lstm", tuple(cfg.add_vocab), VARIANTS, cfg.add_length,
                         cfg.add_steps))
    if "sort" in cfg.sections:
        for core in cfg.sort_cores:
            vocab = tuple(cfg[f"sort_{core}_vocab"])
            batch = cfg.gru_batch_size if core == "gru" else None
            name = core.upper()
            out.append(Panel(f"sort-{core}", f"Sorting, {name}", "sort", core, vocab,
                             VARIANTS, cfg.sort_length, cfg.sort_steps,
                             batch_size=batch))
            out.append(Panel(f"reverse-{core}", f"Reverse ordering (reference), {name}",
                             "reverse", core, (max(vocab),), VARIANTS, cfg.sort_length,
                             cfg.sort_steps, batch_size=batch))
    if "predecessor" in cfg.sections:
        out.append(Panel("predecessor", "Predecessor query, LSTM", "predecessor",
                         "lstm", tuple(cfg.pred_vocab), VARIANTS, cfg.pred_length,
                         cfg.pred_steps))
    return out


def describe(cfg, names) -> dict:
    """Per panel in ``names``: L, updates and batch, for a figure's stamp or a table."""
    return {p.name: p.describe(cfg) for p in panels(cfg) if p.name in names}


run_configs, run = common.bind(panels, "App. A runs")  # configs and sweep


def check(cfg):
    common.check_common(cfg, ("hidden", "batch_size", "held_out", "checkpoint_every",
                              "bootstrap", "workers", "gru_batch_size"))
    require_names("sections", cfg.sections, SECTIONS)
    require_names("sort_cores", cfg.sort_cores, ("gru", "lstm"))
    require_ints(cfg, ("add_length", "sort_length", "pred_length", "add_steps",
                       "sort_steps", "pred_steps"))
    for k in ("add_vocab", "sort_gru_vocab", "sort_lstm_vocab", "pred_vocab"):
        common.check_vocab(k, cfg[k])
    if "predecessor" in cfg.sections:
        require(min(cfg.pred_vocab) >= cfg.pred_length,
                f"predecessor query draws L = {cfg.pred_length} distinct tokens: every "
                f"pred_vocab must be >= pred_length, got {cfg.pred_vocab}")
    common.validate(cfg, panels(cfg))

"""Presets of the chapter "Frequency matters" (Morita, Sec. 4.2, Fig. 3): the dual-frequency vocabulary.

PAPER is the published configuration: reverse ordering at L = 64 with a vocabulary split into FREQUENT
and RARE halves, each position RARE with probability 1/8 (so each FREQUENT token is 7x as likely as each
RARE one); GRU with 64 tokens, LSTM with 1,024, S4D with 2,048 (``penb.claims`` "morita.fig3.*"); hidden =
embedding = 512, batch 512, 300,000 updates, five seeds; 16 test sequences per (target, disturbants,
target position) cell, i.e. 4 x 64 x 16 = 4,096 per trial (Fig. 3 caption). Checkpoints every 5,000
updates are kept, so the chapter "Gradient stability" (Fig. 5) scores the very same runs.

QUICK is a CPU regime (see the chapter's section "Exploratory (not graded)", ``scripts/search_frequency.py``
and its table ``penb/chapters/frequency/search_log.csv``): shorter sequences, a smaller network, a few
thousand updates (the LSTM with the key-findings chapter's batch of 128) and vocabularies of its own, small
enough that the models learn the FREQUENT tokens. The regime was searched with the search seeds 111 and 222
(rounds f0-f2); QUICK grades with the first five confirmation seeds (``penb.presets.confirmation``), which
neither a search nor the pilot used. SMOKE only exercises every cell.

Cost of QUICK (from the search log's ``wall_s_per_run``, one CPU thread per run on a shared machine:
GRU at 32 tokens 57 s, LSTM at 64 tokens 54 s, S4D at 256 tokens 61 s, 172 s for one run of each model):
with the search's two seeds it was 12 runs, 2 x 2 x 172 s = 11.5 min of training, about 6 min on 2
workers; with five seeds it is 30 runs, 5 x 2 x 172 s = 29 min, about 14-15 min on 2 workers. Every
one of the 3 models x 2 variants is graded (the harm claims use the vanilla runs, the robustness claims
both), so no training cell can be dropped to pay for the seeds; "Gradient stability" drops its ungraded
S4D panel at QUICK instead (scoring, not training).

The training keys of this module are shared with ``penb.chapters.gradient_stability``: both chapters
build their runs with :func:`penb.chapters.frequency.analysis.run_configs`, so equal settings give equal
run keys and no retraining.
"""
from penb.chapters import rnn_common
from penb.presets import CONFIRMATION_SEEDS, QUICK_SEEDS, SLICE_SEEDS, confirmation, require

PAPER = dict(
    device="auto",                                  # auto: CUDA when present, else the CPU
    length=64,                                      # input length L (Sec. 4.2)
    hidden=512,                                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                                 # Sec. 3.3
    steps=300_000,                                  # training updates (Sec. 3.3)
    warmup=1000,                                    # linear warm-up updates, then cosine to 0
    lr=1e-3,                                        # peak learning rate
    betas=(0.9, 0.98),                              # Adam betas of the official code (text: 0.999)
    rarity=0.125,                                   # probability that a position holds a RARE token
    per_cell=16,                                    # test sequences per target x disturbants x position
    seeds=(111, 222, 333, 444, 555),                # five trials (the official code's seeds)
    cores=("gru", "lstm", "s4d"),                   # models of Fig. 3
    gru_vocab=64,                                   # 32 + 32 (Sec. 4.2)
    lstm_vocab=1024,                                # 512 + 512
    s4d_vocab=2048,                                 # 1024 + 1024
    encodings=("none", "sinusoidal"),               # vanilla vs. position-encoded
    checkpoint_every=5000,                          # kept checkpoints (Fig. 5 every 5,000 updates)
    bootstrap=10_000,                               # bootstrap resamples of the 95% CIs
    amp="none",                                     # fp32 as in the paper; "bf16" autocast on CUDA
    workers=1,                                      # runs at a time (CPU: processes of one thread each)
    per_core={},                                    # per-model overrides of hidden, batch_size, steps, lr, warmup
    **rnn_common.EXECUTION,                         # where runs execute (rnn_common.EXECUTION)
    **rnn_common.BUDGETS,                           # schedule and doubling test (rnn_common.BUDGETS)
)
# The CPU regime chosen by scripts/search_frequency.py (round f1 of its table).
QUICK = dict(
    length=16,                                      # the key-findings regime: a quarter of the paper's L
    hidden=64,                                      # the key-findings regime
    batch_size=64,                                  # the key-findings regime (GRU, S4D)
    steps=3000,                                     # the search's first draft (f0), kept in f1
    warmup=100,                                     # the key-findings regime: short, for a few thousand updates
    lr=1e-2,                                        # the key-findings regime
    per_cell=32,                                    # twice the paper's 16: narrower CIs at no training cost
    seeds=confirmation(QUICK_SEEDS),                # 2001-2003 (neither search nor pilot); why 3:
                                                    # penb.presets.QUICK_SEEDS. The pilot (1001-1005,
                                                    # 80% power at the SESOI 0.02) had sized 5 for
                                                    # protocol 2 (harm.gru +0.005 needs 28, fig5.lstm
                                                    # -0.008 needs 17). A seed is 4 runs, ~25 s each
    gru_vocab=32,                                   # f1, chosen after seeing f0-f1 (search seeds): the
                                                    # FREQUENT-target GRU effect showed at 32 tokens
    lstm_vocab=64,                                  # f1: small enough to train the LSTM (0.60-0.63)
    s4d_vocab=256,                                  # f0: the S4D already learns at 256 (0.46-0.51)
    checkpoint_every=300,                           # about ten points per curve of "Gradient stability"
    bootstrap=10_000,                               # the paper's resamples (seed and sequence CIs)
    workers=2,                                      # one run per core of the 2-core CPU machine
    cores=("gru", "lstm", "s4d"),                   # all three (penb.sizing.QUICK_RULE, issue 41):
                                                    # the S4D's cell at 3 seeds (~7 CPU-minutes with
                                                    # N/2) is under the cost cap. Issues 26-34 had
                                                    # left it out for the hour, and because the quick
                                                    # S4D still rose on search seeds, a reason that
                                                    # held for every model here
    per_core={"lstm": {"batch_size": 128, "steps": 2000}},  # f1: the key-findings LSTM regime
    # protocol 4 (issue 34): every run also at N/2, one WSD trunk for both (~1.1 N).
    # scripts/schedule_probe.py --chapter frequency on search seeds 0-2, fp32
    # (schedule_probe.csv beside this module): WSD at N above the cosine at N in all 12
    # pairs, GRU V32 +0.088 [-0.035, +0.212] (vanilla) and +0.116 [+0.070, +0.161]
    # (PE), LSTM V64 +0.063 [+0.041, +0.085] and +0.107 [+0.066, +0.149]: adopted
    schedule="wsd",
    earlier=1,                                      # issue 58: N/4 too (a WSD branch of the same trunk,
                                                    # ~5% more updates), so protocol 7 reads two doublings
)
# Paper-sized models (the paper's vocabularies, L 64, h512, B512) on a shortened schedule for one GPU:
# the key-findings chapter's GPU regime. Not yet run on a GPU by this project: the numbers come from
# the H100 measurements of commit 9cc031a (shared/anchors/gpu-h100-measurements.md).
GPU = dict(
    device="auto",                                  # no CUDA: refused unless device="cpu" is given
    lr=3e-3,                                        # anchors: splits vanilla from PE by 3-4k updates;
                                                    # 1e-2 sent the GRU to NaN, 1e-3 parts them slowly
    seeds=confirmation(5),                       # graded: the five confirmation seeds
    checkpoint_every=1000,                          # Fig. 5's curves ("Gradient stability" scores every
                                                    # checkpoint): 12 points for the GRU, 6 for the
                                                    # others; ~8 GB of checkpoints in all
    amp="none",                                     # fp32: bf16 sent vanilla GRUs to NaN (anchors)
    workers=4,                                      # runs packed on the GPU at once (processes): a
                                                    # GRU update at h512 leaves an H100 partly idle
    schedule="wsd",                                 # as key findings' gpu preset: N/2 a branch off
                                                    # N's trunk, extended by later GPU steps
    per_core={                                      # updates where the anchors' curves have parted
        "gru": {"steps": 12_000},                   # (as key findings' GPU preset): GRU V256 vanilla
        "lstm": {"steps": 6000},                    # 0.36 vs PE 0.59 at ~13k; LSTM V16384 0.032 vs
        "s4d": {"steps": 6000},                     # 0.063 at 3k; the S4D as the LSTM
    },
)
# Estimated cost (penb.executors.gpu_hours: the anchors' fp32 step times moved to each vocabulary),
# one run at a time: GRU V64 10 runs x 12k x 13.5 ms = 27 min; LSTM V1024 10 x 6k x 20.1 ms = 20 min;
# S4D V2048 10 x 6k x 24.0 ms = 24 min: about 1.2 GPU-hours (30 runs), under one with the runs packed
# four at a time if packing gains 1.2x or more. Measure it before trusting it.

# One GPU call of at most 8 minutes on an H100 (``python -m penb slice frequency``): quick's cells, trained as
# batches of runs further and on more seeds (penb.sizing.SLICE_RULE, written before any slice confirmation run).
# Estimate (``python -m penb plan --preset slice frequency``, measured batched rates): 7.3 minutes with the
# overhead; 6 seeds would take 8.0, and quick's N x 8 (j = 3) about 13. The dual-frequency task had no search
# beyond quick's N on search seeds, so the rule's stop could not be read: N is the largest quick N x 2^j that fits.
SLICE = dict(
    QUICK,                                          # quick's cells and regime, then:
    device="auto",                                  # CUDA; refused without it unless device="cpu" is given
    executor="batched",                             # the runs of one shape as one batch (penb.trainer)
    batch_runs=1024,                                # a figure's runs of one model in one batch (issue 48: every
                                                    # cell and seed; at quick sizes memory never splits it)
    cores=("gru", "lstm"),                          # the batched trainer's models (SLICE_RULE; the S4D: SLICE_S4D)
    seeds=confirmation(SLICE_SEEDS),                # SLICE_RULE: 5 (t = 2.78); a sixth does not fit
    checkpoint_every=12_000,                        # no checkpoint but the last: a slice hands back none, and
                                                    # a cut-off batch is the next slice's (Fig. 5 is not sliced)
    per_core={                                      # quick's regime, each N x 4 (SLICE_RULE: j = 2 fits, j = 3
        "gru": {"steps": 12_000},                   # does not)
        "lstm": {"batch_size": 128, "steps": 8000},
    },
    earlier=1,                                      # N/4 too: the doubling before the graded one, shown
)

# Fig. 3's GRU cell where the protocol can decide (issue 58): the paper's GRU vocabulary (64 = 32 + 32) at quick's
# shapes, trained to a fixed budget N with its N/2 and N/4 on each run's trunk, on the confirmation seeds the power
# analysis names. The rule is penb.sizing.FREQ_DEEP_RULE; penb.power.fig3 reads both variants' harm on search
# seeds (deep_search.csv beside this module, scripts/search_deep.py --chapter frequency) and writes
# power_analysis.csv beside it, landed before any deep confirmation run. The CPU trains it through the one batched
# trainer over both cores (``python -m penb run frequency --preset deep``); a kill loses at most checkpoint_every
# updates of each run, and a second invocation trains only what is left. Its budgets are the same on every host
# and device (check() refuses others).
DEEP_N = 64_000        # FREQ_DEEP_RULE on power_analysis.csv (tests/test_frequency_power.py checks it): no N
                       # within 90 CPU-minutes reaches 80% power (at most 1.5%: the harm of RARE disturbants
                       # grew for both variants over 8k-32k on search seeds, PE's as much as vanilla's), so
                       # the largest that fits: 64,000 (its N/2 and N/4 searched), 68 CPU-minutes
DEEP_SEEDS = 10        # FREQ_DEEP_RULE: none reaches the power, so the most that fit (10: all confirmation seeds)
DEEP_VOCAB = 64        # the paper's GRU cell of Fig. 3 (Sec. 4.2)
DEEP = dict(
    QUICK,                                          # quick's shapes and regime, then:
    device="auto",                                  # the CPU here; CUDA where a GPU continues it
    seeds=confirmation(DEEP_SEEDS),                 # graded: confirmation seeds, none searched
    cores=("gru",),                                 # the CPU's depth goes to one model (the LSTM and the
                                                    # S4D: a GPU's)
    gru_vocab=DEEP_VOCAB,                           # the paper's GRU vocabulary, whatever it shows
    per_core={"gru": {"steps": DEEP_N}},            # quick's GRU regime (batch 64, lr 1e-2, WSD)
    earlier=1,                                      # N/4 on the trunk too: two doublings
    checkpoint_every=2000,                          # a kill loses at most ~2 minutes of a batch
    batch_runs=DEEP_SEEDS,                          # two batches, one per core
    workers=2,                                      # the 2-core CPU machine
)

# Exercises every cell in seconds; its numbers mean nothing.
SMOKE = dict(
    device="cpu",                                   # the tests run on the CPU
    length=4,                                       # the shortest with four quarters of positions
    hidden=8,                                       # tiny network
    batch_size=16,                                  # tiny batches
    steps=6,                                        # a few updates
    warmup=2,                                       # shorter than steps
    per_cell=2,                                     # two test sequences per cell: 4 x 4 x 2 = 32
    seeds=CONFIRMATION_SEEDS[:2],                   # 2001, 2002: too few for a verdict, as smoke is
    gru_vocab=8,                                    # 4 + 4 tokens
    lstm_vocab=16,                                  # 8 + 8 tokens
    s4d_vocab=16,                                   # 8 + 8 tokens
    checkpoint_every=3,                             # two checkpoints: "Gradient stability" has a curve
    bootstrap=200,                                  # fast CIs
    workers=1,                                      # in-process: no worker start-up
    schedule="wsd",                                 # exercises the doubling test's shared trunks
)
TRAINING_KEYS = tuple(k for k in PAPER if k not in rnn_common.EXECUTION)  # the keys that decide the
                                                    # runs (shared with Fig. 5)


def check(cfg):
    """Raise ``ValueError`` for an impossible value of the training keys (both chapters use it); at the deep preset,
    also for a budget, a seed count or a precision other than the rule's (fixed targets, the same on every host)."""
    if cfg.preset == "deep" and "gru_vocab" in cfg:
        rnn_common.check_fixed_targets(cfg, DEEP_N, confirmation(DEEP_SEEDS), DEEP_VOCAB, "penb.sizing.FREQ_DEEP_RULE")
    rnn_common.check_training(cfg, ("length", "hidden", "batch_size", "steps", "per_cell", "checkpoint_every",
                                    "bootstrap", "workers"))
    rnn_common.check_execution(cfg)
    rnn_common.check_budgets(cfg, cfg.cores)
    require(cfg.length >= 4 and cfg.length % 4 == 0,
            f"length must be a multiple of 4 (four quarters of target positions), got {cfg.length}")
    require(0 < cfg.rarity < 1, f"rarity must be in (0, 1), got {cfg.rarity}")
    for core in cfg.cores:
        v = cfg[f"{core}_vocab"]
        require(isinstance(v, int) and not isinstance(v, bool) and v >= 4 and v % 2 == 0,
                f"{core}_vocab must be an even int >= 4 (FREQUENT and RARE halves), got {v!r}")


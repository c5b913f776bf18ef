"""Presets of the chapter "Key findings" (Morita, Sec. 4.1, Fig. 2): reverse ordering at L = 64.

PAPER is the published configuration: GRU, LSTM and S4D, vanilla vs. sinusoidal encoding, hidden =
embedding = 512, batch 512, 300,000 updates, five seeds, 1,024 held-out sequences per trial.
The text gives the vocabularies of the GRU (32-256) and the LSTM (256-16,384) but not those of the
S4D in Fig. 2; we use the LSTM's. Betas: the official code's (0.9, 0.98) (the text says 0.999).

QUICK is the CPU regime found by ``scripts/search_key_findings.py`` (its table is
``penb/chapters/key_findings/search_log.csv``). From an empty run store the chapter took 13 min 11 s on the
2-core machine (2026-11-22, two worker processes). SMOKE only exercises every cell.

Which runs these settings make is :func:`penb.chapters.key_findings.analysis.run_configs`.
"""
from penb.chapters import rnn_common
from penb.presets import require

PAPER = dict(
    device="auto",                                  # auto: CUDA when present, else the CPU
    length=64,                                      # input length L (Sec. 4.1)
    hidden=512,                                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                                 # Sec. 3.3
    steps=300_000,                                  # training updates (Sec. 3.3)
    warmup=1000,                                    # linear warm-up updates, then cosine to 0
    lr=1e-3,                                        # peak learning rate
    betas=(0.9, 0.98),                              # Adam betas of the official code
    held_out=1024,                                  # test sequences per trial (Fig. 2 caption)
    seeds=(111, 222, 333, 444, 555),                # five trials (official replication script)
    cores=("gru", "lstm", "s4d"),                   # models of Fig. 2
    gru_vocab=(32, 64, 128, 256),                   # Sec. 4.1
    lstm_vocab=(256, 512, 1024, 2048, 4096, 8192, 16384),  # Sec. 4.1
    s4d_vocab=(256, 512, 1024, 2048, 4096, 8192, 16384),   # not printed: the LSTM's range
    encodings=("none", "sinusoidal"),               # vanilla vs. position-encoded
    checkpoint_every=5000,                          # kept checkpoints (official saving interval)
    bootstrap=10_000,                               # bootstrap resamples of the 95% CIs
    amp="none",                                     # fp32 as in the paper; "bf16" autocast on CUDA
    workers=1,                                      # runs at a time (CPU: processes of one thread each)
    per_core={},                                    # per-model overrides, e.g. {"gru": {"batch_size": 16}}
)
PER_CORE_KEYS = rnn_common.KEYS                     # what ``per_core`` may override

# The CPU regime chosen by scripts/search_key_findings.py (round "confirm" of its table).
QUICK = dict(
    length=16,                                      # a quarter of the paper's L; at L = 8 the scouts saw no gap
    hidden=64,                                      # r1: 3x cheaper per update than 128, still learns
    batch_size=128,                                 # the LSTM's: batch 128 opened its gap (r4, r7)
    steps=2000,                                     # the LSTM's (r7, r8): what the time budget allows
    warmup=100,                                     # the search's: short, for a few thousand updates
    lr=1e-2,                                        # r1: about twice the progress of 3e-3 at hidden 64
    seeds=(111, 222, 333),                          # three trials: PE was behind in one seed at V 256 (cand1)
    gru_vocab=(8, 32),                              # cand1: a gap in every seed at 32; 8 beside it
    lstm_vocab=(64, 256),                           # 256 where vanilla fails; 64 beside it (r8)
    s4d_vocab=(64, 256),                            # as the LSTM's
    checkpoint_every=1000,                          # the search's, so its runs are these (same run keys)
    bootstrap=2000,                                 # fewer than the paper's 10,000: quicker, enough for a direction
    workers=2,                                      # one run per core of the 2-core CPU machine
    per_core={                                      # each model's best regime in the search:
        "gru": {"batch_size": 64},                  # cand1: the GRU's gap at batch 64
        "s4d": {"batch_size": 64, "steps": 2500, "lr": 3e-2},  # r4, r8: widest S4D gap per second
    },
)
# Exercises every cell in seconds; its numbers mean nothing.
SMOKE = dict(
    device="cpu",                                   # the tests run on the CPU
    length=4,                                       # tiny sequences
    hidden=16,                                      # tiny network
    batch_size=16,                                  # tiny batches
    steps=20,                                       # a few updates
    warmup=5,                                       # shorter than steps
    held_out=16,                                    # a few test sequences
    seeds=(111, 222),                               # two seeds: per-seed columns and CIs have work to do
    gru_vocab=(8, 16),                              # two vocabularies: the sweep's x axis
    lstm_vocab=(16,),                               # one vocabulary: the cheapest sweep
    s4d_vocab=(16,),                                # as the LSTM's
    checkpoint_every=10,                            # two checkpoints per run: exercises saving
    bootstrap=200,                                  # fast CIs
    workers=1,                                      # in-process: no worker start-up
)


def check(cfg):
    """Raise ``ValueError`` for an impossible value of ``cfg`` (a resolved ``key_findings`` config)."""
    rnn_common.check_training(cfg, ("length", "hidden", "batch_size", "steps", "held_out", "checkpoint_every",
                                    "bootstrap", "workers"))
    for core in cfg.cores:
        vocab = cfg[f"{core}_vocab"]
        require(len(vocab) >= 1 and all(isinstance(v, int) and not isinstance(v, bool) and v >= 2 for v in vocab),
                f"{core}_vocab must hold ints >= 2, got {vocab}")
        require(len(set(vocab)) == len(vocab), f"{core}_vocab has repeated sizes: {vocab}")
        require(min(vocab) ** cfg.length > cfg.held_out,
                f"{core}_vocab {min(vocab)} with length {cfg.length} has fewer than held_out + 1 = "
                f"{cfg.held_out + 1} distinct sequences")

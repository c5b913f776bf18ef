"""Presets of the chapter "Key findings" (Morita, Sec. 4.1, Fig. 2): reverse ordering at L = 64.

PAPER is the published configuration: GRU, LSTM and S4D, vanilla vs. sinusoidal encoding, hidden =
embedding = 512, batch 512, 300,000 updates, five seeds, 1,024 held-out sequences per trial.
The text gives the vocabularies of the GRU (32-256) and the LSTM (256-16,384) but not those of the
S4D in Fig. 2; we use the LSTM's. Betas: the official code's (0.9, 0.98) (the text says 0.999).

QUICK is the CPU regime found by ``scripts/search_key_findings.py`` (its table is
``penb/data/key_findings_search.csv``). From an empty run store the chapter took 13 min 11 s on the 2-core
machine (2026-11-22, two worker processes). SMOKE only exercises every cell.
"""
from penb import per_core
from penb.chapters import _rnn
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
    lstm_vocab=(256, 512, 1024, 2048, 4096, 8192, 16384),
    s4d_vocab=(256, 512, 1024, 2048, 4096, 8192, 16384),   # not printed: the LSTM's range
    encodings=("none", "sinusoidal"),               # vanilla vs. position-encoded
    checkpoint_every=5000,                          # kept checkpoints (official saving interval)
    bootstrap=10_000,                               # bootstrap resamples of the 95% CIs
    amp="none",                                     # fp32 as in the paper; "bf16" autocast on CUDA
    workers=1,                                      # runs at a time (CPU: processes of one thread each)
    per_core={},                                    # per-model overrides, e.g. {"gru": {"batch_size": 16}}
)
PER_CORE_KEYS = per_core.KEYS
QUICK = dict(                                       # the CPU regime chosen by scripts/search_key_findings.py
    length=16, hidden=64, batch_size=128, steps=2000, warmup=100, lr=1e-2, seeds=(111, 222, 333),
    gru_vocab=(8, 32), lstm_vocab=(64, 256), s4d_vocab=(64, 256), checkpoint_every=1000, bootstrap=2000,
    workers=2, per_core={"gru": {"batch_size": 64}, "s4d": {"batch_size": 64, "steps": 2500, "lr": 3e-2}},
)
SMOKE = dict(
    device="cpu", length=4, hidden=16, batch_size=16, steps=20, warmup=5, held_out=16, seeds=(111, 222),
    gru_vocab=(8, 16), lstm_vocab=(16,), s4d_vocab=(16,), checkpoint_every=10, bootstrap=200, workers=1,
)


def check(cfg):
    _rnn.check_training(cfg, ("length", "hidden", "batch_size", "steps", "held_out", "checkpoint_every",
                              "bootstrap", "workers"))
    for core in cfg.cores:
        vocab = cfg[f"{core}_vocab"]
        require(len(vocab) >= 1 and all(isinstance(v, int) and not isinstance(v, bool) and v >= 2 for v in vocab),
                f"{core}_vocab must hold ints >= 2, got {vocab}")
        require(len(set(vocab)) == len(vocab), f"{core}_vocab has repeated sizes: {vocab}")
        require(min(vocab) ** cfg.length > cfg.held_out,
                f"{core}_vocab {min(vocab)} with length {cfg.length} has fewer than held_out + 1 = "
                f"{cfg.held_out + 1} distinct sequences")


settings = per_core.settings                       # the training settings of one core


def run_configs(cfg) -> list[dict]:
    """One ``penb.train`` config per (core, vocabulary, encoding, seed) of the resolved preset ``cfg``."""
    common = dict(task="reverse", length=cfg.length, betas=tuple(cfg.betas), held_out=cfg.held_out,
                  checkpoint_every=cfg.checkpoint_every, device=cfg.device, amp=cfg.amp)
    return [dict(common, **settings(cfg, core), core=core, vocab_size=v, encoding=e, seed=s)
            for core in cfg.cores for v in cfg[f"{core}_vocab"] for e in cfg.encodings for s in cfg.seeds]

"""Presets of the chapter "Frequency matters" (Morita, Sec. 4.2, Fig. 3): the dual-frequency vocabulary.

PAPER is the published configuration: reverse ordering at L = 64 with a vocabulary split into FREQUENT
and RARE halves, each position RARE with probability 1/8 (so each FREQUENT token is 7x as likely as each
RARE one); GRU with 64 tokens, LSTM with 1,024, S4D with 2,048 (``penb.claims`` "morita.fig3"); hidden =
embedding = 512, batch 512, 300,000 updates, five seeds; 16 test sequences per (target, disturbants,
target position) cell, i.e. 4 x 64 x 16 = 4,096 per trial (Fig. 3 caption). Checkpoints every 5,000
updates are kept, so the chapter "Gradient stability" (Fig. 5) scores the very same runs.

QUICK is a CPU regime (see the chapter's appendix and ``scripts/search_frequency.py``): shorter sequences,
a smaller network, a few thousand updates (the LSTM with the key-findings chapter's batch of 128) and
vocabularies of its own, small enough that the models learn the FREQUENT tokens. SMOKE only exercises every cell.

The training keys of this module are shared with ``penb.chapters.gradient_stability``: both chapters
build their runs with :func:`run_configs`, so equal settings give equal run keys and no retraining.
"""
from penb import per_core
from penb.chapters import _rnn
from penb.presets import require

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
    seeds=(111, 222, 333, 444, 555),                # five trials
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
)
QUICK = dict(                                       # chosen by scripts/search_frequency.py (round f1)
    length=16, hidden=64, batch_size=64, steps=3000, warmup=100, lr=1e-2, per_cell=32,
    seeds=(111, 222), gru_vocab=32, lstm_vocab=64, s4d_vocab=256, checkpoint_every=300, bootstrap=10_000,
    workers=2, per_core={"lstm": {"batch_size": 128, "steps": 2000}},
)
SMOKE = dict(
    device="cpu", length=4, hidden=8, batch_size=16, steps=6, warmup=2, per_cell=2, seeds=(111,),
    gru_vocab=8, lstm_vocab=16, s4d_vocab=16, checkpoint_every=3, bootstrap=200, workers=1,
)
TRAINING_KEYS = tuple(PAPER)                        # the keys that decide the runs (shared with Fig. 5)


def check(cfg):
    """Raise ``ValueError`` for an impossible value of the training keys (both chapters use it)."""
    _rnn.check_training(cfg, ("length", "hidden", "batch_size", "steps", "per_cell", "checkpoint_every",
                              "bootstrap", "workers"))
    require(cfg.length >= 4 and cfg.length % 4 == 0,
            f"length must be a multiple of 4 (four quarters of target positions), got {cfg.length}")
    require(0 < cfg.rarity < 1, f"rarity must be in (0, 1), got {cfg.rarity}")
    for core in cfg.cores:
        v = cfg[f"{core}_vocab"]
        require(isinstance(v, int) and not isinstance(v, bool) and v >= 4 and v % 2 == 0,
                f"{core}_vocab must be an even int >= 4 (FREQUENT and RARE halves), got {v!r}")


def run_configs(cfg) -> list[dict]:
    """One ``penb.train`` config per (core, encoding, seed): the dual-frequency task, its test grid of
    ``4 x length x per_cell`` sequences. Only :data:`TRAINING_KEYS` enter, so both chapters agree."""
    common = dict(task="dual_frequency", task_options={"rarity": float(cfg.rarity)}, length=cfg.length,
                  betas=tuple(cfg.betas), held_out=4 * cfg.length * cfg.per_cell,
                  checkpoint_every=cfg.checkpoint_every, device=cfg.device, amp=cfg.amp)
    return [dict(common, **per_core.settings(cfg, core), core=core, vocab_size=cfg[f"{core}_vocab"], encoding=e, seed=s)
            for core in cfg.cores for e in cfg.encodings for s in cfg.seeds]

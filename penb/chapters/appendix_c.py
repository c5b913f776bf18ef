"""Presets of the chapter "Appendix C: the parameter control" (Morita, App. C, Fig. 12).

PAPER: LSTM, L = 64, V = 16,384, reverse ordering and sorting; vanilla, "double vanilla" (the input is
[embedding, embedding], so the input-to-hidden weights are as large as the position-encoded model's)
and sinusoidal PE (concatenated); hidden = embedding = 512, batch 512, 300,000 updates, five seeds,
1,024 held-out sequences.

QUICK is a CPU regime of under ten minutes on two cores: L = 16, V = 256 and the LSTM regime that the
key-findings search chose (hidden 64, batch 128, lr 1e-2, 2,000 updates, seeds 111/222/333). Its vanilla
and sinusoidal reverse runs are the key-findings chapter's LSTM runs at V = 256 and its sorting runs are
appendix A's, at equal settings, so the run store reuses them. From an empty run store the chapter took
10 min 2 s on the 2-core machine (2026-11-22).
SMOKE only exercises every cell.
"""
from penb import appendix
from penb.appendix import Panel
from penb.presets import require, require_ints

TASKS = ("reverse", "sort")
ALLOWED = ("vanilla", "double", "sinusoidal")

PAPER = dict(
    device="auto",                                  # auto: CUDA when present, else the CPU
    tasks=TASKS,                                    # reverse ordering and sorting (Fig. 12)
    variants=ALLOWED,                               # vanilla, double vanilla, sinusoidal PE
    length=64,                                      # input length L
    vocab=16384,                                    # vocabulary size
    hidden=512,                                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                                 # Sec. 3.3
    steps=300_000,                                  # training updates
    warmup=1000,                                    # linear warm-up updates, then cosine to 0
    lr=1e-3,                                        # peak learning rate
    betas=(0.9, 0.98),                              # Adam betas of the official code (the text says 0.999)
    held_out=1024,                                  # test sequences per trial (Fig. 12 caption)
    seeds=(111, 222, 333, 444, 555),                # five trials
    checkpoint_every=5000,                          # kept checkpoints
    bootstrap=10_000,                               # bootstrap resamples of the 95% CIs
    amp="none",                                     # fp32; "bf16" autocast on CUDA
    workers=1,                                      # runs at a time (CPU: processes of one thread each)
)
QUICK = dict(                                       # the key-findings LSTM regime (see the docstring)
    device="cpu", length=16, vocab=256, hidden=64, batch_size=128, steps=2000, warmup=100, lr=1e-2,
    seeds=(111, 222, 333), checkpoint_every=1000, bootstrap=2000, workers=2,
)
SMOKE = dict(
    device="cpu", length=4, vocab=16, hidden=16, batch_size=16, steps=20, warmup=5, held_out=16, seeds=(111, 222),
    checkpoint_every=10, bootstrap=200, workers=1,
)


def panels(cfg) -> list[Panel]:
    names = {"reverse": "Reverse ordering", "sort": "Sorting"}
    return [Panel(t, f"{names.get(t, t)}, LSTM", t, "lstm", (cfg.vocab,), tuple(cfg.variants), cfg.length, cfg.steps)
            for t in cfg.tasks]


def check(cfg):
    appendix.check_common(cfg)
    require(len(cfg.tasks) >= 1 and len(set(cfg.tasks)) == len(cfg.tasks), f"tasks must be distinct, got {cfg.tasks!r}")
    for t in cfg.tasks:
        require(t in TASKS, f"unknown task {t!r}; this chapter runs: {', '.join(TASKS)}")
    appendix.check_variants("variants", cfg.variants, ALLOWED)
    require_ints(cfg, ("length", "steps"))
    appendix.check_vocab("vocab", (cfg.vocab,))
    appendix.validate(cfg, panels(cfg))

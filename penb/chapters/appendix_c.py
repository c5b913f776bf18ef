"""Presets of the chapter "Appendix C: the parameter control" (Morita, App. C, Fig. 12).

PAPER: LSTM, L = 64, V = 16,384, reverse ordering and sorting; vanilla, "double vanilla" (the input is
[embedding, embedding], so the input-to-hidden weights are as large as the position-encoded model's)
and sinusoidal PE (concatenated); hidden = embedding = 512, batch 512, 300,000 updates, five seeds,
1,024 held-out sequences.

QUICK is a CPU regime sized for about a quarter of an hour on two cores: L = 16 (lengths 8-16 when
variable), V = 256, hidden 64, batch 64, lr 1e-2, 5,000 updates, two seeds (three in B). It follows the
key-findings regime search (at these settings PE and vanilla part after a few thousand updates); it is
provisional, not yet confirmed by runs of this chapter. Its vanilla and sinusoidal reverse runs use the
same fields as the key-findings chapter's, so the run store reuses them when the settings coincide.
SMOKE only exercises every cell.
"""
from penb import appendix
from penb.appendix import Panel
from penb.presets import require

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
QUICK = dict(
    device="cpu", length=16, vocab=256, hidden=64, batch_size=64, steps=5000, warmup=100, lr=1e-2,
    seeds=(111, 222), checkpoint_every=1000, bootstrap=2000, workers=2,
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
    for k in ("length", "steps"):
        require(isinstance(cfg[k], int) and not isinstance(cfg[k], bool) and cfg[k] >= 1,
                f"{k} must be an int >= 1, got {cfg[k]!r}")
    appendix.check_vocab("vocab", (cfg.vocab,))
    appendix.validate(cfg, panels(cfg))

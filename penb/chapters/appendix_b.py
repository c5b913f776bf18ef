"""Presets of the chapter "Appendix B: variable input length" (Morita, App. B, Fig. 11).

PAPER: reverse ordering with input lengths drawn uniformly from 32..64 per sequence, LSTM, V = 16,384,
vanilla vs. sinusoidal PE (concatenated; positions 0..127 count through both phases), hidden =
embedding = 512, batch 512, 300,000 updates, five seeds, 1,024 held-out sequences per length.

QUICK is a CPU regime of a few minutes on two cores: lengths 8-16, V = 256, and the LSTM regime that the
key-findings search chose (hidden 64, batch 128, lr 1e-2, 2,000 updates, seeds 111/222/333). Appendix D
reuses these runs as its variable-length vanilla and sinusoidal runs.
SMOKE only exercises every cell.
"""
from penb import appendix
from penb.appendix import Panel
from penb.presets import require, require_ints

PAPER = dict(
    device="auto",                                  # auto: CUDA when present, else the CPU
    min_length=32,                                  # shortest input length (App. B)
    length=64,                                      # longest input length (App. B)
    vocab=16384,                                    # vocabulary size (App. B)
    hidden=512,                                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                                 # Sec. 3.3
    steps=300_000,                                  # training updates
    warmup=1000,                                    # linear warm-up updates, then cosine to 0
    lr=1e-3,                                        # peak learning rate
    betas=(0.9, 0.98),                              # Adam betas of the official code (the text says 0.999)
    held_out=1024,                                  # test sequences per length per trial (Fig. 11 caption)
    seeds=(111, 222, 333, 444, 555),                # five trials
    checkpoint_every=5000,                          # kept checkpoints
    bootstrap=10_000,                               # bootstrap resamples of the 95% CIs
    amp="none",                                     # fp32; "bf16" autocast on CUDA
    workers=1,                                      # runs at a time (CPU: processes of one thread each)
)
QUICK = dict(                                       # the key-findings LSTM regime (see the docstring)
    device="cpu", min_length=8, length=16, vocab=256, hidden=64, batch_size=128, steps=2000, warmup=100, lr=1e-2,
    seeds=(111, 222, 333), checkpoint_every=1000, bootstrap=2000, workers=2,
)
SMOKE = dict(
    device="cpu", min_length=2, length=4, vocab=16, hidden=16, batch_size=16, steps=20, warmup=5, held_out=16,
    seeds=(111, 222), checkpoint_every=10, bootstrap=200, workers=1,
)
VARIANTS = ("vanilla", "sinusoidal")


def panels(cfg) -> list[Panel]:
    return [Panel("variable", f"Reverse, lengths {cfg.min_length}-{cfg.length}, LSTM", "reverse_variable", "lstm",
                  (cfg.vocab,), VARIANTS, cfg.length, cfg.steps, {"min_length": cfg.min_length})]


def check(cfg):
    appendix.check_common(cfg)
    require_ints(cfg, ("min_length", "length", "steps"))
    require(cfg.min_length <= cfg.length,
            f"empty length range: min_length ({cfg.min_length}) must not exceed length ({cfg.length})")
    appendix.check_vocab("vocab", (cfg.vocab,))
    appendix.validate(cfg, panels(cfg))

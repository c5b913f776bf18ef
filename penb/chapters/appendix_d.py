"""Presets of the chapter "Appendix D: alternative encodings" (Morita, App. D, Fig. 13-14).

PAPER: LSTM, reverse ordering, V = 16,384, vanilla and three encodings concatenated to the embedding:
sinusoidal, random (fixed standard-normal vectors scaled to unit length, i.e. uniform on the sphere)
and learnable (an ``nn.Embedding`` row per position). Fig. 13 at the fixed length L = 64, Fig. 14 with
lengths drawn from 32..64 (1,024 held-out sequences per length); hidden = embedding = 512, batch
512, 300,000 updates, five seeds.

QUICK is a CPU regime of under ten minutes on two cores: L = 16 (lengths 8-16 when variable), V = 256 and
the LSTM regime that the key-findings search chose (hidden 64, batch 128, lr 1e-2, 2,000 updates, seeds
111/222/333). Its vanilla and sinusoidal runs are those of the key-findings chapter (fixed length) and of
appendix B (variable length) at equal settings, so the run store reuses them.
SMOKE only exercises every cell.
"""
from penb import appendix
from penb.appendix import Panel
from penb.presets import require, require_ints, require_names

SETTINGS = ("fixed", "variable")
ALLOWED = ("vanilla", "sinusoidal", "random", "learnable")

PAPER = dict(
    device="auto",                                  # auto: CUDA when present, else the CPU
    settings=SETTINGS,                              # fixed length (Fig. 13) and variable length (Fig. 14)
    variants=ALLOWED,                               # vanilla and the three encodings
    length=64,                                      # the (longest) input length
    min_length=32,                                  # shortest input length of the variable setting
    vocab=16384,                                    # vocabulary size
    hidden=512,                                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                                 # Sec. 3.3
    steps=300_000,                                  # training updates
    warmup=1000,                                    # linear warm-up updates, then cosine to 0
    lr=1e-3,                                        # peak learning rate
    betas=(0.9, 0.98),                              # Adam betas of the official code (the text says 0.999)
    held_out=1024,                                  # test sequences per trial (per length when variable)
    seeds=(111, 222, 333, 444, 555),                # five trials
    checkpoint_every=5000,                          # kept checkpoints
    bootstrap=10_000,                               # bootstrap resamples of the 95% CIs
    amp="none",                                     # fp32; "bf16" autocast on CUDA
    workers=1,                                      # runs at a time (CPU: processes of one thread each)
)
QUICK = dict(                                       # the key-findings LSTM regime (see the docstring)
    device="cpu", length=16, min_length=8, vocab=256, hidden=64, batch_size=128, steps=2000, warmup=100, lr=1e-2,
    seeds=(111, 222, 333), checkpoint_every=1000, bootstrap=2000, workers=2,
)
SMOKE = dict(
    device="cpu", length=4, min_length=2, vocab=16, hidden=16, batch_size=16, steps=20, warmup=5, held_out=16,
    seeds=(111, 222), checkpoint_every=10, bootstrap=200, workers=1,
)


def panels(cfg) -> list[Panel]:
    out = []
    if "fixed" in cfg.settings:
        out.append(Panel("fixed", f"Fixed length {cfg.length}", "reverse", "lstm", (cfg.vocab,), tuple(cfg.variants),
                         cfg.length, cfg.steps))
    if "variable" in cfg.settings:
        out.append(Panel("variable", f"Lengths {cfg.min_length}-{cfg.length}", "reverse_variable", "lstm",
                         (cfg.vocab,), tuple(cfg.variants), cfg.length, cfg.steps, {"min_length": cfg.min_length}))
    return out


def check(cfg):
    appendix.check_common(cfg)
    require_names("settings", cfg.settings, SETTINGS)
    appendix.check_variants("variants", cfg.variants, ALLOWED)
    require_ints(cfg, ("length", "min_length", "steps"))
    if "variable" in cfg.settings:
        require(cfg.min_length <= cfg.length,
                f"empty length range: min_length ({cfg.min_length}) must not exceed length ({cfg.length})")
    appendix.check_vocab("vocab", (cfg.vocab,))
    appendix.validate(cfg, panels(cfg))

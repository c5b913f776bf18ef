"""Presets of the chapter "Why deep autoregressive Transformers need no positional encoding" (Irie).

Irie's review trains nothing and prints no numbers: its claims are properties of the architecture.
The chapter checks them on random, seeded float64 models, so "paper" here means more permutations,
longer sequences and wider, deeper models, not a published configuration.
"""
from penb import encodings
from penb.presets import require
from penb.transformer import NORMS

PAPER = dict(
    device="cpu",            # float64 checks of small models; "auto" uses a GPU if there is one
    seed=0,                  # weights, tokens and permutations
    vocab=512,               # token ids to draw the distinct tokens from
    length=16,               # T: tokens per sequence
    dim=128,                 # D: model width
    heads=4,                 # attention heads (D must divide by them)
    ffn=512,                 # feed-forward width F
    norm="pre",              # layer norm placement: pre, post or none (penb.transformer)
    layers=(1, 2, 3, 4),     # depths checked for Q3/Q5; must include 1 and one >= 2
    permutations=10_000,     # random permutations per check
    encoding="sinusoidal",   # the PE the with-PE contrasts add (a penb.encodings key other than none)
    tol_equal=1e-10,         # max |difference| at or below which two outputs count as equal
    tol_differ=1e-6,         # max |difference| at or above which they count as different
)
QUICK = dict(length=8, dim=64, ffn=256, layers=(1, 2, 3), permutations=1000)
SMOKE = dict(vocab=64, length=5, dim=16, heads=2, ffn=32, layers=(1, 2), permutations=50)


def check(cfg):
    require(cfg.length >= 3, f"length must be >= 3 (two tokens to permute before the last), got {cfg.length}")
    require(cfg.vocab >= cfg.length, f"vocab ({cfg.vocab}) must be >= length ({cfg.length}): tokens are distinct")
    require(cfg.dim >= 1 and cfg.heads >= 1 and cfg.dim % cfg.heads == 0,
            f"dim ({cfg.dim}) must be a positive multiple of heads ({cfg.heads})")
    require(cfg.ffn >= 1, f"ffn must be >= 1, got {cfg.ffn}")
    require(cfg.norm in NORMS, f"unknown norm {cfg.norm!r}; valid: {', '.join(NORMS)}")
    require(len(cfg.layers) > 0 and all(isinstance(n, int) and n >= 1 for n in cfg.layers),
            f"layers must be positive ints, got {cfg.layers}")
    require(1 in cfg.layers and max(cfg.layers) >= 2, f"layers must include 1 and a depth >= 2, got {cfg.layers}")
    require(cfg.permutations >= 1, f"permutations must be >= 1, got {cfg.permutations}")
    require(cfg.encoding in encodings.KEYS and cfg.encoding != "none",
            f"encoding must be a penb.encodings key other than 'none', got {cfg.encoding!r}; "
            f"valid: {', '.join(k for k in encodings.KEYS if k != 'none')}")
    require(0 < cfg.tol_equal < cfg.tol_differ,
            f"need 0 < tol_equal < tol_differ, got {cfg.tol_equal}, {cfg.tol_differ}")

"""Presets of the chapter "Positional encodings" (paper Sec. 3.2, App. D; the blog's encodings)."""
from penb.presets import require

PAPER = dict(
    device="cpu",        # nothing here trains; the tables are tiny
    dim=512,             # D_pos = embedding size in the paper (Sec. 3.3)
    num_positions=128,   # t = 1..2L with L = 64: input and output phases
    seed=0,              # seed of the random and learnable encodings
)
QUICK = dict()
SMOKE = dict(dim=32, num_positions=16)


def check(cfg):
    require(cfg.dim >= 2 and cfg.dim % 2 == 0, f"dim must be an even number >= 2, got {cfg.dim}")
    require(cfg.num_positions >= 2, f"num_positions must be >= 2, got {cfg.num_positions}")

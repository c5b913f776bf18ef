"""Presets of the chapter "Positional encodings" (paper Sec. 3.2, App. D; the blog's encodings).

Nothing here trains: every table is tiny, so ``quick`` is the paper's setting and ``smoke`` only shrinks
the tables so that the chapter executes in seconds.
"""
from penb.presets import require

PAPER = dict(
    device="cpu",        # nothing here trains; the tables are tiny
    dim=512,             # D_pos = embedding size in the paper (Sec. 3.3)
    num_positions=128,   # t = 1..2L with L = 64: input and output phases
    vocab=16384,         # embedding rows for the norm comparison (the LSTM's largest vocabulary, Fig. 2)
    hidden=512,          # LSTM hidden size of the input projection used to measure the encoding's share
    blog_dim=32,         # K of the blog's study
    blog_positions=100,  # N of the blog's study
    seed=0,              # seed of the random and learnable encodings (and the embedding draw)
)
QUICK = dict()           # the paper's setting already runs in seconds: nothing to shrink
SMOKE = dict(
    dim=32,              # small and even (sin/cos pairs): enough to draw every figure
    num_positions=16,    # a few positions: the figures stay readable, the PCA has rows to fit
    vocab=256,           # a small embedding draw keeps the norm comparison instant
    hidden=32,           # a small LSTM input projection, like dim
)


def check(cfg):
    require(cfg.dim >= 2 and cfg.dim % 2 == 0, f"dim must be an even number >= 2, got {cfg.dim}")
    require(cfg.num_positions >= 2, f"num_positions must be >= 2, got {cfg.num_positions}")
    require(cfg.vocab >= 1, f"vocab must be >= 1, got {cfg.vocab}")
    require(cfg.hidden >= 1, f"hidden must be >= 1, got {cfg.hidden}")
    require(cfg.blog_dim >= 2 and cfg.blog_dim % 2 == 0, f"blog_dim must be an even number >= 2, got {cfg.blog_dim}")
    require(cfg.blog_positions >= 2, f"blog_positions must be >= 2, got {cfg.blog_positions}")
    require(cfg.seed >= 0, f"seed must be >= 0, got {cfg.seed}")

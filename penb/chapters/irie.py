"""Presets of the chapter "Why deep autoregressive Transformers need no positional encoding" (Irie).

Irie's review trains nothing and prints no numbers: its claims are properties of the architecture.
The chapter checks them on random, seeded float64 models, so "paper" here means more permutations,
longer sequences and wider, deeper models, not a published configuration.

Question 4 (``q4_*`` and ``lm_*`` keys, ``penb.irie_q4``) trains small causal Transformers with and
without PE on an order task and as language models. Irie cites results (Irie et al., 2019) but gives
no configuration, so the "paper" preset is only a longer, larger version of the quick one.
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
    # Question 4: trained causal Transformers (penb.train, core "transformer"), each depth without PE
    # and with `encoding` added; `heads` and `norm` above apply too. Runs are stored and reused.
    q4_layers=(1, 2),        # depths trained
    q4_dim=64,               # model width of the trained models (feed-forward 4x)
    q4_task="reverse",       # order task: reverse (default), sort (order-free control), predecessor, reverse_add
    q4_vocab=32,             # V of the order task
    q4_length=8,             # L of the order task (2L steps)
    q4_steps=10_000,         # updates per order-task run
    q4_batch=64,             # sequences per update
    q4_lr=2e-3,              # peak learning rate (both studies; warm-up then cosine decay to 0)
    q4_warmup=100,           # warm-up updates (both studies)
    q4_seeds=(1, 2, 3, 4, 5),  # seeds of the order task (weights, data, test set)
    q4_held_out=1024,        # held-out test sequences of the order task
    lm_corpus="wikitext-2",  # corpus of the language models (penb.corpus key)
    lm_train_split="valid",  # split the language models (and their tokenizer) train on
    lm_test_split="test",    # split their perplexity is measured on
    lm_vocab=256,            # SentencePiece pieces (small: a nearly character-level model, order matters)
    lm_length=64,            # inputs per window (T)
    lm_crop="random",        # training window: random offset in a paragraph, or its start
    lm_steps=20_000,         # updates per language-model run
    lm_batch=128,            # windows per update
    lm_seeds=(1, 2, 3),      # seeds of the language models
    lm_held_out=0,           # test paragraphs scored (their first lm_length + 1 tokens); 0: all of them
    workers=2,               # processes training runs side by side (one torch thread each); 1: in this kernel
)
QUICK = dict(length=8, dim=64, ffn=256, layers=(1, 2, 3), permutations=1000,
             q4_steps=1500, q4_seeds=(1, 2, 3), lm_length=16, lm_steps=1500, lm_seeds=(1,))
SMOKE = dict(vocab=64, length=5, dim=16, heads=2, ffn=32, layers=(1, 2), permutations=50,
             q4_dim=16, q4_steps=30, q4_seeds=(1, 2), q4_held_out=64, q4_warmup=5,
             lm_vocab=128, lm_length=12, lm_steps=10, lm_batch=8, lm_seeds=(1,), lm_held_out=32, workers=1)


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
    check_q4(cfg)


def check_q4(cfg):
    """Question 4's keys: cheap checks only (the corpus is not loaded here; penb.train checks the rest)."""
    from penb.corpus import CORPORA, SPLITS
    from penb.irie_q4 import ORDER_TASKS
    from penb.tasks.lm import CROPS
    from penb.tasks import make_task

    def positive(name):
        v = cfg[name]
        require(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"{name} must be an int >= 1, got {v!r}")

    for name in ("q4_dim", "q4_vocab", "q4_length", "q4_steps", "q4_batch", "q4_held_out", "lm_vocab",
                 "lm_length", "lm_steps", "lm_batch", "workers"):
        positive(name)
    require(cfg.q4_warmup >= 0, f"q4_warmup must be >= 0, got {cfg.q4_warmup}")
    require(cfg.q4_lr > 0, f"q4_lr must be > 0, got {cfg.q4_lr}")
    require(len(cfg.q4_layers) > 0 and all(isinstance(n, int) and n >= 1 for n in cfg.q4_layers)
            and len(set(cfg.q4_layers)) == len(cfg.q4_layers) and 1 in cfg.q4_layers and max(cfg.q4_layers) >= 2,
            f"q4_layers must be distinct positive ints including 1 and a depth >= 2, got {cfg.q4_layers}")
    for name in ("q4_seeds", "lm_seeds"):
        seeds = cfg[name]
        require(len(seeds) > 0 and all(isinstance(s, int) and not isinstance(s, bool) for s in seeds)
                and len(set(seeds)) == len(seeds), f"{name} must be distinct ints, got {seeds}")
    require(cfg.q4_dim % cfg.heads == 0, f"q4_dim ({cfg.q4_dim}) must be a multiple of heads ({cfg.heads})")
    require(cfg.q4_task in ORDER_TASKS, f"unknown q4_task {cfg.q4_task!r}; valid: {', '.join(ORDER_TASKS)}")
    make_task(cfg.q4_task, cfg.q4_vocab, cfg.q4_length).check_held_out(cfg.q4_held_out)
    require(cfg.lm_corpus in CORPORA, f"unknown lm_corpus {cfg.lm_corpus!r}; valid: {', '.join(CORPORA)}")
    require(cfg.lm_train_split in SPLITS and cfg.lm_test_split in SPLITS and cfg.lm_train_split != cfg.lm_test_split,
            f"lm_train_split and lm_test_split must be two different splits of {SPLITS}, got "
            f"{cfg.lm_train_split!r}, {cfg.lm_test_split!r}")
    require(cfg.lm_vocab >= 8, f"lm_vocab must be >= 8 (SentencePiece), got {cfg.lm_vocab}")
    require(cfg.lm_crop in CROPS, f"unknown lm_crop {cfg.lm_crop!r}; valid: {', '.join(CROPS)}")
    require(isinstance(cfg.lm_held_out, int) and cfg.lm_held_out >= 0,
            f"lm_held_out must be an int >= 0 (0: all test paragraphs), got {cfg.lm_held_out!r}")

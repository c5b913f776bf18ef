"""Presets of the chapter "Language modelling" (Morita, App. E, Fig. 15, Table 1).

PAPER is the published configuration: a single-layer LSTM with and without the
sinusoidal encoding (concatenated, as in the main experiments), trained on WikiText-103
(raw) retokenised by SentencePiece to 32,768 pieces, the first tokens of each paragraph
(1,024 inputs, as the official code feeds), the hyperparameters of Sec. 3.3 (hidden =
embedding = 512, batch 512, 300,000 updates, warm-up 1,000 then cosine) and five seeds
(111..555); the test perplexity covers every usable paragraph of the test split.

QUICK trains on WikiText-2 VALID and tests on WikiText-2 TEST: the only two splits
present offline (``shared/data/wikitext-2``; WikiText-2 has no train split there). It
keeps the recipe (paragraph starts, SentencePiece on the training text, PE concatenated,
Adam + warm-up + cosine, all test paragraphs) and shrinks everything that costs time, to
fit about a quarter of an hour on two CPU cores:

* ``vocab=1024``: the softmax is the largest cost at this size (first 2,048; 1,024 halves
  it again), and SentencePiece can go no higher than about 7,300 pieces on the 217k words
  of WikiText-2 valid;
* ``length=128``: the first 128 inputs of each paragraph (every step costs B x T whatever
  the paragraph);
* ``hidden=128`` (= embedding = D_pos), ``batch_size=32``, ``steps=600`` (first 900 at
  V 2,048), ``warmup=100``;
* two worker processes with one thread each.

Cost: about 0.2 CPU-seconds per update at this size (about 180 CPU-seconds per run with
its test pass, measured on this project's CPU), so the 10 runs (before the confirmation
seeds: 6, three seeds) take about 15 minutes with two workers (before: 9); the tokenizer
takes seconds. On a machine shared with other work the wall time grows accordingly.

SMOKE is the same data at toy sizes, to check that the chapter runs (seconds).

``penb.chapters.lm_appendix.analysis`` runs and summarises the chapter, ``.grading`` grades it;
``.plots`` draws its figures.

2026-11-25 (issue 22): Table 1 and the "no advantage" conclusion speak of the end of a
300,000-update run, after Fig. 15's curves have met (10,000-30,000 updates); the
registry grades them only where the runs' own training curves have met (issue 28: PE's
lead over the last quarter of the run within ``penb.claims.morita_appendix.MEET_MARGIN``
nats; until then, runs of at least 30,000 updates), else "not tested at this preset",
and the quick runs test the early phase too (``morita.fig15.early``). Seeds: three confirmation seeds
(``penb.presets.confirmation(3)``), the fewest the rule accepts. The pilot (seeds
1001-1005) graded Table 1 only (-0.739 [-1.848, +0.370] perplexity, PE minus vanilla),
which is no longer graded here, and gave no interval of the early gap to size its
count: three it is. Cost: 6 runs at about 41 s each (the book build before issue 22:
10 runs in 3.4 minutes with two workers), about 2.1 minutes.

2026-11-23: to fit five confirmation seeds of both variants into the book's hour, quick now uses V=1,024
and 600 updates (before: V=2,048, 900 updates, three seeds); this was a budget choice made before any
run of the new settings, not one chosen from results.
"""
from penb import encodings
from penb.chapters import rnn_common
from penb.corpus import CORPORA, SPLITS
from penb.presets import confirmation, require

PAPER = dict(
    device="auto",                  # auto: CUDA when present, else the CPU
    corpus="wikitext-103-raw",      # App. E: WikiText-103, retokenised from raw text
    train_split="train",            # split that trains the tokenizer and the models
    test_split="test",              # split of the test perplexity (Table 1)
    vocab=32768,                    # SentencePiece pieces (App. E)
    length=1024,                    # inputs per paragraph, its first (official code)
    hidden=512,                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                 # Sec. 3.3
    steps=300_000,                  # training updates (Sec. 3.3)
    warmup=1000,                    # linear warm-up updates, then cosine decay to 0
    lr=1e-3,                        # peak learning rate
    betas=(0.9, 0.98),              # Adam betas of the official code (text: 0.999)
    held_out=0,                     # test paragraphs; 0 = every usable one of the split
    seeds=(111, 222, 333, 444, 555),  # five trials (official replication script)
    encodings=("none", "sinusoidal"),  # vanilla vs. position-encoded
    checkpoint_every=5000,          # kept checkpoints
    log_every=100,                  # updates per point of the training curve
    workers=1,                      # parallel CPU processes (one thread each)
    amp="none",                     # fp32 as in the paper; "bf16" autocast on CUDA
    **rnn_common.EXECUTION,         # where runs execute (rnn_common.EXECUTION)
)
QUICK = dict(                       # cut to fit the book's hour (see the docstring)
    device="cpu",                   # a CPU regime, for the 2-core machine
    corpus="wikitext-2",            # the only WikiText offline (shared/data)
    train_split="valid",            # no train split offline: valid trains
    test_split="test",              # the test perplexity stays on the test split
    vocab=1024,                     # the softmax is the largest cost: 1,024 halves 2,048's
    length=128,                     # about half of a paragraph's pieces at V 1-2k
    hidden=128,                     # = embedding = D_pos, a quarter of the paper's
    batch_size=32,                  # with 600 updates: each paragraph drawn ~10 times
    steps=600,                      # with V 1,024: about a third of the V 2,048 x 900 cost;
                                    # five seeds x two variants must fit the book's hour
    warmup=100,                     # about a ninth of the updates, then cosine
    seeds=confirmation(3),          # fig15.early, no pilot SD: the minimum (docstring)
    checkpoint_every=300,           # two checkpoints per run
    log_every=25,                   # 24 points per training curve
    workers=2,                      # one process (one thread) per core of the machine
)
SMOKE = dict(                       # the quick data at toy sizes: runs every cell
    device="cpu",                   # runs anywhere
    corpus="wikitext-2",            # the only WikiText present offline
    train_split="valid",            # as QUICK
    test_split="test",              # as QUICK
    vocab=256,                      # toy vocabulary: the tokenizer trains in seconds
    length=16,                      # toy window
    hidden=16,                      # toy width
    batch_size=8,                   # toy batch
    steps=20,                       # a few updates
    warmup=5,                       # a quarter of the 20 updates
    held_out=64,                    # a few test paragraphs: a fast test pass
    seeds=confirmation(2),          # two confirmation seeds (too few to decide)
    checkpoint_every=10,            # two checkpoints per run
    log_every=5,                    # four points per training curve
    workers=1,                      # in-process: no worker start-up
)

COMPARED = ("none", "sinusoidal")   # the encodings Table 1 compares: both always run


def _count(cfg, key: str, low: int) -> None:
    v = cfg[key]
    require(isinstance(v, int) and not isinstance(v, bool) and v >= low,
            f"{key} must be an int >= {low}, got {v!r}")


def check(cfg):
    require(cfg.corpus in CORPORA,
            f"unknown corpus {cfg.corpus!r}; valid: {', '.join(CORPORA)}")
    for k in ("train_split", "test_split"):
        require(cfg[k] in SPLITS,
                f"unknown {k} {cfg[k]!r}; valid: {', '.join(SPLITS)}")
    require(cfg.train_split != cfg.test_split,
            f"train_split and test_split are both {cfg.train_split!r}; the test text "
            f"must not be trained on")
    _count(cfg, "vocab", 8)
    for k in ("length", "hidden", "batch_size", "steps", "checkpoint_every",
              "log_every", "workers"):
        _count(cfg, k, 1)
    _count(cfg, "held_out", 0)
    _count(cfg, "warmup", 0)
    require(cfg.warmup < cfg.steps,
            f"warmup ({cfg.warmup}) must be shorter than steps ({cfg.steps})")
    require(cfg.lr > 0, f"lr must be > 0, got {cfg.lr}")
    require(len(cfg.betas) == 2 and all(0 <= b < 1 for b in cfg.betas),
            f"betas must be two numbers in [0, 1), got {cfg.betas}")
    require(len(cfg.seeds) >= 1 and len(set(cfg.seeds)) == len(cfg.seeds)
            and all(isinstance(s, int) and s >= 0 for s in cfg.seeds),
            f"seeds must be distinct ints >= 0, got {cfg.seeds}")
    bad = [e for e in cfg.encodings if e not in encodings.PAPER_KEYS]
    require(not bad,
            f"unknown encoding(s) {bad}; valid: {', '.join(encodings.PAPER_KEYS)}")
    require(set(COMPARED) <= set(cfg.encodings)
            and len(set(cfg.encodings)) == len(cfg.encodings),
            f"encodings must hold 'none' and 'sinusoidal' once each (the comparison of "
            f"Table 1), got {cfg.encodings}")
    require(cfg.amp in ("none", "bf16"),
            f"amp must be 'none' or 'bf16', got {cfg.amp!r}")
    rnn_common.check_execution(cfg)

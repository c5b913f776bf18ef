"""Presets, panels and runs of the chapter "Appendix A: other tasks" (Morita, App. A, Fig. 7, 8, 10).

PAPER is the published configuration: hidden = embedding = 512, batch 512, five seeds, 1,024 held-out
sequences, vanilla vs. sinusoidal PE (concatenated), and per section

* A.1 reverse ordering + delayed addition: LSTM, L = 16, V = 896-1,088, 600,000 updates (Fig. 7);
* A.2 sorting: GRU and LSTM, L = 64, 300,000 updates (Fig. 8). The vocabularies are not printed in
  the text; we use those of Fig. 2 (GRU 32-256, LSTM 256-16,384);
* A.3 predecessor query: LSTM, L = 16, 300,000 updates (Fig. 10). Vocabularies not printed either;
  we use the LSTM's of Fig. 2.

QUICK is a CPU regime of about ten minutes on two cores (24 runs): the LSTM regime that the key-findings
search chose (hidden 64, batch 128, lr 1e-2, 2,000 updates, seeds 111/222/333), with L = 8 for A.1 and
A.3 and L = 16 for A.2; V = 64 for the addition (a table of V x V sums to learn), 256 for the LSTM's
sorting and predecessor query, 32 for the GRU's sorting. The sorting LSTM runs are those of appendix C at
equal settings (the run store reuses them). From an empty run store the chapter took 8 min 41 s on the
2-core machine (2026-11-22). The predecessor query scores one token per sequence; at 2,000 updates both
variants stay near 0.17, and a probe with 8,000 updates (seeds 111/222/333) left them there too (vanilla
0.180, PE 0.172), so the preset keeps 2,000. SMOKE only exercises every cell.

``panels(cfg)`` lists the figure panels of the selected sections, ``run_configs(cfg)`` their runs and
``run(cfg)`` trains or reuses them (``common.run``).
"""
from penb.chapters.appendix import common
from penb.chapters.appendix.common import Panel
from penb.presets import require, require_ints, require_names

SECTIONS = ("add", "sort", "predecessor")

PAPER = dict(
    device="auto",                                  # auto: CUDA when present, else the CPU
    hidden=512,                                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                                 # Sec. 3.3
    warmup=1000,                                    # linear warm-up updates, then cosine to 0
    lr=1e-3,                                        # peak learning rate
    betas=(0.9, 0.98),                              # Adam betas of the official code (the text says 0.999)
    held_out=1024,                                  # test sequences per trial (captions of Fig. 7, 8, 10)
    seeds=(111, 222, 333, 444, 555),                # five trials
    sections=SECTIONS,                              # which of A.1 (add), A.2 (sort), A.3 (predecessor) to run
    add_length=16,                                  # A.1: input length L
    add_vocab=(896, 960, 1024, 1088),               # A.1: vocabularies (= modulus of the addition)
    add_steps=600_000,                              # A.1: twice the other tasks' updates
    sort_length=64,                                 # A.2: input length L
    sort_cores=("gru", "lstm"),                     # A.2: models
    sort_gru_vocab=(32, 64, 128, 256),              # A.2: not printed; Fig. 2's GRU range
    sort_lstm_vocab=(256, 512, 1024, 2048, 4096, 8192, 16384),   # A.2: not printed; Fig. 2's LSTM range
    sort_steps=300_000,                             # A.2: updates
    pred_length=16,                                 # A.3: input length L (distinct tokens: needs V >= L)
    pred_vocab=(256, 512, 1024, 2048, 4096, 8192, 16384),        # A.3: not printed; Fig. 2's LSTM range
    pred_steps=300_000,                             # A.3: updates
    checkpoint_every=5000,                          # kept checkpoints
    bootstrap=10_000,                               # bootstrap resamples of the 95% CIs
    amp="none",                                     # fp32; "bf16" autocast on CUDA
    workers=1,                                      # runs at a time (CPU: processes of one thread each)
)
QUICK = dict(                                       # the key-findings LSTM regime (see the docstring)
    device="cpu",                                   # a CPU regime, for the 2-core machine
    hidden=64,                                      # the key-findings search's LSTM width
    batch_size=128,                                 # the key-findings search's LSTM batch
    warmup=100,                                     # the key-findings regime's warm-up (5% of 2,000 updates)
    lr=1e-2,                                        # the key-findings search's LSTM learning rate
    seeds=(111, 222, 333),                          # the key-findings regime's three seeds
    add_length=8,                                   # A.1: half the paper's L = 16, for the CPU budget
    add_vocab=(64,),                                # A.1: a table of 64 x 64 sums to learn
    add_steps=2000,                                 # A.1: the regime's updates (the paper doubles A.1's)
    sort_length=16,                                 # A.2: appendix C's L, so the sorting LSTM runs coincide
    sort_cores=("gru", "lstm"),                     # A.2: both models of Fig. 8
    sort_gru_vocab=(32,),                           # A.2: the smallest GRU vocabulary of Fig. 2
    sort_lstm_vocab=(256,),                         # A.2: appendix C's V, so the run store reuses its runs
    sort_steps=2000,                                # A.2: the regime's updates
    pred_length=8,                                  # A.3: half the paper's L = 16, for the CPU budget
    pred_vocab=(256,),                              # A.3: the smallest LSTM vocabulary of Fig. 2
    pred_steps=2000,                                # A.3: a probe with 8,000 changed nothing (docstring)
    checkpoint_every=1000,                          # two checkpoints per run
    bootstrap=2000,                                 # a fifth of the paper's resamples: faster intervals
    workers=2,                                      # one run per core of the 2-core machine
)
SMOKE = dict(                                       # toy sizes: only exercises every cell (seconds)
    device="cpu",                                   # runs anywhere
    hidden=16,                                      # toy width
    batch_size=16,                                  # toy batch
    warmup=5,                                       # a quarter of the 20 updates
    held_out=16,                                    # a few test sequences: the summaries need some
    seeds=(111, 222),                               # two seeds: the per-seed columns have more than one
    add_length=4,                                   # toy L
    add_vocab=(8, 16),                              # two sizes: the vocabulary axis has two points
    add_steps=20,                                   # a few updates
    sort_length=4,                                  # toy L
    sort_gru_vocab=(8,),                            # one size is enough for the GRU
    sort_lstm_vocab=(8, 16),                        # two sizes: the vocabulary axis has two points
    sort_steps=20,                                  # a few updates
    pred_length=4,                                  # toy L (<= the smallest pred_vocab)
    pred_vocab=(8, 16),                             # two sizes: the vocabulary axis has two points
    pred_steps=20,                                  # a few updates
    checkpoint_every=10,                            # two checkpoints per run, as at the other presets
    bootstrap=200,                                  # enough resamples to draw an interval, fast
    workers=1,                                      # in-process: no worker start-up
)
VARIANTS = ("vanilla", "sinusoidal")


def panels(cfg) -> list[Panel]:
    """The panels of the selected sections, in the paper's order (Fig. 7, Fig. 8 GRU/LSTM, Fig. 10)."""
    out = []
    if "add" in cfg.sections:
        out.append(Panel("add", "Reverse + delayed addition, LSTM", "reverse_add", "lstm", tuple(cfg.add_vocab),
                         VARIANTS, cfg.add_length, cfg.add_steps))
    if "sort" in cfg.sections:
        for core in cfg.sort_cores:
            out.append(Panel(f"sort-{core}", f"Sorting, {core.upper()}", "sort", core,
                             tuple(cfg[f"sort_{core}_vocab"]), VARIANTS, cfg.sort_length, cfg.sort_steps))
    if "predecessor" in cfg.sections:
        out.append(Panel("predecessor", "Predecessor query, LSTM", "predecessor", "lstm", tuple(cfg.pred_vocab),
                         VARIANTS, cfg.pred_length, cfg.pred_steps))
    return out


def run_configs(cfg) -> list[dict]:
    """The ``penb.train`` configs of the chapter: one per panel x vocabulary x variant x seed."""
    return common.run_configs(cfg, panels(cfg))


def run(cfg, executor=None, store=None, progress: bool = True):
    """Train or reuse every run of the chapter; the frame of ``common.run``."""
    return common.run(cfg, panels(cfg), executor, store, progress, desc="App. A runs")


def check(cfg):
    common.check_common(cfg)
    require_names("sections", cfg.sections, SECTIONS)
    require_names("sort_cores", cfg.sort_cores, ("gru", "lstm"))
    require_ints(cfg, ("add_length", "sort_length", "pred_length", "add_steps", "sort_steps", "pred_steps"))
    for k in ("add_vocab", "sort_gru_vocab", "sort_lstm_vocab", "pred_vocab"):
        common.check_vocab(k, cfg[k])
    if "predecessor" in cfg.sections:
        require(min(cfg.pred_vocab) >= cfg.pred_length,
                f"predecessor query draws L = {cfg.pred_length} distinct tokens: every pred_vocab must be >= "
                f"pred_length, got {cfg.pred_vocab}")
    common.validate(cfg, panels(cfg))

"""Presets of the chapter "Appendix A: other tasks" (Morita, App. A, Fig. 7, 8, 10).

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
"""
from penb import appendix
from penb.appendix import Panel
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
    device="cpu", hidden=64, batch_size=128, warmup=100, lr=1e-2, seeds=(111, 222, 333),
    add_length=8, add_vocab=(64,), add_steps=2000,
    sort_length=16, sort_cores=("gru", "lstm"), sort_gru_vocab=(32,), sort_lstm_vocab=(256,), sort_steps=2000,
    pred_length=8, pred_vocab=(256,), pred_steps=2000,
    checkpoint_every=1000, bootstrap=2000, workers=2,
)
SMOKE = dict(
    device="cpu", hidden=16, batch_size=16, warmup=5, held_out=16, seeds=(111, 222),
    add_length=4, add_vocab=(8, 16), add_steps=20,
    sort_length=4, sort_gru_vocab=(8,), sort_lstm_vocab=(8, 16), sort_steps=20,
    pred_length=4, pred_vocab=(8, 16), pred_steps=20,
    checkpoint_every=10, bootstrap=200, workers=1,
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


def check(cfg):
    appendix.check_common(cfg)
    require_names("sections", cfg.sections, SECTIONS)
    require_names("sort_cores", cfg.sort_cores, ("gru", "lstm"))
    require_ints(cfg, ("add_length", "sort_length", "pred_length", "add_steps", "sort_steps", "pred_steps"))
    for k in ("add_vocab", "sort_gru_vocab", "sort_lstm_vocab", "pred_vocab"):
        appendix.check_vocab(k, cfg[k])
    if "predecessor" in cfg.sections:
        require(min(cfg.pred_vocab) >= cfg.pred_length,
                f"predecessor query draws L = {cfg.pred_length} distinct tokens: every pred_vocab must be >= "
                f"pred_length, got {cfg.pred_vocab}")
    appendix.validate(cfg, panels(cfg))

"""Presets of the chapter "What in the encoding helps an RNN" (``beyond_rnn``): the book's own questions.

No text publishes these experiments, so PAPER is Morita's Fig. 2 setting (the paper's training, written
once in ``penb.chapters.key_findings.presets`` and read from there) on the LSTM at its largest vocabulary.

QUICK runs every study on one model: the GRU of the key-findings quick regime at V = 32, the cell where
the GRU separates vanilla from PE in every confirmation seed (0.396 vs 0.364 in that chapter). Its vanilla
and full-PE runs ARE key_findings' runs (same configurations, so the run store shares them); the chapter
trains only its own variants. Why the GRU and not the LSTM: an LSTM run of that regime takes about 75 s on
one core against 19 s for the GRU, and the chapter's 15 variants x 5 seeds would take about 45 minutes on
the LSTM, beyond the book's budget; `-p core lstm -p vocab 256` reruns the chapter on the LSTM cell of
key_findings (sharing its runs there too).

SMOKE only exercises every cell.
"""
from penb.chapters import rnn_common
from penb.chapters.key_findings import presets as kf
from penb.encodings import BLOG_KEYS
from penb.presets import CONFIRMATION_SEEDS, confirmation, Config, require

# The training settings shared with key_findings: read from its presets, never restated here.
SHARED = ("device", "length", "hidden", "batch_size", "steps", "warmup", "lr", "betas", "held_out",
          "checkpoint_every", "amp", "workers", "per_core")
BANDS = ("high", "low", "spread", "phase")


def _shared(preset: dict) -> dict:
    return {k: preset[k] for k in SHARED if k in preset}


PAPER = dict(
    _shared(kf.PAPER),                  # Fig. 2's training (key_findings.presets.PAPER)
    seeds=kf.PAPER["seeds"],            # Fig. 2's five official seeds
    cores=("lstm",),                    # one model per study: the paper's main one
    vocab=16384,                        # the LSTM's largest vocabulary in Fig. 2
    bands=BANDS,                        # high half, low half, 4 spread pairs, random phases
    blog=BLOG_KEYS,                     # all nine encodings of Hansen's blog, unit mean norm
    onehot=True,                        # also one-hot positions (needs hidden >= 2 L)
    add=True,                           # also the sinusoid added to the embedding
    invert_preset="paper",              # the invertibility chapter's preset behind the floors
    bootstrap=10_000,                   # bootstrap resamples of the 95% intervals
    **rnn_common.EXECUTION,             # where runs execute (rnn_common.EXECUTION)
)
QUICK = dict(
    _shared(kf.QUICK),                  # key_findings' quick regime (shares its runs)
    seeds=confirmation(5),           # graded: the five confirmation seeds
    cores=("gru",),                     # 19 s a run, against 75 s for the LSTM (see above)
    vocab=32,                           # key_findings' graded GRU cell: a gap in 5/5 seeds
    blog=tuple(k for k in BLOG_KEYS if not k.startswith("linear") or not k.endswith("_learned")),
                                        # seven of nine: the learned linear ones share the
                                        # affine floor with their fixed twins, and the book's
                                        # 90-minute budget (3.6 min) did not cover them
    invert_preset="quick",              # the invertibility chapter's quick study
    bootstrap=2000,                     # as key_findings' quick
)
SMOKE = dict(
    _shared(kf.SMOKE),                  # key_findings' smoke regime (shares its runs)
    seeds=kf.SMOKE["seeds"],            # two seeds: per-seed code runs, rules decline
    cores=("gru",),                     # as QUICK
    vocab=16,                           # key_findings' smoke GRU vocabulary
    blog=("sincos", "normal", "normal_learned", "linear_uniform"),  # a few, incl. learned
    invert_preset="smoke",              # the invertibility chapter's smoke study
    bootstrap=200,                      # fast intervals
)


def check(cfg):
    """``ValueError`` for an impossible value of a resolved ``beyond_rnn`` config."""
    rnn_common.check_training(Config({**cfg.as_dict(), "encodings": ("none", "sinusoidal")}),
                              ("length", "hidden", "batch_size", "steps", "held_out", "checkpoint_every",
                               "bootstrap", "workers", "vocab"))
    rnn_common.check_execution(cfg)
    require(len(cfg.cores) == 1, f"cores must name one model (every study runs on it), got {cfg.cores}")
    require(cfg.vocab >= 2 and cfg.vocab ** cfg.length > cfg.held_out,
            f"vocab {cfg.vocab} with length {cfg.length} has fewer than held_out + 1 distinct sequences")
    require(set(cfg.bands) <= set(BANDS) and len(set(cfg.bands)) == len(cfg.bands),
            f"bands must be distinct among {', '.join(BANDS)}, got {cfg.bands}")
    require(set(cfg.blog) <= set(BLOG_KEYS) and len(set(cfg.blog)) == len(cfg.blog),
            f"blog must be distinct among {', '.join(BLOG_KEYS)}, got {cfg.blog}")
    require(isinstance(cfg.onehot, bool) and isinstance(cfg.add, bool), "onehot and add must be True or False")
    hidden = rnn_common.settings(cfg, cfg.cores[0])["hidden"]
    require(not cfg.onehot or hidden >= 2 * cfg.length,
            f"onehot needs one dimension per position: hidden ({hidden}) must be >= 2 L ({2 * cfg.length}); "
            f"give -p onehot False or a larger hidden")
    require(cfg.invert_preset in ("smoke", "quick", "paper"),
            f"invert_preset must be smoke, quick or paper, got {cfg.invert_preset!r}")

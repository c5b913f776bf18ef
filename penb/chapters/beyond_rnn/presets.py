"""Presets of the chapter "What in the encoding helps an RNN" (``beyond_rnn``): the book's own questions.

No text publishes these experiments, so PAPER is Morita's Fig. 2 setting (the paper's training, written
once in ``penb.chapters.key_findings.presets`` and read from there) on the LSTM at its largest vocabulary.

QUICK runs every study on one model: the GRU of the key-findings quick regime at V = 32, the cell where
the GRU separated vanilla from PE in every pilot seed (0.396 vs 0.364 in that chapter). Its vanilla
and full-PE runs ARE key_findings' runs (same configurations, so the run store shares them); the chapter
trains only its own variants. Why the GRU and not the LSTM: an LSTM run of that regime takes about 75 s on
one core against 19 s for the GRU, and the chapter's 15 variants x 5 seeds would take about 45 minutes on
the LSTM, beyond the book's budget; `-p core lstm -p vocab 256` reruns the chapter on the LSTM cell of
key_findings (sharing its runs there too).

Seeds (issue 22): the quick cells were graded on seeds 1001-1005, now the pilot (``penb.presets.PILOT_SEEDS``);
each variant's count of confirmation seeds (``seeds`` and ``variant_seeds``, the first k of ``seeds``) comes
from the pilot's per-seed SD (sd = half-width x sqrt(5) / t(0.975, 4)) and the power calculation of
``penb.claims.intervals`` (80% power), with the reason beside each count in QUICK. The chapter's budget
(issue 22: the six appendix-side chapters within 22 minutes on 2 cores) sets the rest: at about 19 s per
GRU run, 31 own runs (38 with key_findings' vanilla and PE, shared when that chapter trains those seeds),
about 5.5 minutes with two workers, against 65 own runs and 11.0 minutes before.

SMOKE only exercises every cell.
"""
from penb.chapters import rnn_common
from penb.chapters.key_findings import presets as kf
from penb.encodings import BLOG_KEYS
from penb.presets import QUICK_SEEDS, Config, confirmation, require

# The training settings shared with key_findings: read from its presets, never restated here.
SHARED = ("device", "length", "hidden", "batch_size", "steps", "warmup", "lr", "betas", "held_out",
          "checkpoint_every", "amp", "workers", "per_core", "schedule", "doubling", "earlier")
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
    variant_seeds={},                   # {variant: k}: that variant trains the first k seeds only
    bootstrap=10_000,                   # bootstrap resamples of the 95% intervals
    **rnn_common.EXECUTION,             # where runs execute (rnn_common.EXECUTION)
)
QUICK = dict(
    _shared(kf.QUICK),                  # key_findings' quick regime (shares its runs)
    doubling=kf.PAPER["doubling"],      # protocol 4: each run also at N/2, a WSD branch of
                                        # its trunk (~10% more; key_findings' own N/2 runs
                                        # for vanilla and PE)
                                        # and (earlier, from key_findings' QUICK, issue 58)
                                        # at N/4 too, another branch (~5% more updates)
    # graded on confirmation seeds, 3 for every variant (why: penb.presets.QUICK_SEEDS;
    # the pilot's 4 for vanilla and high, below, served protocol 2's power)
    seeds=confirmation(QUICK_SEEDS),
    cores=("gru",),                     # 19 s a run, against 75 s for the LSTM (see above)
    vocab=32,                           # key_findings' graded GRU cell: a gap in 5/5 pilot seeds
    bands=("high", "low", "spread", "phase"),
                                        # all four (penb.sizing.QUICK_RULE, issue 41): the
                                        # pilot's power never cuts a cell, so spread and phase
                                        # (11 and 21 seeds needed, below) run at 3 and say
                                        # what would decide them; ~2.5 minutes with N/2
    blog=("sincos", "direct1", "linear_normal", "normal", "normal_learned"),
                                        # five of nine, one per floor family and kind: the
                                        # four affine ones share one floor (tied ranks), so
                                        # direct1 and linear_normal stand for them (budget:
                                        # 6 runs); the learned linear ones were out before
    onehot=False,                       # graded by no hypothesis: its runs pay for others
    invert_preset="quick",              # the invertibility chapter's quick study
    # Seeds per variant (pilot, 5 seeds: effect [95% t interval], seeds for 80% power):
    variant_seeds={
        # vanilla and high (3 seeds, the rules' fewest): bands.high +0.052 [+0.023,
        # +0.080], sd 0.023: 4 seeds give 84% power to keep the interval above 0 (3: 55%)
        "low": 3,       # bands.high_over_low +0.069 [+0.049, +0.089], sd 0.016: 94% at 3
        "spread": 3,    # bands.spread -0.003 [-0.028, +0.022]: needs 11; 8 more GRU runs
                        # (and vanilla's) do not fit the budget: inconclusive at 3
        "phase": 3,     # bands.phase +0.009 [-0.029, +0.046]: needs 21: the minimum
        "sinusoidal": 3,  # PE: key_findings' runs; phase and as_concat take 3
        **dict.fromkeys(("sincos", "direct1", "linear_normal", "normal_learned"), 3),
                        # hansen.invertibility +0.683 [+0.436, +0.930], sd 0.20: 83% at 3
        "normal": 3,    # hansen.normal +0.024 [-0.045, +0.094]: needs 62: the minimum
        "added": 3,     # add.keeps +0.020 [+0.002, +0.037] (67% power at 5, 88% at 7) and
                        # add.as_concat +0.013 [-0.005, +0.030] (needs 7): 4 more added and
                        # PE runs each do not fit the budget: the minimum, 3
    },
    bootstrap=2000,                     # as key_findings' quick
)
SMOKE = dict(
    _shared(kf.SMOKE),                  # key_findings' smoke regime (shares its runs)
    doubling=kf.PAPER["doubling"],      # exercises protocol 4's N/2 branches
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
    labels = ("vanilla", "sinusoidal", *BANDS, *BLOG_KEYS, "onehot", "added")
    require(isinstance(cfg.variant_seeds, dict) and set(cfg.variant_seeds) <= set(labels),
            f"variant_seeds must map variants among {', '.join(labels)} to seed counts, got {cfg.variant_seeds!r}")
    for k, n in cfg.variant_seeds.items():
        require(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= len(cfg.seeds),
                f"variant_seeds[{k!r}] must be an int from 1 to the {len(cfg.seeds)} seeds, got {n!r}")
    require(cfg.invert_preset in ("smoke", "quick", "paper"),
            f"invert_preset must be smoke, quick or paper, got {cfg.invert_preset!r}")

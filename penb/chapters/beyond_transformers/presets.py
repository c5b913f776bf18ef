"""Presets of the chapter "Positional encoding in Transformers on the RNN tasks" (``beyond_transformers``).

The models are the causal Transformers of the Irie chapter (Question 4): their width, heads, norm,
optimiser and schedule are read from ``penb.chapters.irie.presets``; the task is Fig. 2's reversal at
key_findings' length and LSTM vocabularies (read from ``penb.chapters.key_findings.presets``). Nothing
here restates a value those chapters own. Three models per vocabulary: one-layer NoPE, two-layer NoPE,
two-layer with the sinusoid added. For the length study, the same Transformers at the smallest vocabulary
and key_findings' PE-LSTM at that vocabulary (its own runs, shared) are tested at ``test_factor`` x L.

QUICK (probe on search seed 0, ``search_log.csv``): at L = 16 and 1,500 updates the two-layer models
learn (NoPE 0.57 / 0.49, PE 1.0 at V = 128 / 512) and the one-layer NoPE sits near the order-blind
ceiling (0.097 / 0.066). Measured in the book built from an empty store (2026-11-23): about 43 s per
two-layer run and 25 s per one-layer run on one core; 45 runs took 15 minutes on the two workers, and
the whole book 92 minutes, over its 90.

Seeds (issue 22). The pilot, seeds 1001-1005 (``PILOT_SEEDS``): 30 two-layer runs (5 seeds x 2 models x 3
vocabularies) and 9 one-layer runs (3 seeds), 11.8 minutes. Its verdicts, effects and Student-t intervals
over 5 seeds, and what the power calculation (``penb.claims.intervals.seeds_needed``, per-seed SD from the
interval's width) makes of them:

* ``beyond.tf.two_layer_no_pe`` not reproduced, +0.520 [0.511, 0.530] (SD 0.008): decided with a wide
  margin; at 3 seeds the same spread gives about [0.50, 0.54], still decided;
* ``beyond.tf.vocab_effect`` reproduced, slope +0.032 [0.015, 0.050] (SD 0.014): 80% power needs 4 seeds
  at the pilot's slope, 7 at the smallest effect of interest (0.02);
* ``beyond.length.nope`` inconclusive, +0.016 [-0.039, 0.072] (SD 0.045): 42 seeds at 0.02, far beyond any
  affordable count: the rule's minimum, 3, and the verdict stays inconclusive with its seed count;
* ``beyond.length.lstm`` not reproduced, -0.066 [-0.085, -0.047] (SD 0.015): at 3 seeds about
  [-0.104, -0.028], still below 0;
* ``beyond.tf.one_layer_blind`` reproduced: a check (every seed under the ceiling), 3 seeds its minimum.

The two-layer runs serve the first four together (the trend needs the same seeds at every vocabulary), so
one count covers them. Four seeds, what the vocabulary trend needs at its pilot slope, would cost 6 more
runs (about 2.2 minutes on the two workers) than three, and the three chapters irie, invertibility and
beyond_transformers have 11 minutes in all (the book: 60 minutes on two cores): three seeds, the count
that still decides the two cells the pilot decided with margin. The trend will likely read inconclusive
(at 3 seeds the pilot's spread gives about [-0.003, 0.067]), and says so with the seeds it would need.
Quick cost: 18 two-layer runs x 43 s + 9 one-layer runs x 25 s at three vocabularies took 10.9 minutes in the
book built idle from an empty store on 2026-11-25 (the runs took 46-56 s); since issue 26 quick reads
key_findings' two LSTM vocabularies (256, 512), so 12 + 6 runs, about two thirds of that, and the
vocabulary trend, which needs three, is left to the gpu preset. The PE-LSTM runs are
key_findings' own at the smallest vocabulary and the same seeds (``analysis.lstm_configs`` builds them from
key_findings' preset), reused from the store when key_findings' quick cell trains these seeds.

Protocol 4 (issue 34, ``half_models``): the hypotheses about trained models stand only where doubling the updates
did not move what could overturn them, so the models named train again at half their updates on the same seeds
(a cosine run of its own). Quick names the one-layer NoPE model, whose upper bound (``beyond.tf.one_layer_blind``)
an untrained model would pass too: one more run per vocabulary and seed, of about 12 s (half of the 25 s above):
with key_findings' quick vocabularies when this was written (512 alone; 256 and 512 before), 3 runs and about 40
CPU-s (6 and 75 with two vocabularies). Since key_findings' quick vocabulary is 512 alone, quick names the
two-layer models too (2 x 3 runs of about 22 s: ~130 CPU-s, about a minute on two cores), so that every
comparison of trained models here has its doubling move. The length study's move (2026-11-26) scores those half
runs at 2L too, with key_findings' PE-LSTM runs at N/2 (branches of its WSD trunks, shared through the store, so
no new training at quick): before, its rows read "no N/2" and stayed undecided.

Issue 58 (``earlier``): the same models train at a quarter of their updates too (375 at quick: 6 two-layer runs of
about 11 s and 3 one-layer runs of about 6 s, ~85 CPU-s), and the length study reads key_findings' PE-LSTM at N/4
(its trunk's branch, no new training), so that the horizon of protocols 6-7 reads the doubling before the last.
"""
from penb.chapters import rnn_common
from penb.chapters.irie import presets as irie
from penb.chapters.key_findings import presets as kf
from penb.presets import confirmation, require

MODELS = ("1-layer NoPE", "2-layer NoPE", "2-layer PE")


def _irie(preset: dict) -> dict:
    """The Transformer settings of Irie's Question 4 in ``preset`` (a dict of the irie presets)."""
    names = {"q4_dim": "dim", "heads": "heads", "norm": "norm", "q4_lr": "lr", "q4_warmup": "warmup",
             "q4_batch": "batch_size", "q4_steps": "steps", "q4_held_out": "held_out"}
    return {ours: preset[theirs] for theirs, ours in names.items() if theirs in preset}


PAPER = dict(
    _irie(irie.PAPER),                  # Irie Q4's Transformers (irie.presets.PAPER)
    device="auto",                      # CUDA when present
    length=kf.PAPER["length"],          # Fig. 2's L
    vocab=kf.PAPER["lstm_vocab"],       # Fig. 2's LSTM vocabularies
    seeds=kf.PAPER["seeds"],            # Fig. 2's official seeds
    models=MODELS,                      # the three models of the question
    one_layer_seeds=5,                  # seeds (the first n) of the one-layer NoPE model
    half_models=MODELS,                 # protocol 4: models also trained at half their updates (same
                                        # seeds), which the doubling test of the hypotheses about
                                        # trained models reads; () trains none
    earlier=1,                          # issue 58: those models at a quarter of their updates too (a
                                        # cosine run of its own; PE-LSTM: key_findings' N/4 branch):
                                        # the doubling before the last, which the horizon reads
    encoding="sinusoidal",              # the PE added in "2-layer PE"
    test_factor=2,                      # the length study tests at test_factor x L
    lstm=True,                          # the length study includes key_findings' PE-LSTM
    bootstrap=10_000,                   # bootstrap resamples of the 95% intervals
    workers=2,                          # processes training side by side
    **rnn_common.EXECUTION,             # where runs execute (rnn_common.EXECUTION)
)
QUICK = dict(
    _irie(irie.QUICK),                  # Irie Q4's quick schedule (1,500 updates)
    device="cpu",                       # small models: the CPU
    length=kf.QUICK["length"],          # key_findings' quick L (16): the LSTM runs are shared
    vocab=kf.QUICK["lstm_vocab"],       # key_findings' quick LSTM vocabularies (256, 512 since
                                        # issue 26: the vocabulary trend, which reads three,
                                        # is not tested at quick)
    seeds=confirmation(3),              # graded: three confirmation seeds (power calculation on the
                                        # pilot: see the docstring)
    one_layer_seeds=3,                  # the check rule's minimum: the model is held under
                                        # an exact bound
    half_models=MODELS,                 # protocol 4 for every hypothesis about trained models:
                                        # the one-layer bound (an untrained model passes it
                                        # too) and the two-layer comparisons (issue 34: every
                                        # comparative row shows its doubling move); ~130 CPU-s
                                        # more at one vocabulary (docstring)
    bootstrap=2000,                     # as key_findings' quick
)
SMOKE = dict(
    _irie(irie.SMOKE),                  # tiny Transformers, a few updates
    device="cpu",                       # the tests run on the CPU
    length=kf.SMOKE["length"],          # key_findings' smoke L: its LSTM runs are shared
    vocab=kf.SMOKE["lstm_vocab"],       # three vocabularies: the trend code runs
    seeds=kf.SMOKE["seeds"],            # two seeds: per-seed code runs, rules decline
    one_layer_seeds=2,                  # both seeds
    half_models=("1-layer NoPE",),      # as quick
    earlier=0,                          # no N/4 runs: the tests' smoke build stays as short
    held_out=16,                        # key_findings' smoke test set: shared LSTM runs
    bootstrap=200,                      # fast intervals
    workers=1,                          # in-process
)


def check(cfg):
    """``ValueError`` for an impossible value of a resolved ``beyond_transformers`` config."""
    for name in ("dim", "heads", "steps", "batch_size", "held_out", "length", "test_factor", "bootstrap",
                 "workers"):
        v = cfg[name]
        require(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"{name} must be an int >= 1, got {v!r}")
    rnn_common.check_execution(cfg)
    require(cfg.dim % cfg.heads == 0, f"dim ({cfg.dim}) must be a multiple of heads ({cfg.heads})")
    require(cfg.test_factor >= 2, f"test_factor must be >= 2 (a longer test), got {cfg.test_factor}")
    require(cfg.lr > 0 and cfg.warmup >= 0 and cfg.warmup < cfg.steps,
            f"need lr > 0 and 0 <= warmup < steps, got {cfg.lr}, {cfg.warmup}, {cfg.steps}")
    require(len(cfg.vocab) >= 1 and len(set(cfg.vocab)) == len(cfg.vocab)
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 2 for v in cfg.vocab),
            f"vocab must hold distinct ints >= 2, got {cfg.vocab}")
    require(min(cfg.vocab) ** cfg.length > cfg.held_out,
            f"vocab {min(cfg.vocab)} with length {cfg.length} has fewer than held_out + 1 distinct sequences")
    require(set(cfg.models) <= set(MODELS) and len(cfg.models) >= 1 and len(set(cfg.models)) == len(cfg.models),
            f"models must be distinct among {', '.join(MODELS)}, got {cfg.models}")
    require(cfg.encoding in ("sinusoidal",),
            f"encoding must be 'sinusoidal' (a fixed table that extends to longer tests), got {cfg.encoding!r}")
    require(len(cfg.seeds) >= 1 and len(set(cfg.seeds)) == len(cfg.seeds)
            and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in cfg.seeds),
            f"seeds must be distinct ints >= 0, got {cfg.seeds}")
    require(isinstance(cfg.one_layer_seeds, int) and not isinstance(cfg.one_layer_seeds, bool)
            and 1 <= cfg.one_layer_seeds <= len(cfg.seeds),
            f"one_layer_seeds must be an int in 1..{len(cfg.seeds)} (the seeds), got {cfg.one_layer_seeds!r}")
    require(isinstance(cfg.lstm, bool), f"lstm must be True or False, got {cfg.lstm!r}")
    require(isinstance(cfg.half_models, (tuple, list)) and set(cfg.half_models) <= set(cfg.models)
            and len(set(cfg.half_models)) == len(cfg.half_models),
            f"half_models must be distinct among models ({', '.join(cfg.models)}), got {cfg.half_models!r}")
    require(cfg.earlier in (0, 1) and not isinstance(cfg.earlier, bool),
            f"earlier must be 0 or 1 (1: the runs at N/4 too), got {cfg.earlier!r}")
    if cfg.half_models:                      # the shorter budgets keep their warm-up inside them
        require(cfg.warmup <= cfg.steps // 2, f"half_models trains runs of {cfg.steps // 2} updates, shorter than "
                                              f"the {cfg.warmup}-update warm-up; shorten it or set half_models=()")
        require(not cfg.earlier or cfg.warmup <= cfg.steps // 4,
                f"earlier=1 trains runs of {cfg.steps // 4} updates, shorter than the {cfg.warmup}-update "
                f"warm-up; shorten it or set earlier=0")

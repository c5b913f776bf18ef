"""The book's own hypotheses (source ``BEYOND``): questions the three texts leave open, fixed here, with
their measure, rule and trivial baseline, before any confirmation run of the chapters ``beyond_rnn``
and ``beyond_transformers`` (written 2026-11-23, before those chapters existed).

A hypothesis is graded like a claim, with the same rules and vocabulary: "reproduced" means the
hypothesis holds on the confirmation seeds, "not reproduced" that it does not. Each is stated as the
effect it predicts; where we expected the opposite, the statement says so.
"""
from penb.claims.claim import Claim
from penb.claims.grading import Rule
from penb.claims.morita import _GATE, _P, ACC, CHANCE, TREND_SESOI, TREND_WHY, better
from penb.claims.sources import BEYOND

H = "hypothesis"
RNN, TF = "beyond_rnn", "beyond_transformers"


def no_gain(difference: str, inconclusive: str) -> Rule:
    """Rule ``no_gain`` (margin 0.02, the reference gated on its baseline): ``difference`` paired by seed."""
    return Rule("no_gain", f"{difference}, paired by seed: reproduced when the seed-level 95% interval stays "
                           f"below +0.02; not reproduced when it lies above +0.02 (a gain beyond the margin; "
                           f"protocols 1-2: above 0); inconclusive when {inconclusive}",
                {**_P, "margin": 0.02, "gate_b": True})
BLIND = "the order-blind ceiling (the best token accuracy from the multiset of the inputs alone)"

CLAIMS = [
    # --- What in the encoding helps an RNN (beyond_rnn) ----------------------------------------------------
    Claim("beyond.bands.high", BEYOND, "Morita Sec. 5.3 (open)",
          "The highest-frequency half of the sinusoid pairs alone carries a gain: an RNN given only those "
          "pairs (unit norm) beats the vanilla RNN.", kind=H, chapter=RNN,
          measure=f"{ACC}, high-band PE vs vanilla, at the chapter's band model and vocabulary",
          rule=better("high-band PE above vanilla"), baseline=CHANCE),
    Claim("beyond.bands.high_over_low", BEYOND, "Morita Sec. 5.3 (open)",
          "The gain sits in the high frequencies: over a sequence of 2L steps the lowest-frequency pairs barely "
          "change, so the high band beats the low band.", kind=H, chapter=RNN,
          measure=f"{ACC}, high-band PE vs low-band PE",
          rule=better("high-band PE above low-band PE"), baseline=CHANCE),
    Claim("beyond.bands.spread", BEYOND, "Morita Sec. 5.3 (open)",
          "A handful of pairs (four, spread over the range) is enough for a gain over vanilla.", kind=H,
          chapter=RNN, measure=f"{ACC}, four spread pairs vs vanilla",
          rule=better("spread-pair PE above vanilla"), baseline=CHANCE),
    Claim("beyond.bands.phase", BEYOND, "Morita Sec. 5.3 (open)",
          "The exact phases do not matter: the full sinusoid with a random phase per pair does as well as "
          "Eq. 1-2 (Eq. 1-2 is not more than 0.02 ahead).", kind=H, chapter=RNN,
          measure=f"{ACC}, Eq. 1-2 PE vs random-phase PE",
          rule=no_gain("Eq. 1-2 minus random-phase accuracy", "Eq. 1-2 is far below (interval under -0.02) "
                       "or too noisy to decide, a run diverged, or the random-phase model sits at chance"),
          baseline="none"),
    Claim("beyond.hansen.normal", BEYOND, "Hansen x Morita",
          "The blog's recommended encoding (normal quantiles), scaled to unit mean norm and concatenated, helps "
          "the RNN: it beats vanilla.", kind=H, chapter=RNN,
          measure=f"{ACC}, unit-scaled 'normal' PE vs vanilla, at the chapter's encoding-study model",
          rule=better("normal PE above vanilla"), baseline=CHANCE),
    Claim("beyond.hansen.invertibility", BEYOND, "Hansen x Morita",
          "Being easy to invert predicts helping the RNN: across the blog's encodings, the lower an encoding's "
          "invertibility loss floor, the larger its accuracy gain over vanilla (negative rank correlation).",
          kind=H, chapter=RNN,
          measure="per seed, minus the Spearman rank correlation, over the blog's encodings, between the "
                  "invertibility chapter's loss floor and the RNN's accuracy gain over vanilla (same seed)",
          rule=Rule("better", "minus the rank correlation above 0: seed-level 95% interval above 0 and at least "
                              "80% of seeds negative; not reproduced when the interval lies below 0.3 (the smallest "
                              "correlation of interest) or below 0; inconclusive when a run diverged or fewer than 3 "
                              "seeds", {"min_agree": 0.8, "min_seeds": 3}),
          baseline="0 (no relation)", sesoi=0.3,
          sesoi_why="a rank correlation of 0.3 (Cohen's 'medium'; below it the floor accounts for under a tenth of the "
                    "variance of the gains' ranks): 'predicts' means an ordering one could choose encodings by. "
                    "Over 5-9 encodings whose floors take 3 distinct values the per-seed correlation is coarse: one "
                    "swap of two encodings moves it by 0.05-0.16 with the quick preset's five, and its largest "
                    "value is 0.95 (five) or 0.84 (nine), not 1; 0.02, the protocol's default, is below what one "
                    "seed can resolve with five"),
    Claim("beyond.add.keeps", BEYOND, "Morita Sec. 3.2 (choice)",
          "Adding the sinusoid to the embedding (the Transformer habit) instead of concatenating it keeps a "
          "gain over vanilla.", kind=H, chapter=RNN,
          measure=f"{ACC}, added PE vs vanilla, at the chapter's band model and vocabulary",
          rule=better("added PE above vanilla"), baseline=CHANCE),
    Claim("beyond.add.as_concat", BEYOND, "Morita Sec. 3.2 (choice)",
          "Adding is as good as concatenating: concatenation is not more than 0.02 ahead.", kind=H, chapter=RNN,
          measure=f"{ACC}, concatenated PE vs added PE",
          rule=no_gain("concatenated minus added accuracy", "concatenation is far below, the interval is too "
                       "wide, a run diverged, or the added-PE model sits at chance"),
          baseline="none"),
    # --- Positional encoding in Transformers on the RNN tasks (beyond_transformers) -------------------------
    Claim("beyond.tf.one_layer_blind", BEYOND, "Irie Q5 x Morita Fig. 2",
          "A one-layer causal Transformer without PE cannot reverse at any vocabulary: its token accuracy "
          "stays at or below the order-blind ceiling.", kind=H, chapter=TF,
          measure="per vocabulary, the one-layer NoPE model's token accuracy per seed against the order-blind "
                  "ceiling plus 4 binomial standard deviations of the test set",
          rule=Rule("check", "reproduced when at every vocabulary every valid seed is at or below the ceiling "
                             "plus the margin; inconclusive with fewer than 3 valid seeds at a vocabulary or a "
                             "diverged run. An upper bound that a model which learned nothing passes too (issue 34, "
                             "2026-11-26, after its verdicts had been seen; both additions can only hold a verdict "
                             "back): inconclusive when the model's mean accuracy at a vocabulary sits within 0.02 of "
                             "chance 1/V; and, about trained models, decided only where the doubling test (protocol "
                             "4, the same seeds trained again at half the updates) finds the per-seed move of the "
                             "accuracy at every vocabulary within +-0.02 (its Student-t interval over seeds)",
                    {"min_seeds": 3, "baseline_margin": 0.02}),
          baseline=BLIND + "; chance 1/V, which the model must have left", about="trained"),
    Claim("beyond.tf.two_layer_no_pe", BEYOND, "Irie Q3-Q4 x Morita Fig. 2",
          "A two-layer causal Transformer needs no PE on reversal: with sinusoidal PE added it is not more than "
          "0.02 more accurate than without, at the chapter's largest vocabulary.", kind=H, chapter=TF,
          measure=f"{ACC}, two-layer PE vs two-layer NoPE, largest vocabulary",
          rule=no_gain("PE minus NoPE accuracy", "PE is far below, too noisy, a run diverged, or NoPE sits at "
                       "the order-blind ceiling (nothing learned)"),
          baseline=BLIND),
    Claim("beyond.tf.vocab_effect", BEYOND, "Morita Fig. 2 without recurrence",
          "Morita's vocabulary effect appears without recurrence: the two-layer Transformer's gain from PE grows "
          "with the vocabulary. (Morita's Sec. 5.2 expects it not to: attention mitigates the disturbant tokens by "
          "itself; that expectation is graded as morita.sec5_2.attention on the same runs.)", kind=H,
          chapter=TF, measure="two-layer PE minus NoPE accuracy per seed at each vocabulary",
          rule=Rule("trend", "the per-seed gap, fitted against log2 V, has a slope whose seed-level interval is "
                             "above 0; needs at least 3 vocabularies and 3 seeds, else inconclusive",
                    {"min_seeds": 3, "log2": True}),
          baseline="none", sesoi=TREND_SESOI, sesoi_why=TREND_WHY),
    Claim("beyond.length.nope", BEYOND, "length generalisation",
          "Trained at length L and tested at 2L, the two-layer Transformer without PE is more accurate than the "
          "one with sinusoidal PE (which meets positions it never saw).", kind=H, chapter=TF,
          measure="token accuracy per seed on sequences of length 2L, NoPE vs sinusoidal two-layer Transformer",
          rule=Rule("better", f"NoPE above PE at 2L: seed-level 95% interval of the paired difference above 0 and "
                              f"at least 80% of seeds ahead; {_GATE} (baseline: the order-blind ceiling at 2L)",
                    dict(_P)),
          baseline=BLIND + ", at 2L"),
    Claim("beyond.length.lstm", BEYOND, "length generalisation",
          "At 2L the NoPE Transformer is more accurate than the PE-LSTM of Fig. 2, whose state must hold twice "
          "the tokens and whose encoding rows beyond 2L were never seen.", kind=H, chapter=TF,
          measure="token accuracy per seed at 2L, two-layer NoPE Transformer vs PE-LSTM (seeds paired)",
          rule=Rule("better", f"NoPE Transformer above PE-LSTM at 2L: seed-level interval above 0 and at least 80% "
                              f"of seeds ahead; {_GATE} (baseline: the order-blind ceiling at 2L)", dict(_P)),
          baseline=BLIND + ", at 2L"),
]

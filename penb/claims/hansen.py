"""Hansen's claims (blog post): nine encodings, and how fast an affine-sigmoid inverter recovers position.

The two exact loss floors (``hansen.floor_affine``, ``hansen.floor_normal``) are not claims of the blog:
the blog prints no floor, and both numbers are derived from its code's setup (REFERENCE_NOTES). Decision
(issue 22, 2026-11-25): they are ``kind="setting"`` entries, facts of the study's setup like
``hansen.setup``, so they are neither counted among the blog's claims nor listed on the scorecard. They keep
their ``close`` rule (5% of the exact floor), which the invertibility chapter applies as the book's own
sanity check of its engine and its derivation (``penb.chapters.invertibility.checks.sanity``), shown on
the chapter page apart from the blog's verdicts. ``hansen.direct_worst`` (the Discussion's "the most
direct procedures are the worst performers") was added with its rule on 2026-11-25, before the
confirmation runs on seeds 2001-2010; ``hansen.relative`` and ``hansen.standalone`` are listed as not
tested, with the reason.
"""
from penb.claims import Claim
from penb.claims.grading import Rule
from penb.claims.sources import HANSEN

_CHECK = "computed from the mean loss curve over initialisations"

CLAIMS = [
    Claim("hansen.setup", HANSEN, "Empirical evaluation and the blog's code",
          "Nine encodings, 100 initialisations, 20,000 Adam steps at lr 1e-3, MSE of sigmoid(affine(encoding)) "
          "against pos/N. The sizes K=32 and N=100 come from the blog's code (pos-enc-invert.py), not its text.",
          {"dim": 32, "length": 100, "inits": 100, "iterations": 20_000, "lr": 1e-3}, kind="setting"),
    Claim("hansen.normal_best", HANSEN, "Empirical evaluation",
          "normal and normal_learned converge fastest and lowest until sincos overtakes them late (~12,000 steps).",
          12_000, "steps", chapter="invertibility",
          measure="the step at which sincos's mean loss falls below both normal encodings' for good",
          rule=Rule("check", f"{_CHECK}: reproduced when the normal pair leads every other encoding up to the "
                             "crossing and sincos crosses within a factor 2 of 12,000 steps; direction only when "
                             "the order holds but the crossing is elsewhere"),
          baseline="none", extra={"factor": 2, "lead_from": 100}),
    Claim("hansen.sincos_1200", HANSEN, "Empirical evaluation",
          "sincos overtakes all but normal and normal_learned by about 1,200 steps.", 1_200, "steps",
          chapter="invertibility", measure="the last step at which another encoding (the normal pair aside) is "
                                           "below sincos",
          rule=Rule("check", f"{_CHECK}: reproduced within a factor 2 of 1,200 steps"), baseline="none",
          extra={"factor": 2}),
    Claim("hansen.normal_plateau", HANSEN, "Discussion",
          "normal reaches a near-horizontal asymptote by about 400 steps, normal_learned by about 300.",
          {"normal": 400, "normal_learned": 300}, "steps", chapter="invertibility",
          measure="the step after which the mean loss stays within 10% (in log) of its final value",
          rule=Rule("check", f"{_CHECK}: reproduced when both plateau steps are within a factor 2 of the blog's"),
          baseline="none", extra={"factor": 2, "log_tol": 0.1}),
    Claim("hansen.learned_faster", HANSEN, "Discussion",
          "Learning the encoding's parameters makes the inverter converge sooner (every fixed/learned pair).",
          chapter="invertibility", measure="steps to reach a loss threshold, learned vs fixed, per pair",
          rule=Rule("check", f"{_CHECK}: reproduced when every pair is faster learned; direction only for most "
                             "pairs"), baseline="none", extra={"threshold_over_floor": 1.1}),
    Claim("hansen.normal_faster", HANSEN, "Discussion",
          "Normal draws are inverted faster than uniform ones (linear_normal vs linear_uniform, fixed and learned).",
          chapter="invertibility", measure="steps to reach a loss threshold, normal vs uniform, per pair",
          rule=Rule("check", f"{_CHECK}: reproduced when normal is faster in both pairs"), baseline="none",
          extra={"threshold_over_floor": 1.1}),
    Claim("hansen.converge_direct", HANSEN, "Empirical evaluation",
          "normal, normal_learned and sincos eventually converge on the same performance as the direct "
          "encodings. The blog contradicts this sentence twice: its Discussion has the normal encodings end far "
          "lower than every other encoding until sincos overtakes them late, and calls the direct encodings the "
          "worst performers while sincos does well in the long run (hansen.normal_best, hansen.direct_worst). "
          "The book grades the sentence as written.", chapter="invertibility",
          measure="final mean loss of normal, normal_learned and sincos against direct1/directN's",
          rule=Rule("check", f"{_CHECK}: reproduced when each final loss is within 10% of the direct encodings'"),
          baseline="none", extra={"rel": 0.1}),
    Claim("hansen.learned_linear_peak", HANSEN, "Empirical evaluation",
          "linear_normal_learned and linear_uniform_learned reach their peak inversion performance sooner "
          "than sincos, and in the long run converge on direct1/directN.", chapter="invertibility",
          measure="steps to come within 10% (log) of the final loss, learned linear encodings vs sincos; their "
                  "final losses vs the direct encodings'",
          rule=Rule("check", f"{_CHECK}: reproduced when both parts hold; direction only when one does"),
          baseline="none", extra={"log_tol": 0.1, "rel": 0.1}),
    Claim("hansen.direct_worst", HANSEN, "Discussion",
          "The most direct encodings (positions as values in [0, 1]: direct1, directN; t times a fixed random "
          "vector plus a bias: linear_normal, linear_uniform) are the worst performers, and all end at about "
          "the same loss.", chapter="invertibility",
          measure="each encoding's mean over the run's steps of log10 of its mean loss (its standing over the "
                  "whole run); the final mean losses of the four direct encodings",
          rule=Rule("check", f"{_CHECK}: reproduced when direct1, directN, linear_normal and linear_uniform have "
                             "the four highest step-averaged log losses of the nine encodings and their final "
                             "losses lie within 10% of each other (largest over smallest at most 1.1); direction "
                             "only when one of the two parts holds"),
          baseline="none", extra={"encodings": ("direct1", "directN", "linear_normal", "linear_uniform"),
                                  "rel": 0.1}),
    Claim("hansen.relative", HANSEN, "Requirements",
          "A trained linear map can carry one position's encoding to that of a position a fixed offset away "
          "(relative positions), for the encodings considered.", None,
          not_tested="the blog states it as a requirement that seems to hold and says it does not evaluate it; "
                     "the invertibility chapter measures only the recovery of the absolute position"),
    Claim("hansen.standalone", HANSEN, "Conclusion",
          "The normally distributed encoding should be useful as a standalone position encoding in a language "
          "model.", None,
          not_tested="a prospect, with no study behind it in the blog; the book's hypothesis beyond.hansen.normal "
                     "puts the encoding into an RNN on Morita's task (chapter beyond_rnn), not into a language "
                     "model"),
    # --- the book's own sanity checks: derived from the blog's code, not claimed by the blog (see above) ----
    Claim("hansen.floor_affine", HANSEN, "REFERENCE_NOTES (exact floor; the book's check)",
          "Every encoding affine in position ends at the best sigmoid(a*t+c) fit of t.", 8.352947e-4, "MSE",
          chapter="invertibility", measure="final mean loss of the affine encodings",
          rule=Rule("close", "within 5% of the exact floor", {"rel": 0.05}), baseline="the exact floor",
          kind="setting"),
    Claim("hansen.floor_normal", HANSEN, "REFERENCE_NOTES (exact floor; the book's check)",
          "normal and normal_learned end at the best sigmoid(a*ndtri(t)+c) fit, position 0 predicted 0.",
          3.016172e-5, "MSE", chapter="invertibility", measure="final mean loss of the normal encodings",
          rule=Rule("close", "within 5% of the exact floor", {"rel": 0.05}), baseline="the exact floor",
          kind="setting"),
]

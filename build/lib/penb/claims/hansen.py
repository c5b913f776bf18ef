"""Hansen's claims (blog post): nine encodings, and how fast an affine-sigmoid inverter recovers position."""
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
          "encodings.", chapter="invertibility",
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
    Claim("hansen.floor_affine", HANSEN, "REFERENCE_NOTES (exact floor)",
          "Every encoding affine in position ends at the best sigmoid(a*t+c) fit of t.", 8.352947e-4, "MSE",
          chapter="invertibility", measure="final mean loss of the affine encodings",
          rule=Rule("close", "within 5% of the exact floor", {"rel": 0.05}), baseline="the exact floor"),
    Claim("hansen.floor_normal", HANSEN, "REFERENCE_NOTES (exact floor)",
          "normal and normal_learned end at the best sigmoid(a*ndtri(t)+c) fit, position 0 predicted 0.",
          3.016172e-5, "MSE", chapter="invertibility", measure="final mean loss of the normal encodings",
          rule=Rule("close", "within 5% of the exact floor", {"rel": 0.05}), baseline="the exact floor"),
]

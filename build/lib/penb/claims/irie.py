"""Irie's claims: which causal Transformers are position-sensitive without a positional encoding."""
from penb.claims import Claim
from penb.claims.grading import Rule
from penb.claims.sources import IRIE


EXACT = {"max_deviation": 1e-9}   # the threshold of the exact rules below, for the chapter's code


def exact(what: str) -> Rule:
    return Rule("check", f"{what}, checked numerically on random weights and inputs in float64 (largest deviation "
                         f"under 1e-9); any larger deviation: not reproduced")


CLAIMS = [
    Claim("irie.q1", IRIE, "Question 1",
          "Non-autoregressive self-attention without PE is permutation-equivariant (invariant as a set).",
          chapter="irie", measure="largest |f(P x) - P f(x)| over random permutations P",
          rule=exact("equivariance"), baseline="none (an exact identity)", extra=EXACT),
    Claim("irie.q3", IRIE, "Question 3 / Fig. 1",
          "Autoregressive Transformers with two or more layers are fully position-sensitive: a change at one "
          "position changes the top-layer output at every later position.",
          chapter="irie", measure="top-layer output change at every later position after swapping two earlier "
                                 "tokens, one vs two layers",
          rule=Rule("check", "reproduced when every later position changes with two layers (and the last "
                             "position does not with one layer)"), baseline="none (an exact property)",
          extra=EXACT),
    Claim("irie.q5", IRIE, "Question 5",
          "A one-layer autoregressive model gives the same last-position output for any permutation of the "
          "earlier tokens.", chapter="irie", measure="largest last-position change over permutations of the prefix",
          rule=exact("invariance"), baseline="none (an exact identity)", extra=EXACT),
    Claim("irie.q4", IRIE, "Question 4",
          "Multi-layer causal Transformer language models trained without PE perform well (the cited ablations "
          "used 12, 24 and 42 layers).",
          chapter="irie", measure="held-out perplexity per seed of a two-layer NoPE model vs a sinusoidal-PE one "
                                 "(small LMs), and accuracy on order tasks a one-layer model cannot solve",
          rule=Rule("check", "reproduced when the two-layer NoPE model solves the order task above the one-layer "
                             "ceiling on every seed and its LM perplexity is within 10% of the PE model's "
                             "(seed means); inconclusive with fewer than 2 seeds"),
          baseline="the one-layer blind ceiling (order tasks); a uniform model's perplexity V (LM)",
          extra={"layers": 2, "ppl_ratio": 1.10, "min_seeds": 2, "baseline_margin": 0.02}),
    Claim("irie.q4.attention", IRIE, "Question 4",
          "In such models the first attention layer mainly attends to the newest token, the second roughly "
          "uniformly over the context.", None,
          not_tested="the chapter's models are 1-2 layers trained for minutes; reading attention maps of them as "
                     "evidence about 12-42-layer language models would be a claim the runs cannot carry"),
    Claim("irie.linear", IRIE, "Sec. 4 / App. B",
          "Linear attention without softmax equals the fast-weight recurrence W_t = W_{t-1} + v_t k_t^T, "
          "y_t = W_t q_t.", chapter="irie", measure="largest difference of the two computations",
          rule=exact("equality"), baseline="none (an exact identity)", extra=EXACT),
]

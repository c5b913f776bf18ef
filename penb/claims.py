"""The papers' numbers, written once as data.

Each claim names its source (document, figure/table/section), says what is claimed, and carries
the published value where the text gives one. Figures whose values are not printed in the text
(e.g. the bars of Morita's Fig. 2) are represented by the statement the text makes about them.
Chapters and the scorecard read from here; nothing else restates a paper value.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MORITA = "Morita, Positional Encoding Helps RNNs Handle a Large Vocabulary (TMLR)"
IRIE = "Irie, Why are positional encodings nonessential for deep autoregressive Transformers?"
HANSEN = "Hansen, A Normally Distributed Position Encoding (blog)"


@dataclass(frozen=True)
class Claim:
    key: str            # stable identifier, e.g. "morita.fig2.lstm"
    source: str         # one of MORITA, IRIE, HANSEN
    where: str          # "Fig. 2", "Table 1", "Sec. 4.2", ...
    statement: str      # what is claimed, in our words
    value: Any = None   # the published number(s), where the text prints them
    unit: str = ""
    extra: dict = field(default_factory=dict)


_CLAIMS = [
    # --- Morita: settings ---------------------------------------------------------------
    Claim("morita.settings", MORITA, "Sec. 3.3",
          "Single-layer GRU/LSTM/S4D, hidden = embedding = 512, Adam, lr warm-up to 1e-3 over 1,000 steps "
          "then cosine decay, batch 512, 300,000 iterations, five seeds.",
          {"hidden": 512, "batch": 512, "steps": 300_000, "lr": 1e-3, "warmup": 1000, "seeds": 5,
           "betas_paper_text": (0.9, 0.999), "betas_official_code": (0.9, 0.98)}),
    # --- Morita: Sec. 4.1, Fig. 2 ---------------------------------------------------------
    Claim("morita.fig2.gru", MORITA, "Fig. 2 / Sec. 4.1",
          "Position-encoded GRU reverses length-64 sequences with token accuracy above 95% for vocabularies "
          "32-256; the vanilla GRU degrades as the vocabulary grows.",
          0.95, "token accuracy (lower bound, PE)", {"vocab": (32, 64, 128, 256), "length": 64}),
    Claim("morita.fig2.lstm", MORITA, "Fig. 2 / Sec. 4.1",
          "Position-encoded LSTM keeps token accuracy above 95% for vocabularies 256-16,384; the vanilla LSTM "
          "degrades as the vocabulary grows.",
          0.95, "token accuracy (lower bound, PE)",
          {"vocab": (256, 512, 1024, 2048, 4096, 8192, 16384), "length": 64}),
    Claim("morita.fig2.s4d", MORITA, "Fig. 2 / Sec. 4.1",
          "Positional encoding also improves S4D at large vocabularies (no number printed).",
          None, "", {"length": 64}),
    # --- Morita: Sec. 4.2, Fig. 3 ---------------------------------------------------------
    Claim("morita.fig3", MORITA, "Fig. 3 / Sec. 4.2",
          "With a vocabulary split into FREQUENT and RARE halves (7:1 per token), RARE disturbants hurt vanilla "
          "models; position-encoded RNNs are nearly perfect except the GRU on all-RARE data with the target in "
          "the first half.",
          None, "", {"vocab": {"gru": 64, "lstm": 1024, "s4d": 2048}, "rare_probability": 1 / 8,
                     "test_sequences_per_condition_position": 16}),
    # --- Morita: Sec. 4.3, Fig. 5 ---------------------------------------------------------
    Claim("morita.fig5", MORITA, "Fig. 5 / Sec. 4.3",
          "RARE disturbants lower the gradient-stability score of vanilla GRU (gradually) and LSTM (rapidly); "
          "position-encoded RNNs keep it high in every condition; S4D is stable either way.",
          None, "", {"pairs": 1024, "checkpoint_every": 5000, "s4d_target_position": 23}),
    # --- Morita: appendices ---------------------------------------------------------------
    Claim("morita.fig7", MORITA, "Fig. 7 / App. A.1",
          "Reverse + delayed addition (LSTM, L=16, 600,000 steps): PE helps as V grows from 896 to 1,088.",
          None, "", {"vocab": (896, 960, 1024, 1088), "length": 16, "steps": 600_000}),
    Claim("morita.fig8", MORITA, "Fig. 8 / App. A.2",
          "Sorting (L=64): PE helps GRU and LSTM at large vocabularies, less than in reverse ordering.",
          None, "", {"length": 64}),
    Claim("morita.fig10", MORITA, "Fig. 10 / App. A.3",
          "Predecessor query (LSTM, L=16): PE helps at larger vocabularies.", None, "", {"length": 16}),
    Claim("morita.fig11", MORITA, "Fig. 11 / App. B",
          "Variable length 32-64 (LSTM, V=16,384): PE still helps.", None, "",
          {"length_range": (32, 64), "vocab": 16384}),
    Claim("morita.fig12", MORITA, "Fig. 12 / App. C",
          "Double vanilla ([emb, emb], same parameter count as PE) does not improve on vanilla (LSTM, V=16,384).",
          None, "", {"vocab": 16384, "length": 64}),
    Claim("morita.fig13", MORITA, "Fig. 13-14 / App. D",
          "Random and learnable encodings also help the LSTM (V=16,384); sinusoidal is best, more clearly at "
          "variable length.", None, "", {"vocab": 16384, "length": 64}),
    Claim("morita.fig15", MORITA, "Fig. 15 / App. E",
          "WikiText-103 training perplexity: the position-encoded LSTM learns marginally faster at first; the "
          "difference is gone by about 10,000-30,000 of the 300,000 iterations.",
          (10_000, 30_000), "iterations (gap vanishes)"),
    Claim("morita.table1", MORITA, "Table 1 / App. E",
          "WikiText-103 test perplexity over five seeds: PE is slightly worse than vanilla.",
          {"vanilla": {"min": 36.8257, "mean": 37.7731, "max": 38.916589},
           "pe": {"min": 38.0685, "mean": 38.5384, "max": 38.893656}}, "perplexity"),
    # --- Irie -----------------------------------------------------------------------------
    Claim("irie.q1", IRIE, "Question 1",
          "Non-autoregressive self-attention without PE is permutation-equivariant (invariant as a set).", None),
    Claim("irie.q3", IRIE, "Question 3 / Fig. 1",
          "Autoregressive Transformers with two or more layers are fully position-sensitive: a change at one "
          "position changes the top-layer output at every later position.", None),
    Claim("irie.q5", IRIE, "Question 5",
          "A one-layer autoregressive model gives the same last-position output for any permutation of the "
          "earlier tokens.", None),
    Claim("irie.q4", IRIE, "Question 4",
          "Multi-layer causal Transformer language models trained without PE perform well (the cited ablations used "
          "12, 24 and 42 layers); the first attention layer mainly attends to the newest token, the second uniformly.",
          None),
    Claim("irie.linear", IRIE, "Sec. 4 / App. B",
          "Linear attention without softmax equals the fast-weight recurrence W_t = W_{t-1} + v_t k_t^T, "
          "y_t = W_t q_t.", None),
    # --- Hansen ---------------------------------------------------------------------------
    Claim("hansen.setup", HANSEN, "Empirical evaluation",
          "Nine encodings, K=32, N=100 positions, 100 initialisations, 20,000 Adam steps at lr 1e-3, MSE of "
          "sigmoid(affine(encoding)) against pos/N.",
          {"dim": 32, "length": 100, "inits": 100, "iterations": 20_000, "lr": 1e-3}),
    Claim("hansen.normal_best", HANSEN, "Empirical evaluation",
          "normal and normal_learned converge fastest and lowest until sincos overtakes them late (~12,000 steps).",
          12_000, "steps"),
    Claim("hansen.sincos_1200", HANSEN, "Empirical evaluation",
          "sincos overtakes all but normal and normal_learned by about 1,200 steps.", 1_200, "steps"),
    Claim("hansen.normal_plateau", HANSEN, "Discussion",
          "normal reaches a near-horizontal asymptote by about 400 steps, normal_learned by about 300.",
          {"normal": 400, "normal_learned": 300}, "steps"),
    Claim("hansen.learned_faster", HANSEN, "Discussion",
          "Learning the encoding's parameters makes the inverter converge sooner (every fixed/learned pair).", None),
    Claim("hansen.normal_faster", HANSEN, "Discussion",
          "Normal draws are inverted faster than uniform ones (linear_normal vs linear_uniform, fixed and learned).",
          None),
    Claim("hansen.floor_affine", HANSEN, "REFERENCE_NOTES (exact floor)",
          "Every encoding affine in position ends at the best sigmoid(a*t+c) fit of t.", 8.352947e-4, "MSE"),
    Claim("hansen.floor_normal", HANSEN, "REFERENCE_NOTES (exact floor)",
          "normal and normal_learned end at the best sigmoid(a*ndtri(t)+c) fit, position 0 predicted 0.",
          3.016172e-5, "MSE"),
]

CLAIMS: dict[str, Claim] = {c.key: c for c in _CLAIMS}


def get(key: str) -> Claim:
    """The claim ``key``; an unknown key raises ``KeyError`` listing the valid ones."""
    try:
        return CLAIMS[key]
    except KeyError:
        raise KeyError(f"unknown claim {key!r}; known: {', '.join(CLAIMS)}") from None

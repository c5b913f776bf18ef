"""Chapter "Why deep autoregressive Transformers need no positional encoding" (Irie, "Why are positional
encodings nonessential for deep autoregressive Transformers? Revisiting a petroglyph").

What it tests: Question 1 (without a mask and without PE, self-attention outputs permute with the
inputs), Questions 3 and 5 (one causal layer without PE returns the same last output for every
ordering of the earlier tokens; two or more layers are fully position-sensitive), Fig. 1 (what each
layer sees, from the model's own mask and Jacobian), Sec. 4 / App. B (linear causal attention is the
fast-weight recurrence), all on random, seeded float64 models; and Question 4 (do trained causal
Transformers without PE learn to use order?) on an order task and small WikiText-2 language models.
The claims are ``irie.*`` in ``penb.claims``.

* ``presets``: ``PAPER``, ``QUICK``, ``SMOKE`` and ``check(cfg)``;
* ``probes``: the constructions on random models (distinct tokens, permutations, per-layer
  differences, mask-composed contexts, reachability, the fast-weight recurrence);
* ``analysis``: the chapter's tables for Questions 1, 3 and 5, Sec. 4 and Fig. 1, built from ``probes``;
  the exact claims per seed (``exact_table``) and the grading of every ``irie.*`` claim (``grades``);
* ``q4``: Question 4's runs (``cells``: the graded cells on every seed, the others as ``q4_context``
  says; ``order_configs``, ``lm_configs``, ``half_configs``, ``run``); ``q4_grading``: the grades of
  ``irie.q4`` (the language models, at their budget once the curves have met), ``irie.q4.order`` and the
  claims about trained models under protocol 4 (``grade_trained``); ``budgets``: the runs at half the
  updates and the next doubling's cost; ``q4_tables``: their tables over seeds, the order-use probe and the
  run table;
  ``ceiling``: the order-blind ceiling of ``reverse`` and its test-noise margin;
* ``plots``: Fig. 1 recomputed (``context_sets``), the exact claims per seed (``exact_checks``) and the
  Question 4 figures (``results``, ``exploratory``, ``training``);
* ``page`` (the random-model checks and the verdicts) and ``page_q4`` (Question 4's tables and figures):
  what the notebook shows and glues (imported by the notebook only, not here: IPython and myst_nb are
  not on the device image).

The Transformer itself is the shared core ``penb.transformer`` (the random models here) and
``penb.models`` (the trained ones, ``core="transformer"``).
"""
from penb.chapters.irie import analysis, budgets, ceiling, plots, presets, probes, q4, q4_grading, q4_tables

__all__ = ["analysis", "budgets", "ceiling", "plots", "presets", "probes", "q4", "q4_grading", "q4_tables"]

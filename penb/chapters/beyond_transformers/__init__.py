"""Chapter "Positional encoding in Transformers on the RNN tasks" (``notebooks/beyond_transformers.py``).

Irie's causal Transformers on Fig. 2's reversal task: does the vocabulary matter without recurrence (one-
and two-layer NoPE, two-layer PE, over key_findings' vocabularies), and which models keep their accuracy
on sequences twice as long as in training (NoPE, PE and key_findings' PE-LSTM). Hypotheses:
``penb.claims.beyond``, written before the runs.

* :mod:`~penb.chapters.beyond_transformers.presets`: ``PAPER``, ``QUICK``, ``SMOKE``, ``check(cfg)``;
* :mod:`~penb.chapters.beyond_transformers.analysis`: runs, summary, ceilings;
* :mod:`~penb.chapters.beyond_transformers.grading`: the evidence and grade of every hypothesis;
* :mod:`~penb.chapters.beyond_transformers.length`: extending a trained model to a longer test;
* :mod:`~penb.chapters.beyond_transformers.plots`: the vocabulary panel and the length panels;
* ``search_log.csv``: the probe behind ``QUICK``.
"""
from penb.chapters.beyond_transformers import analysis, grading, length, plots, presets  # noqa: F401

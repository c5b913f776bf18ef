"""Chapter "Key findings" (``notebooks/key_findings.py``): Morita, Sec. 4.1, Fig. 2.

It tests whether concatenating the sinusoidal positional encoding to the inputs lets
single-layer GRUs, LSTMs and S4Ds reverse sequences of random integers over large
vocabularies, where the vanilla models fail: token accuracy and Damerau-Levenshtein
distance against the vocabulary size, with 95% bootstrap intervals over seeds, graded
claim by claim through the registry ``penb.claims``.

* :mod:`~penb.chapters.key_findings.presets`: ``PAPER``, ``QUICK``, ``SMOKE`` and
  ``check(cfg)``; the fixed-target presets (``DEEP``, ``DEEP_V2``, ``DEEP_V3``) from
  :mod:`~penb.chapters.key_findings.fixed_targets`, what each changes and why;
* :mod:`~penb.chapters.key_findings.analysis`: the runs (``run_configs``, ``run``,
  ``frame``), ``summary`` and ``grade``, the exploratory ``gaps``, the page's tables
  and the regime search's table (``search_table``); the evidence of each claim is
  :mod:`~penb.chapters.key_findings.claim_evidence`, its grade
  :mod:`~penb.chapters.key_findings.grading`;
* :mod:`~penb.chapters.key_findings.plots`: Fig. 2's layout (``vocab_sweep``);
* :mod:`~penb.chapters.key_findings.archived`: the archived GPU execution (``load``),
  shown beside the page's own run when ``book/archived/key_findings-lease/`` exists;
* :mod:`~penb.chapters.key_findings.page`: what the notebook shows and glues (imported
  by the notebook only, not here: IPython and myst_nb are not on the device image);
* ``search_log.csv``: the regime search behind ``QUICK``
  (``scripts/search_key_findings.py``).
"""
from penb.chapters.key_findings import analysis, archived, plots, presets  # noqa: F401

"""The appendix chapters A-D (Morita, App. A-D, Fig. 7-14): does positional encoding
help RNNs beyond the reversal task of Sec. 4.1, beyond a fixed input length, beyond
extra input weights, and with other encodings? The figures print no numbers, so every
claim is a comparison of variants, graded per seed by the rule that the claims registry
(``penb.claims``) holds for it.

* ``appendix_a``: App. A, other tasks: reverse + delayed addition (Fig. 7), sorting
  (Fig. 8), predecessor query (Fig. 10);
* ``appendix_b``: App. B, reverse ordering at variable input length (Fig. 11);
* ``appendix_c``: App. C, the parameter control "double vanilla" (Fig. 12);
* ``appendix_d``: App. D, random and learnable encodings against the sinusoidal one
  (Fig. 13-14).

Each of those four holds its chapter's presets (``PAPER``, ``QUICK``, ``SMOKE``,
``check``), its figure panels (``panels(cfg)``) and its runs (``run_configs(cfg)``,
``run(cfg)``). What they share:

* ``common``: the :class:`~penb.chapters.appendix.common.Panel`, the input variants and
  their labels, the run configs, their validation, the sweep through the run store
  (diverged runs kept and flagged), the run table, the parameter counts;
* ``regimes``: the training regimes (paper, quick, GPU, smoke) the four chapters'
  presets start from, a reason per value;
* ``summary``: accuracy and distance per panel (and per input length) with intervals
  over seeds;
* ``analysis``: the evidence of every claim and its grade through ``penb.claims``;
* ``plots``: the figures (vocabulary panels, bars, per-length curves), per-seed points
  over the seed-level mean and interval;
* ``page``: what every page glues and shows (run counts, stamped figures with their
  provenance, the verdicts), once for the four notebooks; imported by them alone
  (``from penb.chapters.appendix.page import Page``), since IPython and myst_nb are not on
  the device image.

A notebook writes ``from penb.chapters import appendix`` and then, e.g.,
``appendix.appendix_a.run(cfg)``, ``Page("a", cfg, frame)``,
``appendix.analysis.grade_a(...)``, ``appendix.plots.bars(...)``.
"""
from penb.chapters.appendix import common, regimes, summary, plots, analysis  # noqa: F401
from penb.chapters.appendix import appendix_a, appendix_b  # noqa: F401
from penb.chapters.appendix import appendix_c, appendix_d  # noqa: F401

"""Chapter "Frequency matters" (notebook ``notebooks/frequency.py``): Morita, Sec. 4.2, Fig. 3.

It tests whether the frequency of the *disturbants* decides how well a vanilla RNN (GRU, LSTM, S4D)
reverses a sequence, and whether the sinusoidal positional encoding removes that weakness: reverse
ordering over a vocabulary split into FREQUENT and RARE halves, scored on a test grid of target group x
disturbant group x target position, one value per seed, with 95% bootstrap intervals over seeds.

* :mod:`~penb.chapters.frequency.presets`: ``PAPER``, ``QUICK``, ``SMOKE``, ``TRAINING_KEYS`` and
  ``check(cfg)``, shared with the chapter ``gradient_stability`` (Fig. 5 scores the same runs);
* :mod:`~penb.chapters.frequency.analysis`: the runs (``run_configs``, ``run``, diverged runs kept
  apart), the test-grid counts (``cells``), per-seed accuracies and their seed-level summaries
  (``per_seed``, ``by_quarter``, ``by_position``), the harm of RARE disturbants per seed
  (``seed_harm``, ``harm_summary``, ``harm_gap``), the grading of the chapter's claims through
  ``penb.claims`` (``grade_claims``), and the regime search's pooled summary and table (``harm``,
  ``contrast``, ``search_table``);
* :mod:`~penb.chapters.frequency.plots`: Fig. 3 by quarter (``quarter_bars``) and by position
  (``position_lines``), and the graded harm per seed (``harm_points``);
* :mod:`~penb.chapters.frequency.page`: what the notebook shows and glues (imported by the notebook
  only, not here: IPython and myst_nb are not on the device image);
* ``search_log.csv``: the regime search behind ``QUICK`` (``scripts/search_frequency.py``).
"""
from penb.chapters.frequency import analysis, grading, grid, harm, plots, presets  # noqa: F401

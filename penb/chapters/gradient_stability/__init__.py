"""The chapter "Gradient stability": Morita, Sec. 4.3, Eq. 3-4, Fig. 4-5 (similarity of latent gradients).

What it tests: whether RARE disturbants make the latent-to-latent Jacobians d h_2L / d z_1 of two sequences
that share a target token less alike in vanilla GRUs and LSTMs (gradually for the GRU, rapidly for the LSTM)
than in position-encoded ones, over training (Fig. 5), scored on the dual-frequency runs of the chapter
"Frequency matters" (``penb.chapters.frequency``: same run keys, nothing retrained).

* ``presets``: ``PAPER`` (Fig. 5 caption: 1,024 pairs per checkpoint), ``QUICK``, ``SMOKE`` and ``check``,
  on top of the frequency chapter's training keys;
* ``analysis``: the runs (those of ``penb.chapters.frequency.analysis``, diverged ones counted, not
  scored), the scoring of every kept checkpoint (cached in each run's folder), seed-level summaries, each
  run's score at its last checkpoint (``seed_scores``), and the check of the readings on a trained model;
* ``grading``: the claims' evidence and their grading through ``penb.claims`` (``grade_claims``, re-exported by
  ``analysis``); ``sec4_3``: the S4D half of Sec. 4.3, read over every checkpoint;
* ``similarity``: the method, i.e. the readings of Eq. 3-4 (``METHODS``), the dual-frequency pairs, the
  scoring of one checkpoint and of a run's checkpoints;
* ``jacobians``: the latent-to-latent Jacobians of the GRU, LSTM and S4D through the trained weights;
* ``plots``: Fig. 5's layout (similarity over training per model and variant, seed by seed) and the
  graded measure per seed (``last_points``);
* ``page``: what the notebook shows and glues (imported by the notebook only, not here: IPython and
  myst_nb are not on the device image).
"""
from penb.chapters.gradient_stability import (analysis, grading, jacobians, plots, presets, sec4_3,  # noqa: F401
                                              similarity)

"""The chapter "Invertibility of position encodings": Hansen's blog post "A Normally Distributed
Position Encoding" (its loss curves over 20,000 Adam steps and its published loss file).

What it tests: how fast a single dense layer ``sigmoid(e(pos) . w + b)`` recovers ``t = pos / N`` from
each of the blog's nine encodings (K = 32, N = 100, 100 initialisations, Adam at 1e-3), the blog's
claims about the ordering and crossings of the curves (``penb.claims``, ``hansen.*``), the two exact loss
floors that the setup implies, the published file's factor of 200, and the role of the sentinel at
position 0 of the normal encodings.

* ``presets``: ``PAPER`` (the blog's study), ``QUICK`` (the same study for the five confirmation seeds),
  ``SMOKE`` and ``check``;
* ``analysis``: the study (``simulate``, ``run_study``, ``initial_state``; ``run`` per seed, ``pooled_mean``
  over seeds, ``run_table``), the exact floors, the best sincos fit, and the loaders of the published loss
  file and its anchor table;
* ``batch``: ``InversionBatch``, the batched engine (hand-written gradients and Adam over every problem);
* ``checks``: the blog's claims read off the curves (crossing, plateau and settling steps, rankings), their
  evidence and their grading through ``penb.claims``;
* ``plots``: the blog's views, the claims' numbers per seed, the crossing, the overlay on the published
  file, the sentinel side study;
* ``sentinel``: the sentinel side study (initialisations on the wrong side of position 0, the run with
  a finite sentinel, its settling table);
* ``page``: what the notebook shows and glues (imported by the notebook only, not here: IPython and
  myst_nb are not on the device image).

The encodings themselves are ``penb.encodings.blog``.
"""
from penb.chapters.invertibility import (analysis, batch, checks, plots, presets,  # noqa: F401
                                         sentinel)

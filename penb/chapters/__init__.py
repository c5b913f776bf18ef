"""Everything one chapter owns, one package per chapter (``penb/chapters/<chapter>/``):

* ``presets.py``: ``PAPER`` (as published), ``QUICK`` and ``SMOKE`` (overrides of ``PAPER``), each value
  with a comment saying why, and ``check(cfg)`` raising ``ValueError`` for impossible values;
* ``analysis.py``: which runs the chapter needs, their summary, and its grading through ``penb.claims``;
* ``plots.py``: the chapter's figures (built on the shared helper ``penb.plotting``).

The appendices A-D share ``penb/chapters/appendix/``, one module per appendix holding its presets and
panels. ``rnn_common`` holds what the RNN chapters share. The chapter's name is the stem of its notebook
(``notebooks/<chapter>.py``) and of its entry in ``_toc.yml``.

:data:`PRESET_MODULES` (the one list of chapters that declare presets) lives in ``penb.registry``, below
``penb.presets`` that reads it, so no module of the shared core imports this package; a new chapter is
added there once.
"""
from penb.registry import PRESET_MODULES  # noqa: F401 (re-exported)

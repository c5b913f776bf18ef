"""Everything one chapter owns, one package per chapter (``penb/chapters/<chapter>/``):

* ``presets.py``: ``PAPER`` (as published), ``QUICK`` and ``SMOKE`` (overrides of ``PAPER``), each value
  with a comment saying why, and ``check(cfg)`` raising ``ValueError`` for impossible values;
* ``analysis.py``: which runs the chapter needs, their summary, and its grading through ``penb.claims``;
* ``plots.py``: the chapter's figures (built on the shared helper ``penb.plotting``).

The appendices A-D share ``penb/chapters/appendix/``, one module per appendix holding its presets and
panels. ``rnn_common`` holds what the RNN chapters share. The chapter's name is the stem of its notebook
(``notebooks/<chapter>.py``) and of its entry in ``_toc.yml``.

:data:`PRESET_MODULES` is the one list of chapters that declare presets: ``penb.presets`` reads it, so
a new chapter is added here once.
"""
PRESET_MODULES = {
    "encodings": "penb.chapters.encodings.presets",
    "key_findings": "penb.chapters.key_findings.presets",
    "frequency": "penb.chapters.frequency.presets",
    "gradient_stability": "penb.chapters.gradient_stability.presets",
    "appendix_a": "penb.chapters.appendix.appendix_a",
    "appendix_b": "penb.chapters.appendix.appendix_b",
    "appendix_c": "penb.chapters.appendix.appendix_c",
    "appendix_d": "penb.chapters.appendix.appendix_d",
    "lm_appendix": "penb.chapters.lm_appendix.presets",
    "irie": "penb.chapters.irie.presets",
    "invertibility": "penb.chapters.invertibility.presets",
    "beyond_rnn": "penb.chapters.beyond_rnn.presets",
    "beyond_transformers": "penb.chapters.beyond_transformers.presets",
}

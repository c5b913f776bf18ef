"""The chapters that declare presets: chapter name -> the module holding its ``PAPER``, ``QUICK``, ``SMOKE``
(and optionally ``GPU``) presets and ``check``.

It sits at the top of the package, beside ``penb.presets`` that reads it, so that the shared core never
imports ``penb.chapters``; each module named here is imported only when its chapter is resolved. A new
chapter is added here once.
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

"""Chapter "What in the encoding helps an RNN" (``notebooks/beyond_rnn.py``): the book's own questions.

Three studies on the reversal task of Fig. 2, sharing key_findings' vanilla and PE runs: which frequency
bands of Eq. 1-2 carry the gain; whether Hansen's encodings help an RNN and whether being easy to invert
predicts it; and whether adding the encoding instead of concatenating it keeps the gain. The hypotheses
are in ``penb.claims.beyond``, written before the runs.

* :mod:`~penb.chapters.beyond_rnn.presets`: ``PAPER``, ``QUICK``, ``SMOKE`` and ``check(cfg)``;
* :mod:`~penb.chapters.beyond_rnn.analysis`: the variants and runs, summary, floors, grading;
* :mod:`~penb.chapters.beyond_rnn.plots`: the study panels and the invertibility scatter.
"""
from penb.chapters.beyond_rnn import analysis, plots, presets  # noqa: F401

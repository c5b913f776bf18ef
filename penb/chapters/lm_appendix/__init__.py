"""The language-modelling appendix (Morita, App. E, Fig. 15, Table 1): does the
sinusoidal encoding that helps RNNs on large-vocabulary reversal also help an ordinary
language model? Single-layer LSTMs, vanilla and position-encoded, trained on paragraph
starts of WikiText; the paper finds PE marginally faster early in training (Fig. 15) and
slightly worse in test perplexity (Table 1).

* ``presets``: ``PAPER`` (WikiText-103, Sec. 3.3 settings), ``QUICK`` and ``SMOKE``
  (WikiText-2 offline), ``check``;
* ``analysis``: the corpus and tokenizer (``prepare``), the runs (``run_configs``,
  ``run``), the test perplexity summary over seeds and Table 1 beside it, the training
  curves and the paired gap;
* ``grading``: the grades through ``penb.claims`` (``grade``): Fig. 15's early gap per
  seed, and Table 1 and "no advantage" only on runs that reach the end of Fig. 15's
  gap (30,000 updates; else not tested at that preset);
* ``plots``: the test perplexities beside Table 1, and Fig. 15's training curves with
  the paired gap.

A notebook writes ``from penb.chapters import lm_appendix`` and then, e.g.,
``lm_appendix.analysis.run(cfg)``, ``lm_appendix.plots.training_curves(...)``.
"""
from penb.chapters.lm_appendix import analysis, grading, plots, presets  # noqa: F401

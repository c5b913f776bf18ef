"""The chapter "Positional encodings": Morita, Sec. 3.2 (Eq. 1-2) and App. D (Figs. 13-14), and the nine
encodings of Hansen's blog, shown rather than trained.

What it tests: that the registry ``penb.encodings`` builds the encodings as the texts define them
(Eq. 1-2: unit-norm rows whose dot product depends only on the offset; App. D: random unit vectors and
``nn.Embedding``-like learnable ones; the blog's nine), what they look like (tables, similarities between
positions, 2-D PCA paths), and how loud the unit-norm sinusoid is next to token embeddings of norm
about sqrt(D) at initialisation.

* ``presets``: ``PAPER`` (D_pos = 512, 2L = 128 positions, the blog's K = 32 and N = 100), ``QUICK``,
  ``SMOKE`` and ``check``;
* ``analysis``: display tables (each draw seeded on its own), similarities, dot products by offset, 2-D PCA
  paths, the norm comparison and the closed-form shares of the encoding in the concatenated input;
* ``plots``: the chapter's figures (heatmaps, similarity matrices, offset profile, PCA paths, norms, the
  explorer's panels);
* ``blog_claims``: three statements of the blog about its tables, graded through ``penb.claims``;
* ``page``: what the notebook shows and glues (imported by the notebook only, not here: IPython, ipywidgets
  and myst_nb are not on the device image).
"""
from penb.chapters.encodings import analysis, blog_claims, plots, presets  # noqa: F401

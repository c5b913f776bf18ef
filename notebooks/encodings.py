# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python (penb)
#     language: python
#     name: penb
# ---

# %% [markdown]
# # Positional encodings
#
# ## Overview
#
# **Claim (Morita, Sec. 3.2, Eq. 1-2).** Each input token's embedding is *concatenated*
# with a sinusoidal positional encoding of dimension $D_{pos}$ =
# {glue:text}`enc_paper_dim` (Sec. 3.3, the embedding size), the canonical Transformer
# encoding divided by $\sqrt{D_{pos}/2}$ "for the sake of learning stability", so that
# every position vector has unit L2 norm. The time step keeps counting through the input
# and the output phase ($t = 1, \dots, 2L$), and during the output phase the embedding
# is replaced by a learnable "command" vector.
#
# **Claim (Morita, App. D, Figs. 13-14).** Two alternatives, fixed random vectors drawn
# uniformly from the unit sphere and learnable embeddings (`torch.nn.Embedding`), also
# help the LSTM on the reversal task, but the sinusoidal encoding works best, most
# clearly when the input length varies.
#
# **Hansen's blog** compares nine encodings of $N$ = {glue:text}`enc_blog_n` positions
# in $K$ = {glue:text}`enc_blog_k` dimensions by how easily a sigmoid-affine map
# recovers the position from them (chapter *invertibility*).
#
# This chapter trains nothing. It defines every encoding the book uses in one registry
# (`penb.encodings`, keyed by string), shows what they look like and measures how loud
# the unit-norm encoding is next to the embedding; the views are in
# `penb.chapters.encodings`, the formulas checked in `tests/test_encodings.py`. Whether
# the encodings help the RNNs is graded in the training chapters. Three statements of
# the blog concern the tables themselves and are graded
# {ref}`here <blog-table-claims>`: that a linear map shifts an encoding by a fixed
# offset, that the normal encoding has no covariance between its components, and that
# adding an encoding to the embedding generalises concatenating them.

# %% tags=["hide-input"]
from IPython.display import display

from penb import claims, presets
from penb.chapters import encodings, pages
from penb.chapters.encodings import page

page.overview()

# %% tags=["parameters", "hide-input"]
from typing import Optional  # None below means "the preset's value"

preset: str = "quick"  # smoke, quick or paper
dim: Optional[int] = None  # encoding dimension D_pos, the embedding size in the paper
num_positions: Optional[int] = None  # positions shown, t from 1 to 2L
vocab: Optional[int] = None  # embedding rows drawn for the norm comparison
hidden: Optional[int] = None  # LSTM hidden size in the norm comparison
blog_dim: Optional[int] = None  # K of the blog's encodings
blog_positions: Optional[int] = None  # N of the blog's encodings
seed: Optional[int] = None  # seed of the random draws

# %%
cfg = pages.show_config(presets.from_parameters("encodings", globals()))

# %% [markdown]
# ## The sinusoidal encoding (Eq. 1-2)
#
# With the 0-based position $p = t - 1$ and frequency index $i = 0, \dots, D/2 - 1$ (the
# paper writes $t-1$ and $i-1$ with 1-based indices, footnote 5; its dimension
# subscripts $2i$, $2i+1$ only cover $1..D$ when read 0-based, as here), the paper's
# encoding of position $p$ is
#
# $$
# PE_{p,\,2i} = \frac{\sin(p\,\omega_i)}{\sqrt{D/2}}, \qquad
# PE_{p,\,2i+1} = \frac{\cos(p\,\omega_i)}{\sqrt{D/2}}, \qquad
# \omega_i = 10000^{-2i/D}.
# $$
#
# As each sine-cosine pair contributes $\sin^2 + \cos^2 = 1$, every row has unit norm,
# $\lVert PE_p \rVert^2 = \frac{1}{D/2}\sum_{i} 1 = 1$, and the dot product between two
# positions depends only on their offset $k$:
#
# $$
# PE_p \cdot PE_{p+k} = \frac{2}{D} \sum_{i=0}^{D/2-1} \cos(k\,\omega_i).
# $$
#
# The official code puts all sines first, then all cosines: the same numbers with the
# dimensions permuted. The RNN's input weights are initialised independently and
# identically, so permuting their columns leaves the distribution of initial models
# unchanged, and the layout cannot matter. `penb.encodings.sinusoidal` follows the
# paper; `layout="concat"` gives the code's order.
#
# The registry holds the paper's four variants and the blog's nine; fixed tables are
# buffers, learnable ones `nn.Parameter`s.

# %%
page.registry(cfg)

# %% [markdown]
# `random` follows App. D: a standard-normal vector divided by its norm is uniform on
# the unit sphere $S^{D-1}$. `learnable` follows `nn.Embedding`: standard-normal
# entries, *not* normalised, so its rows are about $\sqrt{D}$ long, like the token
# embeddings (see {ref}`the norm comparison <why-unit-norm>`). `none` has width 0, so a
# model can always concatenate `[embedding, encoding]`.
#
# ## What the encodings look like

# %% tags=["hide-input"]
paper_tables = encodings.analysis.paper_tables(cfg)
blog_tables = encodings.analysis.blog_tables(cfg)

# %% mystnb={"figure": {"caption": "The main paper's encodings as tables (positions down, dimensions across). The sinusoidal encoding's low dimensions oscillate fast and its high dimensions barely move; the official code's layout shows the same columns regrouped (sines left, cosines right). Random and learnable tables have no structure along positions; the learnable one is about sqrt(D) times larger (see the colour bars).", "name": "fig-enc-tables"}}
page.show(encodings.plots.heatmaps(paper_tables, ncols=2), cfg, page.PAPER)

# %% mystnb={"figure": {"caption": "The blog's nine encodings (N positions, K dimensions). Every encoding except sincos is affine in a single scalar of the position (t = pos/N, or the normal quantile of t for normal and normal_learned): each column is a rescaled copy of one curve. The *_learned variants are shown at initialisation, drawn with the same seed as their fixed counterparts (so they look the same). Row 0 of normal and normal_learned is the blog's sentinel -9999999 and is left blank.", "name": "fig-enc-blog-tables"}}
page.show(encodings.plots.heatmaps(blog_tables, ncols=3), cfg, page.BLOG)

# %% [markdown]
# ## Similarity between positions
#
# For the sinusoidal encoding the cosine similarity depends on $|p - q|$ only: each
# sine-cosine pair turns by the fixed angle $\omega_i$ per step, which is also why one
# linear map shifts every position by the same offset. Random and learnable vectors
# are nearly orthogonal, with off-diagonal cosines of order $1/\sqrt{D}$.

# %% tags=["hide-input"]
paper_sims, starts, dots = page.similarity(cfg, paper_tables)

# %% mystnb={"figure": {"caption": "Cosine similarity between positions for the main paper's encodings. The sinusoidal matrix is constant along its diagonals (it depends only on the offset); random and learnable vectors are nearly orthogonal at every pair of distinct positions.", "name": "fig-enc-similarity"}}
page.show(encodings.plots.similarities(paper_sims), cfg, page.PAPER)

# %% [markdown]
# Adjacent sinusoidal positions have cosine {glue:text}`sin_cos1:.3f`. The dot product
# $PE_s \cdot PE_{s+k}$ from the start positions of the next figure differs between
# starts by at most {glue:text}`sin_spread:.1e` at any offset (float32 rounding): the
# offset alone counts. Two independent random directions have |cosine| of order
# $1/\sqrt{D}$ = {glue:text}`inv_sqrt_d:.3f`; the largest over all pairs of distinct
# positions here is {glue:text}`rand_cos:.3f`.
#
# The sinusoidal similarity falls over the first few offsets and then flattens: at
# offset {glue:text}`far_k` the dot product is still {glue:text}`sin_far:.2f`. The slow
# dimensions ($\omega_i$ well below $1/P$) barely move over the positions shown and add
# nearly the same amount to every pair; only the fast ones tell nearby positions apart.

# %% mystnb={"figure": {"caption": "Dot product between sinusoidal encodings of positions s and s+k against the offset k, from three start positions: the curves coincide, as Eq. 1-2 imply (the dot product is (2/D) times a sum of cos(k w_i)).", "name": "fig-enc-offset"}}
page.show(encodings.plots.offset_profile(dots, starts), cfg, dim=cfg.dim)

# %% mystnb={"figure": {"caption": "Cosine similarity between positions for the blog's encodings. Apart from sincos, every encoding's rows lie on one straight line in R^K: direct1 and directN are multiples of one vector (cosine 1 everywhere); the linear encodings' line is offset by b and the normal ones' by mu, so their cosines change slowly and smoothly with position. sincos resembles the main paper's encoding. Blank: the sentinel row of normal and normal_learned, and position 0 of direct1 and directN (the zero vector, no cosine).", "name": "fig-enc-blog-similarity"}}
page.show(encodings.plots.similarities(encodings.analysis.similarities(blog_tables)),
          cfg, page.BLOG)

# %% [markdown]
# ## Paths through a 2-D PCA
#
# The rows projected on their first two principal components (scikit-learn's `PCA`)
# trace the encoding's path as the position grows; the axis labels give each
# component's share of the variance.

# %% tags=["hide-input"]
paper_pca, blog_pca = page.pca(paper_tables, blog_tables)

# %% mystnb={"figure": {"caption": "2-D PCA paths of the main paper's encodings (star: position 0). The sinusoidal encoding moves along a smooth curve; random and learnable vectors jump between unrelated points, and two components capture little of their variance.", "name": "fig-enc-pca"}}
page.show(encodings.plots.pca_paths(paper_pca), cfg, page.PAPER)

# %% mystnb={"figure": {"caption": "2-D PCA paths of the blog's encodings. All but sincos are one-dimensional: PC1 explains all the variance and the points lie on a line, evenly spaced for the affine encodings and spaced by normal quantiles (dense in the middle, sparse at the ends) for normal and normal_learned (position 0, the sentinel, is left out).", "name": "fig-enc-blog-pca"}}
page.show(encodings.plots.pca_paths(blog_pca), cfg, page.BLOG)

# %% [markdown]
# Two components explain {glue:text}`sin_pca2:.0%` of the sinusoidal table's variance
# and {glue:text}`rand_pca2:.0%` of the random one's.
#
# (why-unit-norm)=
# ## Why unit norm?
#
# The RNN reads $[x_t, PE_t]$, where the token embedding (or command row) $x_t$ starts
# with standard-normal entries, so $\lVert x_t \rVert \approx \sqrt{D}$. The table draws
# an embedding of the configured vocabulary plus the command row and compares norms.
# `share` is the encoding's part of the concatenated input's squared norm,
# $E\lVert e\rVert^2 / (E\lVert x\rVert^2 + E\lVert e\rVert^2)$; `share_lstm`, its part
# of $\lVert W[x; e] \rVert^2$ through an LSTM input matrix
# $W \in \mathbb{R}^{4H \times 2D}$ at PyTorch's initialisation, on sampled
# token-position pairs.

# %% tags=["hide-input"]
norms, shares = page.norms(cfg)

# %% mystnb={"figure": {"caption": "Left: L2 norms of what the RNN reads (grey: token embeddings and the command vector; blue: encodings; log scale). Right: the encoding's share of the squared norm of the concatenated input against the dimension, closed forms (lines) and measured through an LSTM input matrix at the configured D (crosses).", "name": "fig-enc-norms"}}
page.show(encodings.plots.norms_figure(norms, shares, cfg.dim), cfg, dim=cfg.dim,
          vocab=cfg.vocab)

# %% [markdown]
# At $D$ = {glue:text}`dim`, embedding rows have norm {glue:text}`emb_norm:.1f` on
# average (the command vector {glue:text}`cmd_norm:.1f`), against $\sqrt{D}$ =
# {glue:text}`sqrt_d:.1f`. Without the division by $\sqrt{D/2}$ the sinusoid would have
# norm {glue:text}`raw_norm:.1f` and carry {glue:text}`share_raw:.0%` of the input's
# energy into the gates at initialisation; with it, {glue:text}`share_unit:.2%`
# ($1/(1+D)$). The paper reports no experiment behind "learning stability", so this
# cannot say whether the scaling matters for accuracy, only how quiet the position
# signal starts: the network must grow the encoding's input weights (or shrink the
# embeddings) before the timestamp can rival the token. App. D's learnable encoding is
# not scaled and starts at {glue:text}`share_learn:.0%`, about as loud as the token;
# App. D's random vectors are unit-norm like the sinusoid.
#
# (blog-table-claims)=
# ## Three statements of the blog, checked on tables
#
# **Relative positions.** The blog asks that a linear map carry the encoding of
# position $t$ to that of $t+k$, and says this seems to hold in general, untested. For
# each of the nine encodings (five draws each; a learned one at its initial draw, since
# training moves its parameters within the same family) and offsets $k$ = 1, 10, 50, we
# fit the least-squares map $M_k$ with $e(t+k) \approx M_k e(t)$ over $t \ge 1$ (row 0
# of the normal encodings stands in for $-\infty$), the optimum a trained linear map
# reaches, and count the positions whose mapped vector lies nearest to the right
# encoding. The first table gives the smallest share over draws.
#
# **No covariance.** The normal encoding sets component $k$ to
# $\mu_k + \sigma_k \Phi^{-1}(i/N)$, so over the positions each component follows
# $N(\mu_k, \sigma_k)$; the blog calls this a multivariate normal with no covariance
# between components. The second table gives, per draw, the largest Kolmogorov-Smirnov
# distance of a component to its normal and the range of the correlations between
# components.

# %% tags=["hide-input"]
table_grades = page.blog_table_claims(cfg)

# %% [markdown]
# ### Verdict

# %%
display(claims.table(table_grades))

# %% [markdown]
# Every component of the normal encoding is an increasing function of the same quantile
# $\Phi^{-1}(i/N)$: normal one by one, but in lockstep. Their correlation over positions
# is at least {glue:text}`enc_r_min:.3f` in every draw, the opposite of "no covariance"
# (normal marginals do not make a joint normal). The same lockstep explains the first
# table: the encoding is a line in $\mathbb{R}^K$ spaced by normal quantiles, and no
# linear map turns the spacing at one position into the spacing $k$ steps on (as few as
# {glue:text}`enc_normal_right:.0%` of the positions land right at some offset), while
# sincos (a rotation per frequency) and the linear encodings (an evenly spaced line,
# offset by the bias) shift exactly. direct1 and directN lack only a bias: an affine map
# shifts them exactly (`affine_correct`). The verdict reads the blog's "in general" as
# every encoding it compares (the sentence names none); the row's detail gives each
# encoding's own outcome, so a reader who takes it to mean sincos alone can read that it
# holds there.
#
# **Sum and concatenation.** The blog calls the usual sum of encoding and embedding a
# generalisation of concatenation. On random tables both halves hold: a concatenation is
# exactly the sum of the two tables zero-padded to the joint width, and a sum of dense
# tables of that width mixes token and position in the same directions, which no
# concatenation does in any basis (the row's detail gives the shared dimensions).
#
# ## Explorer
#
# Choose an encoding, a dimension and a number of positions to see the table, the cosine
# similarity and the 2-D PCA path. The static book shows the controls' default state;
# open `notebooks/encodings.py` in JupyterLab to explore.

# %%
page.explorer(cfg)

# %% [markdown]
# ## What this chapter checks
#
# The encodings are built as Sec. 3.2 and App. D describe: Eq. 1-2 agree with an
# independent loop, every sinusoidal row has unit norm, position 0 is
# $[0, 1, 0, 1, \dots]/\sqrt{D/2}$, and the dot product depends only on the offset
# (`tests/test_encodings.py`). The code's layout is a permutation of the equations'
# dimensions, which cannot change the model. The unit-norm scaling makes the encoding
# about $1/(1+D)$ of the input's energy at initialisation; the paper's learnable variant
# is not scaled. Whether the encodings help RNNs (Figs. 2 and 13-14) is graded in the
# training chapters. Three of the blog's statements about its tables are graded here
# (`hansen.relative`, `hansen.normal_no_covariance`, `hansen.sum_generalizes_concat`);
# tests check the rules on tables built independently (`tests/test_claims_texts.py`,
# `tests/test_claims_repairs.py`).
#
# ## Runs
#
# Nothing here trains. Every random table has its own generator, seeded with `seed` plus
# a fixed offset, so each figure can be redrawn on its own:

# %% tags=["hide-input"]
page.draws(cfg)

# %% [markdown]
# ## Recap
#
# - `penb.encodings.get(key).build(num_positions, dim, generator)` makes any of the
#   texts' 13 encodings (and the book's own variants, `BEYOND_KEYS`, used in the
#   chapter {doc}`beyond_rnn`); `none` has width 0.
# - Sinusoidal (Eq. 1-2): unit-norm rows, a similarity that depends only on the offset,
#   a smooth low-dimensional path; random and learnable vectors: nearly orthogonal, no
#   structure along positions.
# - The blog's encodings other than `sincos` are one-dimensional curves in
#   $\mathbb{R}^K$ (affine in $t$ or in a normal quantile of $t$); `normal` puts a
#   sentinel of -9999999 at position 0.
# - Unit norm against embeddings of norm $\approx\sqrt{D}$: at $D$ = {glue:text}`dim`
#   the position signal starts at about {glue:text}`share_unit:.1%` of the input's
#   energy (through an LSTM's input matrix); unscaled it would be
#   {glue:text}`share_raw:.0%`, and the learnable variant starts at
#   {glue:text}`share_learn:.0%`.
# - The blog's tables: a linear map shifts sincos and the linear encodings exactly,
#   direct1 and directN only with a bias, the normal encoding not at all; the normal
#   encoding's components are each normal but perfectly correlated. A reader might try
#   other offsets or a larger `blog_positions`.

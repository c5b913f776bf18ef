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
# (`penb.encodings`, keyed by string), shows what the encodings look like (tables,
# similarities between positions, 2-D PCA paths), and measures what the unit-norm
# scaling does next to the embedding. The views and figures are in
# `penb.chapters.encodings` (`analysis`, `plots`). The formulas are checked in
# `tests/test_encodings.py` against independent loops. Whether the encodings help the
# RNNs is graded in the training chapters. Three statements of the blog are about the
# tables themselves, so they are graded here (`encodings.blog_claims`,
# {ref}`below <blog-table-claims>`): that a linear map shifts an encoding by a fixed
# offset (a requirement the blog says seems to hold and does not test), that the
# normal encoding is a multivariate normal with no covariance between its components,
# and that adding an encoding to the embedding generalises concatenating the two.

# %% tags=["hide-input"]
from myst_nb import glue

from penb import claims

glue("enc_paper_dim", claims.get("morita.settings").value["hidden"], display=False)
glue("enc_blog_k", claims.get("hansen.setup").value["dim"], display=False)
glue("enc_blog_n", claims.get("hansen.setup").value["length"], display=False)

# %%
display(claims.overview(c.key for c in claims.of_chapter("encodings")))

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
import matplotlib.pyplot as plt
import pandas as pd
import torch
from IPython.display import display

import penb.encodings  # the registry; `encodings` below is this chapter's package
from penb import presets, report
from penb.chapters import encodings

cfg = presets.from_parameters("encodings", globals())


def gen(offset: int = 0) -> torch.Generator:
    """A fresh generator per draw, so each figure is reproducible on its own."""
    return torch.Generator().manual_seed(cfg.seed + offset)


display(report.config_table(cfg))

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
# Two consequences follow directly. Each sine-cosine pair contributes
# $\sin^2 + \cos^2 = 1$, so
#
# $$
# \lVert PE_p \rVert^2 = \frac{1}{D/2}\sum_{i=0}^{D/2-1}
# \left(\sin^2(p\,\omega_i) + \cos^2(p\,\omega_i)\right) = 1,
# $$
#
# and the dot product between two positions depends only on their offset $k$:
#
# $$
# PE_p \cdot PE_{p+k} = \frac{2}{D} \sum_{i=0}^{D/2-1} \cos(k\,\omega_i).
# $$
#
# The equations interleave sines and cosines. The official code concatenates all sines,
# then all cosines: the same numbers in a permuted order of dimensions. Because the
# encoding enters the RNN through a full input weight matrix whose entries PyTorch
# initialises independently and identically, permuting its input columns gives the same
# distribution of initial models, so the layout cannot matter.
# `penb.encodings.sinusoidal` follows the paper by default; `layout="concat"` gives the
# official code's order.
#
# The registry holds the paper's four variants and the blog's nine. Fixed tables are
# buffers; the learnable ones are `nn.Parameter`s.

# %%
# the two texts' encodings only: the registry's BEYOND_KEYS are the book's own variants
TEXT_KEYS = penb.encodings.PAPER_KEYS + penb.encodings.BLOG_KEYS
specs = [penb.encodings.get(k) for k in TEXT_KEYS]
registry = pd.DataFrame([dict(key=s.key, source=s.source, learnable=s.learnable,
                              definition=s.description)
                         for s in specs]).set_index("key")
display(registry)
print(report.provenance(cfg))

# %% [markdown]
# `random` follows App. D: a standard-normal vector divided by its norm is uniform on
# the unit sphere $S^{D-1}$ (the paper's "(512-1)-dimensional hypersphere"). `learnable`
# follows `nn.Embedding`: standard-normal entries, *not* normalised, so its rows are
# about $\sqrt{D}$ long, like the token embeddings and unlike the other two encodings
# (see {ref}`the norm comparison <why-unit-norm>`). `none` has width 0, so a model can
# always concatenate `[embedding, encoding]`.
#
# ## What the encodings look like

# %% tags=["hide-input"]
P, D = cfg.num_positions, cfg.dim
paper_tables = {
    "sinusoidal (Eq. 1-2)": encodings.analysis.display_table("sinusoidal", P, D),
    "sinusoidal, code's [sin, cos]":
        penb.encodings.sinusoidal(P, D, layout="concat").double().numpy(),
    "random": encodings.analysis.display_table("random", P, D, gen(1)),
    "learnable (at init)": encodings.analysis.display_table("learnable", P, D, gen(2)),
}
# a *_learned key shares its fixed counterpart's seed: both start from the same values
blog_tables = {
    k: encodings.analysis.display_table(
        k, cfg.blog_positions, cfg.blog_dim,
        gen(10 + penb.encodings.BLOG_KEYS.index(k.removesuffix("_learned"))))
    for k in penb.encodings.BLOG_KEYS}

# %% mystnb={"figure": {"caption": "The main paper's encodings as tables (positions down, dimensions across). The sinusoidal encoding's low dimensions oscillate fast and its high dimensions barely move; the official code's layout shows the same columns regrouped (sines left, cosines right). Random and learnable tables have no structure along positions; the learnable one is about sqrt(D) times larger (see the colour bars).", "name": "fig-enc-tables"}}
fig = encodings.plots.heatmaps(paper_tables, ncols=2)
report.stamp(fig, cfg, positions=P, dim=D)
plt.show()
print(report.provenance(cfg, positions=P, dim=D))

# %% mystnb={"figure": {"caption": "The blog's nine encodings (N positions, K dimensions). Every encoding except sincos is affine in a single scalar of the position (t = pos/N, or the normal quantile of t for normal and normal_learned): each column is a rescaled copy of one curve. The *_learned variants are shown at initialisation, drawn with the same seed as their fixed counterparts (so they look the same). Row 0 of normal and normal_learned is the blog's sentinel -9999999 and is left blank.", "name": "fig-enc-blog-tables"}}
fig = encodings.plots.heatmaps(blog_tables, ncols=3)
report.stamp(fig, cfg, positions=cfg.blog_positions, dim=cfg.blog_dim)
plt.show()
print(report.provenance(cfg, positions=cfg.blog_positions, dim=cfg.blog_dim))

# %% [markdown]
# ## Similarity between positions
#
# Cosine similarity between all pairs of positions. For the sinusoidal encoding it is a
# function of $|p - q|$ only (a Toeplitz matrix): each sine-cosine pair turns by the
# fixed angle $\omega_i$ per step, which is also why one fixed linear map shifts every
# position by the same offset. The random and learnable vectors are nearly orthogonal to
# each other, with off-diagonal cosines of order $1/\sqrt{D}$.

# %% tags=["hide-input"]
paper_sims = {k: encodings.analysis.similarity(t)
              for k, t in paper_tables.items() if "code" not in k}
starts = [0, P // 4, P // 2 - 1] if P >= 8 else [0, 1]
max_offset = min(P - 1 - max(starts), 64)
dots = encodings.analysis.offset_dots(paper_tables["sinusoidal (Eq. 1-2)"], starts,
                                      max_offset)
glue("sin_cos1", float(paper_sims["sinusoidal (Eq. 1-2)"][0, 1]), display=False)
glue("sin_spread", float((dots.max(0) - dots.min(0)).max()), display=False)
glue("rand_cos", encodings.analysis.max_offdiag(paper_sims["random"]), display=False)
glue("inv_sqrt_d", D ** -0.5, display=False)
glue("far_k", max_offset, display=False)
glue("sin_far", float(dots[0, -1]), display=False)

# %% mystnb={"figure": {"caption": "Cosine similarity between positions for the main paper's encodings. The sinusoidal matrix is constant along its diagonals (it depends only on the offset); random and learnable vectors are nearly orthogonal at every pair of distinct positions.", "name": "fig-enc-similarity"}}
fig = encodings.plots.similarities(paper_sims)
report.stamp(fig, cfg, positions=P, dim=D)
plt.show()
print(report.provenance(cfg, positions=P, dim=D))

# %% [markdown]
# Adjacent sinusoidal positions have cosine {glue:text}`sin_cos1:.3f`. The dot product
# $PE_s \cdot PE_{s+k}$, taken from the start positions of the next figure, differs
# between starts by at most {glue:text}`sin_spread:.1e` at any offset (float32
# rounding): the offset alone counts. Two independent random directions have |cosine| of
# order $1/\sqrt{D}$ = {glue:text}`inv_sqrt_d:.3f`; the largest over all pairs of
# distinct positions here is {glue:text}`rand_cos:.3f`.
#
# The sinusoidal similarity falls quickly over the first few offsets and then flattens:
# at offset {glue:text}`far_k` the dot product is still {glue:text}`sin_far:.2f`. The
# slow dimensions (those with $\omega_i$ well below $1/P$) hardly change across the
# positions shown, so they add nearly the same amount to every pair; nearby positions
# are told apart by the fast dimensions only.

# %% mystnb={"figure": {"caption": "Dot product between sinusoidal encodings of positions s and s+k against the offset k, from three start positions: the curves coincide, as Eq. 1-2 imply (the dot product is (2/D) times a sum of cos(k w_i)).", "name": "fig-enc-offset"}}
fig = encodings.plots.offset_profile(dots, starts)
report.stamp(fig, cfg, dim=D)
plt.show()
print(report.provenance(cfg, dim=D))

# %% mystnb={"figure": {"caption": "Cosine similarity between positions for the blog's encodings. Apart from sincos, every encoding's rows lie on one straight line in R^K: direct1 and directN are multiples of one vector (cosine 1 everywhere); the linear encodings' line is offset by b and the normal ones' by mu, so their cosines change slowly and smoothly with position. sincos resembles the main paper's encoding. Blank: the sentinel row of normal and normal_learned, and position 0 of direct1 and directN (the zero vector, no cosine).", "name": "fig-enc-blog-similarity"}}
fig = encodings.plots.similarities(
    {k: encodings.analysis.similarity(t) for k, t in blog_tables.items()})
report.stamp(fig, cfg, positions=cfg.blog_positions, dim=cfg.blog_dim)
plt.show()
print(report.provenance(cfg, positions=cfg.blog_positions, dim=cfg.blog_dim))

# %% [markdown]
# ## Paths through a 2-D PCA
#
# Projecting the table's rows on their first two principal components (scikit-learn's
# `PCA`) shows the path the encoding traces as the position grows. The axis labels give
# the share of variance each component explains.

# %% tags=["hide-input"]
paper_pca = {k: encodings.analysis.pca_2d(t)
             for k, t in paper_tables.items() if "code" not in k}
blog_pca = {k: encodings.analysis.pca_2d(t) for k, t in blog_tables.items()}
glue("sin_pca2", float(paper_pca["sinusoidal (Eq. 1-2)"][1].sum()), display=False)
glue("rand_pca2", float(paper_pca["random"][1].sum()), display=False)

# %% mystnb={"figure": {"caption": "2-D PCA paths of the main paper's encodings (star: position 0). The sinusoidal encoding moves along a smooth curve; random and learnable vectors jump between unrelated points, and two components capture little of their variance.", "name": "fig-enc-pca"}}
fig = encodings.plots.pca_paths(paper_pca)
report.stamp(fig, cfg, positions=P, dim=D)
plt.show()
print(report.provenance(cfg, positions=P, dim=D))

# %% mystnb={"figure": {"caption": "2-D PCA paths of the blog's encodings. All but sincos are one-dimensional: PC1 explains all the variance and the points lie on a line, evenly spaced for the affine encodings and spaced by normal quantiles (dense in the middle, sparse at the ends) for normal and normal_learned (position 0, the sentinel, is left out).", "name": "fig-enc-blog-pca"}}
fig = encodings.plots.pca_paths(blog_pca)
report.stamp(fig, cfg, positions=cfg.blog_positions, dim=cfg.blog_dim)
plt.show()
print(report.provenance(cfg, positions=cfg.blog_positions, dim=cfg.blog_dim))

# %% [markdown]
# Two components explain {glue:text}`sin_pca2:.0%` of the sinusoidal table's variance
# and {glue:text}`rand_pca2:.0%` of the random one's.
#
# (why-unit-norm)=
# ## Why unit norm?
#
# The RNN reads $[x_t, PE_t]$, where $x_t$ is a token embedding (or the command vector)
# initialised with standard-normal entries, so $\lVert x_t \rVert \approx \sqrt{D}$. The
# table below draws the embedding of a vocabulary of the configured size plus the
# command row, and compares the norms. `share` is the encoding's part of the squared
# norm of the concatenated input,
# $E\lVert e\rVert^2 / (E\lVert x\rVert^2 + E\lVert e\rVert^2)$; `share_lstm` measures
# the same part of $\lVert W[x; e] \rVert^2$ through an LSTM input matrix
# $W \in \mathbb{R}^{4H \times 2D}$ with PyTorch's initialisation, on sampled
# token-position pairs.

# %% tags=["hide-input"]
norms = encodings.analysis.norm_comparison(cfg.dim, cfg.vocab, cfg.num_positions,
                                           cfg.hidden, gen(3))
shares = encodings.analysis.share_closed_form([2 ** k for k in range(1, 13)])
glue("emb_norm", float(norms.norm_mean.iloc[0]), display=False)
glue("cmd_norm", float(norms.norm_mean.iloc[1]), display=False)
glue("sqrt_d", D ** 0.5, display=False)
glue("dim", D, display=False)
glue("raw_norm", float(norms.norm_mean.iloc[2]), display=False)
glue("share_raw", float(norms.share_lstm.iloc[2]), display=False)
glue("share_unit", float(norms.share_lstm.iloc[3]), display=False)
glue("share_learn", float(norms.share_lstm.iloc[5]), display=False)
display(norms.round(4))
print(report.provenance(cfg, dim=D, vocab=cfg.vocab, hidden=cfg.hidden))

# %% mystnb={"figure": {"caption": "Left: L2 norms of what the RNN reads (grey: token embeddings and the command vector; blue: encodings; log scale). Right: the encoding's share of the squared norm of the concatenated input against the dimension, closed forms (lines) and measured through an LSTM input matrix at the configured D (crosses).", "name": "fig-enc-norms"}}
fig = encodings.plots.norms_figure(norms, shares, D)
report.stamp(fig, cfg, dim=D, vocab=cfg.vocab)
plt.show()
print(report.provenance(cfg, dim=D, vocab=cfg.vocab))

# %% [markdown]
# At $D$ = {glue:text}`dim`, embedding rows have norm {glue:text}`emb_norm:.1f` on
# average (and the command vector {glue:text}`cmd_norm:.1f`), against $\sqrt{D}$ =
# {glue:text}`sqrt_d:.1f`. Without the division by $\sqrt{D/2}$ the sinusoid would have
# norm {glue:text}`raw_norm:.1f` and carry {glue:text}`share_raw:.0%` of the input's
# energy into the gates at initialisation; with it, the share drops to
# {glue:text}`share_unit:.2%` ($1/(1+D)$). The paper gives "learning stability" as the
# reason and reports no experiment on it, so the table cannot say whether the scaling
# matters for accuracy; it does say how quiet the position signal starts: the network
# must grow the input weights of the encoding's columns (or shrink the embeddings)
# before the timestamp can rival the token. App. D's learnable encoding skips this
# scaling and starts at {glue:text}`share_learn:.0%`, about as loud as the token; App.
# D's random vectors are unit-norm like the sinusoid.
#
# (blog-table-claims)=
# ## Three statements of the blog, checked on tables
#
# **Relative positions.** The blog asks of an encoding that a linear map carry the
# encoding of position $t$ to that of $t+k$, and says this seems to hold in general
# without testing it. For each of the nine encodings (five draws each; a learned
# encoding at its initial draw, since training moves its parameters within the same
# family) and offsets $k$ = 1, 10, 50, the cell below fits the least-squares map $M_k$
# with $e(t+k) \approx M_k e(t)$ over positions $t \ge 1$ (row 0 of the normal
# encodings is the code's stand-in for $-\infty$), the optimum a trained linear map
# reaches, and counts the positions whose mapped vector lies nearest to the right
# encoding. The table gives the smallest share over draws.
#
# **No covariance.** The normal encoding sets component $k$ to
# $\mu_k + \sigma_k \Phi^{-1}(i/N)$, so over the positions each component follows
# $N(\mu_k, \sigma_k)$; the blog calls this a multivariate normal with no covariance
# between the components. The second table gives, per draw, the largest
# Kolmogorov-Smirnov distance of a component to its normal and the range of the
# correlations between components.

# %% tags=["hide-input"]
table_grades, relative, covariance = encodings.blog_claims.grade(cfg)
display(relative.pivot_table(index="encoding", columns="offset", values=["correct", "affine_correct"],
                             aggfunc="min", sort=False).round(3))
display(covariance.set_index("draw").round(4))
print(report.provenance(cfg, positions=cfg.blog_positions, dim=cfg.blog_dim))
glue("enc_r_min", float(covariance["r_min"].min()), display=False)
glue("enc_normal_right", float(relative[relative["encoding"] == "normal"]["correct"].min()), display=False)

# %% [markdown]
# ### Verdict

# %%
display(claims.table(table_grades))

# %% [markdown]
# Every component of the normal encoding is an increasing function of the same
# quantile $\Phi^{-1}(i/N)$, so its components are normal one by one but move in
# lockstep: their correlation over positions is at least {glue:text}`enc_r_min:.3f`
# in every draw, the opposite of "no covariance"
# (normal marginals do not make a joint normal). The same lockstep explains the first
# table: the normal encoding lies on a line in $\mathbb{R}^K$ spaced by normal
# quantiles, and no linear map turns quantile spacing at one position into the
# spacing $k$ steps on (as few as {glue:text}`enc_normal_right:.0%` of the positions
# land right at some offset), while sincos (a rotation per frequency) and the linear
# encodings (a line spaced evenly, offset by the bias) shift exactly. direct1 and
# directN fail only for want of a bias: an affine map shifts them exactly
# (`affine_correct`). The verdict reads the blog's "in general" as every encoding it
# compares (the sentence names none); the row's detail gives each encoding's own
# outcome (holds, holds only with a bias, fails), so a reader who takes the sentence
# to mean sincos alone can read that it holds there.
#
# **Sum and concatenation.** The blog calls the usual sum of encoding and embedding a
# generalisation of concatenation. On random tables the check confirms both halves: a
# concatenation is exactly the sum of the two tables padded with zeros to the joint
# width, and a sum of dense tables of that width mixes token and position in the same
# directions, which no concatenation does in any basis (the row's detail gives the
# shared dimensions).
#
# ## Explorer
#
# Choose an encoding, a dimension and a number of positions; the panels show the table,
# the cosine similarity between positions and the 2-D PCA path. In the static book the
# controls show their default state (the widget state is saved when the chapter
# executes); open `notebooks/encodings.py` in JupyterLab to explore.

# %%
import ipywidgets as widgets

# the two texts' encodings only (onehot, for one, needs dimension >= positions)
key_w = widgets.Dropdown(options=[k for k in TEXT_KEYS if k != "none"],
                         value="sinusoidal", description="encoding")
dim_w = widgets.IntSlider(value=min(D, 512), min=2, max=512, step=2,
                          description="dimension",
                          continuous_update=False)
pos_w = widgets.IntSlider(value=min(P, 512), min=2, max=512, description="positions",
                          continuous_update=False)


def show(key: str, dim: int, num_positions: int) -> None:
    table = encodings.analysis.display_table(key, num_positions, dim, gen(20))
    sim = encodings.analysis.similarity(table)
    coords, ratio = encodings.analysis.pca_2d(table)
    fig = encodings.plots.explorer_figure(table, sim, coords, ratio, key)
    report.stamp(fig, cfg, positions=num_positions, dim=dim)
    plt.show()


out = widgets.interactive_output(show, dict(key=key_w, dim=dim_w, num_positions=pos_w))
display(widgets.VBox([widgets.HBox([key_w, dim_w, pos_w]), out]))

# %% [markdown]
# ## What this chapter checks
#
# The encodings are built as Sec. 3.2 and App. D describe: Eq. 1-2 agree with an
# independent loop, every sinusoidal row has unit norm, position 0 is
# $[0, 1, 0, 1, \dots]/\sqrt{D/2}$, and the dot product between positions depends only
# on their offset (`tests/test_encodings.py`). The official code's layout differs from
# the equations only by a permutation of dimensions, which cannot change the model. The
# unit-norm scaling makes the encoding about $1/(1+D)$ of the input's energy at
# initialisation, next to embeddings and a command vector of norm about $\sqrt{D}$; the
# paper's learnable variant is not scaled. Whether these encodings help the RNNs (Figs.
# 2 and 13-14) is graded in the training chapters, not here. Three of the blog's
# statements about its tables are graded here: a linear map that shifts positions
# (`hansen.relative`), the normal encoding's missing covariance
# (`hansen.normal_no_covariance`), and the sum of encoding and embedding as a
# generalisation of their concatenation (`hansen.sum_generalizes_concat`); the tests
# check the rules on tables built independently (`tests/test_claims_texts.py`,
# `tests/test_claims_repairs.py`).
#
# ## Runs
#
# Nothing here trains. Every random table is drawn from its own generator, seeded with
# `seed` plus a fixed offset, so each figure can be redrawn on its own:

# %% tags=["hide-input"]
draws = [("random (App. D)", 1, f"{P} x {D}"),
         ("learnable at init (App. D)", 2, f"{P} x {D}"),
         ("norm comparison: embedding, LSTM matrix, samples", 3, f"V={cfg.vocab}"),
         ("explorer", 20, "chosen in the widget")]
draws += [(f"blog: {k} (and {k}_learned)" if k + "_learned" in penb.encodings.BLOG_KEYS
           else f"blog: {k}", 10 + penb.encodings.BLOG_KEYS.index(k),
           f"{cfg.blog_positions} x {cfg.blog_dim}")
          for k in penb.encodings.BLOG_KEYS if not k.endswith("_learned")]
display(pd.DataFrame([dict(draw=d, generator_seed=cfg.seed + o, size=size)
                      for d, o, size in draws]).set_index("draw"))
print(report.provenance(cfg))

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
# - The blog's tables themselves: a linear map shifts sincos and the linear encodings
#   exactly, direct1 and directN only with a bias, the normal encoding not at all; the
#   normal encoding's components are each normal but perfectly correlated. A reader
#   might try other offsets or a larger `blog_positions`.

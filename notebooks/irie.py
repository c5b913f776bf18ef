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
# # Why deep autoregressive Transformers need no positional encoding (Irie)
#
# ## Overview
#
# Irie's short review answers a question that the language-modelling community had settled before GPT-2
# and then partly forgot: a *causal* (autoregressive) Transformer with two or more layers can tell a
# sequence from its permutations without any positional encoding (PE), while a one-layer causal model,
# and any non-causal one, cannot. The review gives no numbers; its claims are properties of the
# architecture, argued with Eq. 1-6 and drawn in its Fig. 1. This chapter turns each claim into a
# numerical check on random, seeded float64 models (no training), with counts over many random
# permutations, and draws Fig. 1 from the model's own attention mask rather than by hand:
#
# * **Question 1**: without a mask and without PE, self-attention only sees a set, so outputs permute
#   with the inputs.
# * **Questions 3 and 5**: with the causal mask, one layer gives the same last output for every
#   ordering of the earlier tokens; two or more layers give different outputs at every position from
#   the first changed one onward ("fully position-sensitive").
# * **Sec. 4 / App. B**: causal attention without softmax is exactly the fast-weight recurrence
#   $W_t = W_{t-1} + v_t \otimes k_t$, $y_t = W_t q_t$, so the same conclusions hold for linear Transformers.
#
# The claims as recorded in `penb.claims`:

# %%
import pandas as pd

from penb import claims

pd.set_option("display.max_colwidth", None)
pd.DataFrame([(c.key, c.where, c.statement) for c in claims.CLAIMS.values() if c.key.startswith("irie.")],
             columns=["claim", "where", "statement"]).set_index("claim")

# %% tags=["parameters"]
from typing import Optional  # None below means "the preset's value"

preset: str = "quick"  # smoke, quick or paper
device: Optional[str] = None  # cpu, auto or cuda
seed: Optional[int] = None  # seed of the weights, the tokens and the permutations
permutations: Optional[int] = None  # random permutations per check
length: Optional[int] = None  # T: tokens per sequence
layers: Optional[tuple] = None  # depths checked for Q3 and Q5, e.g. (1, 2, 3); must include 1 and a deeper one
dim: Optional[int] = None  # model width D
heads: Optional[int] = None  # attention heads
norm: Optional[str] = None  # layer norm placement: pre, post or none
encoding: Optional[str] = None  # the PE added in the with-PE contrasts (a penb.encodings key)

# %%
import matplotlib.pyplot as plt
from myst_nb import glue

from penb import irie, presets
from penb.plots import irie as irie_plots
from penb.report import provenance, stamp

cfg = presets.resolve("irie", preset, device=device, seed=seed, permutations=permutations, length=length,
                      layers=layers, dim=dim, heads=heads, norm=norm, encoding=encoding)
print(cfg)
print("differs from the paper preset in:", presets.diff("irie", cfg.preset) or "nothing")

# %% [markdown]
# Every model below is a `penb.transformer.Transformer` in float64: token embedding (plus the PE, when one
# is added), pre-norm layers of multi-head self-attention and a feed-forward block, each with a residual
# connection. Sequences hold distinct tokens, so every permutation really changes them. Two outputs
# count as **equal** when their largest absolute difference is at most `tol_equal`, as **different**
# when it is at least `tol_differ`, and anything in between is counted as *unclear* (it never happens:
# equal outputs differ by rounding, about $10^{-15}$, different ones by $10^{-3}$ or more).

# %%
print(f"equal: max |difference| <= {cfg.tol_equal:g};  different: >= {cfg.tol_differ:g}")

# %% [markdown]
# ## Question 1: without a mask, self-attention sees a set
#
# We draw one sequence and `permutations` random reorderings of all its tokens and compare the top-layer
# outputs of the reordered sequence with the reordered outputs of the original. Irie calls the
# unmasked layer "permutation invariant"; precisely, the outputs are *equivariant* (they move with their
# tokens) and their multiset is invariant. The second and third rows are the contrasts: adding a PE, or
# using the causal mask, breaks the symmetry.

# %%
q1 = irie.q1_table(cfg)
display(q1)
print(provenance(cfg, permutations=cfg.permutations))

# %%
n = cfg.permutations
row = q1.set_index(["mask", "encoding"])
assert row.loc[("full", "none"), "equivariant"] == n and row.loc[("full", "none"), "multiset_invariant"] == n
assert row.loc[("full", cfg.encoding), "equivariant"] == 0 and row.loc[("causal", "none"), "equivariant"] == 0
glue("irie_q1_n", n, display=False)
glue("irie_q1_err", f"{row.loc[('full', 'none'), 'max_error']:.1e}", display=False)

# %% [markdown]
# All {glue:text}`irie_q1_n` permutations give equivariant outputs without mask and PE (largest
# deviation {glue:text}`irie_q1_err`, rounding), and none do once a PE or the causal mask is present.
#
# ## Questions 3 and 5: one causal layer is not enough, two are
#
# Now the last token stays in place and the tokens before it are permuted; the first position a
# permutation changes is $p$. For each model we compare the top-layer output at every position
# $t \ge p$ (the "checked" positions) and, as a check of the mask, every position $t < p$, which a
# causal model must leave untouched. We vary the depth, the attention (softmax, or linear as in
# Sec. 4), and whether a PE is added; the last row is a non-causal model of the largest depth.
#
# The column `agrees` counts positions where the numbers match a prediction made *without* weights:
# the context of layer $l$ at position $t$ is the position's own layer-$(l-1)$ context (it reaches
# the output through the query and the residual) together with the multiset of the layer-$(l-1)$
# contexts that the model's attention mask lets it see (`penb.irie.context_ids`).

# %%
q35 = irie.q35_table(cfg)
display(q35.drop(columns=["min_different", "max_equal"]))
print(provenance(cfg, permutations=cfg.permutations))
print(f"smallest 'different': {q35.min_different.min():.2e}; largest 'equal': {q35.max_equal.max():.2e}")

# %%
causal = q35[q35["mask"] == "causal"]
no_pe, with_pe = causal[causal.encoding == "none"], causal[causal.encoding != "none"]
assert (q35.unclear == 0).all() and (q35.agrees == q35.positions).all()
assert (causal.before_equal == causal.before).all()                       # nothing leaks back from the future
assert no_pe[no_pe.layers == 1].last_invariant.all()                      # Q5: one layer
assert not no_pe[no_pe.layers == 1].fully_position_sensitive.any()
assert no_pe[no_pe.layers >= 2].fully_position_sensitive.all()            # Q3: two or more layers
assert (no_pe[no_pe.layers >= 2].last_equal == 0).all()
assert with_pe.fully_position_sensitive.all()                             # a PE fixes the one-layer case
full = q35[q35["mask"] == "full"]
assert full.last_invariant.all() and not full.fully_position_sensitive.any()  # no mask: order is lost

one = no_pe[(no_pe.layers == 1) & (no_pe.attention == "softmax")].iloc[0]
two = no_pe[(no_pe.layers == 2) & (no_pe.attention == "softmax")].iloc[0]
glue("irie_q5_last", f"{one.last_equal:,} of {one.permutations:,}", display=False)
glue("irie_q5_equal", f"{one.equal:,} of {one.checked:,}", display=False)
glue("irie_q3_diff", f"{two.different:,} of {two.checked:,}", display=False)
glue("irie_q3_min", f"{q35[q35.layers >= 2].min_different.min():.1e}", display=False)

# %% [markdown]
# With one causal layer and no PE, the last output is the same for {glue:text}`irie_q5_last`
# permutations, and {glue:text}`irie_q5_equal` checked positions are unchanged in all. With two layers
# {glue:text}`irie_q3_diff` checked positions differ (the smallest difference among deeper models is
# {glue:text}`irie_q3_min`, far above rounding). Linear attention behaves the same, a PE makes even one
# layer fully position-sensitive, and without the causal mask depth does not help: the last output is
# again the same for every permutation.
#
# ## Figure 1: what each layer sees
#
# Irie's Fig. 1 compares $(a, b, c)$ with $(b, a, c)$ in a two-layer causal model. Here the sets are
# computed by composing the model's own causal mask over its layers (`penb.irie.context_strings`),
# and filled boxes mark sets that differ between the two inputs. Layer 1 differs only at $t=1$, while
# layer 2 differs everywhere: each layer-1 context at position $s$ holds $s$ elements, so the set that
# layer 2 gathers is in effect an ordered list.
#
# One detail the figure leaves out: the output at a position also depends on that position's own
# token, through its query and the residual connection. With it counted, layer 1 also differs at
# $t=2$ (the newest token is $b$ in one input and $a$ in the other); thick outlines mark those
# positions, and the random-weight model confirms them (last column of the table). The last position
# is where a one-layer model is blind to order, which is Question 5's point.

# %% mystnb={"figure": {"caption": "Irie's Fig. 1 recomputed: contexts seen by each layer of a two-layer causal Transformer without PE for (a, b, c) and (b, a, c), derived from the model's attention mask. Filled: the context set differs between the inputs; thick outline: the output differs once the position's own query is counted.", "name": "fig-irie-contexts"}}
fig1 = irie.figure1(cfg)
fig = stamp(irie_plots.context_sets(fig1), cfg)
plt.show()

# %%
display(irie.figure1_table(fig1))
print(provenance(cfg))
assert fig1["set_differs"].tolist() == [[True, True, False], [True, False, False], [True, True, True]]
assert (fig1["reach_mask"] == fig1["reach_jacobian"]).all()   # the mask's composition is the model's Jacobian
assert ((fig1["measured"] >= cfg.tol_differ) == fig1["query_differs"]).all()
assert (fig1["measured"][~fig1["query_differs"]] <= cfg.tol_equal).all()

# %% [markdown]
# The dependency pattern used above is checked against the model itself: the positions whose inputs
# reach each layer's output, read off the Jacobian of the random-weight model, equal the mask composed
# over the layers (the assertion above).
#
# ## Section 4: linear attention is a fast-weight programmer
#
# Dropping the softmax (and its scale) from causal attention gives $y_t = \sum_{s \le t} (q_t \cdot k_s)\, v_s$.
# `penb.irie.fast_weight_recurrence` computes the same layer as Irie's Eq. 7-8, a loop that adds
# $v_t \otimes k_t$ to a matrix $W$ and reads $W q_t$, using the layer's own weights. With softmax the
# two must disagree.

# %%
lin = irie.linear_table(cfg)
display(lin)
print(provenance(cfg), f"· relative tolerance {cfg.tol_equal:g}")
lin_row = lin.set_index("attention")
assert lin_row.loc["linear (no softmax)", "equal"] and not lin_row.loc["softmax", "equal"]
glue("irie_lin_err", f"{lin_row.loc['linear (no softmax)', 'rel_error']:.1e}", display=False)

# %% [markdown]
# The parallel (masked matrix) form and the recurrence agree to a relative error of
# {glue:text}`irie_lin_err`, and the depth results above hold for the linear model too (the
# `linear` rows).
#
# ## Question 4: do trained models use the order signal? (to be added)
#
# ```{note}
# This section is added once the book's training engine lands: one- and two-layer causal Transformers,
# with and without PE, trained on an order-sensitive task and as small language models. Nothing here is
# trained yet.
# ```
#
# ## Verdict
#
# **Reproduced** at every preset we ran, for each claim that can be checked without training: the
# unmasked model without PE is permutation-equivariant (Q1); one causal layer without PE returns the same
# last output for every ordering of the earlier tokens (Q5); two or more causal layers change every
# output from the first changed position on (Q3); linear attention equals the fast-weight recurrence to
# rounding (Sec. 4). The checks are exact in float64, so a larger preset adds confidence in the code,
# not in the claims, which are mathematical. One refinement of Fig. 1: a single causal layer does see
# which token is the newest, so its outputs before the last position can differ; only the last one is
# guaranteed blind to order.
#
# ## Recap
#
# * Without a mask, self-attention sees a set; the causal mask gives each position a context of its own
#   size, and a second layer reads those sizes as an order.
# * One causal layer is not enough: its last output ignores the order of everything before the last
#   token. A PE, or a second layer, fixes that.
# * Linear attention is the same layer written as a recurrence over a fast-weight matrix; its depth
#   behaves the same way.
# * To explore: `layers` (e.g. `(1, 2, 6)`), `norm` (`post`, `none`: layer norm never changes the
#   dependencies), `encoding` (any `penb.encodings` key), `length` and `permutations`.

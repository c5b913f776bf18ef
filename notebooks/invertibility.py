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
# # Invertibility of position encodings
#
# ## Overview
#
# Hansen's blog post proposes a *normally distributed* position encoding: position $i$
# of a sequence of at most $N$ positions becomes the vector of inverse normal CDFs
# $[F_1^{-1}(i/N), \dots, F_K^{-1}(i/N)]$, one univariate normal
# $\mathcal N(\mu_k, \sigma_k^2)$ per dimension. To judge it, the post measures how
# easily a single dense layer $g(\vec x) = \sigma(\vec x \cdot \vec w + b)$ recovers
# $t = i/N$ from the encoding: full-batch MSE, Adam at learning rate $10^{-3}$, for nine
# encodings (sine/cosine, two direct ones, random linear maps of $t$ with normal or
# uniform draws, and the normal encoding; each random one both fixed and with learned
# parameters), $K = 32$, $N = 100$, 100 random initialisations, 20,000 steps. Reading
# its loss curves, the post claims that normal and normal_learned converge fastest and
# lowest until sincos overtakes them around step {glue:text}`inv_blog_cross`; that
# sincos passes every other encoding by about step {glue:text}`inv_blog_over`; that
# normal and normal_learned reach a near-horizontal asymptote by about
# {glue:text}`inv_blog_plateau` steps; that learned parameters and normal draws speed
# the inversion up; that the curves end together; that the most direct encodings
# are the worst performers; and that sincos does well both in how fast it is inverted
# and in where it ends. Two exact floors of the setup, derived
# {ref}`below <inv-floors>` from the blog's code, serve as the book's own sanity checks
# and are not counted among the blog's claims. Every claim, with its measure and rule as
# written in `penb.claims` before the confirmation runs:

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display
from myst_nb import glue

from penb import claims

pd.set_option("display.max_colwidth", 120)
ours = claims.of_chapter("invertibility")
display(claims.overview(c.key for c in ours))
glue("inv_blog_cross", f"{claims.get('hansen.normal_best').value:,}", display=False)
glue("inv_blog_over", f"{claims.get('hansen.sincos_1200').value:,}", display=False)
plateau = claims.get("hansen.normal_plateau").value
glue("inv_blog_plateau", f"{plateau['normal']} and {plateau['normal_learned']}",
     display=False)

# %% tags=["parameters", "hide-input"]
from typing import Optional  # None below means "the preset's value"

preset: str = "quick"  # smoke, quick or paper; quick: the blog's study for five seeds
device: Optional[str] = None  # "cpu" (default), "auto" or "cuda"
dtype: Optional[str] = None  # "float32" like the original, or "float64"
inits: Optional[int] = None  # random initialisations per encoding and seed (blog: 100)
iterations: Optional[int] = None  # full-batch Adam steps (blog: 20,000)
dim: Optional[int] = None  # K, the encoding dimension (blog: 32)
length: Optional[int] = None  # N, positions 0..N-1, target pos/N (blog: 100)
lr: Optional[float] = None  # Adam learning rate (blog: 1e-3)
sentinel: Optional[float] = None  # row 0 of the normal encodings (original: -9999999)
alt_sentinel: Optional[float] = None  # a finite sentinel for the side study
seeds: Optional[tuple] = None  # seeds of the initial draws, e.g. (2001, 2002)

# %%
import matplotlib.pyplot as plt

from penb import presets, report
from penb.chapters import invertibility

cfg = presets.from_parameters("invertibility", globals())
display(report.config_table(cfg))

# %% [markdown]
# ## Setup and run
#
# Every encoding is built by `penb.encodings.blog` (sine/cosine with raw integer
# positions, sines first then cosines as the original code, where the post's text
# interleaves them: for an affine inverter whose weights start independent and
# identically distributed, the order of dimensions cannot matter; `normal` is
# $\mu_k + \sqrt{v_k}\,\mathrm{ndtri}(t)$ with $v_k = |z|$ a variance, and position 0
# set to the sentinel in every dimension). The inverter starts like Flax's `nnx.Linear`
# (lecun-normal weights truncated at two standard deviations, zero bias).
# `penb.chapters.invertibility` trains all encodings and initialisations as *one*
# batched problem (`invertibility.batch.InversionBatch`): every table except sine/cosine
# has rank at most three, so the forward and backward passes are written by hand in that
# factored form, and one Adam step (optax's defaults) updates every problem at once.
# `tests/test_inversion.py` checks that each problem follows the same losses and
# parameters as its own plain autograd run. The loss is recorded before each update, as
# in the original.
#
# The study runs once per seed. The claims are read off the mean loss curve over
# initialisations, as their rules say, here over the initialisations of every seed
# together; each seed's own curve shows how much the numbers move between draws.

# %%
studies = invertibility.analysis.run(cfg)
df = invertibility.analysis.pooled_mean(studies)  # mean over every seed's inits
fl = invertibility.analysis.floors(cfg.length)  # the exact floors, derived below

# %% tags=["hide-input"]
last = int(df.index[-1])
runs = invertibility.analysis.run_table(studies)
glue("inv_wall", float(runs.wall_s.mean()), display=False)
glue("inv_problems", len(studies[0].encodings) * cfg.inits, display=False)
glue("inv_steps", f"{cfg.iterations:,}", display=False)
glue("inv_seed_list", ", ".join(map(str, cfg.seeds)), display=False)
glue("inv_pooled", len(cfg.seeds) * cfg.inits, display=False)
glue("inv_diverged", int(runs.diverged.sum()), display=False)

# %% [markdown]
# Each seed's {glue:text}`inv_problems` problems took {glue:text}`inv_wall:.1f` s for
# {glue:text}`inv_steps` steps on average (the original code trains them one after
# another in JAX, about five hours on this machine's CPU). Seeds:
# {glue:text}`inv_seed_list`; the mean curves below are over {glue:text}`inv_pooled`
# initialisations per encoding. {glue:text}`inv_diverged` problems had a loss that
# turned non-finite (they would be left out of every mean, and no check could then be
# decided; see the run table at the end).
#
# ## Results
#
# ### The blog's views
#
# The post shows the mean loss over initialisations in several views with different
# axes. The four panels below cover the same ground: the whole run, the early steps, the
# late steps zoomed on the floors, and the whole run on a log scale, where all the late
# trends are visible at once.

# %% mystnb={"figure": {"caption": "Mean MSE over initialisations (every seed's together) per Adam step for the nine encodings (learned variants dashed, in their base's colour). (a) whole run; (b) early steps: normal and normal_learned drop first, sincos passes the linear encodings; (c) late steps: every encoding affine in the position settles on the affine floor (dotted) and normal on the normal floor (dashed), while sincos keeps falling; (d) log scale: sincos crosses the normal floor late in the run.", "name": "fig-inv-views"}}
fig = invertibility.plots.blog_views(df, fl)
report.stamp(fig, cfg)
plt.show()
print(report.provenance(cfg))

# %% [markdown]
# Rank of each encoding (1 = lowest mean loss) at a few steps:

# %% tags=["hide-input"]
display(invertibility.checks.rankings(df, [100, 400, 1200, 2000, 4000, 12000, last]))
print(report.provenance(cfg))

# %% [markdown]
# (inv-floors)=
# ### Exact loss floors
#
# Most encodings in the study are affine in $t$: row $i$ is $t_i\,\vec a + \vec c$
# (direct1: $\vec a = \vec e_1$, $\vec c = 0$; directN: $\vec a = \vec 1$; linear:
# $\vec a = \vec w_e$, $\vec c = b_e \vec 1$, learned or not). The inverter's logit is
# then $t_i (\vec a \cdot \vec w) + (\vec c \cdot \vec w + b) = \alpha t_i + \beta$, so
# any such model predicts $\sigma(\alpha t + \beta)$, and the inverter's own bias alone
# already lets it reach every $(\alpha, \beta)$ once $\vec a \cdot \vec w \ne 0$ is
# possible. The loss of all six encodings is therefore bounded below by
#
# $$
# L_{\text{affine}} = \min_{\alpha, \beta} \frac1N \sum_{i=0}^{N-1}
# \big(\sigma(\alpha t_i + \beta) - t_i\big)^2,
# $$
#
# whatever the draws and whether the encoding is learned. Learning the encoding can
# change *how fast* the inverter gets there, never *where*. For normal and
# normal_learned, rows $i \ge 1$ are $\vec\mu + \mathrm{ndtri}(t_i)\sqrt{\vec v}$,
# affine in $q_i = \mathrm{ndtri}(t_i)$, giving logits $\alpha q_i + \beta$. Row 0 is
# the sentinel $s$ in every dimension, giving the logit $s \sum_k w_k + b$: with
# $s = -9999999$ the prediction there is exactly 0 (when $\sum_k w_k > 0$), the target.
# Hence
#
# $$
# L_{\text{normal}} = \min_{\alpha, \beta} \frac1N \sum_{i=1}^{N-1}
# \big(\sigma(\alpha q_i + \beta) - t_i\big)^2,
# $$
#
# which is lower because $\sigma(\alpha\,\mathrm{ndtri}(t) + \beta)$ with $\alpha = 1.7$
# is already close to the identity on $(0, 1)$ (the logistic function is close to the
# normal CDF). Both minima are two-parameter least-squares problems;
# `invertibility.analysis.floors` solves them with scipy:

# %% tags=["hide-input"]
fit = invertibility.analysis.sincos_best_fit(cfg.length, cfg.dim)
final = df.iloc[-1]
final_affine = final[list(invertibility.checks.AFFINE)]  # the six encodings affine in t
final_normal = final[list(invertibility.checks.NORMAL)]
floor_table = pd.DataFrame({
    "exact floor (scipy)": [fl["affine"], fl["normal"], None],
    "registry's value": [claims.get("hansen.floor_affine").value,
                      claims.get("hansen.floor_normal").value, None],
    "our final mean (min)": [final_affine.min(), final_normal.min(), final["sincos"]],
    "our final mean (max)": [final_affine.max(), final_normal.max(), final["sincos"]],
}, index=["affine in t (6 encodings)", "normal, normal_learned",
          "sincos (no two-parameter floor)"])
for k in ("affine", "normal"):
    glue(f"floor_{k}", fl[k], display=False)
glue("sincos_final", float(final["sincos"]), display=False)
glue("sincos_fit", fit["mse"], display=False)
glue("sincos_fit_w", fit["max_abs_weight"], display=False)
glue("adam_reach", cfg.lr * cfg.iterations, display=False)  # Adam's most for one weight
display(floor_table.style.format("{:.6e}", na_rep=""))
print(report.provenance(cfg))

# %% [markdown]
# The floors are {glue:text}`floor_affine:.6e` and {glue:text}`floor_normal:.6e` (for
# $N = 100$ the claims carry the same numbers); both are drawn as horizontal lines in
# the figures. sincos has no such two-parameter reduction: fitting all its inverter
# parameters with scipy reaches an MSE of {glue:text}`sincos_fit:.2e`, but only with
# weights as large as {glue:text}`sincos_fit_w:.0f`. Adam moves a weight by at most
# about the learning rate per step, about {glue:text}`adam_reach:.3g` over the whole
# run, so sincos ends in between, at {glue:text}`sincos_final:.3e`, still limited by the
# step budget rather than by the encoding.
#
# The blog prints no floor: these two numbers are the book's own derivation from the
# blog's code, so they are not counted among the blog's claims. They serve as the
# book's sanity check of its engine and of the derivation (the registry keeps them as
# settings with a rule: the final mean within 5% of the floor, for the encoding
# furthest from it):

# %% tags=["hide-input"]
sanity = invertibility.checks.sanity(
    invertibility.checks.measures(df, fl))  # never recorded on the scorecard
display(claims.table(sanity))
print(report.provenance(cfg))
for g in sanity:
    glue(f"inv_s_{g.claim.split('.', 1)[1]}", g.verdict, display=False)

# %% [markdown]
# ### The claims' numbers, seed by seed
#
# Each claim's measure read off each seed's mean curve, and off the curve pooled over
# the seeds (the one the rules grade). Steps are the first step from which a condition
# holds to the end of the run: sincos below both normal encodings; the mean loss within
# 0.1 in log (about 10%) of its final value ("plateau", the reading the plateau claim
# is graded on: on the blog's own loss file it gives the blog's 400 and 300 steps
# within 2%), or within 5% of its fall over the run above its final value, where a plot
# of the whole run on a linear axis looks flat ("flat", shown beside it); within 1.1
# times the exact floor ("reach"). NaN: never in this run.

# %% tags=["hide-input"]
frames = {s.settings["seed"]: s.mean() for s in studies}
per_seed = invertibility.checks.measure_table(frames, fl)
pooled = invertibility.checks.measure_table({"pooled": df}, fl).iloc[0]
shown = ["cross", "last_beaten", "flat:normal", "flat:normal_learned", "plateau:normal",
         "plateau:normal_learned", "plateau:sincos", "reach:linear_normal", "reach:linear_uniform",
         "final/direct:normal", "final/direct:sincos"]
display(pd.concat([per_seed, pooled.to_frame().T])[shown].rename_axis("seed")
        .style.format("{:,.0f}", subset=shown[:-2]).format("{:.4f}", subset=shown[-2:]))
print(report.provenance(cfg))

# %% mystnb={"figure": {"caption": "The numbers the claims read. Hollow points: one seed each; blue: their mean with its 95% Student-t interval over seeds; red cross: the curve pooled over all seeds, which the rules grade. (a) The blog's step claims (green star: the blog's value; band: a factor 2 either side, the rules' tolerance). (b) Steps until each encoding stays within 1.1 times its exact floor: fixed against learned (hansen.learned_faster), normal draws against uniform ones (hansen.normal_faster). (c) Final losses over the direct encodings' (band: 10%). (d) Final losses over their exact floor (band: 5%).", "name": "fig-inv-measures"}}
blog = {"cross": claims.get("hansen.normal_best").value,
        "last_beaten": claims.get("hansen.sincos_1200").value,
        "plateau:normal": plateau["normal"],
        "plateau:normal_learned": plateau["normal_learned"]}
fig = invertibility.plots.claim_measures(per_seed, pooled, blog)
report.stamp(fig, cfg)
plt.show()
print(report.provenance(cfg))

# %% [markdown]
# sincos against the normal encoding around their crossing (pooled curve):

# %% mystnb={"figure": {"caption": "sincos against normal around their crossing, log scale (mean over every seed's initialisations). The solid red line marks the first step from which sincos stays below normal; the dotted one the post's 'around 12,000'. The dashed black line is the normal floor.", "name": "fig-inv-crossing"}}
cross_normal = invertibility.checks.crossing_step(df, "sincos", "normal")
fig = invertibility.plots.crossing_view(df, "sincos", "normal", cross_normal,
                                        claims.get("hansen.normal_best").value, fl)
report.stamp(fig, cfg)
plt.show()
print(report.provenance(cfg))

# %% [markdown]
# ## Verdict
#
# Each claim graded by its registered rule on the pooled curve. `ours` gives our numbers
# (with the seeds' range), `why` the rule's reason.

# %%
n_bad = int(runs.diverged.sum())
grades = invertibility.checks.grade(df, fl, cfg, per_seed=per_seed, nonfinite=n_bad)
display(claims.table(grades))
print(report.provenance(cfg))

# %% tags=["hide-input"]
for g in grades:
    glue(f"inv_v_{g.claim.split('.', 1)[1]}", g.verdict, display=False)
glue("inv_preset", cfg.preset, display=False)

# %% [markdown]
# At preset {glue:text}`inv_preset`: the normal pair converging fastest until sincos
# overtakes it, **{glue:text}`inv_v_normal_best`**; sincos passing the others early,
# **{glue:text}`inv_v_sincos_1200`**; the plateaus of the normal encodings,
# **{glue:text}`inv_v_normal_plateau`**; learned parameters converging sooner,
# **{glue:text}`inv_v_learned_faster`**; normal draws inverted faster than uniform ones,
# **{glue:text}`inv_v_normal_faster`**; normal, normal_learned and sincos ending with
# the direct encodings, **{glue:text}`inv_v_converge_direct`**; the learned linear
# encodings peaking sooner than sincos and ending with the direct ones,
# **{glue:text}`inv_v_learned_linear_peak`**; the direct encodings the worst over the
# run and ending together, **{glue:text}`inv_v_direct_worst`**; sincos in the better
# half of the nine both by its loss over the run and by its final loss,
# **{glue:text}`inv_v_sincos_both`** (a sentence of the blog's Discussion that the
# curves-end-together sentence contradicts). The book's sanity
# checks (not claims of the blog): the affine floor,
# **{glue:text}`inv_s_floor_affine`**; the normal floor,
# **{glue:text}`inv_s_floor_normal`**. The end points are not properties of the
# encodings' "invertibility" but exact floors of a sigmoid-of-affine inverter: every
# encoding affine in the position ends on one number and both normal encodings on a
# lower one, whatever the draws, and sincos, with no two-parameter floor, ends lower
# still; so "the same performance as the direct encodings" can hold only for the affine
# encodings.
#
# ## Exploratory (not graded)
#
# The analyses below were chosen after the study's curves had been seen; no claim is
# graded on them.
#
# ### The published loss file
#
# The post publishes its per-step means. The original script sums the loss over
# initialisations and divides by the number of *iterations* (20,000) instead of the
# number of *initialisations* (100), so every value in the file is the true mean divided
# by 200. Two facts independent of any draw confirm the factor. At step 0 the inverter
# of direct1 predicts $\sigma(w_1 t) \approx 1/2$ with small $w_1$, so its loss is close
# to $\frac1N\sum_i (1/2 - t_i)^2$ (about 0.083), 200 times the file's value; and after
# convergence the six affine encodings sit on the exact affine floor only once
# multiplied by 200. `invertibility.analysis.load_published` applies the correction. Our
# draws differ from the original's (torch, not JAX), so the early steps agree only
# statistically; the late steps, governed by the floors, agree to several digits.

# %% tags=["hide-input"]
published = invertibility.analysis.load_published()
anchors = invertibility.analysis.load_anchor_table()
if published is None:
    print("The published loss file is not available here "
          "(shared/anchors/pos-enc-invert); comparison skipped.")
else:
    raw = invertibility.analysis.load_published(correct=False)
    half = invertibility.analysis.constant_prediction_loss(
        invertibility.analysis.PUBLISHED_LENGTH)
    print(f"direct1 at step 0: file {raw.at[0, 'direct1']:.4e}, "
          f"x 200 = {published.at[0, 'direct1']:.4e}, ours {df.at[0, 'direct1']:.4e}, "
          f"prediction 1/2 everywhere: {half:.4e}")
    default = [0, 100, 400, 1200, 2000, 4000, 12000, 19999]
    steps = list(anchors.index) if anchors is not None else default
    table = invertibility.checks.compare(df, published, steps)
    display(table["ours / published"].unstack("encoding").style.format("{:.3f}"))
    end = max(s for s in steps if s <= last)
    display(table.xs(end, level="step").style.format(
        {"ours": "{:.6e}", "published": "{:.6e}", "ours / published": "{:.5f}"}))
    print(report.provenance(cfg))

# %% [markdown]
# Above: the ratio of our pooled mean to the published mean (times 200) at the post's
# checkpoints, then both means at the last checkpoint this run reached. Differences at
# the start reflect other random draws of the same distributions; once the curves reach
# the floors, the ratios are 1 to several digits.

# %% mystnb={"figure": {"caption": "Our pooled mean loss (thin) over the published means times 200 (thick, pale), one panel per encoding, log scales (the step axis is linear below 10). Dotted and dashed lines: the affine and normal floors.", "name": "fig-inv-published"}}
if published is not None:
    fig = invertibility.plots.published_overlay(df, published, fl)
    report.stamp(fig, cfg)
    plt.show()
    print(report.provenance(cfg))
else:
    print("No published loss file: figure skipped.")

# %% [markdown]
# The same measures read off the published file (times 200) and off our pooled curve.
# One reading that the grades above do not show: "normal draws are inverted faster than
# uniform ones" holds early in the run, but the fixed uniform encoding can reach 1.1
# times the floor first; the `reach` columns give both runs' steps.

# %% tags=["hide-input"]
if published is not None and len(published) == len(df):
    both = invertibility.checks.measure_table(
        {"published x 200": published, "ours": df}, fl)
    cols = ["cross", "last_beaten", "flat:normal", "flat:normal_learned", "plateau:normal",
            "plateau:normal_learned", "reach:linear_normal", "reach:linear_uniform",
            "reach:linear_normal_learned", "reach:linear_uniform_learned"]
    display(both[cols].style.format("{:,.0f}"))
    print(report.provenance(cfg))
else:
    print("No published loss file of this run's length: table skipped.")

# %% [markdown]
# ### The sentinel
#
# $\mathrm{ndtri}(0) = -\infty$, so the original replaces position 0 of the normal
# encodings by the constant $-9999999$ in every dimension (not passed through $\mu$,
# $v$). That keeps the numbers finite but makes position 0 special: its logit is
# $-9999999 \sum_k w_k + b$, so the prediction is exactly 0 or 1 in float32 and its
# gradient exactly zero. An initialisation with $\sum_k w_k < 0$ predicts 1 there (error
# 1, an extra $1/N$ on the loss) and can only be rescued by the pull of the other
# positions on $\sum_k w_k$. Counted over every seed's initialisations:

# %% tags=["hide-input"]
wrong = {}
for s in studies:
    start = invertibility.analysis.initial_state(
        ["normal", "normal_learned"], cfg.inits, cfg.dim, s.settings["seed"])
    for when, p in (("at step 0", start), ("after the run", s.final)):
        for k in ("normal", "normal_learned"):
            p0 = invertibility.analysis.position0(p[k], cfg.sentinel)
            wrong[(when, k)] = wrong.get((when, k), 0) + int((p0 > 0.5).sum())
p0 = pd.Series(wrong).unstack(0)[["at step 0", "after the run"]]
p0.index.name = f"inits (of {len(studies) * cfg.inits}) predicting 1 at position 0"
glue("p0_start", int(p0.at["normal", "at step 0"]), display=False)
glue("p0_end", int(p0.at["normal", "after the run"]), display=False)
display(p0)
print(report.provenance(cfg))

# %% [markdown]
# For normal, {glue:text}`p0_start` initialisations start on the wrong side and
# {glue:text}`p0_end` are still there at the end. The sentinel is a parameter
# (`sentinel`, default faithful to the original). A finite value (`alt_sentinel`) turns
# position 0 into an ordinary input: its logit $s \sum_k w_k + b$ uses a direction of
# $\vec w$ that the other positions do not constrain, so the floor is the same, but now
# it is approached rather than reached. The side study below trains only the two normal
# encodings with the first seed's draws and the finite sentinel.

# %% tags=["hide-input"]
first = studies[0]
alt = invertibility.analysis.run(
    cfg, progress=False, encodings=["normal", "normal_learned"],
    sentinel=cfg.alt_sentinel, seeds=cfg.seeds[:1])[0].mean()
main = f"{cfg.sentinel:.0f}" + (" (original)" if cfg.sentinel == -9999999 else "")
frames = {main: first.mean()[["normal", "normal_learned"]],
          f"{cfg.alt_sentinel:g}": alt}
settle = invertibility.checks.settle_step
sentinel_table = pd.DataFrame({
    label: {**{f"{k}: step 0": f[k].iloc[0] for k in f.columns},
            **{f"{k}: final": f[k].iloc[-1] for k in f.columns},
            **{f"{k}: within 1.1 x floor from": settle(f[k], fl["normal"])
               for k in f.columns}}
    for label, f in frames.items()})
glue("alt_sentinel", cfg.alt_sentinel, display=False)
for label, name in zip(frames, ("main", "alt")):
    for k in ("normal", "normal_learned"):
        step = settle(frames[label][k], fl["normal"])
        text = "(not within this run)" if step is None else f"{step:,}"
        glue(f"settle_{name}_{k}", text, display=False)
        glue(f"final_{name}_{k}", float(frames[label][k].iloc[-1]), display=False)
display(sentinel_table.style.format(
    lambda v: "not reached" if pd.isna(v) else (f"{v:,.0f}" if v >= 1 else f"{v:.4e}")))
print(report.provenance(cfg, side_study_seed=cfg.seeds[0]))

# %% mystnb={"figure": {"caption": "normal and normal_learned with the original sentinel and with a finite one, same draws (the first seed; log scales, the step axis is linear below 10). The dashed black line is the normal floor.", "name": "fig-inv-sentinel"}}
fig = invertibility.plots.sentinel_view(frames, fl)
report.stamp(fig, cfg, alt_sentinel=cfg.alt_sentinel)
plt.show()
print(report.provenance(cfg, alt_sentinel=cfg.alt_sentinel,
                        side_study_seed=cfg.seeds[0]))

# %% [markdown]
# With the sentinel at {glue:text}`alt_sentinel`, normal stays within 1.1 times the
# floor from step {glue:text}`settle_alt_normal` (original sentinel:
# {glue:text}`settle_main_normal`) and normal_learned from step
# {glue:text}`settle_alt_normal_learned` (original:
# {glue:text}`settle_main_normal_learned`); the final means are
# {glue:text}`final_alt_normal:.4e` and {glue:text}`final_alt_normal_learned:.4e`
# (original: {glue:text}`final_main_normal:.4e` and
# {glue:text}`final_main_normal_learned:.4e`). Position 0 now has to be pushed towards 0
# by ordinary training instead of being exactly right or exactly wrong, which changes
# the approach a little and the end point not at all. The sentinel is therefore not what
# makes the normal encoding easy to invert: the probit shape of its other rows is.
#
# ### Spread over initialisations
#
# Quantiles, over the first seed's initialisations, of each encoding's last recorded
# loss:

# %% tags=["hide-input"]
display(first.final_spread().style.format("{:.4e}"))
print(report.provenance(cfg, seed=cfg.seeds[0]))

# %% [markdown]
# ## Runs
#
# One study per seed: every encoding and initialisation trained together. `diverged`
# counts the problems whose loss turned non-finite (left out of the means); `wall_s` is
# the study's time.

# %% tags=["hide-input"]
display(runs)
print(report.provenance(cfg))

# %% [markdown]
# ## Recap
#
# - `invertibility.analysis.run(cfg)` trains all {glue:text}`inv_problems` problems of a
#   seed as one batched problem, once per seed; `pooled_mean` gives the mean curve over
#   every seed's initialisations, and `invertibility.checks.grade` grades each claim of
#   the registry on it.
# - sincos's crossings, the plateaus and the steps to the floors are read off the curves
#   by `invertibility.checks.measures`, with each seed's values beside the pooled ones.
# - The end points are exact floors, computed with scipy: {glue:text}`floor_affine:.4e`
#   for every encoding affine in the position, {glue:text}`floor_normal:.4e` for the
#   normal encodings; sincos ends lower, limited by Adam's step budget rather than by a
#   floor.
# - The published loss file must be multiplied by 200 (it divides by the iterations, not
#   the initialisations); the sentinel of position 0 changes how the normal encodings
#   approach their floor, not the floor.
#
# Parameters to try next: `seeds` (more draws), `lr` (a larger rate reaches the floors,
# and sincos's lower fits, much sooner; the claims are then not graded, since they are
# about the blog's study), `length` (the floors depend on $N$), `dim`, `alt_sentinel`,
# or `dtype="float64"` to remove float32's late jitter at the floors.

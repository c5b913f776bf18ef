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
# # Appendix A: other tasks
#
# ## Overview
#
# Morita's appendix A asks whether the help that positional encoding (PE) gives an RNN
# with a large vocabulary is particular to reversal. It tries three more tasks, each
# with and without the sinusoidal encoding concatenated to the token embedding:
#
# - **A.1, reverse ordering + delayed addition (Fig. 6-7).** During the output phase the
#   network receives a second random sequence $y_1, \dots, y_L$ and must emit
#   $(x_{L+1-i} + y_i) \bmod V$. LSTM only, $L$ = {glue:text}`a_add_length`, $V$ from
#   {glue:text}`a_add_vocab`, {glue:text}`a_add_steps` updates. PE helps, more as the
#   vocabulary grows.
# - **A.2, sorting (Fig. 8).** Output the inputs in ascending order (ties kept), at
#   $L$ = {glue:text}`a_sort_length`. Order carries no information here, yet PE still
#   helps the GRU and the LSTM at large vocabularies, by less than in reversal.
# - **A.3, predecessor query (Fig. 9-10).** After $L = 16$ distinct tokens, one of
#   $x_2, \dots, x_L$ is shown again and the network must name the token that preceded
#   it. PE helps the LSTM at the larger vocabularies.
#
# The figures print no numbers, and the text gives the vocabularies of neither Fig. 8
# nor Fig. 10 (the `paper` preset uses those of Fig. 2 there). Each claim, its measure
# and the rule that grades it were written in the claims registry (`penb.claims`) before
# the confirmation runs:

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display
from myst_nb import glue

from penb import claims, presets
from penb.chapters import appendix, pages
from penb.chapters.appendix.page import Page

pd.set_option("display.max_colwidth", None)
CLAIMS = claims.of_chapter("appendix_a")
fig7 = claims.get("morita.fig7").extra
glue("a_add_length", fig7["length"], display=False)
glue("a_add_vocab", f"{fig7['vocab'][0]:,} to {fig7['vocab'][-1]:,}", display=False)
glue("a_add_steps", f"{fig7['steps']:,}", display=False)
glue("a_sort_length", claims.get("morita.fig8.lstm").extra["length"], display=False)
claims.overview(c.key for c in CLAIMS)

# %% tags=["parameters", "hide-input"]
from typing import Optional  # None below means "the preset's value"
# recipe and execution: dicts of knobs that python -m penb params lists with each
# preset's value; each knob also works alone, as -p NAME VALUE

preset: str = "quick"  # smoke, quick, gpu or paper
device: Optional[str] = None  # auto, cpu or cuda
seeds: Optional[tuple] = None  # one training-test trial per seed
sections: Optional[tuple] = None  # which of add (A.1), sort (A.2), predecessor (A.3)
add_length: Optional[int] = None  # A.1: input length L
add_vocab: Optional[tuple] = None  # A.1: vocabulary sizes (also the modulus)
add_steps: Optional[int] = None  # A.1: training updates per run
sort_length: Optional[int] = None  # A.2: input length L (also of its reversal runs)
sort_cores: Optional[tuple] = None  # A.2: models among gru and lstm
sort_gru_vocab: Optional[tuple] = None  # A.2: vocabulary sizes of the GRU
sort_lstm_vocab: Optional[tuple] = None  # A.2: vocabulary sizes of the LSTM
sort_steps: Optional[int] = None  # A.2: training updates per run
gru_batch_size: Optional[int] = None  # A.2: the GRU's sequences per update
pred_length: Optional[int] = None  # A.3: input length L (at most the smallest V)
pred_vocab: Optional[tuple] = None  # A.3: vocabulary sizes
pred_steps: Optional[int] = None  # A.3: training updates per run
hidden: Optional[int] = None  # hidden size, also the embedding and encoding size
batch_size: Optional[int] = None  # sequences per update (the LSTM's)
lr: Optional[float] = None  # peak learning rate of Adam
recipe: Optional[dict] = None  # the training recipe and grading, not what is compared
execution: Optional[dict] = None  # how runs execute, not what they train

# %%
cfg = pages.show_config(presets.from_parameters("appendix_a", globals()))

# %% [markdown]
# ## Setup and run
#
# Each (task, model, vocabulary, encoding, seed) is one run of `penb.trainer`, set up as
# in the key-findings chapter: an embedding of $V + 1$ rows (row $V$ is the learnable
# command fed when a step has no input token), the sinusoidal encoding of the positions
# concatenated to it or not, a single-layer core and a linear readout, Adam with warm-up
# then the preset's schedule (the paper's cosine decay; at `quick`, `smoke` and `gpu` a
# stable rate, then a linear decay over the last 20%, so that each run's half budget is
# a short branch of the same trunk, for the doubling test; without runs at N/4 the
# horizon reads a verdict as "one doubling only"), fresh random
# sequences every update with the held-out ones excluded.
# In the delayed-addition task the output phase is fed the second sequence instead of
# the command; in the predecessor query the sequence has $L + 1$ steps and only the last
# one is scored. For the sorting claim the chapter also trains (or finds in the run
# store) the reversal runs of the same models, settings and seeds, at the largest
# sorting vocabulary. Finished runs are reused from the run store.

# %%
panels = appendix.appendix_a.panels(cfg)
frame = appendix.appendix_a.run(cfg)

# %% tags=["hide-input"]
ALL = appendix.appendix_a.describe(cfg, [p.name for p in panels])
page = Page("a", cfg, frame, **ALL)
summ = page.summ


def figure(section, names, metrics=("accuracy",)):
    """The figure of ``section``'s panels ``names``, stamped with each panel's L and
    updates (a placeholder saying why where the section is not run)."""
    sub = summ[summ["panel"].isin(names)]
    if sub.empty:
        why = "not run at this preset: " + appendix.appendix_a.skipped(cfg, section)
        return page.show(appendix.plots.placeholder(why), {})
    extra = appendix.appendix_a.describe(cfg, names)
    page.show(appendix.plots.vocab_panels(sub, frame, metrics, extra), extra)


# %% [markdown]
# The chapter used {glue:text}`a_runs` runs ({glue:text}`a_reused` of them found in the
# run store), {glue:text}`a_seeds` seeds per cell; {glue:text}`a_diverged` diverged.
# Together they took {glue:text}`a_minutes` minutes of training where they were made.
#
# ## Results
#
# Token accuracy is the fraction of scored output tokens predicted correctly. Each
# figure draws every seed's value as a dot and, over it, the mean over seeds with its
# 95% bootstrap interval over seeds (the seed is the independent unit).

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Fig. 7 at this preset: token accuracy of the LSTM on reverse ordering + delayed addition against the vocabulary size (also the modulus), vanilla (grey) vs. position-encoded (red); dots: seeds, bars: mean over seeds and its 95% interval.", "name": "fig-appa-fig7"}}
figure("add", ["add"])

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Fig. 8 at this preset: sorting with the GRU and the LSTM, and, beside each, reversal with the same model, settings and seeds (the reference of the claim), token accuracy (top) and mean Damerau-Levenshtein distance to the target (bottom); dots: seeds, bars: mean over seeds and its 95% interval.", "name": "fig-appa-fig8"}}
figure("sort", [p.name for p in panels if p.task in ("sort", "reverse")],
       ("accuracy", "distance"))

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Fig. 10 at this preset: accuracy of the LSTM on the predecessor query (one scored token per sequence), vanilla vs. position-encoded; dots: seeds, bars: mean over seeds and its 95% interval.", "name": "fig-appa-fig10"}}
figure("predecessor", ["predecessor"])

# %% [markdown]
# The summary per panel, vocabulary and variant: the mean over the valid seeds with its
# 95% interval over seeds, each seed's accuracy, and, as a secondary column only, the
# interval that resamples the held-out sequences of all seeds pooled (the paper's error
# bars).

# %% tags=["hide-input"]
page.table(appendix.summary.table(summ))

# %% [markdown]
# ## Verdict
#
# Each claim is graded by its registered rule on per-seed evidence: Fig. 7 and Fig. 10
# at the panel's largest vocabulary (PE against vanilla, paired by seed); Fig. 7's trend
# on the slope, per seed, of the PE-minus-vanilla gap against $\log_2 V$; Fig. 8 for
# each model on its own: the sorting gain of PE per seed, then that gain against the
# reversal gain of the same model and seed, and the distance panel (minus the mean
# Damerau-Levenshtein distance over $L$, PE against vanilla). The registry also lists
# App. A.1's remark that the GRU could not learn delayed addition, with why the book
# does not test it.

# %% tags=["hide-input"]
grades = page.verdicts(appendix.analysis.grade_a(
    frame, cfg, panels, lambda s: appendix.appendix_a.skipped(cfg, s)))

# %% [markdown]
# At this preset, Fig. 7 is graded {glue:text}`a_morita_fig7`
# ({glue:text}`a_morita_fig7_why`) and its trend {glue:text}`a_morita_fig7_trend`
# ({glue:text}`a_morita_fig7_trend_why`). Sorting with the GRU is graded
# {glue:text}`a_morita_fig8_gru` ({glue:text}`a_morita_fig8_gru_why`), with the LSTM
# {glue:text}`a_morita_fig8_lstm` ({glue:text}`a_morita_fig8_lstm_why`); the distance
# panel {glue:text}`a_morita_fig8_distance_gru` (GRU) and
# {glue:text}`a_morita_fig8_distance_lstm` (LSTM). Fig. 10 is graded
# {glue:text}`a_morita_fig10` ({glue:text}`a_morita_fig10_why`).
#
# The evidence behind the comparative claims, one row per seed: Fig. 8 pairs each
# model's sorting gain (PE minus vanilla) with its reversal gain in the same seed; the
# trend reads the gap at every vocabulary of A.1.

# %% tags=["hide-input"]
for core in ("gru", "lstm"):
    ev = page.evidence(grades, f"morita.fig8.{core}")
    if "a" in ev:
        gains = pd.DataFrame({"seed": ev["seeds"], "PE (sorting)": ev["a"],
                              "vanilla (sorting)": ev["b"]}).set_index("seed")
        gains["sorting gain"] = gains["PE (sorting)"] - gains["vanilla (sorting)"]
        gains["reversal gain"] = ev["ref_gain"]
        display(gains.round(4).rename_axis(f"seed ({core.upper()})"))
ev = page.evidence(grades, "morita.fig7.trend")
if "gaps" in ev:
    display(pd.DataFrame(ev["gaps"], index=pd.Index(ev["seeds"], name="seed"),
                         columns=[f"V={v}" for v in ev["x"]]).round(4))
page.provenance()

# %% [markdown]
# What the `quick` preset can and cannot show: it trains networks an eighth of the
# paper's width on shorter sequences for less than a hundredth of its updates, at
# vocabularies far below the paper's. A claim that holds here holds for this
# scaled-down version of the experiment; one that fails here may fail because both
# variants are too little trained. The `paper` preset on a GPU
# (`-p preset paper -p device cuda`) runs the published settings.
#
# ## Runs
#
# Every run of the chapter, with its own headline metrics; {glue:text}`a_diverged` of
# {glue:text}`a_runs` diverged (a diverged run has no metrics, is left out of every
# summary and counted in the grades).

# %% tags=["hide-input"]
page.table(appendix.common.run_table(frame))

# %% [markdown]
# ## Recap
#
# - `penb.chapters.appendix.appendix_a.run` trains or reuses one run per task, model,
#   vocabulary, encoding and seed, the reversal references included;
#   `penb.chapters.appendix.summary.summary` summarises them over seeds,
#   `penb.chapters.appendix.analysis.grade_a` grades the claims through `penb.claims`,
#   and `penb.chapters.appendix.page.Page` glues the page's numbers and verdicts.
# - The three tasks are `reverse_add`, `sort` and `predecessor` of `penb.tasks`.
# - Worth changing next: the vocabularies (`add_vocab`, `sort_lstm_vocab`,
#   `pred_vocab`) to see where the vanilla model starts failing, `add_steps` (the paper
#   doubled the training for A.1), and `sections` to run one task only.

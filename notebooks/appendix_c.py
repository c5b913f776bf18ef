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
# # Appendix C: the parameter control
#
# ## Overview
#
# Concatenating a 512-dimensional encoding to a 512-dimensional embedding doubles the
# width of the RNN's input, and with it the input-to-hidden weights of every gate.
# Could the extra weights, rather than the position signal, be what helps? Morita's
# appendix C answers with a control: "double vanilla", an LSTM whose input is two copies
# of the same embedding, $[e_t, e_t]$. It has exactly the position-encoded model's
# parameter count and no position signal. On reverse ordering and sorting (LSTM,
# $L$ = {glue:text}`c_paper_length`, V = {glue:text}`c_paper_vocab`, the settings of
# Sec. 3.3) the double-vanilla LSTM does no better than the vanilla one, while the
# position-encoded one is above both (Fig. 12; no numbers printed). Each task is graded
# on its own: double vanilla against vanilla, and PE against double vanilla. The claims,
# their measures and the rules that grade them, as the claims registry (`penb.claims`)
# held them before the confirmation runs:

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display
from myst_nb import glue

from penb import claims, presets
from penb.chapters import appendix, pages
from penb.chapters.appendix.page import Page
from penb.report import provenance

pd.set_option("display.max_colwidth", None)
CLAIMS = claims.of_chapter("appendix_c")
fig12 = claims.get("morita.fig12.no_gain.reverse").extra
glue("c_paper_length", fig12["length"], display=False)
glue("c_paper_vocab", f"{fig12['vocab']:,}", display=False)
claims.overview(c.key for c in CLAIMS)

# %% tags=["parameters", "hide-input"]
from typing import Optional  # None below means "the preset's value"
# recipe and execution: dicts of knobs that python -m penb params lists with each
# preset's value; each knob also works alone, as -p NAME VALUE

preset: str = "quick"  # smoke, quick, gpu or paper
device: Optional[str] = None  # auto, cpu or cuda
seeds: Optional[tuple] = None  # one training-test trial per seed
tasks: Optional[tuple] = None  # tasks among reverse and sort
variants: Optional[tuple] = None  # models among vanilla, double (vanilla), sinusoidal
length: Optional[int] = None  # input length L (paper: 64)
vocab: Optional[int] = None  # vocabulary size (paper: 16,384)
hidden: Optional[int] = None  # hidden size; double vanilla: 2 embeddings (paper: 512)
batch_size: Optional[int] = None  # sequences per update (paper: 512)
steps: Optional[int] = None  # training updates per run, either task (paper: 300,000)
lr: Optional[float] = None  # peak learning rate of Adam (paper: 1e-3)
recipe: Optional[dict] = None  # the training recipe and grading, not what is compared
execution: Optional[dict] = None  # how runs execute, not what they train

# %%
cfg = pages.show_config(presets.from_parameters("appendix_c", globals()))

# %% [markdown]
# ## The control has the same size
#
# The models of this chapter, built from the very configurations that are trained
# below: the double-vanilla LSTM has the position-encoded one's input width and
# parameter count (the sinusoidal table is fixed, not a parameter). The vanilla one has
# $4 \times$ hidden $\times$ embedding fewer weights.

# %% tags=["hide-input"]
panels = appendix.appendix_c.panels(cfg)
SIZE = dict(L=cfg.length, hidden=cfg.hidden)
counts = appendix.summary.parameter_counts(cfg, panels)
display(counts.drop(columns=["variant"]).set_index(["panel", "vocab", "label"]))
print(provenance(cfg, **SIZE))

# %% [markdown]
# ## Setup and run
#
# Each (task, variant, seed) is one run of `penb.trainer`, set up as in the key-findings
# chapter; the double-vanilla model is `input_mode="double"` of `penb.models`. The
# vanilla and position-encoded runs have exactly the fields of appendix A's sorting runs
# and of its reversal reference, so when the settings coincide the run store hands those
# back instead of training them again.

# %%
frame = appendix.appendix_c.run(cfg)

# %% tags=["hide-input"]
page = Page("c", cfg, frame, **SIZE)
summ = page.summ

# %% [markdown]
# Of the {glue:text}`c_runs` runs ({glue:text}`c_seeds` seeds per task and variant),
# {glue:text}`c_reused` were found in the run store and {glue:text}`c_diverged`
# diverged; all of them together took {glue:text}`c_minutes` minutes of training where
# they were made.
#
# ## Results
#
# Every seed's token accuracy is a dot; each bar is the mean over seeds with its 95%
# bootstrap interval over seeds. The position-encoded model is drawn as the reference
# the control is measured against.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Fig. 12 at this preset: token accuracy of the LSTM on reverse ordering and sorting, vanilla (grey), double vanilla (blue, the parameter count of PE) and position-encoded (red); dots: seeds, bars: mean over seeds with its 95% interval.", "name": "fig-appc-fig12"}}
page.show(appendix.plots.bars(summ, frame, variants=cfg.variants))

# %% [markdown]
# The summary: the mean over the valid seeds with its 95% interval over seeds, each
# seed's accuracy and, as a secondary column only, the interval that resamples the
# held-out sequences of all seeds pooled (the paper's error bars).

# %% tags=["hide-input"]
page.table(appendix.summary.table(summ))

# %% [markdown]
# ## Verdict
#
# Per task, two claims graded by their registered rules on per-seed evidence. "No gain"
# (`no_gain`): in each seed, the double-vanilla LSTM's token accuracy minus the vanilla
# LSTM's; the interval of that difference must stay below +0.02, and two things make it
# say nothing: a vanilla model at chance (nothing learned, so no gain is no news) and a
# control far *below* vanilla (it failed as a control). "PE ahead" (`better`): the
# position-encoded LSTM against double vanilla in the same seed, the comparison that
# makes double vanilla a control at all.

# %% tags=["hide-input"]
grades = page.verdicts(appendix.analysis.grade_c(frame, cfg))

# %% [markdown]
# At this preset, in reverse ordering "no gain" is graded
# {glue:text}`c_morita_fig12_no_gain_reverse`
# ({glue:text}`c_morita_fig12_no_gain_reverse_why`)
# and PE above double vanilla {glue:text}`c_morita_fig12_pe_ahead_reverse`
# ({glue:text}`c_morita_fig12_pe_ahead_reverse_why`); in sorting "no gain" is graded
# {glue:text}`c_morita_fig12_no_gain_sort`
# ({glue:text}`c_morita_fig12_no_gain_sort_why`)
# and PE above double vanilla {glue:text}`c_morita_fig12_pe_ahead_sort`
# ({glue:text}`c_morita_fig12_pe_ahead_sort_why`).
#
# The evidence, one row per task and seed: the three accuracies and the two differences
# the rules read.

# %% tags=["hide-input"]
rows = []
for task in cfg.tasks:
    no_gain = page.evidence(grades, f"morita.fig12.no_gain.{task}")
    ahead = dict(zip(*(page.evidence(grades, f"morita.fig12.pe_ahead.{task}").get(k, [])
                       for k in ("seeds", "a"))))
    for seed, d, v in zip(*(no_gain.get(k, []) for k in ("seeds", "a", "b"))):
        rows.append({"task": task, "seed": seed, "vanilla": v, "double vanilla": d,
                     "PE": ahead.get(seed), "double - vanilla": d - v,
                     "PE - double": ahead[seed] - d if seed in ahead else None})
if rows:
    page.table(pd.DataFrame(rows).set_index(["task", "seed"]).round(4))

# %% [markdown]
# The paper's figure prints no values, so only the order of the models can be compared.
# At `quick` the experiment is scaled down (a shorter sequence, a smaller network and
# vocabulary, a few thousand updates); the control keeps its meaning at any size, since
# double vanilla and PE always have the same parameter count, but the gap it is measured
# against is the small-scale one. The `paper` preset on a GPU runs the published
# setting.
#
# ## Runs
#
# Every run of the chapter, with its own headline metrics; {glue:text}`c_diverged` of
# {glue:text}`c_runs` diverged (a diverged run has no metrics, is left out of every
# summary and counted in the grade).

# %% tags=["hide-input"]
page.table(appendix.common.run_table(frame))

# %% [markdown]
# ## Recap
#
# - `input_mode="double"` feeds $[e_t, e_t]$;
#   `penb.chapters.appendix.summary.parameter_counts` shows that it matches the
#   position-encoded model's size; `penb.chapters.appendix.analysis.grade_c` grades
#   the "no gain" claim through `penb.claims`.
# - Worth changing next: `vocab` (does double vanilla stay level with vanilla as the
#   vocabulary grows?) and `tasks` (sorting alone costs half).

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
# # Language modelling (App. E)
#
# ## Overview
#
# Morita's appendix E asks whether the encoding that rescues RNNs on large-vocabulary
# reversal also helps an ordinary language model. Single-layer LSTMs, vanilla and with
# the sinusoidal encoding concatenated to the token embedding, are trained on
# WikiText-103 retokenised by SentencePiece to 32,768 pieces, one paragraph per sample
# (headings dropped), on the first 1,024 tokens of each paragraph so that position 0 is
# always the paragraph's start, with the settings of Sec. 3.3. The appendix reports two
# findings: in the training curves (Fig. 15) the position-encoded model learns
# marginally faster at first, a difference that is gone after about 10,000 to 30,000 of
# the 300,000 updates; and its test perplexity is slightly *worse* (Table 1: mean
# {glue:text}`paper_pe:.2f` against {glue:text}`paper_van:.2f`, that is
# {glue:text}`paper_rise:+.1f`%, over five seeds each). The paper concludes that
# positional encoding is no general remedy. The published numbers and the claims as the
# claims registry (`penb.claims`) holds them, with the measure and the rule fixed before
# the confirmation runs. Table 1 and the "no advantage" conclusion speak of the end of
# training, after Fig. 15's curves have met, so they are graded only on runs that long;
# a shorter run tests the early phase of Fig. 15 instead:

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display
from myst_nb import glue

from penb import claims, presets, report
from penb.chapters import lm_appendix, pages
from penb.claims import morita_appendix

pd.set_option("display.max_colwidth", None)
claim = claims.get("morita.table1")
paper_table = pd.DataFrame(claim.value).T.rename(
    index={"vanilla": "vanilla LSTM", "pe": "position-encoded LSTM"})
paper = claim.value
glue("paper_rise", 100 * (paper["pe"]["mean"] / paper["vanilla"]["mean"] - 1),
     display=False)
glue("paper_van", claim.value["vanilla"]["mean"], display=False)
glue("paper_pe", claim.value["pe"]["mean"], display=False)
display(paper_table[["min", "mean", "max"]])
display(claims.overview(c.key for c in claims.of_chapter("lm_appendix")))

# %% tags=["parameters", "hide-input"]
from typing import Optional  # None below means "the preset's value"
# recipe and execution: dicts of knobs that python -m penb params lists with each
# preset's value; each knob also works alone, as -p NAME VALUE

preset: str = "quick"  # smoke, quick or paper
device: Optional[str] = None  # cpu, auto or cuda
corpus: Optional[str] = None  # wikitext-103-raw (paper), wikitext-2 (offline), ...
train_split: Optional[str] = None  # split that trains the tokenizer and the models
test_split: Optional[str] = None  # split of the test perplexity; not train_split
vocab: Optional[int] = None  # SentencePiece pieces (paper: 32,768)
length: Optional[int] = None  # inputs per paragraph, its first tokens (paper: 1,024)
hidden: Optional[int] = None  # LSTM hidden size, also the embedding width (paper: 512)
batch_size: Optional[int] = None  # paragraphs per update (paper: 512)
steps: Optional[int] = None  # training updates (paper: 300,000)
lr: Optional[float] = None  # peak learning rate (paper: 1e-3)
seeds: Optional[tuple] = None  # one trial per seed and model
log_every: Optional[int] = None  # updates per point of the training curve
recipe: Optional[dict] = None  # the training recipe and grading, not what is compared
execution: Optional[dict] = None  # how runs execute, not what they train

# %%
cfg = pages.show_config(presets.from_parameters("lm_appendix", globals()))

# %% [markdown]
# ## Setup and run
#
# The `paper` preset reads WikiText-103 (raw) from a local folder (`PENB_WIKITEXT_DIR`,
# laid out like the official zip) or through the `datasets` library; without either it
# stops with a message naming both ways. The project carries only the *validation* and
# *test* splits of WikiText-2 (word-level, with `<unk>`), so the `quick` and `smoke`
# presets train on **WikiText-2 valid** (tokenizer and models) and measure test
# perplexity on **WikiText-2 test**. These are different articles from each other, but a
# different corpus, about 1/500 the size of WikiText-103's training text, and a smaller
# vocabulary than the paper's: the perplexities below are *not* comparable in value
# with Table 1, only in direction. The table says exactly which files were read.

# %% tags=["hide-input"]
data = lm_appendix.analysis.prepare(cfg)
glue("train_text", data.train_label, display=False)
glue("test_text", data.test_label, display=False)
glue("train_paragraphs", f"{data.train_paragraphs:,}", display=False)
glue("test_paragraphs", f"{data.test_paragraphs:,}", display=False)
passes = cfg.steps * cfg.batch_size / data.train_paragraphs
glue("passes", passes, display=False)
with pd.option_context("display.max_colwidth", 120):
    display(data.table())
print(f"SentencePiece (unigram), {cfg.vocab:,} pieces, trained on the training split: "
      f"{data.tokenizer}")
print(f"{cfg.steps:,} updates x {cfg.batch_size} paragraphs = {passes:.1f} draws per "
      f"training paragraph")
print(report.provenance(cfg, train=data.train_label, test=data.test_label))

# %% [markdown]
# `pieces_in_window` counts the pieces the models can see: each paragraph's first
# `length + 1` (inputs and the last target). A paragraph is drawn uniformly with
# replacement at every slot of a batch. The test perplexity of a run is
# $\exp(\sum \text{cross-entropy} / N)$ over the $N$ scored target tokens of its test
# paragraphs (each paragraph's first `length` targets; padding and SentencePiece's
# unknown piece are not scored), the same definition as the paper's code.
#
# One `penb.trainer` run per model and seed (the `lm` task), kept in the run store: a
# finished run is reused, an interrupted one resumes from its last checkpoint. The same
# seed gives both models the same sequence of training batches, so they can be compared
# seed by seed.

# %%
frame = lm_appendix.analysis.run(cfg, data=data)

# %% tags=["hide-input"]
TEST = dict(test=data.test_label)
summ = lm_appendix.analysis.summary(frame, n_resamples=10_000)
glue("runs", len(frame), display=False)
glue("diverged", int(frame["diverged"].sum()), display=False)
glue("n_seeds", len(cfg.seeds), display=False)
glue("van_mean", float(summ.loc["none", "mean"]), display=False)
glue("pe_mean", float(summ.loc["sinusoidal", "mean"]), display=False)
ratio = summ.loc["sinusoidal", "mean"] / summ.loc["none", "mean"]
glue("test_ratio", float(100 * (ratio - 1)), display=False)
glue("n_scored", f"{int(summ.loc['none', 'n_tokens']):,}", display=False)
glue("spread", float(100 * ((summ["max"] - summ["min"]) / summ["mean"]).max()),
     display=False)
glue("paper_spread", max(100 * (r["max"] - r["min"]) / r["mean"]
                         for r in claim.value.values()), display=False)

# %% [markdown]
# The chapter used {glue:text}`runs` runs ({glue:text}`n_seeds` seeds per model);
# {glue:text}`diverged` diverged.
#
# ## Results: Table 1, test perplexity
#
# Each seed's test perplexity is a cross; the dot beside it is the mean over seeds with
# its 95% Student-t interval over seeds. The paper's panel shows Table 1's range and
# mean.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Test perplexity: left, Table 1 (bar: min to max over five seeds; dot: mean); right, this run: each seed (crosses) and the mean over seeds with its 95% interval over seeds. The two panels use different corpora and model sizes, so only the order of the two models can be compared.", "name": "fig-lm-table1"}}
fig = lm_appendix.plots.test_perplexities(frame, claim.value, summ)
report.stamp(fig, cfg, **TEST)
display(fig)
plt.close(fig)
print(report.provenance(cfg, **TEST))

# %% tags=["hide-input"]
display(lm_appendix.analysis.table1(summ).round(3))
scored = int(summ.loc["none", "n_tokens"])
print(report.provenance(cfg, test=f"{data.test_label}, {scored:,} scored tokens a run"))

# %% [markdown]
# Here the position-encoded LSTM's mean test perplexity is {glue:text}`pe_mean:.2f`
# against {glue:text}`van_mean:.2f` for the vanilla one ({glue:text}`test_ratio:+.1f`%;
# Table 1: {glue:text}`paper_rise:+.1f`%), each over {glue:text}`n_scored` scored tokens
# of {glue:text}`test_text`. The seeds of one model spread over up to
# {glue:text}`spread:.1f`% of its mean (max minus min); in Table 1,
# {glue:text}`paper_spread:.1f`%.
#
# ## Verdict
#
# Three claims, each graded by its registered rule on per-seed evidence. Fig. 15's early
# phase: in each seed, the vanilla model's training loss minus the position-encoded
# model's (same batches), averaged over the logged updates up to a quarter of the run
# or {glue:text}`early_end` updates, whichever comes first; PE is claimed ahead there.
# Table 1 (PE's test perplexity above vanilla's) and "no advantage" (vanilla's test
# perplexity minus PE's stays below Table 1's gap) are graded only where the runs' own
# training curves have met: over the last quarter of the run, PE's mean lead in
# training loss is at most {glue:text}`meet_margin` nats. Runs whose curves have not
# met are in the phase where the paper sees PE ahead, so they are recorded as not
# tested at their preset, with that reason. (Until issue 28 the gate was the paper's
# {glue:text}`gap_closed` updates, which says nothing of a smaller model's curves.)
# That the curves meet by about {glue:text}`gap_closed` updates is a claim of its own,
# graded only on runs that long. The early-gap rule was written after the pilot
# runs (seeds 1001-1005, when this part of the page was exploratory) and before the
# confirmation runs it grades (seeds 2001 on).
#
# Table 1's smallest effect of interest is 0 since issue 35: "slightly worse" states a
# direction, so only PE ahead would contradict it, as with Fig. 15's "marginally". The
# old margin was Table 1's whole gap; the change came after that margin's verdicts had
# been seen, so Table 1's reading here is exploratory.

# %% tags=["hide-input"]
glue("early_end", f"{morita_appendix.EARLY_END:,}", display=False)
glue("gap_closed", f"{morita_appendix.GAP_CLOSED:,}", display=False)
glue("meet_margin", f"{morita_appendix.MEET_MARGIN}", display=False)
grades = lm_appendix.grading.grade(frame, cfg)
for g in grades:
    glue(f"lm_{g.claim.replace('.', '_')}", g.verdict, display=False)
    glue(f"lm_{g.claim.replace('.', '_')}_why", g.reason, display=False)
display(claims.table(grades))
print(report.provenance(cfg, **TEST))

# %% [markdown]
# At this preset Fig. 15's early phase is graded {glue:text}`lm_morita_fig15_early`
# ({glue:text}`lm_morita_fig15_early_why`); its curves meeting by about
# {glue:text}`gap_closed` updates, {glue:text}`lm_morita_fig15_meet`; "no advantage" is
# {glue:text}`lm_morita_appE_no_advantage`
# ({glue:text}`lm_morita_appE_no_advantage_why`)
# and Table 1 {glue:text}`lm_morita_table1` ({glue:text}`lm_morita_table1_why`).
#
# What the test perplexities above can and cannot show depends on the preset. At `quick`
# the text is WikiText-2 (valid for training, test for testing); the vocabulary, width,
# window and batch are far smaller than the paper's, and the run is a small fraction of
# the paper's updates, so the perplexity values cannot be set against Table 1's; they
# are those of models still learning, which is why Table 1 is not graded on them.
# Table 1 itself needs the `paper` preset (WikiText-103, a GPU, 300,000 updates a run).
#
# ## Fig. 15: the training curves
#
# The curves of Fig. 15 at this preset, and the paired gap that the early-phase claim
# reads. The late-quarter gap is descriptive only.

# %% tags=["hide-input"]
curve = lm_appendix.analysis.curves(frame)
gap = lm_appendix.analysis.paired_gap(curve)
v = lm_appendix.analysis.early_late(curve, cfg.steps, morita_appendix.EARLY_END)
glue("early_gap", float(v["early_gap"]), display=False)
glue("late_gap", float(v["late_gap"]), display=False)
glue("early_from", v["early_range"][0], display=False)
glue("early_to", v["early_range"][1], display=False)
glue("late_from", v["late_range"][0], display=False)
glue("early_ahead", v["early_ahead"], display=False)
glue("gap_seeds", v["seeds"], display=False)
glue("first_gap", float(gap.drop(columns="mean").iloc[0].abs().max()), display=False)
glue("first_step", int(gap.index[0]), display=False)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Left: training perplexity (exp of the mean cross-entropy over each logging interval) of every seed, vanilla (grey) and position-encoded (red), against the update, as Fig. 15; the dotted line ends the warm-up. Right: log(vanilla / position-encoded) training perplexity per seed (thin) and its mean (thick); above zero the position-encoded model is ahead.", "name": "fig-lm-curves"}}
fig = lm_appendix.plots.training_curves(curve, gap, warmup=cfg.warmup)
report.stamp(fig, cfg, corpus=data.train_label)
display(fig)
plt.close(fig)
print(report.provenance(cfg, corpus=data.train_label))

# %% [markdown]
# Over the logged updates {glue:text}`early_from` to {glue:text}`early_to` (the early
# window, warm-up included) the mean paired gap is {glue:text}`early_gap:.3f` in log
# perplexity (positive: PE ahead; 0.01 is about 1% lower perplexity); over the last
# quarter (from update {glue:text}`late_from`) it is {glue:text}`late_gap:.3f`. PE is
# ahead over the early window for {glue:text}`early_ahead` of {glue:text}`gap_seeds`
# seeds. The two models of one seed see the same batches but do not start from the same
# weights (the PE model's input matrix is wider, so its random draws differ), and the
# paired gap is already up to {glue:text}`first_gap:.3f` at update
# {glue:text}`first_step`, before either model has learnt much: that part of the gap is
# initialisation noise, which the interval over seeds has to see through.

# %% tags=["hide-input"]
by_seed = pd.DataFrame({"early gap": v["early_by_seed"]})
by_seed.index.name = "seed"
display(by_seed.round(4))
print(report.provenance(cfg, corpus=data.train_label))

# %% [markdown]
# ## Runs
#
# Every run of the chapter, with its own test perplexity; {glue:text}`diverged` of
# {glue:text}`runs` diverged (a diverged run has no test perplexity, is left out of
# every summary and counted in the grade).

# %% tags=["hide-input"]
display(lm_appendix.analysis.run_table(frame))
print(report.provenance(cfg, **TEST))

# %% [markdown]
# ## Recap
#
# - Two single-layer LSTMs, vanilla and with the sinusoidal encoding concatenated to the
#   embedding, trained by `penb.trainer` on paragraph starts of {glue:text}`train_text`
#   ({glue:text}`train_paragraphs` paragraphs, about {glue:text}`passes:.0f` draws of
#   each) and tested on {glue:text}`test_paragraphs` paragraphs of
#   {glue:text}`test_text`.
# - Test perplexity = exp(total cross-entropy / scored target tokens), per run; the
#   claims are graded per seed through `penb.claims` (`lm_appendix.grading.grade`).
# - To go further: `steps` (the late phase of Fig. 15), more `seeds` (the spread at
#   test), `vocab` and `length` towards the paper's, or `corpus="wikitext-103-raw"` with
#   `train_split="train"` where the corpus is available (`PENB_WIKITEXT_DIR` or the
#   `datasets` library).

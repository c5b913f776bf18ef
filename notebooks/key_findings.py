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
# # Key findings: positional encoding and a large vocabulary
#
# ## Overview
#
# **Claim (Morita, Sec. 4.1, Fig. 2).** On the reverse-ordering task (read $L$ random
# integers, then write them back in reverse order; the paper's $L$ is
# {glue:text}`kf_paper_length`), single-layer GRUs and LSTMs whose inputs are
# concatenated with the sinusoidal positional encoding (PE) reverse the sequences with a
# token accuracy above {glue:text}`kf_paper_threshold` for every vocabulary the paper
# tried: {glue:text}`kf_paper_gru_vocab` for the GRU, {glue:text}`kf_paper_lstm_vocab`
# for the LSTM. Without PE ("vanilla") the accuracy falls as the vocabulary grows. PE
# also helps S4D, a state-space model, at large vocabularies (no number is printed), and
# the reconstruction errors, measured by the Damerau-Levenshtein distance between
# predicted and true output sequences, fall with it. The text adds that neither longer
# training nor larger batches rescued the vanilla models. Fig. 2's error bars are 95%
# bootstrap intervals ({glue:text}`kf_paper_bootstrap` resamples) over
# {glue:text}`kf_paper_seeds` seeds x {glue:text}`kf_paper_held_out` held-out sequences.
#
# The paper's setting (hidden = embedding = {glue:text}`kf_paper_hidden`, batch
# {glue:text}`kf_paper_batch`, {glue:text}`kf_paper_steps` updates per run,
# {glue:text}`kf_paper_runs` runs for the figure) needs a GPU (`-p preset paper` with
# `-p device cuda`). The book's default, `quick`, is a smaller regime found by a search
# on a 2-core CPU (see the end of the chapter): shorter sequences, a smaller network,
# far fewer updates and smaller vocabularies.
#
# **How the claims are graded.** Each claim below carries, in the registry
# `penb.claims`, the measure and the rule that grade it, written before its confirmation
# runs. The unit is the seed: every number a rule reads is one run's own headline
# metric, PE and vanilla runs are paired by seed, and a verdict's interval is a 95%
# Student-t interval over seeds (the figures' bars are descriptive bootstraps). Each
# model's seed count comes from a power calculation on an earlier pilot (seeds
# 1001-1005), and the graded presets train fresh confirmation seeds that neither a
# regime search nor the pilot used (`paper` keeps the official seeds). A run whose loss
# turns non-finite is kept as diverged: shown, counted, never averaged in.
#
# **Optimiser.** The paper's text gives Adam's betas as {glue:text}`kf_betas_text`; the
# official training script passes {glue:text}`kf_betas_code`. The engine defaults to the
# code's, and the `betas` parameter chooses.

# %% tags=["hide-input"]
import pandas as pd

from penb import presets
from penb.power import fig2 as fig2_power, fig2_v1, fig2_v3
from penb.chapters import pages, key_findings, rnn_common
from penb.chapters.key_findings import page
from penb.report import provenance

pd.set_option("display.max_colwidth", None)
page.overview()

# %% tags=["parameters", "hide-input"]
from typing import Optional  # None below means "the preset's value"
# recipe and execution: dicts of knobs that python -m penb params lists with each
# preset's value; each knob also works alone, as -p NAME VALUE

preset: str = "quick"  # smoke, quick, deep, deep_v2, deep_v3, slice, gpu, lease, paper
device: Optional[str] = None  # auto, cpu or cuda
seeds: Optional[tuple] = None  # one training-test trial per seed, e.g. (1001, 1002)
core_seeds: Optional[dict] = None  # seeds (the first n) per model, e.g. {"s4d": 3}
cores: Optional[tuple] = None  # models among gru, lstm and s4d
gru_vocab: Optional[tuple] = None  # vocabulary sizes of the GRU
lstm_vocab: Optional[tuple] = None  # vocabulary sizes of the LSTM
s4d_vocab: Optional[tuple] = None  # vocabulary sizes of the S4D
length: Optional[int] = None  # input length L; the output phase has L more steps (paper: 64)
hidden: Optional[int] = None  # hidden = embedding = encoding size, every model (paper: 512)
batch_size: Optional[int] = None  # sequences per update (paper: 512)
steps: Optional[int] = None  # training updates per run, Fig. 2's N (paper: 300,000)
lr: Optional[float] = None  # peak learning rate of Adam (paper: 1e-3)
per_core: Optional[dict] = None  # per-model hidden, batch_size, steps, lr or warmup
recipe: Optional[dict] = None  # the training recipe and grading, not what is compared
execution: Optional[dict] = None  # how runs execute, not what they train

# %%
cfg = pages.show_config(presets.from_parameters("key_findings", globals()))
extra = key_findings.analysis.provenance_extra(cfg)  # what every stamp adds

# %% [markdown]
# The training settings of each model (the common ones, with `per_core` applied):

# %% tags=["hide-input"]
page.settings(cfg)

# %% [markdown]
# ## Training
#
# Every (model, vocabulary, encoding, seed) is one run of `penb.train`: an embedding of
# $V + 1$ rows (row $V$ is the learnable command fed during the output phase), the
# sinusoidal encoding of the positions $0, \dots, 2L - 1$ concatenated to it (PE) or
# nothing (vanilla), the core, and a linear readout to $V$ logits, trained on fresh
# random sequences with the held-out ones excluded. Runs already in the run store (same
# configuration, any chapter) are reused; interrupted ones resume from their last
# checkpoint.

# %%
run_frame = key_findings.analysis.run(cfg)
page.run_counts(run_frame)

# %% [markdown]
# The {glue:text}`kf_runs` runs ({glue:text}`kf_seed_count` seeds per cell:
# {glue:text}`kf_seed_list`) took {glue:text}`kf_run_minutes:.1f` minutes of training in
# all ({glue:text}`kf_run_seconds:.0f` s per run on average, counted where they were
# made). **{glue:text}`kf_diverged` of them diverged**: their loss turned non-finite, so
# they have no predictions. They are listed with the step in the run table at the end,
# counted in the `diverged` column below, left out of every mean and interval, and
# passed to the grading rules, for which a comparison with a diverged run decides
# nothing.
#
# ## Results
#
# Token accuracy is the fraction of output tokens predicted correctly; the distance is
# the Damerau-Levenshtein distance between a predicted and a true output sequence
# (insertions, deletions, substitutions and swaps of neighbours each cost 1), averaged
# over the held-out sequences of a run. Each run gives one number per metric; the figure
# and the table show the mean over seeds with its 95% bootstrap interval over seeds, and
# every seed's own value.

# %% tags=["hide-input"]
summ = key_findings.analysis.summary(run_frame, n_resamples=cfg.bootstrap, pooled=True)
fig = key_findings.plots.vocab_sweep(summ, run_frame, models=cfg.cores)
pages.figure("kf_fig2", fig, cfg, **extra)

# %% [markdown]
# ```{glue:figure} kf_fig2
# :name: fig-kf-fig2
#
# Fig. 2 at this preset: token accuracy (top) and mean Damerau-Levenshtein distance of
# the output sequences (bottom) against the vocabulary size, vanilla (grey circles) vs.
# position-encoded (red squares). Filled markers and bars: the mean over seeds and its
# 95% bootstrap interval over seeds; hollow points: one run (seed) each. Diverged runs
# are left out (see the run table). The paper's panels use longer sequences and larger
# networks (see the provenance line below).
# ```

# %% tags=["hide-input"]
print(provenance(cfg, **extra))

# %% [markdown]
# The same numbers as a table. `seeds` counts the valid runs of a cell and `diverged`
# the others. The intervals over seeds are the ones the claims use; the intervals over
# sequences resample the held-out sequences of all seeds together, as the paper's
# caption describes, and are shown for comparison only: sequences of one run are not
# independent draws of the effect, so those intervals can be far narrower than the
# evidence allows.

# %% tags=["hide-input"]
display(key_findings.analysis.summary_table(summ))
print(provenance(cfg, bootstrap=cfg.bootstrap, **extra))

# %% [markdown]
# ## Verdict
#
# Each claim graded by its registered rule on this preset's runs: PE vs. vanilla at each
# model's largest vocabulary here, the distance per model, and, per model, the growth of
# the gap and the vanilla model's decline over its vocabularies. `ours` gives the
# seed-level numbers behind the verdict, `why` the rule's reason. The paper's claims are
# about trained models, and the paper's own test of "trained" (Sec. 4.1) is that more
# updates do not help the vanilla models. The doubling test applies it: every run is
# also trained at half its updates on the same seed, and a verdict stands only where
# going from half the budget to the full one moved nothing that could overturn it by the
# claim's smallest effect of interest, on an interval over seeds: the gap must not
# shrink, the model behind must not rise and the model ahead must not fall (a gap that
# grows while vanilla still climbs says "PE learns faster", not "PE is better"). The
# mark beside each badge says whether doubling *settled* the verdict or *moved* it;
# unfold a row for every move and which of them keep it undecided, and the learning
# curves. Protocol 8 (in force) then reads a settled verdict at the paper's own 300,000
# updates: it stands only where runs at N/4 are there and what the doublings left could
# add cannot close the gap: the later move's bound, growing at most at the ratio the
# seeds bound from N/4 -> N/2 to N/2 -> N (undecided where a move is seen and no ratio
# bounds it), for the gap and for each model that moves. A verdict decided there assumes
# no take-off after N, which no test at N can see. Earlier protocols' verdicts are the
# committed table the scorecard's protocol section shows.

# %%
grades = page.verdicts(key_findings.analysis.grade(run_frame, cfg), cfg, **extra)
pages.doubling(grades, "kf_doubling", cfg, **extra)

# %% [markdown]
# ```{glue:figure} kf_doubling
# :name: fig-kf-doubling
#
# The doubling test behind the verdicts above (Fig. 2 and Sec. 4.1): for each claim
# about trained models, how far each quantity that could overturn its verdict moved
# from half the updates to the full budget, per seed (dot: the mean, bar: its 95%
# Student-t interval over seeds), in units of the claim's smallest effect of interest.
# A verdict stands only where every bar of its claim stays on the shaded side of its
# dashed line: a gap found must not shrink by one smallest effect, a gap denied must
# not grow by one, a "no gain" must not move either way (green: it held; orange: it
# did not).
# ```
#
# At preset {glue:text}`kf_preset` the claims read: GRU at $V$ = {glue:text}`kf_gru_v`,
# **{glue:text}`kf_verdict_gru`**; LSTM at $V$ = {glue:text}`kf_lstm_v`,
# **{glue:text}`kf_verdict_lstm`**; S4D at $V$ = {glue:text}`kf_s4d_v`,
# **{glue:text}`kf_verdict_s4d`**; the distance: GRU
# **{glue:text}`kf_verdict_distance_gru`**, LSTM
# **{glue:text}`kf_verdict_distance_lstm`**, S4D
# **{glue:text}`kf_verdict_distance_s4d`**. The gap grows with the vocabulary: GRU
# **{glue:text}`kf_verdict_trend_gru`**, LSTM **{glue:text}`kf_verdict_trend_lstm`**,
# S4D **{glue:text}`kf_verdict_trend_s4d`**; the vanilla model declines: GRU
# **{glue:text}`kf_verdict_decline_gru`**, LSTM
# **{glue:text}`kf_verdict_decline_lstm`**. The paper's level is a claim of its own: the
# PE GRU **{glue:text}`kf_verdict_level_gru`** and the PE LSTM
# **{glue:text}`kf_verdict_level_lstm`** against a mean accuracy above
# {glue:text}`kf_threshold` (its interval over seeds must lie wholly above it; wholly
# below, it refutes the level). This preset's networks are {glue:text}`kf_hidden` units
# wide (the paper: {glue:text}`kf_paper_hidden`), its sequences {glue:text}`kf_length`
# tokens long ({glue:text}`kf_paper_length`) and its runs make {glue:text}`kf_steps`
# updates ({glue:text}`kf_paper_steps`), so its accuracies are not the paper's and are
# compared with the paper's level only through those rows. The LSTM trains with bf16
# autocast where the CPU has AMX (the `per model` line of the provenance says so). The
# quick preset trains every model on the same {glue:text}`kf_seed_count` confirmation
# seeds, chosen by a rule that reads no verdict ({glue:text}`kf_quick_rule`): the LSTM
# and the S4D at their largest vocabulary only, since their trends over three
# vocabularies cost more than that rule allows; the gpu preset trains them. The GRU's
# cells train as one batch where that is faster than one run at a time
# (`penb.trainer.policy`). Sec. 4.1 also says that extra updates did not improve the
# vanilla models: the rows `sec4_1.more_updates` read it on the doubling test's own runs
# (the vanilla model at N against itself at N/2), and count a gain against the text only
# where the PE model has settled, as it had at the paper's budget; under protocol 6
# either verdict also needs the vanilla model above chance, and no gain must hold to the
# paper's budget (runs at N/4). Its larger-batch half (last row) needs each cell trained
# at a second batch size, which no preset does yet.
#
# ## Exploratory (not graded)
#
# Chosen after the data was seen, and graded by no claim: the paired gap (PE minus
# vanilla token accuracy, per seed) at every vocabulary of every model, not only the
# largest, with its bootstrap interval over seeds and the number of seeds in which PE
# was ahead. Where a preset has fewer than three LSTM vocabularies, this table is the
# only look at how the gap changes with the vocabulary.
#
# Where the doubling test above says a comparison *moved*, its models were still
# learning at this budget, and the table reads "PE ahead after this many updates",
# not the paper's claim about trained models. The book registers no graded
# early-training form of Fig. 2 (such as "PE speeds up early learning at large $V$"):
# the idea came after these runs were seen, so grading it would need seeds that no
# run of this chapter has used yet.

# %% tags=["hide-input"]
page.gaps(run_frame, cfg, **extra)

# %% [markdown]
# ### Two doublings
#
# The `quick`, `deep` and `slice` presets also train every run at a quarter of its
# updates (`earlier`), a branch of the same trunk. The table gives each cell's mean
# over seeds at N/4, N/2 and N: the two doublings whose moves the protocol's horizon
# reads (protocol 8: the growth per doubling the seeds bound from one move to the
# next, or its growth charged where no move is seen).

# %% tags=["hide-input"]
display(rnn_common.budget_view(run_frame, cfg))

# %% [markdown]
# ### What would decide Fig. 2: the power analysis
#
# Before any `deep` confirmation run, `scripts/search_deep.py` trained the model behind
# (the vanilla GRU) at quick's shapes on **search seeds only**, at V 32-256 and at
# budgets 500-2,000 and 8,000-32,000, and `scripts/power_analysis.py` simulated the
# verdict of "PE above vanilla" at the largest vocabulary through the composition that
# grades it (`penb.power.fig2_v1`): vanilla on its searched curve, with the seeds'
# offsets and the evaluation noise measured there, against the text's own effect (the PE
# GRU above 95%, stopped), at the text's 300,000 updates. Each row says how often the
# protocol would settle the claim with that many seeds at that N (power), and what the
# whole figure (four vocabularies, two variants) costs: CPU-minutes on the 2-core
# AVX-512 host and minutes of one H100. The rule that picked the `deep` preset's N and
# seeds from this table is `penb.presets.DEEP_RULE`; 64,000 updates are extrapolated
# from vanilla's last two moves.

# %% tags=["hide-input"]
pages.power(fig2_v1)

# %% [markdown]
# The deep run sized by that table decided no comparison of the figure, and the PE GRU
# it met was far from the text's (see "Archived executions"). `penb.sizing` therefore
# holds a second rule for the next deep run of this figure, written before its
# search: DEEP_RULE v2 reads both variants searched on the same search seeds (the PE
# GRU in `deep_search_pe.csv`), extrapolates up to 128,000 updates, and prices the
# figure in minutes of one H100 at the five confirmation seeds the first deep run did
# not use (2006-2010). Its table (`penb.power.fig2`), and the `deep_v2` preset that
# holds its choice as fixed targets for GPU calls that continue each other
# (`make device-run DEVICE_PRESET=deep_v2`; on this CPU it would take hours):

# %% tags=["hide-input"]
pages.power(fig2_power)

# %% [markdown]
# ### The long run toward the text's 300,000 updates
#
# No GPU was lent, so the CPU trains the headline cell (V 256) itself, in segments a
# few hours long whose state is committed between them (`penb.long_run`). The V 256
# runs of `deep_v2` reached 128,000 updates first. DEEP_RULE v3 (`penb.sizing`) was
# written after that archive and before any trunk went further. It carries the same
# trunks, on the same five seeds, to the text's 300,000 updates, with 150,000 and
# 75,000 on them (preset `deep_v3`). Its power comes from the archived curves
# (`penb.power.fig2_v3`). Five seeds are underpowered for the comparison in every
# scenario below, for two reasons. Even at the text's budget, the comparison needs the
# vanilla GRU to have stopped gaining, and it had not stopped at 128,000. Even where
# both models stop, a gap of about 0.03 is small beside the seeds' spread (per-seed
# offset sd 0.022, noise sd 0.011). The level and the extra-updates claim are read at
# the text's budget with no extrapolation. Each power is a share of 200 draws, so it is
# uncertain by about 2 points.

# %% tags=["hide-input"]
pages.power(fig2_v3, whole=False)

# %% [markdown]
# The V 256 cell as the long run's archives hold it. Lines: each seed's training-batch
# accuracy on its longest run, from 1,000 updates. That run holds the peak learning rate
# until its decay starts at 0.8 N, where the line turns up. Points: held-out accuracy at
# each budget, one per seed, with a bar at the mean. The points at N/4 and N/2 come from
# decayed branches, so they sit above the line at those updates. Dotted lines: the
# budgets. The box gives each archive's verdicts on the four claims this cell decides,
# with the protocol that graded them.

# %% tags=["hide-input"]
page.long_run()

# %% [markdown]
# ## Archived executions
#
# This machine cannot train these models far enough, but a short GPU call can train
# many of them at once. `python -m penb slice key_findings --minutes 8` trains the
# `slice` preset (this page's cells, GRU and LSTM, further and on more seeds, all runs
# of one shape as one batched model) in one GPU command, and `python -m penb lease`
# trains the `lease` preset (Fig. 2's headline pair at the paper's size) in steps;
# `python -m penb archive key_findings` then executes this chapter on those runs.
# Each such execution in the repository (`book/archived/key_findings-*/`) is shown
# below as it was recorded, with the device, commit, date, seeds and budgets that made
# it, and its verdicts beside this page's: archived, not re-run by this build. The
# scorecard counts the verdicts they decided apart from this build's.

# %% tags=["hide-input"]
pages.archived(key_findings.archived.load_all(cfg, grades))

# %% [markdown]
# ## Runs
#
# Every run of this chapter, one row each: its own headline metrics on its held-out
# sequences, and `diverged_at`, the update at which a diverged run's loss turned
# non-finite (empty for a valid run); `wall_s` is its training time where it was made.

# %% tags=["hide-input"]
pages.table(key_findings.analysis.run_table(run_frame), cfg, **extra)

# %% [markdown]
# ### How the `quick` preset was chosen
#
# The table below lists the development runs of the regime search behind the `quick`
# preset: every configuration tried, in the order tried, made by
# `scripts/search_key_findings.py` (rows marked `earlier` are scouting runs from before
# the script, taken from the planning notes and not rerun). Every one of them used
# search seeds; the graded runs above use confirmation seeds, so no run of this table
# enters a verdict. Accuracies are held-out token accuracies (mean over the seeds
# listed, then per seed); `wall_s_per_run` is the training time of one run on one CPU
# thread while other work shared the machine, so it is only a rough guide. Rounds
# `c1`-`c3` are curve probes: one long run per variant under a nearly constant learning
# rate (a cosine over 20,000 updates), scored on the held-out set every 1,000 updates,
# to see when the two variants part. Round `cand1` was a first candidate for the preset;
# round `confirm` trained the regime chosen on 2026-11-22 on three search seeds; rounds
# `r9`-`r11` (2026-11-23, search seeds 0 and 1) replaced its LSTM.
#
# What that search taught, in order: at hidden 128 and batch 64 (the planning notes'
# regime) the effect needed about four minutes per run, far over the budget; at hidden
# 64 a learning rate of 1e-2 learned about twice as fast as 3e-3 (round `r1`); in the
# curves, the PE model left the vanilla one only after a few thousand updates at a high
# learning rate (`c1`), and a cosine schedule that decays within the budget erased much
# of that gap (`r2`); small batches favoured the vanilla LSTM, large ones the
# position-encoded one (`r3`-`r5`); the GRU showed a gap in every seed at a small
# vocabulary within half a minute per run (`cand1`); the LSTM and S4D gaps at that scale
# were small next to the differences between seeds and changed sign in some seeds at
# most settings tried (`cand1`, `r6`, `r7`); the LSTM at batch 128 and S4D at a learning
# rate of 3e-2 (`r7`, `r8`) gave the widest gaps that fit the budget. On review, the
# hidden-64 LSTM cell decided nothing (its gap changed sign with the seed, and the
# paper's official code does the same at that setting), so the LSTM moved to the CPU
# probes' hidden 128, batch 64, lr 3e-3, shortened to 4,000 updates (`r10`): vanilla
# fell behind at V 128, 256 and 512 on both search seeds; the same budget at L 8 and
# hidden 64 showed no gap (`r9`). `r11` tried the GRU's and S4D's added vocabularies.

# %% tags=["hide-input"]
pages.wide(key_findings.analysis.search_table())

# %% [markdown]
# ## Recap
#
# - `penb.chapters.key_findings.analysis.run(cfg)` trains (or reuses) one run per model,
#   vocabulary, encoding and seed, diverged runs kept and counted; `analysis.summary`
#   gives each cell's mean token accuracy and Damerau-Levenshtein distance over seeds
#   with bootstrap intervals over seeds; `analysis.grade` grades every claim of the
#   chapter through the registry `penb.claims`, which also feeds the scorecard;
#   `penb.chapters.key_findings.plots.vocab_sweep` (the shared
#   `penb.plotting.vocab_sweep`) draws Fig. 2's layout with every seed's point.
# - `quick` is a smaller, shorter, briefly trained version of the paper's experiment,
#   chosen by the search above and graded on seeds that search never used; `per_core`
#   gives each model its own batch, updates or learning rate.
# - Worth changing next: `seeds` (more trials narrow the intervals over seeds), `steps`
#   and `per_core` (whether longer training widens or closes the gap), `lstm_vocab`
#   (three or more vocabularies let the trend claim be graded), `betas` (the text's
#   against the code's), and `-p preset paper -p device cuda` for the published setting.

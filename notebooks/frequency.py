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
# # Frequency matters: rare disturbants
#
# ## Overview
#
# **Claim (Morita, Sec. 4.2, Fig. 3).** A larger vocabulary makes each token rarer. To
# separate the two, the paper splits the vocabulary into a FREQUENT and a RARE half and
# trains the reverse-ordering task ($L$ = {glue:text}`fq_paper_length`) on sequences
# whose positions hold a RARE token with probability {glue:text}`fq_paper_rarity`, so
# that each FREQUENT token is {glue:text}`fq_paper_ratio` times as likely as each RARE
# one. The vocabularies are {glue:text}`fq_paper_vocab_gru` tokens for the GRU,
# {glue:text}`fq_paper_vocab_lstm` for the LSTM and {glue:text}`fq_paper_vocab_s4d` for
# the S4D. Each test sequence holds one scored *target* token (FREQUENT or RARE) at a
# position $t$ among *disturbants* that are all FREQUENT or all RARE. The paper reports:
#
# - the frequency of the **disturbants**, not of the target, decides the vanilla models'
#   accuracy: RARE targets are retrieved among FREQUENT disturbants, while RARE
#   disturbants hurt the vanilla GRU (FREQUENT targets), the vanilla LSTM (most with the
#   target in the first quarter of the positions) and the vanilla S4D (worst in the
#   second quarter);
# - the position-encoded (PE) RNNs are robust to the frequency of the target and of the
#   disturbants, and nearly perfect in most conditions, the exception being the GRU on
#   all-RARE data with the target in the first half; PE also makes the S4D more
#   resilient.
#
# Fig. 3's intervals are 95% bootstrap intervals over the test sequences of
# {glue:text}`fq_paper_seeds` seeds x {glue:text}`fq_paper_tests` test sequences
# ({glue:text}`fq_paper_per_cell` per condition and target position). Two details of
# the paper disagree with each other or with the code: Sec. 4.2 and Fig. 3's caption
# both say the FREQUENT tokens were "three times" as likely, while the probabilities
# Sec. 4.2 prints in the same sentence (7/8 x 2/K against 1/8 x 2/K) and the official
# code make them seven times as likely; we follow the printed probabilities and the code
# (`rarity`). The
# official code builds 4 test sequences per condition and position, the caption says
# {glue:text}`fq_paper_per_cell`; the `paper` preset follows the caption (`per_cell`).
#
# **How the claims are graded.** The registry `penb.claims` holds each claim below with
# its measure and rule, written before the confirmation runs. The *harm* of RARE
# disturbants to one run is its accuracy with FREQUENT disturbants minus its accuracy
# with RARE ones, over all targets and positions. Each claim reads one number per seed
# (the seed is the independent unit), pairs the variants by seed, and grades with 95%
# Student-t intervals over seeds (the grading protocol in force, `penb.claims.protocol`;
# the figures' bars are descriptive). The graded presets train confirmation seeds that no regime
# search used (`paper` keeps the published seeds). A run whose loss turns non-finite is
# kept as diverged: shown, counted, never averaged in.

# %% tags=["hide-input"]
import pandas as pd

from penb import presets
from penb.claims import archives
from penb.chapters import frequency, pages, rnn_common
from penb.chapters.frequency import page
from penb.power import fig3 as fq_power
from penb.report import provenance

pd.set_option("display.max_colwidth", None)
page.overview()

# %% tags=["parameters", "hide-input"]
from typing import Optional  # None below means "the preset's value"
# recipe and execution: dicts of knobs that python -m penb params lists with each
# preset's value; each knob also works alone, as -p NAME VALUE

preset: str = "quick"  # smoke, quick, gpu or paper
device: Optional[str] = None  # auto, cpu or cuda
seeds: Optional[tuple] = None  # one training-test trial per seed
cores: Optional[tuple] = None  # models among gru, lstm and s4d
gru_vocab: Optional[int] = None  # vocabulary of the GRU (FREQUENT + RARE halves)
lstm_vocab: Optional[int] = None  # vocabulary size of the LSTM
s4d_vocab: Optional[int] = None  # vocabulary size of the S4D
rarity: Optional[float] = None  # probability that a training position is RARE
per_cell: Optional[int] = None  # test sequences per target x disturbants x position
length: Optional[int] = None  # input length L, a multiple of 4: four quarters (paper: 64)
hidden: Optional[int] = None  # hidden = embedding = encoding size (paper: 512)
batch_size: Optional[int] = None  # sequences per update (paper: 512)
steps: Optional[int] = None  # training updates per run (paper: 300,000)
lr: Optional[float] = None  # peak learning rate of Adam (paper: 1e-3)
encodings: Optional[tuple] = None  # vanilla (none) vs. position-encoded (sinusoidal)
per_core: Optional[dict] = None  # per-model hidden, batch_size, steps, lr or warmup
recipe: Optional[dict] = None  # the training recipe and grading, not what is compared
execution: Optional[dict] = None  # how runs execute, not what they train

# %%
cfg = pages.show_config(presets.from_parameters("frequency", globals()))
extra = rnn_common.provenance_extra(cfg)
page.settings(cfg)

# %% [markdown]
# ## Training
#
# One run of `penb.train` per (model, encoding, seed) on the `dual_frequency` task:
# reverse ordering, each training position RARE with probability `rarity`, the token
# uniform within its half. Before training, each run draws its test grid (FREQUENT/RARE
# target x all-FREQUENT/all-RARE disturbants x target position $1..L$, `per_cell`
# sequences each), which is excluded from training; only the target's output step is
# scored. The runs keep their checkpoints: the chapter "Gradient stability" scores them
# (same settings, same run keys, no retraining). Runs already in the run store are
# reused.

# %%
run_frame = frequency.analysis.run(cfg)
cells = frequency.analysis.cells(run_frame)
page.run_counts(run_frame, cfg)

# %% [markdown]
# The {glue:text}`fq_runs` runs ({glue:text}`fq_seed_count` seeds per model and variant:
# {glue:text}`fq_seed_list`) took {glue:text}`fq_run_minutes:.1f` minutes of training in
# all (counted where they were made); each was tested on {glue:text}`fq_tests`
# sequences. **{glue:text}`fq_diverged` of them diverged**: they have no predictions,
# are listed in the run table at the end, are left out of every mean and interval, and
# are passed to the grading rules, for which a comparison with a diverged run decides
# nothing.
#
# ## Results
#
# Accuracy is the fraction of test sequences whose target token is predicted at its
# output step. Each run gives one accuracy per condition and quarter of target
# positions; bars show the mean over seeds with its 95% Student-t interval over seeds,
# points each seed's own value.

# %% tags=["hide-input"]
quarter = frequency.analysis.by_quarter(cells, cfg.length, n_resamples=cfg.bootstrap)
pages.figure("fq_fig_quarters", frequency.plots.quarter_bars(
    quarter, frequency.analysis.quarter_seeds(cells, cfg.length), models=cfg.cores),
    cfg, **extra)

# %% [markdown]
# ```{glue:figure} fq_fig_quarters
# :name: fig-fq-quarters
#
# Fig. 3 at this preset: accuracy of the target token by quarter of its position $t$,
# per condition (rows: target group, disturbant group) and model (columns), vanilla
# (grey) vs. position-encoded (red). Bars and error bars: mean over seeds and its 95%
# Student-t interval over seeds; points: one seed each.
# ```

# %% tags=["hide-input"]
print(provenance(cfg, bootstrap=cfg.bootstrap, **extra))

# %% [markdown]
# Position by position, the same accuracies: lines and bands are the mean over seeds and
# its interval over seeds, dots each seed's value.

# %% tags=["hide-input"]
position = frequency.analysis.by_position(cells, n_resamples=cfg.bootstrap)
pages.figure("fq_fig_positions", frequency.plots.position_lines(
    position, frequency.analysis.position_seeds(cells), models=cfg.cores), cfg, **extra)

# %% [markdown]
# ```{glue:figure} fq_fig_positions
# :name: fig-fq-positions
#
# Accuracy position by position: one row per model, one column per condition; vanilla
# (grey) and position-encoded (red) means over seeds with 95% bootstrap bands over
# seeds, and one dot per seed.
# ```

# %% tags=["hide-input"]
print(provenance(cfg, bootstrap=cfg.bootstrap, **extra))

# %% [markdown]
# ### The graded measure: the harm of RARE disturbants
#
# Per run, the accuracy with FREQUENT disturbants minus the accuracy with RARE ones,
# over both target groups and all positions. The paper's claim in this form: the harm
# is positive for the vanilla models (the harm claims) and larger than for PE (the
# robustness claims). The GRU's harm claim reads FREQUENT targets only, the group the
# text names for the GRU (its figure is in the exploratory section below).

# %% tags=["hide-input"]
sh = frequency.analysis.seed_harm(cells, target="all")
sh_summary = frequency.analysis.harm_summary(sh, n_resamples=cfg.bootstrap)
fig = frequency.plots.harm_points(sh, sh_summary, models=cfg.cores)
pages.figure("fq_fig_harm", fig, cfg, **extra)

# %% [markdown]
# ```{glue:figure} fq_fig_harm
# :name: fig-fq-harm
#
# The harm of RARE disturbants per seed (accuracy with FREQUENT minus with RARE
# disturbants, all targets), vanilla vs. position-encoded; a grey line joins the two
# runs of one seed; diamonds and bars: mean over seeds and its 95% bootstrap interval
# over seeds.
# ```

# %% tags=["hide-input"]
print(provenance(cfg, bootstrap=cfg.bootstrap, **extra))

# %% [markdown]
# The same as a table: the harm per model and variant (mean over seeds, interval over
# seeds), and the paired gap, vanilla harm minus PE harm, with the number of seeds in
# which the vanilla model was hurt more.

# %% tags=["hide-input"]
display(frequency.analysis.harm_table(sh_summary, sh, n_resamples=cfg.bootstrap))
print(provenance(cfg, bootstrap=cfg.bootstrap, **extra))

# %% [markdown]
# ## Verdict
#
# Each claim graded by its registered rule on this preset's runs: `ours` gives the
# seed-level numbers behind the verdict, `why` the rule's reason. The claims speak of
# trained models, so (the doubling test) every run is also trained at half its
# updates, and a verdict stands only where doubling the updates moved the claim's own
# quantity (the RARE-disturbant harm, the RARE targets, the positions) and each
# compared condition or model by less than its smallest effect of interest; the mark
# beside each badge says whether it *settled*, and an unfolded row which move did not.
# Protocol 8 (in force) reads a settled verdict at the paper's 300,000 updates, which
# needs runs at N/4 as well (without them: "one doubling only", undecided): where the
# seeds bound how fast the moves could grow it charges that growth over the doublings
# left; where a move is seen and nothing bounds its growth the verdict stays undecided.

# %%
grades = page.verdicts(frequency.analysis.grade_claims(cfg, run_frame, sh, cells), cfg,
                       **extra)
pages.doubling(grades, "fq_doubling", cfg, **extra)

# %% [markdown]
# ```{glue:figure} fq_doubling
# :name: fig-fq-doubling
#
# The doubling test behind the verdicts above (Fig. 3 and Sec. 4.2): for each claim
# about trained models, how far each quantity that could overturn its verdict moved
# from half the updates to the full budget, per seed (dot: the mean, bar: its 95%
# Student-t interval over seeds), in units of the claim's smallest effect of interest.
# A verdict stands only where every bar of its claim stays on the shaded side of its
# dashed line: a gap found must not shrink by one smallest effect, a gap denied must
# not grow by one, a "no gain" must not move either way (green: it held; orange: it
# did not).
# ```

# %% [markdown]
# At preset {glue:text}`fq_preset`, the harm claims (RARE disturbants lower the vanilla
# accuracy) read: GRU ($V$ = {glue:text}`fq_vocab_gru`) **{glue:text}`fq_v_harm_gru`**,
# LSTM ($V$ = {glue:text}`fq_vocab_lstm`) **{glue:text}`fq_v_harm_lstm`**, S4D ($V$ =
# {glue:text}`fq_vocab_s4d`) **{glue:text}`fq_v_harm_s4d`**. The robustness claims (PE
# is hurt less than vanilla) read: GRU **{glue:text}`fq_v_pe_robust_gru`**, LSTM
# **{glue:text}`fq_v_pe_robust_lstm`**, S4D **{glue:text}`fq_v_pe_robust_s4d`**. Every
# rule asks for a seed-level interval of the paired difference above 0 with at least
# {glue:text}`fq_agree` of the seeds agreeing, and at least {glue:text}`fq_min_seeds`
# valid seeds. A robustness claim also needs a harm to be robust against: when the
# vanilla model's mean harm is within {glue:text}`fq_margin` of 0, its rule decides
# nothing (the rule's reason then speaks of a trivial baseline: there is no harm for PE
# to reduce). The level claims (the near-perfect PE models, the GRU's exception, the
# S4D at $t = 1$, the RARE targets "successfully retrieved") speak of trained models:
# each is decided only where doubling the updates moved its per-seed level by less than
# 0.02. The `quick` networks are small and briefly trained on sequences a quarter of the
# paper's length, with smaller vocabularies (see below), so their accuracies are not the
# paper's near-perfect values; the doubling test says whether more training could
# change that, and the `paper` preset on a GPU tests the levels at the text's scale.
#
# ## Exploratory (not graded)
#
# **What was chosen after seeing which data.** The registered measure pools both target
# groups, as the chapter first graded it. After the regime search's first rounds came
# back (rounds `f0` and `f1` of the table below, search seeds 111 and 222), two choices
# were made with those numbers in view:
#
# - the harm was restricted to FREQUENT targets, because the briefly trained models had
#   not learned the RARE tokens (a RARE target was often lost whatever surrounded it);
# - the GRU vocabulary of `quick` was set to 32 tokens, the size at which the vanilla
#   GRU's FREQUENT-target harm showed in round `f1` (not at 16 tokens; at 64, round
#   `f0`, the GRU was too untrained to show anything). The LSTM's 64 and the S4D's 256
#   tokens were kept for the accuracy they reached, although neither showed the
#   FREQUENT-target effect in the search.
#
# The FREQUENT-target harm was therefore exploratory and graded nothing. Issue 35
# (2026-11-26) then read the GRU's harm claim on FREQUENT targets, because Sec. 4.2 says
# the vanilla GRU struggled with the FREQUENT targets: a reading that follows the text's
# words, but chosen after the pooled reading's verdicts and this search had been seen,
# so `morita.fig3.harm.gru` is labelled exploratory in the registry. The LSTM's and the
# S4D's harm claims keep the pooled measure (the text names no target group for them).
# Every verdict uses confirmation seeds that the search never saw; the GRU vocabulary
# stays a choice informed by the search's data, which is why its harm is worth reading
# with that in mind.

# %% tags=["hide-input"]
page.harm_frequent(cells, cfg, **extra)

# %% [markdown]
# ```{glue:figure} fq_fig_harm_frequent
# :name: fig-fq-harm-frequent
#
# The harm of RARE disturbants per seed for FREQUENT targets only, vanilla vs.
# position-encoded (layout as in the graded figure): the measure of the GRU's harm
# claim (exploratory, see above); for the LSTM and the S4D not graded.
# ```

# %% tags=["hide-input"]
print(provenance(cfg, bootstrap=cfg.bootstrap, **extra))

# %% [markdown]
# ### How the `quick` preset was chosen
#
# The table lists every configuration of the regime search, in the order tried, made by
# `scripts/search_frequency.py`: overrides of this chapter's preset, search seeds 111
# and 222, scored with sequences of both seeds pooled (harm for FREQUENT targets in
# `harm_vanilla` / `harm_pe`, `separated` when the vanilla interval lies wholly above
# the PE one; `harm_*_all` pools both target groups; `wall_s_per_run` is one run's
# training time on one CPU thread on a shared machine). No run of this table enters a
# verdict.
#
# The first draft (round `f0`: GRU 64, LSTM and S4D 256 tokens, hidden 64, batch 64,
# 3,000 updates) left the GRU and the LSTM near 0.2 accuracy, too untrained to show a
# harm pattern. Smaller vocabularies (round `f1`) trained the models to 0.4-0.9 on
# FREQUENT targets; there the GRU at 32 tokens showed the FREQUENT-target effect, while
# the LSTM (64 tokens) lost about as much with or without PE. Round `f2` made RARE four
# times rarer (rarity 1/32): the GRU effect grew and the LSTM's intervals parted, but
# with both LSTM harms negative, and the RARE targets were then barely learned. The
# preset keeps the paper's rarity and the `f1` vocabularies (the LSTM with the
# key-findings batch of 128 and 2,000 updates, `per_core`); `per_cell` = 32 narrows the
# intervals at no training cost, and a checkpoint every 300 updates gives "Gradient
# stability" its curves.

# %% tags=["hide-input"]
pages.wide(frequency.analysis.search_table())

# %% [markdown]
# ### Two doublings, where a preset trains them
#
# The `quick` and `slice` presets also train every run at a quarter of its updates
# (`earlier`), a branch of the same trunk, so that a reader sees the doubling before the
# one the doubling test reads. The table gives each cell's mean over seeds at N/4, N/2
# and N: the two doublings whose moves the protocol's horizon reads (protocol 8: the
# growth per doubling the seeds bound from one move to the next, or its growth charged
# where no move is seen). Presets without that budget print why there is no table.

# %% tags=["hide-input"]
display(rnn_common.budget_view(run_frame, cfg))

# %% [markdown]
# ### What would decide Fig. 3's GRU cell: the power analysis
#
# Before any `deep` confirmation run of this chapter, `scripts/search_deep.py --chapter
# frequency` trained the GRU, vanilla and position-encoded, at quick's shapes on
# **search seeds only**, at V 32 and the paper's 64 and at budgets 1,000-32,000, and
# `scripts/power_analysis.py --chapter frequency` simulated the verdict of
# `morita.fig3.pe_robust.gru` (the vanilla GRU harmed more by RARE disturbants than
# the PE one) through the composition that grades it (`penb.power.fig3`): both
# variants' harm on their searched curves, with the seeds' offsets and the evaluation
# noise measured there, at the text's 300,000 updates. Each row says how often the
# protocol would settle the claim with that many seeds at that N (power; at the
# smallest effect of interest beside it), and what the cell (two variants) costs:
# CPU-minutes on the 2-core AVX-512 host, at the rate the search measured, and
# minutes of one H100. The rule that reads the `deep` preset's N and seeds off this
# table is `penb.sizing.FREQ_DEEP_RULE`; 64,000 updates are extrapolated from each
# side's last two moves.

# %% tags=["hide-input"]
pages.power(fq_power)

# %% [markdown]
# ## Archived executions
#
# `python -m penb slice frequency --minutes 8` trains this chapter's `slice` preset
# (its GRU and LSTM cells, further and on more seeds, as batched models) in one GPU
# command; `python -m penb run frequency --preset deep` trains the `deep` preset the
# power analysis above chose, on this CPU. `python -m penb archive frequency` executes
# this chapter on such runs. Each execution in the repository
# (`book/archived/frequency-*/`) is shown below as it was recorded (device, commit,
# date, seeds, budgets): its verdicts beside this page's, each with what it measured,
# and for each claim about trained models how every quantity the doubling test reads
# moved over the last two doublings (N/4 to N/2, then N/2 to N, with their intervals
# over seeds). It is not re-run by this build.

# %% tags=["hide-input"]
pages.archived(archives.views("frequency", cfg, grades))

# %% [markdown]
# ## Runs
#
# {glue:text}`fq_diverged` of the {glue:text}`fq_runs` runs diverged. Every run of this
# chapter: `token_accuracy` is its accuracy over its whole test grid,
# `diverged_at` the update at which a diverged run's loss turned non-finite (empty for a
# valid run), `wall_s` its training time where it was made. The second table gives each
# valid run's accuracy with FREQUENT and with RARE disturbants and their difference, the
# numbers the claims read.

# %% tags=["hide-input"]
page.run_tables(run_frame, sh, cfg, **extra)

# %% [markdown]
# ## Recap
#
# - `penb.chapters.frequency.analysis.run(cfg)` trains (or reuses) one dual-frequency
#   run per model, encoding and seed, diverged runs kept and counted; `cells` counts the
#   right answers per condition and target position; `by_quarter` / `by_position` and
#   `seed_harm` give each seed's numbers and their seed-level summaries; `grade_claims`
#   grades the chapter's claims through the registry `penb.claims`, which also feeds the
#   scorecard.
# - The same runs, with their checkpoints, feed the chapter "Gradient stability".
# - Worth changing next: `seeds` (more seeds narrow the intervals over seeds), `rarity`,
#   the vocabularies (`lstm_vocab`: the paper's 1,024), `steps`, and
#   `-p preset paper -p device cuda` for the published setting.

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
# ({glue:text}`fq_paper_per_cell` per condition and target position). Two details
# disagree: Sec. 4.2 and the caption call FREQUENT tokens "three times" as likely, while
# the probabilities printed in the same sentence (7/8 x 2/K against 1/8 x 2/K) and the
# official code make them seven times; we follow those (`rarity`). The code builds 4
# test sequences per cell, the caption {glue:text}`fq_paper_per_cell`; `paper` follows
# the caption (`per_cell`).
#
# **How the claims are graded.** Each claim's measure and rule sit in `penb.claims`,
# written before the confirmation runs. The *harm* of RARE disturbants to a run is its
# accuracy with FREQUENT disturbants minus that with RARE ones. Each claim reads one
# number per seed, pairs the variants by seed and grades with 95% Student-t intervals
# over seeds, on confirmation seeds no search used (`paper` keeps the published seeds);
# a diverged run is counted, never averaged in.

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
length: Optional[int] = None  # input length L, four quarters (paper: 64)
hidden: Optional[int] = None  # hidden, embedding and encoding size (paper: 512)
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
# One run of `penb.trainer` per (model, encoding, seed) on the `dual_frequency` task:
# reverse ordering, each training position RARE with probability `rarity`. Each run
# draws its test grid first (FREQUENT/RARE target x all-FREQUENT/all-RARE disturbants x
# position $1..L$, `per_cell` sequences each; excluded from training; only the target's
# output step is scored). "Gradient stability" scores the same runs' checkpoints.

# %%
run_frame = frequency.analysis.run(cfg)
cells = frequency.analysis.cells(run_frame)
page.run_counts(run_frame, cfg)

# %% [markdown]
# The {glue:text}`fq_runs` runs ({glue:text}`fq_seed_count` seeds per model and variant:
# {glue:text}`fq_seed_list`) took {glue:text}`fq_run_minutes:.1f` minutes of training in
# all; each was tested on {glue:text}`fq_tests` sequences. **{glue:text}`fq_diverged`
# diverged**: listed in the run table, left out of every mean, deciding no comparison.
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
# Each claim graded by its registered rule (`ours`: the seed-level numbers, `why`: the
# rule's reason). The doubling test (every run also trained at half its updates) lets a
# verdict stand only where doubling moved the claim's quantity and each compared
# condition by less than its smallest effect; the mark beside each badge says whether it
# *settled*. Protocol 8 (in force) carries a settled verdict to the paper's 300,000
# updates with runs at N/4 (without them: "one doubling only", undecided).

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
# rule asks for a seed-level interval of the paired difference above 0, at least
# {glue:text}`fq_agree` of the seeds agreeing and at least {glue:text}`fq_min_seeds`
# valid seeds; a robustness claim decides nothing while the vanilla harm is within
# {glue:text}`fq_margin` of 0 (no harm for PE to reduce). The level claims (near-perfect
# PE, the GRU's exception, the S4D at $t = 1$, RARE targets retrieved) stand only where
# doubling moved the per-seed level by less than 0.02; `quick`'s small, briefly trained
# networks are not at the paper's levels, which the `paper` preset tests on a GPU.
#
# ## Exploratory (not graded)
#
# **Chosen after seeing data.** The registered measure pools both target groups. After
# the search's first rounds (`f0`, `f1` below, search seeds 111 and 222), two choices
# were made with those numbers in view: the harm restricted to FREQUENT targets (the
# briefly trained models had not learned RARE tokens), and `quick`'s GRU vocabulary set
# to 32, where the vanilla GRU's FREQUENT-target harm showed (not at 16; at 64 the GRU
# was too untrained). The LSTM's 64 and S4D's 256 were kept for their accuracy, though
# neither showed that effect. Issue 35 then read the GRU's harm claim on FREQUENT
# targets, as Sec. 4.2 words it, but after the pooled verdicts were seen, so
# `morita.fig3.harm.gru` is labelled exploratory; the LSTM and S4D keep the pooled
# measure. All verdicts use confirmation seeds the search never saw.

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
# Every configuration of the regime search, in order (`scripts/search_frequency.py`,
# search seeds 111 and 222 pooled; `harm_vanilla` / `harm_pe` for FREQUENT targets,
# `separated` where the vanilla interval lies wholly above PE's, `harm_*_all` both
# groups; `wall_s_per_run` one shared CPU thread). No run here enters a verdict.
#
# Round `f0` (GRU 64, LSTM and S4D 256, hidden 64, batch 64, 3,000 updates) left the
# GRU and LSTM near 0.2 accuracy. Smaller vocabularies (`f1`) reached 0.4-0.9 on
# FREQUENT targets: the GRU at 32 showed the effect, the LSTM (64) lost as much with PE
# as without. `f2` (rarity 1/32) grew the GRU's effect but made both LSTM harms negative
# and RARE targets barely learned. The preset keeps the paper's rarity and `f1`'s
# vocabularies (LSTM: batch 128, 2,000 updates, `per_core`); `per_cell` = 32 narrows
# intervals for free, and a checkpoint every 300 updates feeds "Gradient stability".

# %% tags=["hide-input"]
pages.wide(frequency.analysis.search_table())

# %% [markdown]
# ### Two doublings, where a preset trains them
#
# `quick` and `slice` also train every run at N/4 (`earlier`), a branch of the same
# trunk: each cell's mean over seeds at N/4, N/2 and N, the two doublings protocol 8's
# horizon reads. Presets without that budget say why there is no table.

# %% tags=["hide-input"]
display(rnn_common.budget_view(run_frame, cfg))

# %% [markdown]
# ### What would decide Fig. 3's GRU cell: the power analysis
#
# Before any `deep` run, `scripts/search_deep.py --chapter frequency` trained both GRU
# variants at quick's shapes on **search seeds only** (V 32 and 64, 1,000-32,000
# updates), and `scripts/power_analysis.py --chapter frequency` simulated the verdict of
# `morita.fig3.pe_robust.gru` through the rule that grades it (`penb.power.fig3`), with
# the searched curves, seed offsets and noise, at the text's 300,000 updates. Each row:
# the power at that N and seed count, and the cell's cost in CPU-minutes here and
# H100-minutes. `penb.sizing.FREQ_DEEP_RULE` reads `deep` off it; 64,000 updates are
# extrapolated from each side's last two moves.

# %% tags=["hide-input"]
pages.power(fq_power)

# %% [markdown]
# ## Archived executions
#
# Runs trained further than this build can (`python -m penb slice frequency` on a GPU,
# `python -m penb run frequency --preset deep` on this CPU), executed by `python -m penb
# archive frequency`. Each archive (`book/archived/frequency-*/`) is shown as recorded
# (device, commit, date, seeds, budgets), its verdicts beside this page's, with how each
# doubling moved what the test reads; not re-run by this build.

# %% tags=["hide-input"]
pages.archived(archives.views("frequency", cfg, grades))

# %% [markdown]
# ## Runs
#
# {glue:text}`fq_diverged` of the {glue:text}`fq_runs` runs diverged. Every run:
# `token_accuracy` over its whole test grid, `diverged_at` (empty for a valid run),
# `wall_s`; then each valid run's accuracy with FREQUENT and RARE disturbants and their
# difference, the numbers the claims read.

# %% tags=["hide-input"]
page.run_tables(run_frame, sh, cfg, **extra)

# %% [markdown]
# ## Recap
#
# - `frequency.analysis`: `run(cfg)` trains or reuses one run per model, encoding and
#   seed; `cells` counts right answers per condition and position; `by_quarter`,
#   `by_position` and `seed_harm` give each seed's numbers; `grade_claims` grades the
#   chapter's claims through `penb.claims`. The same runs feed "Gradient stability".
# - Worth changing next: `seeds`, `rarity`, the vocabularies (`lstm_vocab`: the
#   paper's 1,024), `steps`, and `-p preset paper -p device cuda`.

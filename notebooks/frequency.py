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
# **Claim (Morita, Sec. 4.2, Fig. 3).** A larger vocabulary makes each token rarer. To separate the two, the
# paper splits the vocabulary into a FREQUENT and a RARE half and trains the reverse-ordering task ($L = 64$)
# on sequences whose positions hold a RARE token with probability 1/8, so that each FREQUENT token is
# $7/8 \cdot 2/K$ likely and each RARE one $1/8 \cdot 2/K$: 7 times less ($K$ = 64 for the GRU, 1,024 for
# the LSTM, 2,048 for the S4D). The test sequences hold one scored *target* token (FREQUENT or RARE) at a
# position $t$ among 63 *disturbants* that are all FREQUENT or all RARE. The paper reports:
#
# - the frequency of the **disturbants**, not of the target, decides the vanilla models' accuracy: RARE
#   targets are retrieved among FREQUENT disturbants, while RARE disturbants hurt the vanilla GRU (FREQUENT
#   targets), the vanilla LSTM (most with the target in the first quarter, $1 \le t \le 16$) and the vanilla
#   S4D (worst for $17 \le t \le 32$);
# - the position-encoded (PE) RNNs are nearly perfect in most conditions; the exception is the GRU on
#   all-RARE data with the target in the first half. PE also makes the S4D more resilient.
#
# Fig. 3's intervals are 95% bootstrap intervals (10,000 resamples) over five seeds x 4,096 test sequences,
# 16 per condition and target position. Two details of the paper disagree with each other or with the code:
# Fig. 3's caption says the FREQUENT group was sampled "three times" more often, while the text (7/8 vs. 1/8,
# i.e. 7 times per token) and the official code (rarity 1/8) agree on 7; we follow the text and the code
# (`rarity`). The official code builds **4** test sequences per condition and position, the caption says 16;
# we use at least 16 (`per_cell`).
#
# The claim as recorded in `penb.claims`:

# %%
import pandas as pd

from penb import claims

pd.set_option("display.max_colwidth", None)
fig3 = claims.get("morita.fig3")
pd.DataFrame([(fig3.key, fig3.where, fig3.statement, fig3.extra)], columns=["claim", "where", "statement", "extra"])

# %% tags=["parameters"]
from typing import Optional  # None below means "the preset's value"

preset: str = "quick"  # smoke, quick or paper
device: Optional[str] = None  # auto, cpu or cuda
seeds: Optional[tuple] = None  # one training-test trial per seed
cores: Optional[tuple] = None  # models among gru, lstm and s4d
gru_vocab: Optional[int] = None  # vocabulary size of the GRU (FREQUENT + RARE halves)
lstm_vocab: Optional[int] = None  # vocabulary size of the LSTM
s4d_vocab: Optional[int] = None  # vocabulary size of the S4D
rarity: Optional[float] = None  # probability that a training position holds a RARE token
per_cell: Optional[int] = None  # test sequences per target x disturbants x position
length: Optional[int] = None  # input length L (a multiple of 4: four quarters of positions)
hidden: Optional[int] = None  # hidden size, also the embedding and encoding size
batch_size: Optional[int] = None  # sequences per update
steps: Optional[int] = None  # training updates per run
warmup: Optional[int] = None  # linear warm-up updates before the cosine decay
lr: Optional[float] = None  # peak learning rate of Adam
betas: Optional[tuple] = None  # Adam betas, the official code's (0.9, 0.98) or the text's (0.9, 0.999)
encodings: Optional[tuple] = None  # vanilla (none) vs. position-encoded (sinusoidal)
checkpoint_every: Optional[int] = None  # updates between kept checkpoints (scored by "Gradient stability")
bootstrap: Optional[int] = None  # bootstrap resamples of each 95% interval
amp: Optional[str] = None  # none (fp32) or bf16 autocast on CUDA
workers: Optional[int] = None  # runs at a time; on the CPU each is a process with one thread
per_core: Optional[dict] = None  # per-model overrides of hidden, batch_size, steps, lr or warmup

# %%
from myst_nb import glue

from penb import presets
from penb.chapters import frequency, rnn_common
from penb.names import RNN_CORES, model_name
from penb.report import provenance, stamp

cfg = presets.from_parameters("frequency", globals())
print(cfg)
presets.differences(cfg)

# %% [markdown]
# ## Training
#
# One run of `penb.train` per (model, encoding, seed) on the `dual_frequency` task: reverse ordering, each
# training position RARE with probability `rarity`, the token uniform within its half. Before training,
# each run draws its test grid (FREQUENT/RARE target x all-FREQUENT/all-RARE disturbants x target position
# $1..L$, `per_cell` sequences each), which is excluded from training; only the target's output step is
# scored. The runs keep their checkpoints: the chapter "Gradient stability" scores them (same settings,
# same run keys, no retraining). Runs already in the run store are reused.

# %%
runs = frequency.analysis.run(cfg)
runs.drop(columns=["path", "key"]).round(4)

# %%
cells = frequency.analysis.cells(runs)
quarter = frequency.analysis.by_quarter(cells, cfg.length, n_resamples=cfg.bootstrap)
position = frequency.analysis.by_position(cells, n_resamples=cfg.bootstrap)
glue("fq_runs", len(runs), display=False)
glue("fq_run_minutes", float(runs["wall_s"].sum() / 60), display=False)
tests_per_run = cells.groupby(["model", "variant", "seed"])["n"].sum()
glue("fq_tests", int(tests_per_run.iloc[0]), display=False)

# %% [markdown]
# The {glue:text}`fq_runs` runs took {glue:text}`fq_run_minutes:.1f` minutes of training in all (counted
# where they were made). Each run was tested on {glue:text}`fq_tests` sequences.
#
# ## Results
#
# Accuracy is the fraction of test sequences whose target token is reproduced at its output step. Every
# interval is a 95% percentile bootstrap over the pooled test sequences of all seeds, as in Fig. 3's caption
# (for right/wrong outcomes, a resampled mean of $n$ sequences with $k$ right is exactly a
# Binomial$(n, k/n)/n$ draw, which `penb.chapters.frequency.analysis.proportion_ci` uses).

# %% mystnb={"figure": {"caption": "Fig. 3 at this preset: accuracy of the target token by quarter of its position t, for each condition (rows: target group, disturbant group) and model (columns), vanilla (grey) vs. position-encoded (red), with 95% bootstrap intervals over seeds x test sequences.", "name": "fig-fq-quarters"}}
fig = frequency.plots.quarter_bars(quarter, models=cfg.cores)
stamp(fig, cfg, **rnn_common.provenance_extra(cfg));

# %%
table = quarter.assign(ci=[f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(quarter.lo, quarter.hi)])
display(table.pivot_table(index=["model", "target", "disturbants", "quarter"], columns="variant",
                          values="accuracy", sort=False).round(3))
print(provenance(cfg, bootstrap=cfg.bootstrap, **rnn_common.provenance_extra(cfg)))

# %% mystnb={"figure": {"caption": "Accuracy position by position: one row per model, one column per condition; lines are vanilla (grey) and position-encoded (red), bands their 95% bootstrap intervals over seeds x test sequences.", "name": "fig-fq-positions"}}
fig = frequency.plots.position_lines(position, models=cfg.cores)
stamp(fig, cfg, **rnn_common.provenance_extra(cfg));

# %% [markdown]
# ### How much RARE disturbants hurt
#
# The *harm* of RARE disturbants is the accuracy with FREQUENT disturbants minus the accuracy with RARE
# ones (positions pooled), with a 95% bootstrap interval (the two groups resampled independently). The
# paper's claim, in this form: the harm is large for vanilla models and small for PE.
#
# We compute it for FREQUENT targets, for RARE targets and for both pooled, and grade the claim on the
# FREQUENT targets. The paper's converged models retrieve RARE targets as well as FREQUENT ones (among
# FREQUENT disturbants), so there the target's group does not matter and pooling is harmless. Our briefly
# trained models have not yet learned the RARE tokens well (see the tables above): a RARE target is often
# lost whatever surrounds it, and pooling would mix that effect of the *target's* frequency into a measure
# meant for the *disturbants'*. With a FREQUENT target only the disturbants change between the two
# conditions, which is the comparison the paper's GRU statement makes.

# %%
harm = pd.concat([frequency.analysis.harm(cells, n_resamples=cfg.bootstrap, target=t)
                  for t in ("frequent", "rare", "all")])
display(harm.round(4).set_index(["target", "model", "variant"]))
contrast = frequency.analysis.contrast(harm[harm.target == "frequent"])
contrast_all = frequency.analysis.contrast(harm[harm.target == "all"])
claims_table = frequency.analysis.claims_table(quarter, contrast)
display(claims_table.set_index("model"))
print(provenance(cfg, bootstrap=cfg.bootstrap, **rnn_common.provenance_extra(cfg)))

# %%
verdict = frequency.analysis.verdict(contrast)
glue("fq_verdict", verdict, display=False)
for tag, table in (("", contrast), ("_all", contrast_all)):
    which = ", ".join(map(model_name, table.model[table.separated])) or "none"
    glue(f"fq_separated{tag}", which, display=False)
for tag, table in (("", contrast), ("all_", contrast_all)):
    for c in table.itertuples():
        van = f"{c.vanilla_harm:+.3f} [{c.vanilla_lo:+.3f}, {c.vanilla_hi:+.3f}]"
        glue(f"fq_{tag}{c.model}_van", van, display=False)
        pe = f"{c.pe_harm:+.3f} [{c.pe_lo:+.3f}, {c.pe_hi:+.3f}]"
        glue(f"fq_{tag}{c.model}_pe", pe, display=False)
    for core in RNN_CORES:
        if core not in set(table.model):
            glue(f"fq_{tag}{core}_van", "not run", display=False)
            glue(f"fq_{tag}{core}_pe", "not run", display=False)
for core in RNN_CORES:
    glue(f"fq_{core}_vocab", int(cfg[f"{core}_vocab"]), display=False)

# %% [markdown]
# ## Verdict
#
# **At this preset: {glue:text}`fq_verdict`.** For FREQUENT targets, RARE disturbants hurt the vanilla model
# more than the position-encoded one, with disjoint 95% intervals, for: {glue:text}`fq_separated` (with both
# target groups pooled: {glue:text}`fq_separated_all`). Harm (accuracy with FREQUENT disturbants minus
# accuracy with RARE ones) with 95% intervals:
#
# | model | vocabulary | vanilla, FREQUENT targets | PE, FREQUENT targets | vanilla, pooled | PE, pooled |
# |---|---|---|---|---|---|
# | GRU | {glue:text}`fq_gru_vocab` | {glue:text}`fq_gru_van` | {glue:text}`fq_gru_pe` | {glue:text}`fq_all_gru_van` | {glue:text}`fq_all_gru_pe` |
# | LSTM | {glue:text}`fq_lstm_vocab` | {glue:text}`fq_lstm_van` | {glue:text}`fq_lstm_pe` | {glue:text}`fq_all_lstm_van` | {glue:text}`fq_all_lstm_pe` |
# | S4D | {glue:text}`fq_s4d_vocab` | {glue:text}`fq_s4d_van` | {glue:text}`fq_s4d_pe` | {glue:text}`fq_all_s4d_van` | {glue:text}`fq_all_s4d_pe` |
#
# The verdict checks the direction only ("direction reproduced": every model; "partly": some). The `quick`
# preset trains small networks on sequences a quarter of the paper's length for about a hundredth of its
# updates, with smaller vocabularies (see the appendix), so its accuracies are not comparable with the
# paper's near-perfect PE values; the paper preset on a GPU tests those. A negative harm means the models
# did *better* among RARE disturbants, which happens in briefly trained models (see the appendix). The
# per-quarter table shows where, along the sequence, each model loses its targets.
#
# ## Recap
#
# - `penb.chapters.frequency.analysis.run(cfg)` trains (or reuses) one dual-frequency run per model,
#   encoding and seed; `cells` counts right answers per condition and target position, `by_quarter` /
#   `by_position` pool the seeds with bootstrap intervals, `harm` and `contrast` compare the damage RARE
#   disturbants do; `penb.chapters.frequency.plots` draws Fig. 3 by quarter and by position.
# - The same runs, with their checkpoints, feed the chapter "Gradient stability" (Fig. 5).
# - Worth changing next: `rarity` (how rare RARE is), the vocabularies (`lstm_vocab`: the paper's 1,024),
#   `per_cell` (narrower intervals), `steps`, and `-p preset paper -p device cuda` for the published setting.
#
# ## Appendix: how the `quick` preset was chosen
#
# The table lists every configuration tried, in the order tried, made by `scripts/search_frequency.py`:
# overrides of this chapter's preset, two seeds each, scored like the chapter (harm for FREQUENT targets in
# `harm_vanilla` / `harm_pe`; `separated` when the vanilla interval lies wholly above the PE one;
# `wall_s_per_run` is one run's training time on one CPU thread, on a machine that other work shared).
#
# What it showed. The first draft (round `f0`: the paper's vocabularies scaled to GRU 64, LSTM and S4D 256,
# at the key-findings regime of hidden 64, batch 64, 3,000 updates) left the GRU and the LSTM near 0.2
# accuracy, too untrained to show anything, with no harm pattern. Smaller vocabularies (round `f1`) train the
# models to 0.4-0.9 on FREQUENT targets; there the GRU at 32 tokens shows the paper's GRU effect (RARE
# disturbants cost the vanilla GRU accuracy on FREQUENT targets and cost the PE GRU none), while the LSTM
# (64 tokens) and the S4D (256) lose about as much with or without PE. Round `f2` made RARE four times rarer
# (rarity 1/32): the GRU effect grew, and the LSTM's intervals parted too, but with both harms negative (both
# LSTMs did better among RARE disturbants, the vanilla one less so), and the RARE targets were then barely
# learned at all. The preset keeps
# the paper's rarity of 1/8 and the `f1` vocabularies: GRU 32, LSTM 64 (with the key-findings batch of 128
# and 2,000 updates, `per_core`), S4D 256. `per_cell` = 32 (twice the paper's 16) narrows the intervals at
# no training cost, and a checkpoint every 300 updates gives the chapter "Gradient stability" its curves.

# %%
search = frequency.analysis.search_table()
with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 250):
    display(search)

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
# **Claim (Morita, Sec. 4.1, Fig. 2).** On the reverse-ordering task (read $L = 64$ random integers, then
# write them back in reverse order), single-layer GRUs and LSTMs whose inputs are concatenated with the
# sinusoidal positional encoding (PE) reverse the sequences with a token accuracy above 95% for every
# vocabulary the paper tried: 32-256 for the GRU, 256-16,384 for the LSTM. Without PE ("vanilla") the
# accuracy falls as the vocabulary grows. PE also helps S4D, a state-space model, at large vocabularies
# (no number is printed), and the reconstruction errors, measured by the Damerau-Levenshtein distance
# between predicted and true output sequences, fall with it. The text adds that neither longer training
# nor larger batches rescued the vanilla models. Fig. 2's error bars are 95% bootstrap intervals (10,000
# resamples) over five seeds x 1,024 held-out sequences.
#
# The paper's setting (hidden = embedding = 512, batch 512, 300,000 updates per run, 90 runs for the figure)
# needs a GPU: `-p preset paper -p device cuda`. The book's default, `quick`, is a smaller regime found by a
# search on a 2-core CPU (appendix): shorter sequences, a smaller network, a few thousand updates and
# smaller vocabularies, chosen so that the whole chapter trains in about a quarter of an hour. It can test the
# *direction* of the claim (PE above vanilla at the largest vocabulary, with disjoint confidence
# intervals), not the paper's values.
#
# **Optimiser.** The paper's text gives Adam's betas as (0.9, 0.999); the official training script passes
# (0.9, 0.98). The engine defaults to the code's (0.9, 0.98), and the `betas` parameter chooses.
#
# The claims as recorded in `penb.claims`:

# %%
import pandas as pd

from penb import claims

pd.set_option("display.max_colwidth", None)
pd.DataFrame([(c.key, c.where, c.statement, c.value) for c in claims.CLAIMS.values()
              if c.key.startswith("morita.fig2") or c.key == "morita.settings"],
             columns=["claim", "where", "statement", "value"]).set_index("claim")

# %% tags=["parameters"]
from typing import Optional  # None below means "the preset's value"

preset: str = "quick"  # smoke, quick or paper
device: Optional[str] = None  # auto, cpu or cuda
seeds: Optional[tuple] = None  # one training-test trial per seed, e.g. (111, 222, 333)
cores: Optional[tuple] = None  # models among gru, lstm and s4d
gru_vocab: Optional[tuple] = None  # vocabulary sizes of the GRU
lstm_vocab: Optional[tuple] = None  # vocabulary sizes of the LSTM
s4d_vocab: Optional[tuple] = None  # vocabulary sizes of the S4D
length: Optional[int] = None  # input length L, the output phase has L more steps
hidden: Optional[int] = None  # hidden size, also the embedding and encoding size
batch_size: Optional[int] = None  # sequences per update
steps: Optional[int] = None  # training updates per run
warmup: Optional[int] = None  # linear warm-up updates before the cosine decay
lr: Optional[float] = None  # peak learning rate of Adam
betas: Optional[tuple] = None  # Adam betas, the official code's (0.9, 0.98) or the text's (0.9, 0.999)
held_out: Optional[int] = None  # test sequences per trial, never trained on
checkpoint_every: Optional[int] = None  # updates between kept checkpoints
bootstrap: Optional[int] = None  # bootstrap resamples of each 95% interval
amp: Optional[str] = None  # none (fp32) or bf16 autocast on CUDA
workers: Optional[int] = None  # runs at a time; on the CPU each is a process with one thread
per_core: Optional[dict] = None  # per-model overrides of hidden, batch_size, steps, lr or warmup

# %%
import matplotlib.pyplot as plt
from myst_nb import glue

from penb import presets
from penb.chapters import key_findings
from penb.names import RNN_CORES, model_name
from penb.report import provenance, stamp

cfg = presets.from_parameters("key_findings", globals())
print(cfg)
presets.differences(cfg)

# %% [markdown]
# The training settings of each model (the common ones, with `per_core` applied):

# %%
pd.DataFrame({model_name(c): key_findings.analysis.settings(cfg, c) for c in cfg.cores})

# %% [markdown]
# ## Training
#
# Every (model, vocabulary, encoding, seed) is one run of `penb.train`: an embedding of $V + 1$ rows (row
# $V$ is the learnable command fed during the output phase), the sinusoidal encoding of the positions
# $0, \dots, 2L - 1$ concatenated to it (PE) or nothing (vanilla), the core, and a linear readout to $V$
# logits, trained on fresh random sequences with the held-out ones excluded. Runs already in the run store
# (same configuration, any chapter) are reused; interrupted ones resume from their last checkpoint.

# %%
runs = key_findings.analysis.run(cfg)
runs.drop(columns=["path", "key"]).round(4)

# %%
summ = key_findings.analysis.summary(runs, n_resamples=cfg.bootstrap)
glue("kf_runs", len(runs), display=False)
glue("kf_run_minutes", float(runs["wall_s"].sum() / 60), display=False)
glue("kf_run_seconds", float(runs["wall_s"].mean()), display=False)

# %% [markdown]
# The {glue:text}`kf_runs` runs took {glue:text}`kf_run_minutes:.1f` minutes of training in all
# ({glue:text}`kf_run_seconds:.0f` s per run on average, counted where they were made).
#
# ## Results
#
# Token accuracy is the fraction of output tokens predicted correctly; the distance is the
# Damerau-Levenshtein distance between a predicted and a true output sequence (insertions, deletions,
# substitutions and swaps of neighbours each cost 1), averaged over sequences. Each interval resamples
# the held-out sequences of all seeds together, as the paper's caption describes.

# %% mystnb={"figure": {"caption": "Fig. 2 at this preset: token accuracy (top) and mean Damerau-Levenshtein distance of the output sequences (bottom) against the vocabulary size, vanilla (grey circles) vs. position-encoded (red squares), with 95% bootstrap intervals over seeds x held-out sequences. The paper's panels use L = 64 and larger networks; see the provenance line for this run.", "name": "fig-kf-fig2"}}
fig = key_findings.plots.vocab_sweep(summ, models=cfg.cores)
stamp(fig, cfg, **key_findings.analysis.provenance_extra(cfg));

# %%
table = summ.assign(accuracy_ci=[f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(summ.accuracy_lo, summ.accuracy_hi)],
                    distance_ci=[f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(summ.distance_lo, summ.distance_hi)])
display(table[["model", "vocab", "variant", "seeds", "accuracy", "accuracy_ci", "distance", "distance_ci",
               "accuracy_per_seed"]].round(4).set_index(["model", "vocab", "variant"]))
print(provenance(cfg, bootstrap=cfg.bootstrap,
                 **key_findings.analysis.provenance_extra(cfg)))

# %% [markdown]
# ### The paper's claims beside ours
#
# One row per model, at the largest vocabulary of this preset. `paper` is what Fig. 2 and Sec. 4.1 state;
# `vanilla` and `pe` are our token accuracies with their 95% intervals; `pe_above_95` checks the paper's
# threshold, which only the paper preset can be expected to meet; `direction` says whether PE is ahead with
# intervals that do not overlap.

# %%
claims_table = key_findings.analysis.claims_table(summ, cfg)
display(claims_table.set_index("claim"))
print(provenance(cfg, bootstrap=cfg.bootstrap,
                 **key_findings.analysis.provenance_extra(cfg)))

# %%
sep = key_findings.analysis.separation(summ).set_index("model")
verdict = key_findings.analysis.verdict(summ)
glue("kf_verdict", verdict, display=False)
glue("kf_separated", f"{int(sep['separated'].sum())} of {len(sep)}", display=False)
for model in RNN_CORES:
    s = sep.loc[model] if model in sep.index else None
    ran = s is not None
    van = f"{s.vanilla:.3f} [{s.vanilla_lo:.3f}, {s.vanilla_hi:.3f}]" if ran else ""
    pe = f"{s.pe:.3f} [{s.pe_lo:.3f}, {s.pe_hi:.3f}]" if ran else ""
    won = f"{s.pe_ahead_seeds} of {s.seeds}" if ran else ""
    glue(f"kf_{model}_v", int(s.vocab) if ran else "not run", display=False)
    glue(f"kf_{model}_van", van, display=False)
    glue(f"kf_{model}_pe", pe, display=False)
    glue(f"kf_{model}_seeds", won, display=False)
separated = sep.index[sep["separated"]]
glue("kf_sep_models", ", ".join(map(model_name, separated)) or "none", display=False)
own = [key_findings.analysis.settings(cfg, c) for c in cfg.cores]
glue("kf_hidden", ", ".join(sorted({str(o["hidden"]) for o in own})), display=False)
glue("kf_length", cfg.length, display=False)
glue("kf_steps", ", ".join(sorted({f"{o['steps']:,}" for o in own})), display=False)
every_v = key_findings.analysis.separation(summ, vocab="all")
display(every_v.round(4).set_index(["model", "vocab"]))
print(provenance(cfg, bootstrap=cfg.bootstrap,
                 **key_findings.analysis.provenance_extra(cfg)))

# %% [markdown]
# `pe_ahead_seeds` pairs the runs by seed: in how many trials the position-encoded model beat the vanilla
# model trained from the same seed. The pooled intervals treat the held-out sequences of all seeds as one
# sample (as the paper's caption does), so they can separate even when one seed goes the other way; this
# column shows when that happens.
#
# ## Verdict
#
# **At this preset: {glue:text}`kf_verdict`.** At the largest vocabulary of each model's sweep, PE is ahead
# of vanilla with disjoint 95% intervals for {glue:text}`kf_separated` models (those: {glue:text}`kf_sep_models`).
# Token accuracy at the largest vocabulary, vanilla vs. PE, with 95% intervals, and the seeds in which PE won:
#
# | model | vocabulary | vanilla | position-encoded | PE ahead in |
# |---|---|---|---|---|
# | GRU | {glue:text}`kf_gru_v` | {glue:text}`kf_gru_van` | {glue:text}`kf_gru_pe` | {glue:text}`kf_gru_seeds` |
# | LSTM | {glue:text}`kf_lstm_v` | {glue:text}`kf_lstm_van` | {glue:text}`kf_lstm_pe` | {glue:text}`kf_lstm_seeds` |
# | S4D | {glue:text}`kf_s4d_v` | {glue:text}`kf_s4d_van` | {glue:text}`kf_s4d_pe` | {glue:text}`kf_s4d_seeds` |
#
# "Reproduced" needs the paper's level as well: PE above 95% at every vocabulary. The verdict is computed,
# not written by hand: "direction only" means disjoint intervals at every model's largest vocabulary with
# accuracies below the paper's. At `quick` the networks are {glue:text}`kf_hidden` units wide (the paper:
# 512), the sequences {glue:text}`kf_length` tokens long (64) and each run makes {glue:text}`kf_steps`
# updates (300,000), so the accuracies are far from converged and cannot be compared with the paper's
# values. What this preset can show is the direction at a vocabulary where the vanilla model is clearly
# failing. It cannot show the paper's stronger statement that the vanilla models stay behind however long
# they train: our runs stop while both variants are still improving, and the search (appendix) found the
# gap at this scale to open late in training and to vary from seed to seed. The paper preset on a GPU tests
# the values.
#
# ## Recap
#
# - `penb.chapters.key_findings.analysis.run(cfg)` trains (or reuses) one run per model, vocabulary,
#   encoding and seed; `analysis.summary` gives token accuracy and Damerau-Levenshtein distance with
#   bootstrap intervals over seeds x held-out sequences; `penb.chapters.key_findings.plots.vocab_sweep`
#   (the shared `penb.plotting.vocab_sweep`) draws Fig. 2's layout.
# - At `quick` the comparison is about direction: a smaller, shorter, briefly trained version of the paper's
#   experiment, chosen by the search in the appendix; `per_core` gives each model its own batch, updates
#   or learning rate.
# - Worth changing next: `seeds` (more trials, to see how often PE wins at this scale), `steps` and
#   `per_core` (whether longer training widens or closes the gap), `lstm_vocab` (how the gap grows with the
#   vocabulary), `betas` (the text's 0.999 against the code's 0.98), and `-p preset paper -p device cuda`
#   for the published setting.
#
# ## Appendix: how the `quick` preset was chosen
#
# The table below lists the development runs that chose the `quick` preset: every configuration tried, in
# the order tried, made by `scripts/search_key_findings.py` (rows marked `earlier` are scouting runs from
# before the script, taken from the planning notes and not rerun). Accuracies are held-out token accuracies
# (mean over the seeds listed, then per seed); `wall_s_per_run` is the training time of one run on one CPU
# thread while other work shared the machine, so it is only a rough guide. Rounds `c1`-`c3` are curve
# probes: one long run per variant under a nearly constant learning rate (a cosine over 20,000 updates),
# scored on the held-out set every 1,000 updates, to see when the two variants part. Round `cand1` was a
# first candidate for this preset; round `confirm` is this preset itself (the same configurations, so its
# rows are the runs above, made earlier).
#
# What the search taught, in order: at hidden 128 and batch 64 (the planning notes' regime) the effect needs
# about four minutes per run, far over the budget; at hidden 64 a learning rate of 1e-2 learns about twice
# as fast as 3e-3 (round `r1`); in the curves, the PE model leaves the vanilla one only after a few thousand
# updates at a high learning rate (`c1`), and a cosine schedule that decays within the budget erases much of
# that gap (`r2`); small batches favour the vanilla LSTM, large ones the position-encoded one (`r3`-`r5`);
# the GRU shows a gap in every seed at a small vocabulary within half a minute per run (`cand1`); the LSTM
# and S4D gaps at this scale are small next to the differences between seeds and change sign in some seeds
# at most settings tried (`cand1`, `r6`, `r7`); the LSTM at batch 128 and S4D at a learning rate of 3e-2
# (`r7`, `r8`) gave the widest gaps that fit the budget.

# %%
search = key_findings.analysis.search_table()
with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 250):
    display(search)

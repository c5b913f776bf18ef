"""The training regimes the presets of appendices B-D share (each adds its task's keys; appendix A takes the
quick one's schedule and the GPU one's settings with its own updates per section): written once, a reason per value.
"""
from __future__ import annotations

from penb.chapters import rnn_common
from penb.presets import confirmation


# The published training setting that the paper presets of appendices B-D share (each adds its task's keys).
PAPER_REGIME = dict(
    device="auto",                  # auto: CUDA when present, else the CPU
    hidden=512,                     # hidden = embedding = D_pos (Sec. 3.3)
    batch_size=512,                 # Sec. 3.3
    steps=300_000,                  # training updates
    warmup=1000,                    # linear warm-up updates, then cosine to 0
    lr=1e-3,                        # peak learning rate
    betas=(0.9, 0.98),              # Adam betas of the official code (text: 0.999)
    held_out=1024,                  # test sequences per trial (per length if variable)
    seeds=(111, 222, 333, 444, 555),  # five trials (official replication seeds)
    checkpoint_every=5000,          # kept checkpoints
    bootstrap=10_000,               # bootstrap resamples of the 95% intervals
    amp="none",                     # fp32; "bf16" autocast on CUDA
    workers=1,                      # runs at a time (CPU: one thread each)
    **rnn_common.EXECUTION,         # where runs execute (rnn_common.EXECUTION)
    **rnn_common.BUDGETS,           # schedule and doubling test (rnn_common.BUDGETS)
)

# The training regime that the quick and smoke presets of appendices B-D share (each adds its task's own
# keys: length, vocabulary, ...): written once here, with the reason for every value.
QUICK_REGIME = dict(
    device="cpu",                   # a CPU regime, for the 2-core machine
    hidden=64,                      # the key-findings search's r1-r8 LSTM width
    batch_size=128,                 # the key-findings search's r1-r8 LSTM batch
    steps=2000,                     # the key-findings regime's updates
    warmup=100,                     # the regime's warm-up (5% of the updates)
    lr=1e-2,                        # the key-findings search's r1-r8 LSTM lr
    seeds=confirmation(5),          # graded cells; each chapter sets its own count
                                    # from the pilot (issue 22; its presets say why)
    checkpoint_every=1000,          # two checkpoints per run
    bootstrap=2000,                 # a fifth of the paper's resamples: faster
    workers=2,                      # one run per core of the 2-core machine
    # protocol 4 (issue 34): every run also at N/2, both budgets one WSD trunk (~1.1 N
    # updates). scripts/schedule_probe.py --chapter appendix_a on search seeds 0-2, fp32
    # (schedule_probe.csv beside this module), at each panel's graded cell (A.1 LSTM
    # V64, sorting GRU V32 and LSTM V256, the LSTM reversal V256 of appendices A, C and
    # D): WSD at N beat the cosine at N in all 24 pairs, by +0.033 to +0.093 (e.g. the
    # LSTM reversal +0.037 [+0.014, +0.060] vanilla, +0.083 PE), as at key findings'
    # cells: it does not fall short, so quick adopts it. N/2 cost 10% of N
    schedule="wsd",
    doubling=True,
    earlier=1,                      # issue 58: N/4 too (a branch of the same trunk, ~5% more
                                    # updates), so protocol 7 reads two doublings, not one
)
# The GPU regime that the gpu presets of appendices B-D share (paper-sized models on a
# shortened schedule for one GPU; appendix A takes it with its own updates per section).
# Not yet run on a GPU by this project: the numbers come from the H100 measurements of
# commit 9cc031a (shared/anchors/gpu-h100-measurements.md) and match the key-findings
# chapter's GPU preset, so that equal runs are shared (LSTM reversal runs at V 4,096).
GPU_REGIME = dict(
    device="auto",                  # no CUDA: refused unless device="cpu" is given
    steps=6000,                     # key findings' GPU LSTM: V16384 vanilla 0.032 vs PE
                                    # 0.063 at 3k (anchors)
    lr=3e-3,                        # anchors: 1e-3 parts the variants slowly, 1e-2
                                    # stalls the LSTM and sends the GRU to NaN
    seeds=confirmation(5),          # graded: five confirmation seeds (no GPU pilot)
    checkpoint_every=2000,          # as key findings' GPU preset (runs shared); a
                                    # requeued run loses at most ~1 GPU-minute
    amp="none",                     # fp32: bf16 sent vanilla GRUs to NaN (anchors)
    workers=4,                      # runs packed on the GPU at once (processes)
    schedule="wsd",                 # key findings' gpu schedule: its runs stay shared
)
GPU_VOCAB = 4096                    # B-D's V at gpu, a quarter of the paper's: an LSTM
                                    # update ~half as long (27 vs 52 ms, estimated); key
                                    # findings' largest GPU LSTM V (reversal shared)
SMOKE_REGIME = dict(                # toy sizes: only exercises every cell (seconds)
    device="cpu",                   # runs anywhere
    hidden=16,                      # toy width
    batch_size=16,                  # toy batch
    steps=20,                       # a few updates
    warmup=5,                       # a quarter of the 20 updates
    held_out=16,                    # a few test sequences: the summaries need some
    seeds=confirmation(2),          # two confirmation seeds (too few to decide)
    checkpoint_every=10,            # two checkpoints per run, as at other presets
    bootstrap=200,                  # enough resamples to draw an interval, fast
    workers=1,                      # in-process: no worker start-up
    schedule="wsd",                 # exercises the doubling test's shared trunks
)

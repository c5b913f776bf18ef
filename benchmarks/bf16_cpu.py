"""bf16 autocast against fp32 on the CPU, side by side, on the quick preset's cells and the pilot seeds.

    .venv/bin/python benchmarks/bf16_cpu.py                              # key_findings' LSTM cells
    .venv/bin/python benchmarks/bf16_cpu.py --cores gru --vocab 32       # another model or vocabulary
    .venv/bin/python benchmarks/bf16_cpu.py --seeds 1001 1002 --store /tmp/bf16

Each run is the key_findings ``quick`` run config of (model, vocabulary, encoding, seed), trained once with
``amp="none"`` and once with ``amp="bf16"`` (CPU autocast; needs AMX, ``penb.device.cpu_bf16_native``), two
one-thread worker processes at a time, through the run store (a rerun reuses finished runs: their stored
wall time is the one printed). Seeds default to ``penb.presets.PILOT_SEEDS``: never the confirmation seeds.

Prints one row per (model, vocabulary, encoding, seed): fp32 and bf16 token accuracy, their difference, and
each run's training wall time; then, per cell, the mean accuracy difference and its Student-t interval over
seeds (``penb.claims.seed_interval``) and the wall-time ratio fp32 / bf16. The PE - vanilla gap of each
precision is printed too, since the claims grade that gap, not the accuracy itself.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from penb import presets, runs
from penb.chapters import key_findings
from penb.claims import fmt, seed_interval
from penb.device import cpu_bf16_native
from penb.executors import ProcessExecutor


def configs(cfg, cores, vocabs, seeds) -> list[dict]:
    """fp32 and bf16 twins of every (core, vocabulary, encoding, seed) run config."""
    out = []
    for core in cores:
        for v in vocabs or cfg[f"{core}_vocab"]:
            for e in cfg.encodings:
                for s in seeds:
                    base = key_findings.analysis.run_config(cfg, core, v, e, s)
                    out += [{**base, "amp": "none"}, {**base, "amp": "bf16"}]
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cores", nargs="+", default=["lstm"])
    ap.add_argument("--vocab", nargs="+", type=int, default=None, help="default: the quick preset's")
    ap.add_argument("--seeds", nargs="+", type=int, default=list(presets.PILOT_SEEDS[:2]))
    ap.add_argument("--store", type=Path, default=Path("/tmp/penb_bf16_store"))
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    if not cpu_bf16_native():
        raise SystemExit("this CPU has no AMX (amx_bf16): bf16 autocast is emulated here and the comparison "
                         "would measure the emulation")
    bad = set(a.seeds) & (set(presets.CONFIRMATION_SEEDS) | set(presets.SEARCH_SEEDS))
    if bad:
        raise SystemExit(f"seeds {sorted(bad)} are confirmation or search seeds; use pilot seeds")
    cfg = presets.resolve("key_findings", "quick", device="cpu")
    todo = configs(cfg, a.cores, a.vocab, a.seeds)
    results = runs.sweep(todo, ProcessExecutor(a.workers, 1, desc="bf16 vs fp32"), store=a.store)
    rows = {}
    for c, r in zip(todo, results):
        m = r.metrics if not r.diverged else {}
        rows[(c["core"], c["vocab_size"], c["encoding"], c["seed"], c["amp"])] = (
            m.get("token_accuracy", np.nan), r.wall_s, r.diverged)
    print(f"{'model':6} {'V':>5} {'enc':11} {'seed':>5} {'fp32':>7} {'bf16':>7} {'diff':>7} {'s fp32':>7} "
          f"{'s bf16':>7}")
    cells = sorted({k[:3] for k in rows})
    for core, v, e in cells:
        diffs, t32, t16 = [], [], []
        for s in a.seeds:
            (x32, w32, d32), (x16, w16, d16) = rows[(core, v, e, s, "none")], rows[(core, v, e, s, "bf16")]
            flag = " DIVERGED" if d32 or d16 else ""
            print(f"{core:6} {v:5d} {e:11} {s:5d} {x32:7.3f} {x16:7.3f} {x16 - x32:+7.3f} {w32:7.1f} {w16:7.1f}"
                  f"{flag}")
            diffs.append(x16 - x32)
            t32.append(w32)
            t16.append(w16)
        mean, lo, hi = seed_interval(np.asarray(diffs))
        print(f"  -> bf16 - fp32 accuracy {fmt(mean, lo, hi)}; wall fp32/bf16 {np.sum(t32) / np.sum(t16):.2f}x")
    for core in a.cores:
        for v in sorted({k[1] for k in rows if k[0] == core}):
            for amp in ("none", "bf16"):
                gaps = [rows[(core, v, "sinusoidal", s, amp)][0] - rows[(core, v, "none", s, amp)][0]
                        for s in a.seeds]
                print(f"{core} V{v} {amp:4}: PE - vanilla gap per seed "
                      f"{', '.join(f'{g:+.3f}' for g in gaps)} (mean {np.mean(gaps):+.3f})")


if __name__ == "__main__":
    main()

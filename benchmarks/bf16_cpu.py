"""bf16 autocast against fp32 on the CPU, side by side, on the quick preset's cells and the pilot seeds.

    .venv/bin/python benchmarks/bf16_cpu.py                              # key_findings' LSTM cells
    .venv/bin/python benchmarks/bf16_cpu.py --cores gru --vocab 32       # another model or vocabulary
    .venv/bin/python benchmarks/bf16_cpu.py --seeds 1001 1002 --store /tmp/bf16
    .venv/bin/python benchmarks/bf16_cpu.py --isa AVX512_CORE_BF16 --vocab 256    # a CPU without AMX, imitated
    .venv/bin/python benchmarks/bf16_cpu.py --step --isa AVX512_CORE_BF16         # one update's time only

Each run is the key_findings ``quick`` run config of (model, vocabulary, encoding, seed), trained once with
``amp="none"`` and once with ``amp="bf16"`` (CPU autocast; needs AMX, ``penb.device.cpu_bf16_native``), two
one-thread worker processes at a time, through the run store (a rerun reuses finished runs: their stored
wall time is the one printed). Seeds default to ``penb.presets.PILOT_SEEDS``: never the confirmation seeds.

Prints one row per (model, vocabulary, encoding, seed): fp32 and bf16 token accuracy, their difference, and
each run's training wall time; then, per cell, the mean accuracy difference and its Student-t interval over
seeds (``penb.claims.seed_interval``) and the wall-time ratio fp32 / bf16. The PE - vanilla gap of each
precision is printed too, since the claims grade that gap, not the accuracy itself.

``--isa`` caps oneDNN's instruction set (``ONEDNN_MAX_CPU_ISA``, inherited by the workers; the ISA oneDNN then
reports is printed): ``AVX512_CORE_BF16`` runs bf16 through AVX-512 ``avx512_bf16`` instructions without AMX, as a
CPU such as AMD's Zen 4 does (an imitation: the same instructions on another chip's execution units), and
``AVX512_CORE`` without any bf16 instruction (bf16 converted to fp32: emulated). Its runs go to a store of their
own (``<store>_<isa>``), since the run key does not hold the ISA. ``--step`` times one update (sample, forward,
backward, clip, Adam) per model and precision instead, fp32 and bf16 in interleaved rounds, fastest kept, at each
model's quick size, one thread; no runs, no store.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from penb import presets
from penb import runs
from penb import sweeps
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


ISA_PROBE = ("import torch\nwith torch.autocast('cpu', dtype=torch.bfloat16):\n"
             "    torch.nn.LSTM(8, 8, batch_first=True)(torch.randn(2, 3, 8))")


def onednn_isa() -> str:
    """What oneDNN runs on under this environment: its ISA line and the kernel of a bf16 LSTM (a subprocess
    with ``ONEDNN_VERBOSE=1``), e.g. "isa:Intel AVX-512 with ... bfloat16 support; rnn brgemm:avx512_core_bf16"."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", ISA_PROBE], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "ONEDNN_VERBOSE": "1"}).stdout.splitlines()
    isa = [f for line in out for f in line.split(",") if f.startswith("isa:")]
    rnn = [line.split(",")[6] for line in out if ",exec,cpu,rnn," in line]
    return f"{isa[0] if isa else '?'}; rnn {rnn[0] if rnn else '?'}"


def step_times(cfg, cores, vocabs, rounds: int = 7, steps: int = 15) -> None:
    """Print ms per update, fp32 and bf16, of each core's quick key_findings run config (PE; V: the first of
    ``vocabs``, else the core's largest in the preset)."""
    import torch

    from penb.trainer import Trainer

    torch.set_num_threads(1)
    for core in cores:
        base = key_findings.analysis.run_config(cfg, core, (vocabs or cfg[f"{core}_vocab"][-1:])[0],
                                               "sinusoidal", 1001)
        ts = {amp: Trainer({**base, "amp": amp, "held_out": 64}) for amp in ("none", "bf16")}
        best = dict.fromkeys(ts, float("inf"))
        for _ in range(rounds + 1):                                       # the first round warms up
            for amp, t in ts.items():
                start = time.perf_counter()
                for _ in range(steps):
                    t.train_step()
                best[amp] = min(best[amp], 1000 * (time.perf_counter() - start) / steps)
        print(f"{core} h{base['hidden']} B{base['batch_size']} V{base['vocab_size']}: fp32 {best['none']:.1f} ms, "
              f"bf16 {best['bf16']:.1f} ms per update: bf16 {best['none'] / best['bf16']:.2f}x fp32's speed")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cores", nargs="+", default=["lstm"])
    ap.add_argument("--vocab", nargs="+", type=int, default=None, help="default: the quick preset's")
    ap.add_argument("--seeds", nargs="+", type=int, default=list(presets.PILOT_SEEDS[:2]))
    ap.add_argument("--store", type=Path, default=Path("/tmp/penb_bf16_store"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--isa", default=None, help="cap oneDNN's ISA (ONEDNN_MAX_CPU_ISA), e.g. AVX512_CORE_BF16")
    ap.add_argument("--step", action="store_true", help="time one update per model and precision; no runs")
    a = ap.parse_args(argv)
    if a.isa:
        os.environ["ONEDNN_MAX_CPU_ISA"] = a.isa                           # before oneDNN's first use; workers inherit
        a.store = a.store.with_name(f"{a.store.name}_{a.isa.lower()}")
    print(f"oneDNN ISA: {onednn_isa()}")
    if not cpu_bf16_native():
        raise SystemExit("this CPU has no AMX (amx_bf16), or PENB_CPU_BF16=0: penb refuses amp='bf16' here "
                         "(penb.device.check_amp). On a CPU with AMX, --isa AVX512_CORE_BF16 imitates one with "
                         "avx512_bf16 only")
    bad = set(a.seeds) & (set(presets.CONFIRMATION_SEEDS) | set(presets.SEARCH_SEEDS))
    if bad:
        raise SystemExit(f"seeds {sorted(bad)} are confirmation or search seeds; use pilot seeds")
    cfg = presets.resolve("key_findings", "quick", device="cpu")
    if a.step:
        return step_times(cfg, a.cores, a.vocab)
    todo = configs(cfg, a.cores, a.vocab, a.seeds)
    results = sweeps.sweep(todo, ProcessExecutor(a.workers, 1, desc="bf16 vs fp32"), store=a.store)
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

"""Regime search for trained models (issue 27, item 6): where, within a CPU budget, do the models of Fig. 2
stop improving (second-half rise of training accuracy under 0.02, ``penb.claims.training``)?

Search seeds only (0 and 1; never grading seeds). Each probe trains vanilla and position-encoded models on
the reversal task at one cell and records, per run, the held-out token accuracy, the second-half rise and the
wall time on one CPU thread. Runs are independent jobs in a process pool (one torch thread each), so the search
can use a many-core machine; their wall times are that machine's single-thread times.

    python scripts/search_trained.py --list
    python scripts/search_trained.py --round t1 --workers 15 --out search_out/   # writes search_out/t1.csv

Append rounds; never edit one that has run. The CSVs that ran are kept in
``penb/chapters/key_findings/search_trained/``.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SEEDS = (0, 1)                                    # search seeds (penb.presets: never graded)
COMMON = dict(task="reverse", betas=(0.9, 0.98), held_out=512, checkpoint_every=10**9, device="cpu",
              warmup=100, log_every=50)
FIELDS = ("round", "core", "length", "hidden", "batch_size", "steps", "lr", "vocab", "encoding", "seed",
          "token_accuracy", "train_end", "rise", "wall_s")


def probe(core, length, hidden, batch, steps, lr, vocabs):
    return [dict(COMMON, core=core, length=length, hidden=hidden, batch_size=batch, steps=steps, lr=lr,
                 vocab_size=v, encoding=e, seed=s) for v in vocabs for e in ("none", "sinusoidal") for s in SEEDS]


# t1 (2026-11-25): the quick cells of key_findings at twice and four times their updates, and smaller
# vocabularies, to see where vanilla and PE flatten
ROUNDS = {
    "t1": [*probe("gru", 16, 64, 64, 4000, 1e-2, (8, 16, 32)), *probe("gru", 16, 64, 64, 8000, 1e-2, (8, 16, 32)),
           *probe("lstm", 16, 128, 64, 8000, 3e-3, (64, 128, 256)),
           *probe("s4d", 16, 64, 64, 5000, 3e-2, (64, 256))],
}


def _training_module():
    """``penb/claims/training.py`` loaded on its own: importing the ``penb.claims`` package would load the
    registry and every chapter (and their notebook and Slurm packages), which a bare GPU or CPU box lacks."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "penb_training_state", Path(__file__).resolve().parents[1] / "penb" / "claims" / "training.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def one(config: dict) -> dict:
    """Train ``config`` in a temporary folder on one thread; its summary row."""
    import torch

    from penb import runner

    run_summary = _training_module().run_summary

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.time()
        r = runner.train_one(config, Path(tmp))
    s = run_summary(r["history"], config["steps"])
    return dict(core=config["core"], length=config["length"], hidden=config["hidden"],
                batch_size=config["batch_size"], steps=config["steps"], lr=config["lr"], vocab=config["vocab_size"],
                encoding=config["encoding"], seed=config["seed"],
                token_accuracy=r["metrics"].get("token_accuracy", float("nan")), train_end=round(s["end"], 4),
                rise=round(s["rise"], 4), wall_s=round(time.time() - start, 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--round")
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    ap.add_argument("--out", default="search_out")
    a = ap.parse_args()
    if a.list or not a.round:
        for name, jobs in ROUNDS.items():
            print(f"{name}: {len(jobs)} runs")
        return
    if a.round not in ROUNDS:
        raise SystemExit(f"unknown round {a.round!r}; known: {', '.join(ROUNDS)}")
    out = Path(a.out) / f"{a.round}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    jobs = sorted(ROUNDS[a.round], key=lambda c: -c["steps"] * (4 if c["core"] != "gru" else 1))  # long first
    with open(out, "w", newline="") as f, ProcessPoolExecutor(a.workers) as pool:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for fut in as_completed([pool.submit(one, c) for c in jobs]):
            row = dict(round=a.round, **fut.result())
            w.writerow(row)
            f.flush()
            print(row, flush=True)


if __name__ == "__main__":
    main()

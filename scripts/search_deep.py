"""The deep preset's power search (issue 58): vanilla's curve over V on SEARCH seeds, at quick's shapes.

Written before any deep confirmation run. It trains the model behind in Fig. 2 (vanilla) at the quick shapes
(hidden 64, length 16, batch 64, lr 1e-2, WSD), on search seeds only (``penb.presets.SEARCH_SEEDS``), at two
trunks per run: quick's N = 2,000 with its N/2 and N/4 (what quick grades), and the deep N = 32,000 with its N/2 and
N/4 (what the deep preset would grade). ``penb.power`` reads the table this writes (``deep_search.csv`` beside the
chapter's presets) and nothing of a confirmation seed.

The runs go through the one batched trainer (``penb.executors.batched``) over ``--workers`` processes, the
vocabularies interleaved so that each process's batch mixes cheap and dear ones.

    python scripts/search_deep.py --vocab 32 64 128 256 --seeds 0 1 2 --out penb/chapters/key_findings/deep_search.csv
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

from penb import presets, runs, sweeps
from penb.chapters import rnn_common
from penb.chapters.key_findings import analysis
from penb.executors.batched import BatchedExecutor

FIELDS = ("core", "vocab", "encoding", "seed", "steps", "trunk", "token_accuracy", "diverged", "wall_s")


def configs(core: str, vocab: list[int], seeds: list[int], budgets: list[int]) -> list[dict]:
    """Every run of the search: for each trunk budget N in ``budgets``, vanilla ``core`` at each V and seed, at N, N/2
    and N/4 (``rnn_common.all_budgets`` with ``earlier=1``); the vocabularies in the order smallest, largest, second
    smallest, second largest, ..., so that consecutive batches cost about the same."""
    v = sorted(vocab)
    zigzag = [x for pair in zip(v, reversed(v)) for x in pair][:len(v)]
    out = []
    for n in budgets:
        per = {**presets.resolve("key_findings", "quick").per_core[core], "steps": n}
        cfg = presets.resolve("key_findings", "quick", cores=(core,), seeds=tuple(seeds), core_seeds={},
                              encodings=("none",), per_core={core: per}, **{f"{core}_vocab": tuple(vocab)},
                              earlier=1, device="cpu")
        full = sorted(analysis.run_configs(cfg), key=lambda c: (zigzag.index(c["vocab_size"]), c["seed"]))
        out += rnn_common.all_budgets(full, cfg)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--core", default="gru")
    ap.add_argument("--vocab", type=int, nargs="+", default=[32, 64, 128, 256])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--budgets", type=int, nargs="+", default=[2000, 32000], help="each a trunk's N")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch-runs", type=int, default=6, help="runs per batch (a process's share)")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if set(a.seeds) - set(presets.SEARCH_SEEDS):
        sys.exit(f"search seeds only: {presets.SEARCH_SEEDS}")
    todo = configs(a.core, a.vocab, a.seeds, sorted(a.budgets, reverse=True))
    t0 = time.time()
    results = sweeps.sweep(todo, BatchedExecutor(a.batch_runs, workers=a.workers, threads=1), progress=False)
    print(f"{len(results)} runs in {time.time() - t0:.0f} s")
    trunk = {runs.key(c): min(b for b in a.budgets if b // c["steps"] in (1, 2, 4) and b % c["steps"] == 0)
             for c in todo}
    results = list({r.key: r for r in results}.values())
    rows = [dict(core=r.config["core"], vocab=r.config["vocab_size"], encoding=r.config["encoding"],
                 seed=r.config["seed"], steps=r.config["steps"], trunk=trunk[r.key],
                 token_accuracy=round(r.metrics["token_accuracy"], 4) if not r.diverged else "",
                 diverged=bool(r.diverged), wall_s=round(r.wall_s, 1)) for r in results]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if f.tell() == 0:
            w.writeheader()
        w.writerows(sorted(rows, key=lambda r: (r["vocab"], r["seed"], r["trunk"], -r["steps"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

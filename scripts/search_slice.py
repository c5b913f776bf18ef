"""The slice preset's scale search (issue 43): how far the quick cells' model behind is from stopping.

Written before any slice confirmation run. It trains on SEARCH seeds only (penb.presets.SEARCH_SEEDS), on the CPU,
the model behind in the quick search (vanilla: PE led at every quick cell on search seeds) at the quick shapes, on
WSD budgets N/8 ... N sharing one trunk, and prints its held-out accuracy per budget. The slice's rule
(penb.sizing.SLICE_RULE) reads this table (penb/chapters/key_findings/slice_search.csv) and nothing else.

    python scripts/search_slice.py --core gru --vocab 8 16 32 --steps 16000 --seeds 0 1 --out FILE.csv
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from penb import presets
from penb.chapters.key_findings import analysis
from penb.executors import ProcessExecutor
from penb import runs
from penb import sweeps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--core", default="gru")
    ap.add_argument("--vocab", type=int, nargs="+", default=[8, 16, 32])
    ap.add_argument("--steps", type=int, default=16000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--encodings", nargs="+", default=["none"])
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if set(a.seeds) - set(presets.SEARCH_SEEDS):
        sys.exit(f"search seeds only: {presets.SEARCH_SEEDS}")
    per = {**presets.resolve("key_findings", "quick").per_core[a.core], "steps": a.steps}
    cfg = presets.resolve("key_findings", "quick", cores=(a.core,), seeds=tuple(a.seeds), core_seeds={},
                          encodings=tuple(a.encodings), per_core={a.core: per}, **{f"{a.core}_vocab": tuple(a.vocab)},
                          workers=a.workers)
    full = analysis.run_configs(cfg)
    budgets = [a.steps // 2 ** k for k in range(4)]
    todo = [{**c, "steps": b} for c in full for b in budgets]
    results = sweeps.sweep(todo, ProcessExecutor(a.workers, 1), progress=False)
    rows = [dict(core=r.config["core"], vocab=r.config["vocab_size"], encoding=r.config["encoding"],
                 seed=r.config["seed"], steps=r.config["steps"], token_accuracy=round(r.metrics["token_accuracy"], 4),
                 wall_s=round(r.wall_s, 1)) for r in results]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        if f.tell() == 0:
            w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Protocol 4's schedule probe (issue 34, item 2): at the quick cells of Fig. 2 (and of Fig. 3), does the
warm-up / stable / decay schedule (``schedule="wsd"``, decay over the last 20%) do as well as the cosine at the
same budget N? And what does doubling the budget move?

Search seeds only (0, 1, 2: ``penb.presets.SEARCH_SEEDS``; never graded). Each cell trains vanilla and PE with
the project's own trainer and run store: the cosine at N, and WSD at N/2, N and 2N on one trunk per seed and
variant (``penb.trunks``: the three budgets cost 2.3 N updates together). fp32 throughout (amp none), one torch
thread per run, a pool of ``--workers`` processes. Writes one CSV row per run.

    python scripts/schedule_probe.py --store /tmp/probe_store --out penb/chapters/key_findings/schedule_probe.csv
    python scripts/schedule_probe.py --chapter frequency --store /tmp/probe_store \
        --out penb/chapters/frequency/schedule_probe.csv
    python scripts/schedule_probe.py --chapter appendix_a --factors 0.5,1 --store /tmp/probe_store \
        --out penb/chapters/appendix/schedule_probe.csv             # the appendices' cells
    python scripts/schedule_probe.py --cores gru --factors 0.5,1,2,4 --store /tmp/probe_store \
        --out penb/chapters/key_findings/schedule_probe_4n.csv     # issue 34's 4N check
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SEEDS = (0, 1, 2)                                   # search seeds (penb.presets.SEARCH_SEEDS)
FIELDS = ("cell", "core", "vocab", "encoding", "seed", "schedule", "steps", "token_accuracy", "train_end",
          "wall_s")


def cells(chapter: str = "key_findings", factors=(0.5, 1, 2), cores=("gru", "lstm")):
    """The quick cells of ``chapter``, fp32, on the search seeds: for key_findings the GRU at its largest
    vocabulary and the LSTM at the smaller of its two (the probe's time); for frequency its GRU and LSTM; for
    appendix_a each panel at its largest vocabulary (A.1, sorting, and the reversal references that appendices
    C and D share).
    Each config as (schedule, config): the cosine at N, WSD at each of ``factors`` x N (N/2, N and 2N), for the
    models ``cores``."""
    from penb import presets

    cfg = presets.resolve(chapter, "quick", device="cpu", seeds=SEEDS, schedule="cosine", doubling=False)
    if chapter == "key_findings":
        from penb.chapters.key_findings.analysis import run_config

        base = [run_config(cfg, core, v, e, s) for core, v in (("gru", 32), ("lstm", 256)) if core in cores
                for e in ("none", "sinusoidal") for s in SEEDS]
    elif chapter == "appendix_a":
        from penb.chapters.appendix.appendix_a import run_configs

        # each panel at its largest vocabulary (the graded one): A.1's LSTM at V 64, sorting and its reversal
        # reference of the LSTM (appendices C and D's reversal runs)
        runs_ = [c for c in run_configs(cfg) if c["core"] in cores]
        top = {}
        for c in runs_:
            top[c["task"], c["core"]] = max(top.get((c["task"], c["core"]), 0), c["vocab_size"])
        base = [c for c in runs_ if c["vocab_size"] == top[c["task"], c["core"]]
                and (c["task"], c["core"]) != ("reverse", "gru")]    # key_findings' GRU cell: probed there
    else:
        from penb.chapters.frequency.analysis import run_configs

        base = [c for c in run_configs(cfg) if c["core"] in cores]
    out = []
    for c in base:
        c = {**c, "amp": "none"}
        n = c["steps"]
        out.append(("cosine", c))
        out += [("wsd", {**c, "schedule": "wsd", "decay": 0.2, "steps": int(f * n)}) for f in factors]
    return out


def main(argv=None) -> int:
    from penb import runs
    from penb import sweeps
    from penb.executors import ProcessExecutor

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True, help="a run store folder for the probe's runs")
    ap.add_argument("--out", required=True, help="the CSV to write")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chapter", default="key_findings", choices=("key_findings", "frequency", "appendix_a"))
    ap.add_argument("--factors", default="0.5,1,2", help="WSD budgets as multiples of the quick N")
    ap.add_argument("--cores", default="gru,lstm", help="the models to probe")
    a = ap.parse_args(argv)
    todo = cells(a.chapter, tuple(float(f) for f in a.factors.split(",")), tuple(a.cores.split(",")))
    results = sweeps.sweep([c for _, c in todo], ProcessExecutor(a.workers, 1, desc="probe"), store=Path(a.store),
                         progress=False)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for (kind, c), r in zip(todo, results):
            hist = r.history or [{}]
            cell = f"{c['core']} V{c['vocab_size']}"
            w.writerow(dict(cell=f"{c['task']} {cell}" if a.chapter == "appendix_a" else cell, core=c["core"],
                            vocab=c["vocab_size"],
                            encoding=c["encoding"], seed=c["seed"], schedule=kind, steps=c["steps"],
                            token_accuracy=round(r.metrics.get("token_accuracy", float("nan")), 4),
                            train_end=round(hist[-1].get("accuracy", float("nan")), 4), wall_s=r.wall_s))
    print(f"{len(results)} runs written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

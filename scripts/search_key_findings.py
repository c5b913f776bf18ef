"""The regime search behind the ``quick`` preset of the chapter "Key findings" (Morita, Sec. 4.1, Fig. 2).

The paper's setting (hidden 512, batch 512, L = 64, 300,000 updates) needs a GPU. This script records how
the CPU preset was chosen: every configuration tried is a *probe* below, grouped in rounds in the
order they were run, and every probe trains vanilla and position-encoded models on the reversal task
through the run store (``penb.sweeps.sweep``), so rerunning a round reuses finished runs.

    .venv/bin/python scripts/search_key_findings.py --list             # the rounds and their cost
    .venv/bin/python scripts/search_key_findings.py --round r1         # train one round (2 worker processes)
    .venv/bin/python scripts/search_key_findings.py --csv              # write penb/chapters/key_findings/search_log.csv

The CSV has one row per probe and vocabulary: token accuracy of both variants (mean over seeds and
per seed) and the mean wall time of one run (one CPU thread, two runs at a time, other work on the
machine now and then). Rows of ``EARLIER`` are the scouting runs made before this script existed
(numbers from the planning notes, not rerun). Only finished runs enter the CSV.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from penb import runs  # noqa: E402

from penb import sweeps
from penb.chapters.key_findings import analysis  # noqa: E402
from penb.executors import ProcessExecutor  # noqa: E402

CSV = analysis.SEARCH_LOG                           # penb/chapters/key_findings/search_log.csv
FIELDS = ("round", "model", "length", "hidden", "batch_size", "steps", "lr", "warmup", "vocab", "seeds",
          "acc_vanilla", "acc_pe", "acc_vanilla_per_seed", "acc_pe_per_seed", "wall_s_per_run", "note")
COMMON = dict(task="reverse", betas=(0.9, 0.98), held_out=1024, checkpoint_every=1000, device="cpu")


def probe(core, length, hidden, batch, steps, lr, vocab, seeds=(111,), warmup=100, note="", **extra):
    return dict(core=core, length=length, hidden=hidden, batch_size=batch, steps=steps, lr=lr, warmup=warmup,
                vocab=tuple(vocab), seeds=tuple(seeds), note=note, **extra)


# Every configuration tried, round by round (append; never edit a round that has run).
ROUNDS: dict[str, list[dict]] = {
    # r1: one seed, hidden 64 (3x cheaper per update than 128 here), L = 16, 3,000 updates
    "r1": [
        probe("lstm", 16, 64, 64, 3000, 3e-3, (128, 256, 512)),
        probe("lstm", 16, 64, 64, 3000, 1e-2, (256,), note="higher lr"),
        probe("gru", 16, 64, 64, 3000, 3e-3, (32, 64)),
        # stopped here (all runs under-trained, lr 1e-2 twice as fast); a GRU V=128 and an S4D probe at this
        # lr were dropped before they ran
    ],
    # r2: the best curve of each model (c1-c3), as real runs (cosine to 0 at the last update), three seeds
    "r2": [
        probe("lstm", 16, 64, 64, 4500, 1e-2, (256,), seeds=(111, 222, 333)),
        probe("gru", 16, 64, 16, 4000, 1e-2, (32,), seeds=(111, 222, 333)),
        probe("s4d", 16, 64, 64, 2500, 1e-2, (256,), seeds=(111, 222, 333)),
    ],
    # r3: the cosine schedule erased the S4D gap and shrank the LSTM one (PE parts late, at a high lr):
    # longer runs, other batches and lrs, one seed each
    "r3": [
        probe("lstm", 16, 64, 32, 8000, 5e-3, (256,)),
        probe("lstm", 16, 64, 64, 6000, 1e-2, (256,)),
        probe("lstm", 16, 64, 64, 4500, 1e-2, (512,)),
        probe("s4d", 16, 64, 64, 4000, 1e-2, (256,)),
        probe("s4d", 16, 64, 32, 5000, 1e-2, (256,)),
        probe("s4d", 16, 64, 64, 2500, 2e-2, (256,)),
    ],
    # r4: LSTM with smaller batches favoured vanilla (r3); try larger batches, a wider network, a smaller
    # vocabulary; S4D at higher lrs (2e-2 trained both variants further in r3)
    "r4": [
        probe("lstm", 16, 64, 128, 3000, 1e-2, (256,)),
        probe("lstm", 16, 64, 128, 2000, 1e-2, (256,)),
        probe("lstm", 16, 96, 64, 3000, 5e-3, (256,)),
        probe("lstm", 16, 64, 64, 4500, 1e-2, (128,)),
        probe("s4d", 16, 64, 64, 4000, 2e-2, (256,)),
        probe("s4d", 16, 64, 64, 2500, 3e-2, (256,)),
    ],
    # r5: batch 128 opened a clear LSTM gap (r4); trade updates for batch further, and try larger batches
    # for S4D and the GRU at the same cost
    "r5": [
        probe("lstm", 16, 64, 256, 1000, 1e-2, (256,)),
        probe("lstm", 16, 64, 128, 1500, 1e-2, (256,)),
        probe("lstm", 16, 64, 256, 1000, 2e-2, (256,)),
        probe("s4d", 16, 64, 128, 1500, 2e-2, (256,)),
        probe("gru", 16, 64, 64, 2000, 1e-2, (32,)),
        probe("gru", 16, 64, 128, 1000, 1e-2, (32,)),
    ],
    # cand1: a first candidate for the quick preset (three seeds, a smaller vocabulary per model besides
    # the largest)
    "cand1": [
        probe("gru", 16, 64, 64, 2000, 1e-2, (8, 32), seeds=(111, 222, 333)),
        probe("lstm", 16, 64, 128, 1500, 1e-2, (64, 256), seeds=(111, 222, 333)),
        probe("s4d", 16, 64, 128, 1500, 2e-2, (64, 256), seeds=(111, 222, 333)),
    ],
    # r6: cand1 showed GRU robust, but LSTM and S4D at V=256 had one seed (333) with PE behind: more
    # updates for the LSTM, cheaper S4D variants (narrower, larger batch); the two doubtful seeds
    "r6": [
        probe("lstm", 16, 64, 128, 2500, 1e-2, (256,), seeds=(222, 333),
              note="PE runs killed by another process at update 1000 and resumed: their wall time is the "
                   "resumed part only"),
        probe("s4d", 16, 32, 128, 2000, 2e-2, (256,), seeds=(222, 333)),
        probe("s4d", 16, 64, 256, 1000, 2e-2, (256,), seeds=(222, 333)),
        probe("s4d", 16, 64, 128, 2500, 2e-2, (256,), seeds=(222, 333)),
    ],
    # r7: seed 333 keeps PE behind for the LSTM at batch 128 and for S4D at lr 2e-2; three seeds of the
    # LSTM at 2,000 updates (V 256 and the smaller 128), S4D back at lr 1e-2, batch 64 (its widest gap, r3)
    "r7": [
        probe("lstm", 16, 64, 128, 2000, 1e-2, (128, 256), seeds=(111, 222, 333)),
        probe("s4d", 16, 64, 64, 3000, 1e-2, (256,), seeds=(111, 222, 333),
              note="the round was killed twice by another process and resumed; wall times of resumed runs "
                   "count the resumed part only"),
    ],
    # r8: three seeds of S4D at lr 3e-2 (widest single-seed S4D gap per second, r4); the LSTM's smaller
    # vocabulary at its candidate setting
    "r8": [
        probe("s4d", 16, 64, 64, 2500, 3e-2, (256,), seeds=(111, 222, 333)),
        probe("lstm", 16, 64, 128, 2000, 1e-2, (64,), seeds=(111, 222, 333)),
    ],
    # confirm: the quick preset itself (GRU as in cand1; LSTM from r4, r7, r8; S4D from r4, r8 plus V = 64)
    "confirm": [
        probe("gru", 16, 64, 64, 2000, 1e-2, (8, 32), seeds=(111, 222, 333)),
        probe("lstm", 16, 64, 128, 2000, 1e-2, (64, 256), seeds=(111, 222, 333)),
        probe("s4d", 16, 64, 64, 2500, 3e-2, (64, 256), seeds=(111, 222, 333)),
    ],
    # r9 (2026-11-23, search seeds 0 and 1): the LSTM at hidden 64 with L = 8, where a hidden-64 model holds
    # the bits per unit of the hidden-128, L = 16 probes; lr 3e-3 and 6,000 updates as those probes
    "r9": [
        probe("lstm", 8, 64, 64, 6000, 3e-3, (256, 1024), seeds=(0, 1), note="no gap: L = 8 does not show it"),
    ],
    # r10: the CPU probes' hidden-128 LSTM (L 16, batch 64, lr 3e-3) at 4,000 instead of 6,000 updates, to fit
    # three vocabularies x five confirmation seeds into the chapter's budget; V 128 is the trend's third point
    "r10": [
        probe("lstm", 16, 128, 64, 4000, 3e-3, (128, 256, 512), seeds=(0, 1)),
    ],
    # r11: the smaller vocabularies that show the GRU's and S4D's curves (graded by no claim) in the quick regime
    "r11": [
        probe("gru", 16, 64, 64, 2000, 1e-2, (16,), seeds=(0, 1)),
        probe("s4d", 16, 64, 64, 2500, 3e-2, (128,), seeds=(0, 1)),
    ],
}

# Scouting runs reported in the planning notes (single seed unless noted; not rerun by this script).
EARLIER = [
    dict(model="lstm", length=8, hidden=128, batch_size=128, steps=4000, lr=1e-3, vocab=256, seeds="1 seed",
         acc_vanilla=0.45, acc_pe=0.50, note="planning notes; under-trained"),
    dict(model="lstm", length=8, hidden=128, batch_size=128, steps=4000, lr=1e-3, vocab=4096, seeds="1 seed",
         acc_vanilla=0.13, acc_pe=0.15, note="planning notes; under-trained"),
    dict(model="gru", length=8, hidden=128, batch_size=128, steps=4000, lr=1e-3, vocab=32, seeds="1 seed",
         acc_vanilla=0.82, acc_pe=0.84, note="planning notes; under-trained"),
    dict(model="gru", length=8, hidden=128, batch_size=128, steps=4000, lr=1e-3, vocab=512, seeds="1 seed",
         acc_vanilla=0.23, acc_pe=0.24, note="planning notes; under-trained"),
    dict(model="lstm", length=8, hidden=128, batch_size=64, steps=3000, lr=3e-3, vocab=256, seeds="1 seed",
         acc_vanilla=0.691, acc_pe=0.677, note="lead's scout; no effect at L 8"),
    dict(model="lstm", length=16, hidden=128, batch_size=64, steps=2000, lr=3e-3, vocab=256, seeds="1 seed",
         acc_vanilla=0.193, acc_pe=0.187, note="lead's scout; too few updates"),
    dict(model="lstm", length=8, hidden=128, batch_size=128, steps=8000, lr=3e-3, vocab=1024, seeds="1 seed",
         acc_vanilla=0.90, acc_pe=0.93, wall_s_per_run=210, note="planning notes; L and batch uncertain"),
    dict(model="lstm", length=8, hidden=128, batch_size=128, steps=8000, lr=3e-3, vocab=8192, seeds="1 seed",
         acc_vanilla=0.44, acc_pe=0.43, wall_s_per_run=1200, note="planning notes; L and batch uncertain"),
    dict(model="lstm", length=16, hidden=128, batch_size=64, steps=6000, lr=3e-3, vocab=128, seeds="0 1 2",
         acc_vanilla=0.843, acc_pe=0.893, acc_vanilla_per_seed="0.80/0.87/0.86", acc_pe_per_seed="0.89/0.91/0.88",
         note="lead's scout"),
    dict(model="lstm", length=16, hidden=128, batch_size=64, steps=6000, lr=3e-3, vocab=256, seeds="0 1 2",
         acc_vanilla=0.510, acc_pe=0.697, acc_vanilla_per_seed="0.48/0.48/0.57", acc_pe_per_seed="0.68/0.73/0.68",
         note="lead's scout"),
    dict(model="gru", length=16, hidden=128, batch_size=64, steps=6000, lr=3e-3, vocab=32, seeds="1 seed",
         acc_vanilla=0.74, acc_pe=0.83, note="lead's scout"),
    dict(model="gru", length=16, hidden=128, batch_size=64, steps=6000, lr=3e-3, vocab=64, seeds="1 seed",
         acc_vanilla=0.44, acc_pe=0.50, note="lead's scout"),
    dict(model="gru", length=16, hidden=128, batch_size=64, steps=6000, lr=3e-3, vocab=128, seeds="1 seed",
         acc_vanilla=0.2, acc_pe=0.2, note="lead's scout; about 0.2 both"),
]


def configs(p: dict) -> list[dict]:
    """The run configs of probe ``p``: every vocabulary x encoding (vanilla, sinusoidal) x seed."""
    base = dict(COMMON, core=p["core"], length=p["length"], hidden=p["hidden"], batch_size=p["batch_size"],
                steps=p["steps"], lr=p["lr"], warmup=p["warmup"])
    return runs.grid(base, vocab_size=p["vocab"], encoding=("none", "sinusoidal"), seed=p["seeds"])


def cost(p: dict) -> int:
    return len(p["vocab"]) * 2 * len(p["seeds"])


def rows() -> list[dict]:
    """One CSV row per (round, probe, vocabulary) whose runs have all finished, after the EARLIER rows."""
    out = [dict(round="earlier", **r) for r in EARLIER]
    for name, probes in ROUNDS.items():
        for p in probes:
            for v in p["vocab"]:
                acc, wall = {}, []
                for enc in ("none", "sinusoidal"):
                    found = []
                    for s in p["seeds"]:
                        c = dict(configs(p)[0], vocab_size=v, encoding=enc, seed=s)
                        if runs.status(c) != "done":
                            break
                        r = runs.load(c)
                        found.append(r.metrics["token_accuracy"])
                        wall.append(float(r.wall_s))
                    acc[enc] = found
                if any(len(a) < len(p["seeds"]) for a in acc.values()):
                    continue
                out.append(dict(round=name, model=p["core"], length=p["length"], hidden=p["hidden"],
                                batch_size=p["batch_size"], steps=p["steps"], lr=p["lr"], warmup=p["warmup"],
                                vocab=v, seeds=" ".join(map(str, p["seeds"])),
                                acc_vanilla=round(float(np.mean(acc["none"])), 4),
                                acc_pe=round(float(np.mean(acc["sinusoidal"])), 4),
                                acc_vanilla_per_seed="/".join(f"{a:.3f}" for a in acc["none"]),
                                acc_pe_per_seed="/".join(f"{a:.3f}" for a in acc["sinusoidal"]),
                                wall_s_per_run=round(float(np.mean(wall)), 1), note=p["note"]))
    return out


def write_csv(path: Path = CSV) -> Path:
    """Append the rows of finished probes that the CSV lacks; the rows already there stay as they are (the
    CSV is dated history: a store made on another machine, or emptied, must not erase it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = list(csv.DictReader(path.open())) if path.exists() else []
    ident = ("round", "model", "length", "hidden", "batch_size", "steps", "lr", "vocab", "seeds")
    seen = {tuple(str(r.get(k, "")) for k in ident) for r in old}
    new = [r for r in rows() + curve_rows() if tuple(str(r.get(k, "")) for k in ident) not in seen]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for r in old + new:
            w.writerow({k: r.get(k, "") for k in FIELDS})
    return path


# Curve probes: one long run per variant with a near-constant learning rate (a cosine over ``horizon``
# updates, stopped after ``steps``), scored on the held-out set every ``every`` updates. One curve shows
# when (if ever) the two variants part, for the price of one run; the chosen regime is then confirmed by
# ordinary runs (ROUNDS). Curves are kept as JSON under <store>/search/.
CURVES: dict[str, list[dict]] = {
    # c1: lr 1e-2 (r1: twice the progress of 3e-3), where do vanilla and PE part?
    "c1": [
        probe("lstm", 16, 64, 64, 6000, 1e-2, (256,), every=250, horizon=20000),
        probe("lstm", 16, 128, 32, 4000, 1e-2, (256,), every=250, horizon=20000),
        probe("s4d", 16, 64, 64, 4000, 1e-2, (256,), every=250, horizon=20000),
        probe("gru", 16, 64, 64, 5000, 1e-2, (64,), every=250, horizon=20000),
    ],
    # c2: smaller batches (B 16 runs 2.2x the updates per second of B 64 at hidden 64)
    "c2": [
        probe("lstm", 16, 64, 16, 8000, 1e-2, (256,), every=500, horizon=20000),
        probe("lstm", 16, 64, 16, 8000, 3e-3, (256,), every=500, horizon=20000),
        probe("lstm", 16, 64, 32, 6000, 1e-2, (256,), every=500, horizon=20000),
        probe("gru", 16, 64, 16, 8000, 1e-2, (32,), every=500, horizon=20000),
    ],
    # c3: LSTM smaller hidden / shorter L / higher lr; GRU smaller; S4D at a larger vocabulary
    "c3": [
        probe("lstm", 16, 32, 64, 6000, 1e-2, (256,), every=500, horizon=20000),
        probe("lstm", 12, 64, 64, 6000, 1e-2, (256,), every=500, horizon=20000),
        probe("lstm", 16, 64, 64, 5000, 2e-2, (256,), every=500, horizon=20000),
        probe("gru", 16, 32, 64, 6000, 1e-2, (32,), every=500, horizon=20000),
        probe("s4d", 16, 64, 64, 4000, 1e-2, (1024,), every=500, horizon=20000),
    ],
}


def _curve_job(args) -> dict:
    import json
    import time

    import torch

    from penb.metrics import summarize
    from penb.store import paths
    from penb.trainer import Trainer

    config, every, horizon = args
    torch.set_num_threads(1)
    out = paths.store_dir() / "search" / f"curve-{runs.key(dict(config, steps=horizon))}-{config['steps']}-{every}.json"
    if out.exists():
        return json.loads(out.read_text())
    t = Trainer(dict(config, steps=horizon))
    start, points = time.time(), []
    while t.step < config["steps"]:
        t.train_step()
        if t.step % every == 0:
            acc = summarize(t.evaluate())["token_accuracy"]
            points.append(dict(step=t.step, accuracy=acc, wall_s=round(time.time() - start, 1)))
            out.parent.mkdir(parents=True, exist_ok=True)
            out.with_suffix(".partial").write_text(json.dumps(dict(config=config, points=points)))
    result = dict(config=config, horizon=horizon, points=points)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result))
    out.with_suffix(".partial").unlink(missing_ok=True)
    return result


def curve_configs(p: dict) -> list[dict]:
    return [dict(c, steps=p["steps"]) for c in configs(p)]


def run_curves(name: str, workers: int = 2) -> list[dict]:
    import concurrent.futures as cf
    import multiprocessing as mp

    jobs = [(c, p["every"], p["horizon"]) for p in CURVES[name] for c in curve_configs(p)]
    with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
        return list(pool.map(_curve_job, jobs))


def curve_rows() -> list[dict]:
    """CSV rows of the finished curve probes: one per probe, vocabulary and scoring step."""
    import json

    from penb.store import paths

    out = []
    for name, probes in CURVES.items():
        for p in probes:
            for v in p["vocab"]:
                found = {}
                for enc in ("none", "sinusoidal"):
                    for s in p["seeds"]:
                        c = dict(configs(p)[0], vocab_size=v, encoding=enc, seed=s, steps=p["steps"])
                        f = (paths.store_dir() / "search" /
                             f"curve-{runs.key(dict(c, steps=p['horizon']))}-{p['steps']}-{p['every']}.json")
                        if f.exists():
                            found[enc, s] = json.loads(f.read_text())["points"]
                if len(found) < 2 * len(p["seeds"]):
                    continue
                points = found["none", p["seeds"][0]]
                for i, pt in enumerate(points):
                    if pt["step"] % 1000 and i != len(points) - 1:      # the CSV keeps every 1,000th update
                        continue
                    van = [found["none", s][i]["accuracy"] for s in p["seeds"]]
                    pe = [found["sinusoidal", s][i]["accuracy"] for s in p["seeds"]]
                    wall = np.mean([found[k][i]["wall_s"] for k in found])
                    out.append(dict(round=name, model=p["core"], length=p["length"], hidden=p["hidden"],
                                    batch_size=p["batch_size"], steps=pt["step"], lr=p["lr"], warmup=p["warmup"],
                                    vocab=v, seeds=" ".join(map(str, p["seeds"])),
                                    acc_vanilla=round(float(np.mean(van)), 4), acc_pe=round(float(np.mean(pe)), 4),
                                    acc_vanilla_per_seed="/".join(f"{a:.3f}" for a in van),
                                    acc_pe_per_seed="/".join(f"{a:.3f}" for a in pe),
                                    wall_s_per_run=round(float(wall), 1),
                                    note=f"curve probe: step {pt['step']} of a cosine over {p['horizon']} updates "
                                         + p["note"]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--round", action="append", default=[], help="train this round (repeatable)")
    ap.add_argument("--curves", action="append", default=[], help="run this set of curve probes")
    ap.add_argument("--csv", action="store_true", help="write the CSV of every finished probe")
    ap.add_argument("--list", action="store_true", help="list the rounds")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (one torch thread each)")
    args = ap.parse_args(argv)
    unknown = set(args.round) - set(ROUNDS) | set(args.curves) - set(CURVES)
    if unknown:
        ap.error(f"unknown round(s) {sorted(unknown)}; valid: {', '.join([*ROUNDS, *CURVES])}")
    if args.list:
        for name, probes in ROUNDS.items():
            print(f"{name}: {len(probes)} probes, {sum(cost(p) for p in probes)} runs")
    for name in args.round:
        todo = [c for p in ROUNDS[name] for c in configs(p)]
        # longest first, so the two workers finish together
        todo.sort(key=lambda c: -c["steps"] * c["hidden"] ** 2 * c["length"] * c["batch_size"])
        print(f"round {name}: {len(todo)} runs", flush=True)
        sweeps.sweep(todo, ProcessExecutor(workers=args.workers, threads=1), progress=False)
    for name in args.curves:
        print(f"curves {name}", flush=True)
        run_curves(name, args.workers)
    if args.csv or args.round or args.curves:
        print(f"wrote {write_csv()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

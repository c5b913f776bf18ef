"""The deep presets' power searches (issue 58): the models' curves over V on SEARCH seeds, at quick's shapes.

Written before any deep confirmation run it sizes. It trains a figure's models at the quick shapes of their chapter
(key findings: hidden 64, length 16, batch 64, lr 1e-2, WSD; frequency: the same on the dual-frequency task), on
search seeds only (``penb.presets.SEARCH_SEEDS``), at trunks whose N/4, N/2 and N the power analysis reads (for key
findings quick's N = 2,000 and the deep N = 32,000). ``penb.power.fig2_v1`` reads the table this writes (``deep_search.csv``
beside the chapter's presets) and nothing of a confirmation seed.

* ``--chapter key_findings`` (Fig. 2): vanilla only by default, one row per run with its token accuracy.
* ``--chapter frequency`` (Fig. 3): the GRU's dual-frequency cell at each V; each row also holds the run's accuracy
  with FREQUENT and with RARE disturbants (all targets) and their difference, the harm that
  ``morita.fig3.pe_robust.gru`` compares (``penb.chapters.frequency.harm.seed_harm``). ``--encodings none
  sinusoidal`` trains both variants, so the alternative of the power analysis is an effect measured on search seeds.

The runs go through the one batched trainer (``penb.executors.batched``) over ``--workers`` processes, the
vocabularies interleaved so that each process's batch mixes cheap and dear ones.

    python scripts/search_deep.py --vocab 32 64 128 256 --seeds 0 1 2 --out penb/chapters/key_findings/deep_search.csv
    python scripts/search_deep.py --chapter frequency --vocab 32 64 --encodings none sinusoidal --budgets 4000 32000 \
        --out penb/chapters/frequency/deep_search.csv
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

from penb import presets, runs, sweeps
from penb.chapters import rnn_common
from penb.executors.batched import BatchedExecutor

FIELDS = ("core", "vocab", "encoding", "seed", "steps", "trunk", "token_accuracy", "diverged", "wall_s")
HARM_FIELDS = ("acc_frequent", "acc_rare", "harm",          # frequency: accuracy with each disturbant group,
               "batch_runs", "batch_wall_s")               # and the batch each run trained in (the CPU's rate)
CHAPTERS = ("key_findings", "frequency")


def _cfg(chapter: str, core: str, vocab: list[int], seeds: list[int], n: int, encodings: tuple, device: str = "cpu"):
    """The chapter's quick config of ``core`` at trunk budget ``n`` (and N/2, N/4: ``earlier=1``) over ``vocab``, fp32
    (a search's runs are the deep preset's precision on every device)."""
    per = {**presets.resolve(chapter, "quick").per_core.get(core, {}), "steps": n, "amp": "none"}
    common = dict(cores=(core,), seeds=tuple(seeds), encodings=encodings, per_core={core: per}, earlier=1,
                  device=device)
    if chapter == "key_findings":
        return [presets.resolve(chapter, "quick", core_seeds={}, **{f"{core}_vocab": tuple(vocab)}, **common)]
    return [presets.resolve(chapter, "quick", **{f"{core}_vocab": v}, **common) for v in vocab]


def configs(core: str, vocab: list[int], seeds: list[int], budgets: list[int], chapter: str = "key_findings",
            encodings: tuple = ("none",), device: str = "cpu") -> list[dict]:
    """Every run of the search: for each trunk budget N in ``budgets``, ``core`` at each V, encoding and seed, at N,
    N/2 and N/4 (``rnn_common.all_budgets`` with ``earlier=1``); the vocabularies in the order smallest, largest,
    second smallest, second largest, ..., so that consecutive batches cost about the same."""
    import importlib

    analysis = importlib.import_module(f"penb.chapters.{chapter}.analysis")
    v = sorted(vocab)
    zigzag = [x for pair in zip(v, reversed(v)) for x in pair][:len(v)]
    out = []
    for n in budgets:
        for cfg in _cfg(chapter, core, vocab, seeds, n, tuple(encodings), device):
            full = sorted(analysis.run_configs(cfg),
                          key=lambda c: (zigzag.index(c["vocab_size"]), c["seed"], c["encoding"]))
            out += rnn_common.all_budgets(full, cfg)
    return out


def harm_columns(results) -> dict[str, dict]:
    """{run key: {acc_frequent, acc_rare, harm}} of dual-frequency runs, each run on its own (the chapter's per-seed
    measure, ``penb.chapters.frequency.harm.seed_harm``, over all targets), with the batch it trained in (its runs and
    seconds: the CPU rate the power analysis charges)."""
    from penb.chapters.frequency import analysis as fa

    out = {}
    for r in results:
        if r.diverged:
            continue
        h = fa.seed_harm(fa.cells(fa._frame([r]))).iloc[0]
        batch = r.result.get("batched", {})
        out[r.key] = {"acc_frequent": round(float(h.acc_frequent), 4), "acc_rare": round(float(h.acc_rare), 4),
                      "harm": round(float(h.harm), 4), "batch_runs": batch.get("runs", 1),
                      "batch_wall_s": round(batch.get("wall_s", r.wall_s), 2)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chapter", choices=CHAPTERS, default="key_findings")
    ap.add_argument("--core", default="gru")
    ap.add_argument("--vocab", type=int, nargs="+", default=[32, 64, 128, 256])
    ap.add_argument("--encodings", nargs="+", default=["none"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--budgets", type=int, nargs="+", default=[2000, 32000], help="each a trunk's N")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch-runs", type=int, default=6, help="runs per batch (a process's share)")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda for the LSTM and S4D parts (penb.sizing)")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if set(a.seeds) - set(presets.SEARCH_SEEDS):
        sys.exit(f"search seeds only: {presets.SEARCH_SEEDS}")
    todo = configs(a.core, a.vocab, a.seeds, sorted(a.budgets, reverse=True), a.chapter, tuple(a.encodings), a.device)
    t0 = time.time()
    results = sweeps.sweep(todo, BatchedExecutor(a.batch_runs, workers=a.workers, threads=1), progress=False)
    print(f"{len(results)} runs in {time.time() - t0:.0f} s")
    trunk = {runs.key(c): min(b for b in a.budgets if b // c["steps"] in (1, 2, 4) and b % c["steps"] == 0)
             for c in todo}
    results = list({r.key: r for r in results}.values())
    extra = harm_columns(results) if a.chapter == "frequency" else {}
    rows = [dict(core=r.config["core"], vocab=r.config["vocab_size"], encoding=r.config["encoding"],
                 seed=r.config["seed"], steps=r.config["steps"], trunk=trunk[r.key],
                 token_accuracy=round(r.metrics["token_accuracy"], 4) if not r.diverged else "",
                 diverged=bool(r.diverged), wall_s=round(r.wall_s, 1), **extra.get(r.key, {})) for r in results]
    fields = FIELDS + (HARM_FIELDS if a.chapter == "frequency" else ())
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        if f.tell() == 0:
            w.writeheader()
        w.writerows(sorted(rows, key=lambda r: (r["vocab"], r["encoding"], r["seed"], r["trunk"], -r["steps"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

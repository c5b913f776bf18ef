"""The regime search behind the ``quick`` preset of the chapter "Frequency matters" (Morita, Sec. 4.2, Fig. 3).

Each *probe* is a set of overrides of :data:`BASE` (the first draft of the frequency chapter's ``quick``
preset), so its runs are the runs that chapter makes with those parameters, and the run store shares them. Rounds are listed in the
order they were run; never edit a round that has run, append a new one.

    .venv/bin/python scripts/search_frequency.py --list              # rounds and their runs
    .venv/bin/python scripts/search_frequency.py --round f1          # train one round
    .venv/bin/python scripts/search_frequency.py --csv               # write penb/chapters/frequency/search_log.csv

The CSV has one row per probe and model: the settings, token accuracy over the test grid (both variants),
the accuracy with RARE disturbants, the harm for FREQUENT targets (accuracy with FREQUENT disturbants minus
accuracy with RARE ones) with its 95% interval, whether the vanilla harm lies wholly above the PE harm, the
harm with both target groups pooled, and the mean wall time of one run.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from penb import presets  # noqa: E402
from penb import runs
from penb.chapters.frequency import analysis  # noqa: E402

CSV = analysis.SEARCH_LOG                           # penb/chapters/frequency/search_log.csv
FIELDS = ("round", "model", "vocab", "rarity", "length", "hidden", "batch_size", "steps", "lr", "seeds",
          "acc_vanilla", "acc_pe", "rare_vanilla", "rare_pe", "harm_vanilla", "harm_vanilla_ci", "harm_pe",
          "harm_pe_ci", "separated", "harm_vanilla_all", "harm_pe_all", "wall_s_per_run", "note")


def probe(core: str, vocab: int, note: str = "", **overrides) -> dict:
    return dict(cores=(core,), **{f"{core}_vocab": vocab}, note=note, **overrides)


ROUNDS: dict[str, list[dict]] = {
    # f0: the first draft of the preset (L = 16, hidden 64, batch 64, lr 1e-2, 3,000 updates, two seeds):
    # every model far from trained (GRU 0.12-0.31, LSTM about 0.2), no harm pattern
    "f0": [probe("gru", 64), probe("lstm", 256), probe("s4d", 256)],
    # f1: vocabularies where the key-findings regime trains the models well: GRU 16 and 32; the LSTM at
    # the key-findings batch (128) and updates (2,000) with 64 tokens
    "f1": [probe("gru", 16), probe("gru", 32), probe("lstm", 64, batch_size=128, steps=2000)],
    # f2: f1 trained the models (GRU 0.40-0.65, LSTM 0.60-0.64) but RARE disturbants cost vanilla and PE the
    # same; here RARE is made four times rarer (rarity 1/32: each FREQUENT token 31x as likely)
    "f2": [probe("gru", 16, rarity=1 / 32), probe("lstm", 64, rarity=1 / 32, batch_size=128, steps=2000)],
}


# The settings every probe starts from (the first draft of the preset), fixed here so that a later change of
# the preset does not change what a round means.
BASE = dict(length=16, hidden=64, batch_size=64, steps=3000, warmup=100, lr=1e-2, per_cell=32, seeds=(111, 222),
            rarity=0.125, checkpoint_every=300, bootstrap=10_000, workers=2, per_core={})


def cfg_of(p: dict, **extra):
    return presets.resolve("frequency", "quick", **{**BASE, **{k: v for k, v in p.items() if k != "note"}, **extra})


def rows_of(name: str, p: dict) -> list[dict]:
    cfg = cfg_of(p)
    if any(runs.status(c) != "done" for c in analysis.run_configs(cfg)):
        return []
    frame = analysis.run(cfg, progress=False)
    cells = analysis.cells(frame)
    contrast = analysis.contrast(analysis.harm(cells, n_resamples=cfg.bootstrap, target="frequent"))
    contrast = contrast.set_index("model")
    pooled = analysis.contrast(analysis.harm(cells, n_resamples=cfg.bootstrap)).set_index("model")
    out = []
    for core in cfg.cores:
        acc = frame[frame.model == core].groupby("variant").token_accuracy.mean()
        c = contrast.loc[core]
        out.append(dict(round=name, model=core, vocab=cfg[f"{core}_vocab"], rarity=cfg.rarity, length=cfg.length,
                        hidden=cfg.hidden, batch_size=cfg.batch_size, steps=cfg.steps, lr=cfg.lr,
                        seeds=" ".join(map(str, cfg.seeds)), acc_vanilla=round(acc["vanilla"], 4),
                        acc_pe=round(acc["position-encoded"], 4), rare_vanilla=round(c.vanilla_rare, 4),
                        rare_pe=round(c.pe_rare, 4), harm_vanilla=round(c.vanilla_harm, 4),
                        harm_vanilla_ci=f"[{c.vanilla_lo:+.3f}, {c.vanilla_hi:+.3f}]", harm_pe=round(c.pe_harm, 4),
                        harm_pe_ci=f"[{c.pe_lo:+.3f}, {c.pe_hi:+.3f}]", separated=bool(c.separated),
                        harm_vanilla_all=round(pooled.loc[core].vanilla_harm, 4),
                        harm_pe_all=round(pooled.loc[core].pe_harm, 4),
                        wall_s_per_run=round(frame[frame.model == core].wall_s.mean(), 1), note=p["note"]))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--round", choices=sorted(ROUNDS))
    ap.add_argument("--workers", type=int, default=None, help="runs at a time (default: the preset's)")
    ap.add_argument("--csv", action="store_true")
    a = ap.parse_args(argv)
    if a.list:
        for name, probes in ROUNDS.items():
            n = sum(len(analysis.run_configs(cfg_of(p))) for p in probes)
            done = sum(runs.status(c) == "done" for p in probes for c in analysis.run_configs(cfg_of(p)))
            print(f"{name}: {len(probes)} probes, {n} runs ({done} done)")
    if a.round:
        for p in ROUNDS[a.round]:
            analysis.run(cfg_of(p, **({"workers": a.workers} if a.workers else {})))
    if a.csv:
        rows = [r for name, probes in ROUNDS.items() for p in probes for r in rows_of(name, p)]
        tmp = CSV.with_suffix(".tmp")
        with tmp.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
        tmp.replace(CSV)
        print(f"{len(rows)} rows -> {CSV}")


if __name__ == "__main__":
    main()

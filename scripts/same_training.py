"""Is this tree's training code the same computation as an older commit's? (issue 67, penb.long_run.same)

    python scripts/same_training.py --old COMMIT      # appends an entry to penb/long_run/same_training.json

Trains the same small runs under COMMIT's tree (a temporary git worktree) and under this one, each in a fresh
process with one torch thread and its own temporary store, and records each run's digest (sha256 of its predictions,
metrics and history) from both, with both trees' training code identities. Only the public path every tree has is
used (penb.run_config.normalize, penb.runner.train_group, penb.runs.run_dir), so an old tree runs it as it is.
A machine's CPU can round differently from another's, so both sides run here, one after the other.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASE = dict(length=8, hidden=16, steps=40, batch_size=8, warmup=5, held_out=16, checkpoint_every=20, log_every=10,
            device="cpu")
GROUPS = {                                # name -> (configs, kernel): every core, a stacked batch, a WSD branch
    "gru_stacked": ([dict(BASE, task="reverse", core="gru", encoding=e, vocab_size=v, seed=s)
                     for e in ("none", "sinusoidal") for v in (8, 16) for s in (1, 2)], "stacked"),
    "gru_alone": ([dict(BASE, task="reverse", core="gru", encoding="sinusoidal", vocab_size=16, seed=1)], "auto"),
    "lstm": ([dict(BASE, task="reverse", core="lstm", encoding="learnable", vocab_size=8, seed=3)], "auto"),
    "s4d": ([dict(BASE, task="sort", core="s4d", encoding="random", vocab_size=8, seed=4)], "auto"),
    "transformer": ([dict(BASE, task="reverse", core="transformer", encoding="sinusoidal_high", vocab_size=8,
                          seed=5, layers=2, heads=2, ffn=32)], "auto"),
    "wsd": ([dict(BASE, task="reverse_variable", core="gru", encoding="none", vocab_size=8, seed=6, schedule="wsd",
                  decay=0.25)], "auto"),
}


def digests() -> dict:
    """{run name: sha256 of its predictions, metrics and history} of every run of :data:`GROUPS`, trained here."""
    import hashlib

    import numpy as np
    import torch

    from penb import runner, runs
    from penb.run_config import normalize

    torch.set_num_threads(1)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (group, kernel) in GROUPS.items():
            cs = [normalize(c) for c in group]
            runner.train_group(cs, Path(tmp), kernel=kernel)
            for i, c in enumerate(cs):
                d = runs.run_dir(c, Path(tmp))
                h = hashlib.sha256()
                with np.load(d / "predictions.npz") as z:
                    for k in sorted(z.files):
                        h.update(k.encode() + np.ascontiguousarray(z[k]).tobytes())
                r = json.loads((d / "result.json").read_text())
                h.update(json.dumps([r.get("metrics"), r.get("history")], sort_keys=True).encode())
                out[f"{name}/{i}"] = h.hexdigest()
    return out


def run_in(tree: Path) -> dict:
    with tempfile.TemporaryDirectory() as store:
        env = {**os.environ, "PYTHONPATH": str(tree), "PENB_STORE": store, "PENB_CPU_BF16": "0"}
        got = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--digests"], cwd=tree, env=env,
                             check=True, capture_output=True, text=True)
    return json.loads(got.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", help="the commit whose training code this tree's is checked against")
    ap.add_argument("--digests", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.digests:
        print(json.dumps(digests()))
        return
    sys.path.insert(0, str(REPO))
    from penb.long_run import code_identity, same
    from penb.long_run.packed import TRAINING_CODE, host

    git = ["git", "-C", str(REPO)]
    dirty = subprocess.run([*git, "status", "--porcelain", "--", *TRAINING_CODE], check=True, capture_output=True,
                           text=True).stdout.strip()
    if dirty:   # the entry names HEAD as the new commit: its identity must be HEAD's, not uncommitted files'
        sys.exit(f"error: commit the training code first (uncommitted: {' '.join(dirty.split()[1::2])})")
    old = subprocess.run([*git, "rev-parse", a.old], check=True, capture_output=True, text=True).stdout.strip()
    new = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "old"
        subprocess.run([*git, "worktree", "add", "--detach", "-q", str(tree), old], check=True)
        try:
            before, after = run_in(tree), run_in(REPO)
            entry = {"identity": code_identity(REPO), "continues": code_identity(tree), "old_commit": old,
                     "new_commit": new, "date": dt.date.today().isoformat(),
                     "host": host(),
                     "runs": {k: [before[k], after.get(k, "")] for k in sorted(before)}}
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(tree)], check=True)
    same.RECORD.write_text(json.dumps([*same.records(), entry], indent=1) + "\n")
    print(f"{entry['identity']} continues {entry['continues']}: "
          f"{'the same' if same.shown_same(entry) else 'NOT the same'} on {len(entry['runs'])} runs")


if __name__ == "__main__":
    main()

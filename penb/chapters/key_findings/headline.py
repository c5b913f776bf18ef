"""Fig. 2's headline cell on the long run (issue 65): the V 256 GRU curves, PE and
vanilla, per seed, from 1,000 updates to the deepest budget archived, with the budgets
marked and the verdicts beside them.

It reads the archives the long run's parts made, never a store:
``book/archived/key_findings-deep_v2`` (N = 128,000 with 64,000 and 32,000) and, once
archived, ``key_findings-deep_v3`` (300,000 with 150,000 and 75,000, same trunks).

* :func:`curves`: each seed's training-batch token accuracy (the run's logged history,
  kept on a log grid from 1,000 updates by ``penb.call.archive.thinned``) of the
  longest run of each trunk in each archive, one row an entry;
* :func:`budgets`: each run's held-out token accuracy at its budget (what the claims
  grade);
* :func:`verdicts`: the four claims the V 256 cell decides, as each archive recorded
  them (protocol, verdict, ours);
* :func:`figure`: all three on one log axis.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import matplotlib.pyplot as plt
import pandas as pd

from penb.store import paths

# the long run's parts, shallow to deep
ARCHIVES = ("key_findings-deep_v2", "key_findings-deep_v3")
VOCAB = 256
CLAIMS = ("morita.fig2.gru", "morita.fig2.distance.gru", "morita.fig2.level.gru",
          "morita.sec4_1.more_updates.gru")
COLORS = {"sinusoidal": "tab:orange", "none": "tab:blue"}
NAMES = {"sinusoidal": "PE GRU", "none": "vanilla GRU"}


def folders(root: Path | None = None) -> list[Path]:
    """The long run's archives under ``root`` (default ``book/archived``), shallow to
    deep."""
    root = Path(root) if root is not None else paths.REPO / "book" / "archived"
    return [root / a for a in ARCHIVES if (root / a / "results.json").exists()]


def _runs(folder: Path) -> list[dict]:
    """The finished V 256 GRU runs of an archive."""
    found = json.loads((folder / "results.json").read_text()).values()
    return [r for r in found if r["config"]["core"] == "gru"
            and r["config"]["vocab_size"] == VOCAB and r.get("status") == "done"]


def _row(folder: Path, r: dict, **more) -> dict:
    c = r["config"]
    return dict(archive=folder.name, encoding=c["encoding"], seed=c["seed"], **more)


def budgets(dirs: Sequence[Path]) -> pd.DataFrame:
    """[archive, encoding, seed, steps, token_accuracy]: each run's held-out
    accuracy."""
    return pd.DataFrame([_row(f, r, steps=r["config"]["steps"],
                              token_accuracy=r["metrics"]["token_accuracy"])
                         for f in dirs for r in _runs(f)])


def curves(dirs: Sequence[Path]) -> pd.DataFrame:
    """[archive, encoding, seed, step, accuracy]: the history of each archive's longest
    run per (encoding, seed)."""
    rows = []
    for f in dirs:
        runs = _runs(f)
        longest = max((r["config"]["steps"] for r in runs), default=0)
        for r in runs:
            if r["config"]["steps"] == longest:
                rows += [_row(f, r, step=h["step"], accuracy=h["accuracy"])
                         for h in r.get("history") or []]
    return pd.DataFrame(rows, columns=["archive", "encoding", "seed", "step",
                                       "accuracy"])


def verdicts(dirs: Sequence[Path]) -> pd.DataFrame:
    """One row per (archive, claim of :data:`CLAIMS`): the updates it was read at, the
    protocol, the verdict and ours."""
    rows = []
    for f in dirs:
        found = sorted(f.glob("*.grades.json"))
        grades = json.loads(found[0].read_text()) if found else {}
        for k in CLAIMS:
            g = grades.get(k)
            if g:
                rows.append({"archive": f.name, "claim": k,
                             "updates": (g.get("scale") or {}).get("updates"),
                             "protocol": g.get("protocol"), "verdict": g.get("verdict"),
                             "ours": g.get("ours")})
    return pd.DataFrame(rows, columns=["archive", "claim", "updates", "protocol",
                                       "verdict", "ours"])


def provenance(dirs: Sequence[Path]) -> str:
    """One line per archive: its preset, device, seeds, updates, the commit of its runs
    and the day it was archived."""
    out = []
    for f in dirs:
        m = json.loads((f / "manifest.json").read_text())
        seeds = m.get("seeds") or ["?"]
        made = ", ".join(c[:7] for c in m.get("runs_commit") or [])
        out.append(f"{f.name}: preset {m.get('preset')}, {m.get('device')}, "
                   f"seeds {seeds[0]}-{seeds[-1]}, "
                   f"{(m.get('updates') or {}).get('gru', 0):,} updates, "
                   f"runs of {made}, "
                   f"archived {(m.get('archived') or {}).get('date', '?')[:10]}")
    return "\n".join(out)


def figure(dirs: Sequence[Path], width: float = 10.0):
    """The V 256 curves (thin lines, one per seed: the training batches' accuracy), the
    held-out accuracy at each budget (points, one per seed, and the mean as a bar), the
    budgets as dotted lines, the verdicts in a box, the archives' provenance below."""
    c, b, v = curves(dirs), budgets(dirs), verdicts(dirs)
    fig, ax = plt.subplots(figsize=(width, 4.6))
    for (enc, _, _), g in c.groupby(["encoding", "seed", "archive"]):
        ax.plot(g["step"], g["accuracy"], color=COLORS[enc], lw=0.7, alpha=0.45)
    for enc, g in b.groupby("encoding"):
        ax.scatter(g["steps"], g["token_accuracy"], s=14, color=COLORS[enc],
                   edgecolor="k", lw=0.4, zorder=3,
                   label=f"{NAMES[enc]}: held-out, per seed")
        m = g.groupby("steps")["token_accuracy"].mean()
        ax.hlines(m.values, m.index / 1.08, m.index * 1.08, color=COLORS[enc], lw=2.5,
                  zorder=4)
    for n in sorted(b["steps"].unique()):
        ax.axvline(n, color="0.6", ls=":", lw=0.8)
    ax.set(xscale="log", xlabel="updates", ylabel=f"token accuracy (V {VOCAB})",
           xlim=(900, None))
    ax.plot([], [], color="0.4", lw=0.7, label="training batches, per seed (line)")
    ax.legend(loc="upper left", fontsize=8)
    if len(v):
        text = "\n".join(f"{r.claim.removeprefix('morita.')} @ {r.updates or 0:,}: "
                         f"{r.verdict} (p{r.protocol})" for r in v.itertuples())
        ax.text(1.02, 0.5, text, transform=ax.transAxes, fontsize=8, va="center",
                family="monospace")
    fig.text(0.01, -0.02, provenance(dirs), fontsize=7, va="top", color="0.3")
    fig.tight_layout()
    return fig

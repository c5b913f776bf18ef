"""The doubling test at a glance: for each graded claim about trained models, how far each quantity that could
overturn its verdict moved from N/2 to N updates (dot: the mean over seeds; bar: its 95% Student-t interval), in
units of the claim's smallest effect of interest, against the side it must stay on (shaded)."""
from __future__ import annotations

import math
from typing import Iterable

import matplotlib.pyplot as plt

from penb.claims.doubling import GROW, SHRINK

HOLDS, FAILS = "#2e7d32", "#b26a00"


def rows(grades: Iterable) -> list[dict]:
    """One row per (claim, quantity) with a finite move: claim, quantity, mean/lo/hi over the SESOI, the
    direction that could overturn, whether it held."""
    out = []
    for g in grades:
        rec = (getattr(g, "detail", None) or {}).get("doubling") or {}
        for name, m in rec.get("moves", {}).items():
            if not all(math.isfinite(m[k]) for k in ("mean", "lo", "hi")):
                continue
            s = m.get("sesoi", rec["sesoi"]) or 1.0           # a trend's models: their own unit
            out.append(dict(claim=g.claim, quantity=name, mean=m["mean"] / s, lo=m["lo"] / s, hi=m["hi"] / s,
                            direction=m["direction"], holds=m["holds"], budgets=rec["budgets"]))
    return out


def figure(grades: Iterable, width: float = 7.0):
    """The moves of ``grades`` (a chapter's :class:`~penb.claims.grading.Grade` list) as a horizontal interval
    plot; a figure that says so when no claim has a move to show (no runs at half the budget)."""
    table = rows(grades)
    if not table:
        fig, ax = plt.subplots(figsize=(width, 1.0))
        ax.axis("off")
        ax.text(0.5, 0.5, "no claim about trained models has runs at both N/2 and N on three seeds or more",
                ha="center", va="center", fontsize=9)
        return fig
    fig, ax = plt.subplots(figsize=(width, 0.32 * len(table) + 1.1))
    lim = max(3.0, max(max(abs(r["lo"]), abs(r["hi"])) for r in table) * 1.1)
    for i, r in enumerate(reversed(table)):
        lo, hi = {SHRINK: (-1, lim), GROW: (-lim, 1)}.get(r["direction"], (-1, 1))
        ax.fill_betweenx([i - 0.4, i + 0.4], lo, hi, color="#e8f5e9", lw=0, zorder=0)
        color = HOLDS if r["holds"] else FAILS
        ax.plot([r["lo"], r["hi"]], [i, i], color=color, lw=2, zorder=2)
        ax.plot(r["mean"], i, "o", color=color, ms=5, zorder=3)
    ax.set_yticks(range(len(table)))
    ax.set_yticklabels([f"{r['claim'].split('.', 1)[-1]}: {r['quantity']}" for r in reversed(table)], fontsize=8)
    for x in (-1, 1):
        ax.axvline(x, color="#9e9e9e", ls="--", lw=0.8)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlim(-lim, lim)
    ax.set_xlabel("move from N/2 to N updates (in smallest effects of interest)")
    ax.set_title("The doubling test: green bars stayed on their shaded side (settled), orange did not",
                 fontsize=9)
    fig.tight_layout()
    return fig

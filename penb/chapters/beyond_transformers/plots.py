"""Figures of the chapter ``beyond_transformers`` (on the shared helpers of ``penb.plotting``)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from penb.plotting import errorbars

STYLE = {"1-layer NoPE": ("#9467bd", "v"), "2-layer NoPE": ("#1f77b4", "o"), "2-layer PE": ("#d62728", "s"),
         "PE-LSTM": ("#2ca02c", "D")}


def vocab_panel(summ: pd.DataFrame, frame: pd.DataFrame, ceilings: dict[int, float]):
    """Token accuracy against the vocabulary (log2) for each model: mean over seeds with its 95% interval,
    every seed as a hollow point; dashed: the order-blind ceiling."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for i, (m, g) in enumerate(summ.groupby("model", sort=False)):
        color, marker = STYLE.get(m, ("k", "o"))
        shift = 0.05 * (i - 1)
        g = g.sort_values("vocab")
        errorbars(ax, g, "accuracy", g["vocab"].to_numpy(float) * 2 ** shift, m, color, marker)
        pts = frame[(frame["model"] == m) & ~frame["diverged"].astype(bool)]
        ax.scatter(pts["vocab"].to_numpy(float) * 2 ** (shift + 0.03), pts["token_accuracy"], s=12,
                   facecolors="none", edgecolors=color, linewidths=0.8, alpha=0.8)
    xs = sorted(ceilings)
    ax.plot(xs, [ceilings[v] for v in xs], "k--", lw=1, label="order-blind ceiling")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("vocabulary size V")
    ax.set_ylabel("token accuracy")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    return fig


def length_panels(lengths: pd.DataFrame, curves: dict[str, np.ndarray], length: int, long: int,
                  ceiling_long: float):
    """(a) token accuracy at L and at the long length per model (each seed a line); (b) accuracy per output
    step at the long length (mean over seeds); the dotted line marks step L, the last one seen in training."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(10.5, 3.8))
    for i, (m, g) in enumerate(lengths[~lengths["diverged"]].groupby("model", sort=False)):
        color, marker = STYLE.get(m, ("k", "o"))
        for _, r in g.iterrows():
            a.plot([i - 0.15, i + 0.15], [r["at_L"], r["at_long"]], color=color, alpha=0.5, lw=0.8)
        a.scatter([i - 0.15] * len(g), g["at_L"], color=color, marker=marker, s=16)
        a.scatter([i + 0.15] * len(g), g["at_long"], facecolors="none", edgecolors=color, marker=marker, s=16)
        curve = curves.get(m)
        if curve is not None:
            b.plot(np.arange(1, len(curve) + 1), curve, color=color, marker=marker, ms=3, label=m)
    models = list(lengths[~lengths["diverged"]].groupby("model", sort=False).groups)
    a.set_xticks(range(len(models)), models, rotation=15)
    a.axhline(ceiling_long, color="k", ls="--", lw=0.8)
    a.set_ylabel(f"token accuracy (filled: L = {length}; hollow: {long})")
    a.grid(axis="y", alpha=0.3)
    b.axvline(length, color="k", ls=":", lw=0.8)
    b.set_xlabel(f"output step (of {long})")
    b.set_ylabel("accuracy at that step")
    b.grid(alpha=0.3)
    b.legend(fontsize=8)
    fig.tight_layout()
    return fig

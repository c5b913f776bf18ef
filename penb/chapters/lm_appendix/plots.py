"""Figures of the language-modelling appendix (Morita App. E): Fig. 15's training curves, Table 1 as dots.

``training_curves(curve, gap)`` draws one line per seed and variant (training perplexity against the
update, log scale, as Fig. 15) and, beside it, the paired gap log(vanilla / PE) per seed.
``test_perplexities(frame, paper)`` puts each seed's test perplexity beside the paper's min-mean-max.
"""
from __future__ import annotations

from typing import Optional

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd

from penb.names import VARIANT_LABELS
from penb.plotting import COLORS


def training_curves(curve: pd.DataFrame, gap: Optional[pd.DataFrame] = None, warmup: Optional[int] = None,
                    width: float = 11.0):
    """Figure: left, training perplexity per (variant, seed) against the update (log y when it spans more
    than a factor 3); right (when ``gap`` is given), log(vanilla / PE) per seed and its mean.

    curve: columns variant, seed, step, perplexity (``penb.chapters.lm_appendix.analysis.curves``);
    gap: index step, one column per seed plus ``mean`` (``penb.chapters.lm_appendix.analysis.paired_gap``).
    """
    ncols = 1 if gap is None else 2
    fig, axes = plt.subplots(1, ncols, figsize=(width if ncols == 2 else width / 2, 3.8), squeeze=False)
    ax = axes[0, 0]
    for variant, g in curve.groupby("variant", sort=False):
        for k, (seed, s) in enumerate(g.groupby("seed")):
            s = s.sort_values("step")
            ax.plot(s["step"], s["perplexity"], color=COLORS.get(variant, "C0"), lw=1.0, alpha=0.8,
                    label=variant if k == 0 else None)
    lo, hi = curve["perplexity"].min(), curve["perplexity"].max()
    if hi > 3 * lo:                                   # log scale with plain labels at 1, 2, 5 x 10^k
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(mticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(mticker.NullFormatter())
    ax.set_xlabel("update")
    ax.set_ylabel("training perplexity")
    ax.set_title("Training perplexity, one line per seed")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    if warmup:
        ax.axvline(warmup, color="0.6", ls=":", lw=1)
    if gap is not None:
        ax = axes[0, 1]
        for seed in [c for c in gap.columns if c != "mean"]:
            ax.plot(gap.index, gap[seed], color="#1f77b4", lw=0.8, alpha=0.5)
        ax.plot(gap.index, gap["mean"], color="k", lw=1.8, label="mean over seeds")
        ax.axhline(0, color="0.3", lw=0.8)
        if warmup:
            ax.axvline(warmup, color="0.6", ls=":", lw=1)
        ax.set_xlabel("update")
        ax.set_ylabel("log(vanilla / PE) training perplexity")
        ax.set_title("Paired gap (> 0: PE ahead), thin lines: seeds")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def test_perplexities(frame: pd.DataFrame, paper: dict, width: float = 9.0):
    """Figure: left, Table 1 (min-max bar, mean dot) per model; right, each seed's test perplexity here
    with its min-max bar and mean.

    frame: columns variant, seed, perplexity; paper: {"vanilla"|"pe": {"min", "mean", "max"}}.
    """
    fig, axes = plt.subplots(1, 2, figsize=(width, 3.2))
    names = [VARIANT_LABELS["none"], VARIANT_LABELS["sinusoidal"]]
    for i, (key, name) in enumerate(zip(("vanilla", "pe"), names)):
        p = paper[key]
        axes[0].plot([i, i], [p["min"], p["max"]], color=COLORS[name], lw=6, alpha=0.4, solid_capstyle="butt")
        axes[0].plot(i, p["mean"], "o", color=COLORS[name])
        g = frame[frame["variant"] == name]
        if g.empty:
            continue
        y = g["perplexity"].to_numpy(float)
        axes[1].plot([i, i], [y.min(), y.max()], color=COLORS[name], lw=6, alpha=0.4, solid_capstyle="butt")
        axes[1].plot(np.full(len(y), i) + np.linspace(-0.08, 0.08, len(y)), y, "x", color=COLORS[name])
        axes[1].plot(i, y.mean(), "o", color=COLORS[name])
    for ax, title in zip(axes, ("Table 1 (WikiText-103, 5 seeds)", "this run (see the data table)")):
        ax.set_xticks([0, 1], ["vanilla", "PE"])
        ax.set_xlim(-0.6, 1.6)
        ax.set_ylabel("test perplexity")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig

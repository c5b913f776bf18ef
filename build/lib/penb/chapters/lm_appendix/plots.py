"""Figures of the language-modelling appendix (Morita App. E): Table 1 beside ours, and
Fig. 15's training curves.

``test_perplexities(frame, paper, summ)`` puts each seed's test perplexity (crosses)
beside the mean over seeds and its 95% interval over seeds, and Table 1's
min-mean-max.
``training_curves(curve, gap)`` draws one line per seed and variant (training perplexity
against the update, log scale, as Fig. 15) and, beside it, the paired gap
log(vanilla / PE) per seed.
"""
from __future__ import annotations

from typing import Optional

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd

from penb.names import VARIANT_LABELS
from penb.plotting import COLORS


def training_curves(curve: pd.DataFrame, gap: Optional[pd.DataFrame] = None,
                    warmup: Optional[int] = None, width: float = 11.0):
    """Figure: left, training perplexity per (variant, seed) against the update (log y
    when it spans more than a factor 3); right (when ``gap`` is given), log(vanilla /
    PE) per seed and its mean.

    curve: columns variant, seed, step, perplexity (``analysis.curves``); gap: index
    step, one column per seed plus ``mean`` (``analysis.paired_gap``).
    """
    ncols = 1 if gap is None else 2
    size = (width if ncols == 2 else width / 2, 3.8)
    fig, axes = plt.subplots(1, ncols, figsize=size, squeeze=False)
    ax = axes[0, 0]
    for variant, g in curve.groupby("variant", sort=False):
        for k, (seed, s) in enumerate(g.groupby("seed")):
            s = s.sort_values("step")
            ax.plot(s["step"], s["perplexity"], color=COLORS.get(variant, "C0"), lw=1.0,
                    alpha=0.8, label=variant if k == 0 else None)
    lo, hi = curve["perplexity"].min(), curve["perplexity"].max()
    if hi > 3 * lo:                   # log scale with plain labels at 1, 2, 5 x 10^k
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


def test_perplexities(frame: pd.DataFrame, paper: dict, summ: pd.DataFrame,
                      width: float = 9.0):
    """Figure: left, Table 1 (min-max bar, mean dot) per model; right, each seed's test
    perplexity here (crosses) over the mean over seeds (dot) and its 95% interval over
    seeds (error bar).

    frame: columns variant, seed, perplexity, diverged (``analysis.run``); paper:
    {"vanilla"|"pe": {"min", "mean", "max"}}; summ: ``analysis.summary``.
    """
    fig, axes = plt.subplots(1, 2, figsize=(width, 3.2))
    rows = [("vanilla", "none"), ("pe", "sinusoidal")]
    for i, (key, enc) in enumerate(rows):
        name = VARIANT_LABELS[enc]
        p = paper[key]
        axes[0].plot([i, i], [p["min"], p["max"]], color=COLORS[name], lw=6, alpha=0.4,
                     solid_capstyle="butt")
        axes[0].plot(i, p["mean"], "o", color=COLORS[name])
        g = frame[(frame["variant"] == name) & ~frame["diverged"].astype(bool)]
        if g.empty:
            continue
        y = g["perplexity"].to_numpy(float)
        x = np.full(len(y), i + 0.15) + np.linspace(-0.05, 0.05, len(y))
        axes[1].plot(x, y, "x", color=COLORS[name], label="seeds" if i == 0 else None)
        m = summ.loc[enc]
        axes[1].errorbar(i - 0.1, m["mean"], yerr=[[m["mean"] - m["lo"]],
                                                   [m["hi"] - m["mean"]]],
                         fmt="o", color=COLORS[name], capsize=4,
                         label="mean, 95% interval over seeds" if i == 0 else None)
    titles = ("Table 1 (WikiText-103, 5 seeds)", "this run (see the data table)")
    for ax, title in zip(axes, titles):
        ax.set_xticks([0, 1], ["vanilla", "PE"])
        ax.set_xlim(-0.6, 1.6)
        ax.set_ylabel("test perplexity")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3, axis="y")
    axes[1].legend(fontsize=7, loc="best")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig

"""The shared plotting helper: colours, markers and metric labels used across
chapters, error bars, and the vocabulary sweep of the RNN experiments (Morita):
metrics against the vocabulary size, vanilla vs. PE.

``vocab_sweep(summ)`` draws Fig. 2's layout from a tidy frame such as
``penb.chapters.key_findings.analysis.summary`` (one row per model x vocabulary x
variant with ``accuracy``/``distance`` and their ``_lo``/``_hi`` interval bounds):
the top row is token accuracy, the bottom row the mean Damerau-Levenshtein distance,
one column per model, the vocabulary on a log2 axis, error bars the intervals. With
``per_seed`` (one row per run) it draws each seed's value as a small hollow point
over the mean and its interval. Later chapters with the same kind of frame (another
task, another encoding) reuse it with their own ``variants``.
"""
from __future__ import annotations

from typing import Optional, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from penb.names import model_name

COLORS = {"vanilla": "#7f7f7f", "position-encoded": "#d62728"}
MARKERS = {"vanilla": "o", "position-encoded": "s"}
METRICS = {"accuracy": "token accuracy", "distance": "Damerau-Levenshtein distance"}
SPREAD = 0.06      # horizontal offset between variants, in doublings of the vocabulary


def errorbars(ax, g: pd.DataFrame, metric: str, x: np.ndarray, label: str, color: str,
              marker: str) -> None:
    """Points of ``g[metric]`` at ``x``, error bars from ``g[metric_lo]``/``_hi``."""
    y = g[metric].to_numpy(float)
    err = np.vstack([y - g[f"{metric}_lo"].to_numpy(float),
                     g[f"{metric}_hi"].to_numpy(float) - y])
    ax.errorbar(x, y, yerr=np.clip(err, 0, None), color=color, marker=marker, ms=5,
                capsize=3, lw=1.5, label=label, zorder=2)


def seed_points(ax, g: pd.DataFrame, metric: str, shift: float, color: str,
                marker: str) -> None:
    """Each row of ``g`` (one seed) as a small hollow point at its vocabulary, moved by
    ``shift`` doublings and fanned out a little so that equal values stay visible; drawn
    above the error bars."""
    g = g.dropna(subset=[metric])
    if g.empty:
        return
    rank = g.groupby("vocab").cumcount().to_numpy(float)
    count = g.groupby("vocab")["vocab"].transform("size").to_numpy(float)
    fan = 0.5 * SPREAD * (rank - (count - 1) / 2) / np.maximum(count - 1, 1)
    x = g["vocab"].to_numpy(float) * 2 ** (shift + fan)
    ax.scatter(x, g[metric].to_numpy(float), s=14, marker=marker, facecolors="none",
               edgecolors=color, linewidths=0.9, alpha=0.85, zorder=3)


def vocab_sweep(summ: pd.DataFrame, models: Optional[Sequence[str]] = None,
                variants: Optional[Sequence[str]] = None,
                metrics: Sequence[str] = ("accuracy", "distance"), width: float = 11.0,
                per_seed: Optional[pd.DataFrame] = None):
    """Figure: rows ``metrics``, columns ``models``; x = vocabulary size (log2), one
    line per variant.

    summ: DataFrame with columns model, vocab, variant and, per metric m, m, m_lo, m_hi.
    per_seed: optional DataFrame with columns model, vocab, variant and, per metric
    m, m (one row per seed): drawn as hollow points over the means and intervals.
    """
    models = list(models or dict.fromkeys(summ["model"]))
    variants = list(variants or dict.fromkeys(summ["variant"]))
    fig, axes = plt.subplots(len(metrics), len(models), squeeze=False, sharey="row",
                             figsize=(width, 2.9 * len(metrics) + 0.5))
    for j, model in enumerate(models):
        at = summ[summ["model"] == model]
        seeds = None if per_seed is None else per_seed[per_seed["model"] == model]
        ticks = sorted(at["vocab"].unique())
        for i, metric in enumerate(metrics):
            ax = axes[i, j]
            for k, variant in enumerate(variants):
                g = at[at["variant"] == variant].sort_values("vocab")
                if g.empty:
                    continue
                color = COLORS.get(variant, f"C{k}")
                marker = MARKERS.get(variant, "^")
                # a small horizontal offset keeps overlapping error bars apart
                shift = SPREAD * (k - (len(variants) - 1) / 2)
                x = g["vocab"].to_numpy(float) * 2 ** shift
                errorbars(ax, g, metric, x, variant, color, marker)
                if seeds is not None:
                    own = seeds[seeds["variant"] == variant].sort_values("vocab")
                    seed_points(ax, own, metric, shift, color, marker)
            ax.set_xscale("log", base=2)
            # half a doubling either side, so one vocabulary does not fill the panel
            if ticks:
                ax.set_xlim(min(ticks) * 2 ** -0.5, max(ticks) * 2 ** 0.5)
            ax.set_xticks(ticks, [str(v) for v in ticks])
            ax.minorticks_off()
            ax.grid(alpha=0.3)
            if i == 0:
                ax.set_title(model_name(model))
                ax.set_ylim(-0.02, 1.02)
            if i == len(metrics) - 1:
                ax.set_xlabel("vocabulary size")
            if j == 0:
                ax.set_ylabel(METRICS.get(metric, metric))
    if per_seed is not None:                 # a legend entry for the hollow points
        axes[0, 0].scatter([], [], s=14, marker="o", facecolors="none",
                           edgecolors="0.3", label="one seed")
    axes[0, 0].legend(loc="lower left", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def variant_dots(ax, summ: pd.DataFrame, per_seed: pd.DataFrame, order: Sequence[str],
                 value: str = "accuracy", per_seed_value: str = "token_accuracy",
                 by: str = "variant", color: str = "#1f77b4",
                 highlight: Optional[dict] = None) -> None:
    """One column per variant of ``order`` (categorical x): its mean ``summ[value]``
    with the interval ``value_lo``/``value_hi`` (``summ`` indexed by variant), and each
    seed's ``per_seed[per_seed_value]`` as a hollow point beside it. ``highlight`` maps
    a variant to another colour (e.g. the vanilla reference)."""
    highlight = highlight or {}
    for i, v in enumerate(order):
        if v not in summ.index:
            continue
        c = highlight.get(v, color)
        row = summ.loc[v]
        err = [[max(row[value] - row[f"{value}_lo"], 0)],
               [max(row[f"{value}_hi"] - row[value], 0)]]
        ax.errorbar([i], [row[value]], yerr=err, color=c, marker="s", ms=6, capsize=4,
                    lw=1.5, zorder=2)
        pts = per_seed.loc[per_seed[by] == v, per_seed_value].dropna().to_numpy(float)
        ax.scatter(i + 0.18 + 0.03 * np.arange(len(pts)), pts, s=14, facecolors="none",
                   edgecolors=c, linewidths=0.9, alpha=0.85, zorder=3)
    ax.set_xticks(range(len(order)), list(order), rotation=30, ha="right")
    ax.grid(axis="y", alpha=0.3)

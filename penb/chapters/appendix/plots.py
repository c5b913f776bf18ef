"""Figures of the appendix chapters (Morita, Fig. 7-14): every seed's value drawn as a
point over the mean over seeds and its 95% bootstrap interval over seeds.

* ``vocab_panels(summ, frame)``: Fig. 7, 8, 10: a metric against the vocabulary size,
  one column per panel (its L and updates in the title), a line per variant;
* ``bars(summ, frame)``: Fig. 11-14: one group of bars per panel, one bar per variant;
* ``length_curves(per_len)``: accuracy against the input length, a line per variant
  (App. B, D);
* ``placeholder(text)``: an empty panel saying why a figure has nothing to draw.

``summ`` is the frame of ``summary.summary``, ``frame`` that of ``common.run`` (one row
per run: the per-seed points; diverged runs have no point).
"""
from __future__ import annotations

import textwrap
from typing import Optional, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from penb import plotting
from penb.chapters.appendix.common import LABELS

# variant key -> colour and marker (vanilla and sinusoidal: the book's, penb.plotting)
COLORS = {"vanilla": plotting.COLORS["vanilla"],
          "sinusoidal": plotting.COLORS["position-encoded"],
          "double": "#1f77b4", "random": "#2ca02c", "learnable": "#9467bd"}
MARKERS = {"vanilla": plotting.MARKERS["vanilla"],
           "sinusoidal": plotting.MARKERS["position-encoded"],
           "double": "D", "random": "^", "learnable": "v"}
RUN_METRIC = {"accuracy": "token_accuracy", "distance": "mean_distance"}


def _spread(n: int, width: float) -> np.ndarray:
    """n offsets spread evenly over ``width`` (points of one cell side by side)."""
    return np.linspace(-width / 2, width / 2, n) if n > 1 else np.zeros(n)


def _seed_points(frame: pd.DataFrame, metric: str, **where) -> np.ndarray:
    g = frame[~frame["diverged"]]
    for k, v in where.items():
        g = g[g[k] == v]
    return g.sort_values("seed")[RUN_METRIC.get(metric, metric)].to_numpy(float)


def vocab_panels(summ: pd.DataFrame, frame: pd.DataFrame,
                 metrics: Sequence[str] = ("accuracy",),
                 describe: Optional[dict] = None, width: Optional[float] = None):
    """Figure: rows ``metrics``, one column per panel, x = vocabulary size (log2), per
    variant the seeds' points and the mean over seeds with its interval.

    ``describe``: {panel: text} added under each panel's title (e.g. its L and steps).
    """
    panels = list(dict.fromkeys(summ["panel"]))
    variants = list(dict.fromkeys(summ["variant"]))
    fig, axes = plt.subplots(len(metrics), len(panels), squeeze=False, sharey="row",
                             figsize=(width or max(4.0, 3.6 * len(panels)),
                                      2.9 * len(metrics) + 0.6))
    for j, panel in enumerate(panels):
        at = summ[summ["panel"] == panel]
        ticks = sorted(at["vocab"].unique())
        for i, metric in enumerate(metrics):
            ax = axes[i, j]
            for k, var in enumerate(variants):
                g = at[at["variant"] == var].sort_values("vocab")
                if g.empty:
                    continue
                shift = 2 ** (0.08 * (k - (len(variants) - 1) / 2))
                color = COLORS.get(var, f"C{k}")
                for v in g["vocab"]:
                    y = _seed_points(frame, metric, panel=panel, vocab=v, variant=var)
                    x = v * shift * 2 ** _spread(len(y), 0.08)
                    ax.plot(x, y, ".", color=color, alpha=0.45, ms=5)
                plotting.errorbars(ax, g, metric, g["vocab"].to_numpy(float) * shift,
                                   LABELS.get(var, var), color, MARKERS.get(var, "o"))
            ax.set_xscale("log", base=2)
            ax.set_xlim(min(ticks) / 2 ** 0.6, max(ticks) * 2 ** 0.6)
            ax.set_xticks(ticks, [str(v) for v in ticks])
            ax.minorticks_off()
            ax.grid(alpha=0.3)
            if i == 0:
                extra = f"\n{describe[panel]}" if describe and panel in describe else ""
                ax.set_title(at["title"].iloc[0] + extra, fontsize=9)
                if metric == "accuracy":
                    ax.set_ylim(-0.02, 1.02)
            if i == len(metrics) - 1:
                ax.set_xlabel("vocabulary size")
            if j == 0:
                ax.set_ylabel(plotting.METRICS.get(metric, metric))
    axes[0, 0].legend(loc="best", fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def bars(summ: pd.DataFrame, frame: pd.DataFrame, variants: Optional[Sequence] = None,
         metric: str = "accuracy", width: Optional[float] = None,
         labels: Optional[dict] = None):
    """Figure: one group per (panel, vocabulary), one bar per variant at the mean over
    seeds with its interval, the seeds' values as points on the bar.

    ``variants`` fixes the bar order; ``labels`` overrides ``common.LABELS``.
    """
    names = {**LABELS, **(labels or {})}
    variants = list(variants or dict.fromkeys(summ["variant"]))
    groups = list(dict.fromkeys(zip(summ["panel"], summ["title"], summ["vocab"])))
    size = width or max(4.5, 1.0 + 0.9 * len(groups) * len(variants))
    fig, ax = plt.subplots(figsize=(size, 3.6))
    step = 0.8 / len(variants)
    for k, var in enumerate(variants):
        xs, ys, err = [], [], []
        for i, (panel, _, vocab) in enumerate(groups):
            row = summ[(summ["panel"] == panel) & (summ["vocab"] == vocab)
                       & (summ["variant"] == var)]
            if row.empty:
                continue
            r = row.iloc[0]
            x = i - 0.4 + step * (k + 0.5)
            xs.append(x)
            ys.append(r[metric])
            err.append((r[metric] - r[f"{metric}_lo"], r[f"{metric}_hi"] - r[metric]))
            y = _seed_points(frame, metric, panel=panel, vocab=vocab, variant=var)
            ax.plot(x + _spread(len(y), step * 0.5), y, ".", color="black", ms=4,
                    alpha=0.7, zorder=3)
        yerr = np.clip(np.array(err).T, 0, None) if xs else None
        ax.bar(xs, ys, width=step * 0.9, color=COLORS.get(var, f"C{k}"),
               label=names.get(var, var), yerr=yerr, capsize=3, edgecolor="black",
               linewidth=0.5)
    ax.set_xticks(range(len(groups)), [f"{t}\nV = {v}" for _, t, v in groups],
                  fontsize=8)
    ax.set_ylabel(plotting.METRICS.get(metric, metric))
    if metric == "accuracy":
        ax.set_ylim(0, 1.02)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def length_curves(per_len: pd.DataFrame, variants: Optional[Sequence[str]] = None,
                  labels: Optional[dict] = None):
    """Figure: one column per panel, token accuracy against the input length: the mean
    over seeds with its interval as a band, each seed's value as a point.

    per_len: the frame of ``summary.per_length``; ``labels`` overrides ``LABELS``.
    """
    names = {**LABELS, **(labels or {})}
    variants = list(variants or dict.fromkeys(per_len["variant"]))
    panels = list(dict.fromkeys(per_len["panel"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.8 * len(panels), 3.4),
                             squeeze=False, sharey=True)
    for ax, panel in zip(axes[0], panels):
        at = per_len[per_len["panel"] == panel]
        for k, var in enumerate(variants):
            g = at[at["variant"] == var].sort_values("length")
            if g.empty:
                continue
            c = COLORS.get(var, f"C{k}")
            ax.plot(g["length"], g["accuracy"], color=c, marker=MARKERS.get(var, "o"),
                    ms=3, label=names.get(var, var))
            ax.fill_between(g["length"], g["accuracy_lo"], g["accuracy_hi"], color=c,
                            alpha=0.2, lw=0)
            for n, seeds in zip(g["length"], g["accuracy_per_seed"]):
                ax.plot(np.full(len(seeds), n) + _spread(len(seeds), 0.3), seeds, ".",
                        color=c, ms=3, alpha=0.5)
        ax.set_xlabel("input length")
        title = f"{at['title'].iloc[0]}, V = {int(at['vocab'].iloc[0])}"
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0, 0].set_ylabel("token accuracy")
    axes[0, 0].set_ylim(-0.02, 1.02)
    axes[0, -1].legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def placeholder(text: str, width: float = 6.0):
    """Figure: an empty panel saying why nothing is drawn (e.g. a section not run)."""
    fig, ax = plt.subplots(figsize=(width, 1.6))
    ax.axis("off")
    ax.text(0.5, 0.55, textwrap.fill(text, 90), ha="center", va="center", fontsize=8,
            color="0.3", transform=ax.transAxes)
    return fig

"""Figures of the appendix chapters (Morita, Fig. 7-14), drawn from the tidy frames of
``penb.chapters.appendix.summary``.

* ``vocab_panels(summ)``: Fig. 7, 8, 10: metric against the vocabulary size, one column per panel
  (``penb.plotting.vocab_sweep`` with the panel titles as columns);
* ``bars(summ)``: Fig. 11-14: one group of bars per panel, one bar per variant, 95% CIs as error bars;
* ``length_curves(per_len)``: accuracy against the input length, one line per variant (App. B, D).
"""
from __future__ import annotations

from typing import Optional, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from penb import plotting
from penb.chapters.appendix.common import LABELS

# variant key -> colour and marker (vanilla and sinusoidal: the book's, ``penb.plotting``)
COLORS = {"vanilla": plotting.COLORS["vanilla"], "sinusoidal": plotting.COLORS["position-encoded"],
          "double": "#1f77b4", "random": "#2ca02c", "learnable": "#9467bd"}
MARKERS = {"vanilla": plotting.MARKERS["vanilla"], "sinusoidal": plotting.MARKERS["position-encoded"],
           "double": "D", "random": "^", "learnable": "v"}


def vocab_panels(summ: pd.DataFrame, metrics: Sequence[str] = ("accuracy",), width: Optional[float] = None):
    """Figure: rows ``metrics``, one column per panel, x = vocabulary size (log2), a line per variant.

    summ: the frame of ``summary.summary`` (panel, title, vocab, variant, label, metric(_lo, _hi)).
    """
    titles = list(dict.fromkeys(summ["title"]))
    frame = summ.assign(model=summ["title"], variant=summ["label"])
    width = width or max(4.0, 3.6 * len(titles))
    return plotting.vocab_sweep(frame, models=titles, metrics=metrics, width=width)


def bars(summ: pd.DataFrame, variants: Optional[Sequence[str]] = None, metric: str = "accuracy",
         width: Optional[float] = None, labels: Optional[dict] = None):
    """Figure: one group per (panel, vocabulary), one bar per variant with its 95% CI.

    summ: the frame of ``summary.summary``; ``variants`` fixes the bar order; ``labels``
    overrides ``common.LABELS`` in the legend.
    """
    names = {**LABELS, **(labels or {})}
    variants = list(variants or dict.fromkeys(summ["variant"]))
    groups = list(dict.fromkeys(zip(summ["title"], summ["vocab"])))
    fig, ax = plt.subplots(figsize=(width or max(4.5, 1.0 + 0.9 * len(groups) * len(variants)), 3.6))
    step = 0.8 / len(variants)
    for k, var in enumerate(variants):
        xs, ys, lo, hi = [], [], [], []
        for i, (title, vocab) in enumerate(groups):
            row = summ[(summ["title"] == title) & (summ["vocab"] == vocab) & (summ["variant"] == var)]
            if row.empty:
                continue
            r = row.iloc[0]
            xs.append(i - 0.4 + step * (k + 0.5))
            ys.append(r[metric])
            lo.append(r[metric] - r[f"{metric}_lo"])
            hi.append(r[f"{metric}_hi"] - r[metric])
        err = np.clip(np.vstack([lo, hi]), 0, None) if xs else None
        ax.bar(xs, ys, width=step * 0.9, color=COLORS.get(var, f"C{k}"), label=names.get(var, var),
               yerr=err, capsize=3, edgecolor="black", linewidth=0.5)
    ax.set_xticks(range(len(groups)), [f"{t}\nV = {v}" for t, v in groups], fontsize=8)
    ax.set_ylabel(plotting.METRICS.get(metric, metric))
    if metric == "accuracy":
        ax.set_ylim(0, 1.02)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def length_curves(per_len: pd.DataFrame, variants: Optional[Sequence[str]] = None, metric: str = "accuracy",
                  labels: Optional[dict] = None):
    """Figure: one column per panel, ``metric`` against the input length with 95% CI bands.

    per_len: the frame of ``summary.per_length``; ``labels`` overrides ``common.LABELS``.
    """
    names = {**LABELS, **(labels or {})}
    variants = list(variants or dict.fromkeys(per_len["variant"]))
    panels = list(dict.fromkeys(per_len["panel"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.8 * len(panels), 3.4), squeeze=False, sharey=True)
    for ax, panel in zip(axes[0], panels):
        at = per_len[per_len["panel"] == panel]
        for k, var in enumerate(variants):
            g = at[at["variant"] == var].sort_values("length")
            if g.empty:
                continue
            c = COLORS.get(var, f"C{k}")
            ax.plot(g["length"], g[metric], color=c, marker=MARKERS.get(var, "o"), ms=3, label=names.get(var, var))
            ax.fill_between(g["length"], g[f"{metric}_lo"], g[f"{metric}_hi"], color=c, alpha=0.2, lw=0)
        ax.set_xlabel("input length")
        ax.set_title(f"{at['title'].iloc[0]}, V = {int(at['vocab'].iloc[0])}")
        ax.grid(alpha=0.3)
    axes[0, 0].set_ylabel(plotting.METRICS.get(metric, metric))
    if metric == "accuracy":
        axes[0, 0].set_ylim(-0.02, 1.02)
    axes[0, -1].legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig

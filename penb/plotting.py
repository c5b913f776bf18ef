"""The shared plotting helper: colours, markers and metric labels used across chapters, error bars, and
the vocabulary sweep of the RNN experiments (Morita): metrics against the vocabulary size, vanilla vs. PE.

``vocab_sweep(summ)`` draws Fig. 2's layout from the tidy frame of ``penb.chapters.key_findings.analysis.summary`` (one row per
model x vocabulary x variant with ``accuracy``/``distance`` and their ``_lo``/``_hi`` CI bounds): the
top row is token accuracy, the bottom row the mean Damerau-Levenshtein distance, one column per model,
the vocabulary on a log2 axis, error bars the 95% CIs. Later chapters with the same kind of frame
(another task, another encoding) reuse it with their own ``variants``.
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


def errorbars(ax, g: pd.DataFrame, metric: str, x: np.ndarray, label: str, color: str, marker: str) -> None:
    """Points of ``g[metric]`` at ``x`` with error bars from ``g[metric_lo]``/``g[metric_hi]``."""
    y = g[metric].to_numpy(float)
    err = np.vstack([y - g[f"{metric}_lo"].to_numpy(float), g[f"{metric}_hi"].to_numpy(float) - y])
    ax.errorbar(x, y, yerr=np.clip(err, 0, None), color=color, marker=marker, ms=5, capsize=3, lw=1.5,
                label=label)


def vocab_sweep(summ: pd.DataFrame, models: Optional[Sequence[str]] = None,
                variants: Optional[Sequence[str]] = None, metrics: Sequence[str] = ("accuracy", "distance"),
                width: float = 11.0):
    """Figure: rows ``metrics``, columns ``models``; x = vocabulary size (log2), one line per variant.

    summ: DataFrame with columns model, vocab, variant and, per metric m, m, m_lo, m_hi.
    """
    models = list(models or dict.fromkeys(summ["model"]))
    variants = list(variants or dict.fromkeys(summ["variant"]))
    fig, axes = plt.subplots(len(metrics), len(models), figsize=(width, 2.9 * len(metrics) + 0.5),
                             squeeze=False, sharey="row")
    for j, model in enumerate(models):
        at = summ[summ["model"] == model]
        ticks = sorted(at["vocab"].unique())
        for i, metric in enumerate(metrics):
            ax = axes[i, j]
            for k, variant in enumerate(variants):
                g = at[at["variant"] == variant].sort_values("vocab")
                if g.empty:
                    continue
                # a small horizontal offset keeps overlapping error bars apart
                x = g["vocab"].to_numpy(float) * 2 ** (0.06 * (k - (len(variants) - 1) / 2))
                errorbars(ax, g, metric, x, variant, COLORS.get(variant, f"C{k}"), MARKERS.get(variant, "^"))
            ax.set_xscale("log", base=2)
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
    axes[0, 0].legend(loc="lower left", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig

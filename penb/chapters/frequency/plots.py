"""Figures of the dual-frequency experiment (Morita, Sec. 4.2, Fig. 3).

``quarter_bars(q)`` draws the accuracy per quarter of target positions from
``penb.chapters.frequency.analysis.by_quarter``: one row of panels per (target, disturbants) condition,
one column per model, vanilla and PE bars side by side with their 95% CIs. ``position_lines(p)`` draws
the same position by position from ``penb.chapters.frequency.analysis.by_position``: one column per
condition, one row per model, a line and CI band per variant.
"""
from __future__ import annotations

from typing import Optional, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from penb.chapters.frequency.analysis import CONDITIONS
from penb.names import VARIANT_LABELS, model_name
from penb.plotting import COLORS


def _title(target: str, disturbants: str) -> str:
    return f"{target.upper()} target, {disturbants.upper()} disturbants"


def quarter_bars(q: pd.DataFrame, models: Optional[Sequence[str]] = None, width: float = 11.0):
    """Figure: rows = the four conditions, columns = models; x = quarter of target positions, bars = variants.

    q: DataFrame with columns model, variant, target, disturbants, quarter, accuracy, lo, hi.
    """
    models = list(models or dict.fromkeys(q["model"]))
    order = list(dict.fromkeys(q.sort_values("quarter", key=lambda s: s.str.split("-").str[0].astype(int))["quarter"]))
    fig, axes = plt.subplots(len(CONDITIONS), len(models), figsize=(width, 2.1 * len(CONDITIONS) + 0.6),
                             squeeze=False, sharex=True, sharey=True)
    x = np.arange(len(order))
    bar = 0.38
    for i, (target, dist) in enumerate(CONDITIONS):
        for j, model in enumerate(models):
            ax = axes[i, j]
            for k, variant in enumerate(VARIANT_LABELS.values()):
                g = q[(q.model == model) & (q.variant == variant) & (q.target == target) & (q.disturbants == dist)]
                g = g.set_index("quarter").reindex(order)
                y = g["accuracy"].to_numpy(float)
                err = np.clip(np.vstack([y - g["lo"].to_numpy(float), g["hi"].to_numpy(float) - y]), 0, None)
                ax.bar(x + (k - 0.5) * bar, y, bar, yerr=err, capsize=2, color=COLORS[variant],
                       label=variant if (i, j) == (0, 0) else None, error_kw=dict(lw=1))
            ax.set_ylim(0, 1.05)
            ax.grid(axis="y", alpha=0.3)
            if i == 0:
                ax.set_title(model_name(model))
            if j == 0:
                ax.set_ylabel(_title(target, dist).replace(", ", ",\n"), fontsize=8)
            if i == len(CONDITIONS) - 1:
                ax.set_xticks(x, order)
                ax.set_xlabel("target position t")
    fig.legend(loc="upper right", fontsize=8, ncol=2)
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    return fig


def position_lines(p: pd.DataFrame, models: Optional[Sequence[str]] = None, width: float = 12.0):
    """Figure: rows = models, columns = the four conditions; accuracy against the target position t.

    p: DataFrame with columns model, variant, target, disturbants, position, accuracy, lo, hi.
    """
    models = list(models or dict.fromkeys(p["model"]))
    fig, axes = plt.subplots(len(models), len(CONDITIONS), figsize=(width, 2.2 * len(models) + 0.6),
                             squeeze=False, sharex=True, sharey=True)
    for i, model in enumerate(models):
        for j, (target, dist) in enumerate(CONDITIONS):
            ax = axes[i, j]
            for variant in VARIANT_LABELS.values():
                g = p[(p.model == model) & (p.variant == variant) & (p.target == target) & (p.disturbants == dist)]
                g = g.sort_values("position")
                ax.plot(g["position"], g["accuracy"], color=COLORS[variant], lw=1.3,
                        label=variant if (i, j) == (0, 0) else None)
                ax.fill_between(g["position"], g["lo"], g["hi"], color=COLORS[variant], alpha=0.2, lw=0)
            ax.set_ylim(-0.02, 1.02)
            ax.grid(alpha=0.3)
            if i == 0:
                ax.set_title(_title(target, dist), fontsize=9)
            if j == 0:
                ax.set_ylabel(f"{model_name(model)}\naccuracy")
            if i == len(models) - 1:
                ax.set_xlabel("target position t")
    fig.legend(loc="upper right", fontsize=8, ncol=2)
    fig.tight_layout(rect=(0, 0.03, 1, 0.96))
    return fig

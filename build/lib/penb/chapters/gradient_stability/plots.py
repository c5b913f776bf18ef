"""Figures of the gradient-stability analysis (Morita, Sec. 4.3, Fig. 5), seed by seed.

``over_training(s, points)`` draws the layout of Fig. 5 from
``penb.chapters.gradient_stability.analysis.summarize`` (seed level) and the per-seed rows of
``curves``: one column per model, one row per variant (vanilla, position-encoded); x = training
updates, y = the similarity of the paired latent-to-latent Jacobians; line colour = the target's
group (FREQUENT / RARE), solid / dashed = the disturbants' group (FREQUENT / RARE), shaded = the
95% bootstrap interval over seeds, small points = each seed's own mean over its pairs.

``last_points(scores, summary)`` draws the graded measure: at the last checkpoint, each seed's
similarity with RARE disturbants (targets pooled), vanilla vs. PE, a seed's two runs joined by a
line, with the mean over seeds and its interval (``seed_scores`` / ``score_summary``).
"""
from __future__ import annotations

from typing import Optional, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from penb.names import VARIANT_LABELS, model_name
from penb.plotting import COLORS

TARGET_COLORS = {"frequent": "#1f77b4", "rare": "#ff7f0e"}
DISTURBANT_STYLES = {"frequent": "-", "rare": "--"}
VARIANTS = tuple(VARIANT_LABELS.values())              # rows: vanilla, position-encoded


def over_training(s: pd.DataFrame, points: Optional[pd.DataFrame] = None,
                  method: str = "weighted_rows", models: Optional[Sequence[str]] = None,
                  width: float = 11.0, ylim: Optional[tuple] = None):
    """Figure: rows = variants, columns = models; similarity (``method``) against updates.

    s: columns core, variant, method, step, target, disturbants, similarity, lo, hi (seed level);
    points: the per-seed rows of ``analysis.curves`` (core, variant, method, step, target,
    disturbants, seed, similarity), drawn as small dots; None draws none.
    """
    s = s[s["method"] == method]
    if points is not None:
        points = points[points["method"] == method]
    models = list(models or dict.fromkeys(s["core"]))
    fig, axes = plt.subplots(len(VARIANTS), len(models),
                             figsize=(width, 2.8 * len(VARIANTS) + 0.6),
                             squeeze=False, sharex="col", sharey=True)
    span = max(float(s["step"].max() - s["step"].min()), 1.0) if len(s) else 1.0
    for i, variant in enumerate(VARIANTS):
        for j, model in enumerate(models):
            ax = axes[i, j]
            for k, (target, color) in enumerate(TARGET_COLORS.items()):
                for m, (dist, style) in enumerate(DISTURBANT_STYLES.items()):
                    at = ((s.core == model) & (s.variant == variant) & (s.target == target)
                          & (s.disturbants == dist))
                    g = s[at].sort_values("step")
                    label = (f"{target.upper()} target, {dist.upper()} disturbants"
                             if (i, j) == (0, 0) else None)
                    ax.plot(g["step"], g["similarity"], style, color=color, lw=1.5,
                            label=label)
                    ax.fill_between(g["step"], g["lo"], g["hi"], color=color, alpha=0.12,
                                    lw=0)
                    if points is not None:
                        p = points[(points.core == model) & (points.variant == variant)
                                   & (points.target == target) & (points.disturbants == dist)]
                        dx = (2 * k + m - 1.5) * 0.006 * span      # keep the four sets apart
                        ax.plot(p["step"] + dx, p["similarity"], ".", ms=2.5, color=color,
                                alpha=0.6)
            ax.grid(alpha=0.3)
            if ylim is not None:
                ax.set_ylim(*ylim)
            if i == 0:
                ax.set_title(model_name(model))
            if j == 0:
                ax.set_ylabel(f"{variant}\nsimilarity ({method})", fontsize=9)
            if i == len(VARIANTS) - 1:
                ax.set_xlabel("training updates")
    fig.legend(loc="upper center", fontsize=8, ncol=4, bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0.03, 1, 0.94))
    return fig


def last_points(scores: pd.DataFrame, summary: pd.DataFrame,
                models: Optional[Sequence[str]] = None, value: str = "rare",
                width: float = 7.0, ylabel: str = "similarity, RARE disturbants"):
    """Figure: one panel per model; ``value`` of each seed at the last checkpoint, vanilla vs.
    PE, a seed's two runs joined by a line, and the mean over seeds with its 95% interval.

    scores: columns core, variant, seed, ``value``; summary: columns core, variant, ``value``,
    ``<value>_lo``, ``<value>_hi``.
    """
    models = list(dict.fromkeys(scores["core"]) if models is None else models)
    if not models:
        fig, ax = plt.subplots(figsize=(width, 0.8))
        ax.axis("off")
        ax.text(0.5, 0.5, "no model with a graded claim at this preset", ha="center")
        return fig
    fig, axes = plt.subplots(1, len(models), figsize=(width, 3.2), squeeze=False, sharey=True)
    for j, model in enumerate(models):
        ax = axes[0, j]
        at = scores[scores["core"] == model]
        if len(at):
            wide = at.pivot_table(index="seed", columns="variant", values=value)
            for _, row in wide.iterrows():
                ax.plot([0, 1], [row.get(v, np.nan) for v in VARIANTS], "-", color="0.75",
                        lw=0.8, zorder=1)
        for k, variant in enumerate(VARIANTS):
            v = at[at["variant"] == variant][value].to_numpy(float)
            ax.plot(k + (np.linspace(-0.06, 0.06, len(v)) if len(v) > 1 else 0 * v), v, "o",
                    ms=4, color=COLORS[variant], mec="k", mew=0.4, zorder=2)
            s = summary[(summary["core"] == model) & (summary["variant"] == variant)]
            if len(s):
                mean, lo, hi = (float(s[c].iloc[0]) for c in
                                (value, f"{value}_lo", f"{value}_hi"))
                ax.errorbar(k + 0.22, mean, yerr=[[mean - lo], [hi - mean]], fmt="D", ms=6,
                            color=COLORS[variant], capsize=4, lw=1.5, zorder=3)
        ax.set_xticks([0, 1], [v.replace("-", "-\n") for v in VARIANTS])
        ax.set_xlim(-0.4, 1.5)
        ax.set_title(model_name(model))
        ax.grid(axis="y", alpha=0.3)
        if j == 0:
            ax.set_ylabel(ylabel)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig

"""Figure of the gradient-stability analysis (Morita, Sec. 4.3, Fig. 5).

``over_training(s)`` draws the layout of Fig. 5 from ``penb.chapters.gradient_stability.analysis.summarize``:
one column per model, one row per variant (vanilla, position-encoded); x = training updates, y = the
similarity of the paired latent-to-latent Jacobians; line colour = the target's group (FREQUENT / RARE),
solid / dashed = the disturbants' group (FREQUENT / RARE), shaded = the 95% interval of the mean over
pairs x seeds.
"""
from __future__ import annotations

from typing import Optional, Sequence

import matplotlib.pyplot as plt
import pandas as pd

from penb.names import VARIANT_LABELS, model_name

TARGET_COLORS = {"frequent": "#1f77b4", "rare": "#ff7f0e"}
DISTURBANT_STYLES = {"frequent": "-", "rare": "--"}
VARIANTS = tuple(VARIANT_LABELS.values())              # rows: vanilla, position-encoded


def over_training(s: pd.DataFrame, method: str = "weighted_rows", models: Optional[Sequence[str]] = None,
                  width: float = 11.0, ylim: Optional[tuple] = None):
    """Figure: rows = variants, columns = models; similarity (``method``) against training updates.

    s: DataFrame with columns core, variant, method, step, target, disturbants, similarity, ci.
    """
    s = s[s["method"] == method]
    models = list(models or dict.fromkeys(s["core"]))
    fig, axes = plt.subplots(len(VARIANTS), len(models), figsize=(width, 2.8 * len(VARIANTS) + 0.6),
                             squeeze=False, sharex="col", sharey=True)
    for i, variant in enumerate(VARIANTS):
        for j, model in enumerate(models):
            ax = axes[i, j]
            for target, color in TARGET_COLORS.items():
                for dist, style in DISTURBANT_STYLES.items():
                    g = s[(s.core == model) & (s.variant == variant) & (s.target == target) & (s.disturbants == dist)]
                    g = g.sort_values("step")
                    label = f"{target.upper()} target, {dist.upper()} disturbants" if (i, j) == (0, 0) else None
                    ax.plot(g["step"], g["similarity"], style, color=color, lw=1.5, marker=".", ms=4, label=label)
                    ax.fill_between(g["step"], g["similarity"] - g["ci"], g["similarity"] + g["ci"], color=color,
                                    alpha=0.12, lw=0)
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

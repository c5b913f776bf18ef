"""Figures of the dual-frequency experiment (Morita, Sec. 4.2, Fig. 3), seed by seed.

Every figure draws each seed's own value as a small point over the seed-level mean and its 95%
bootstrap interval over seeds (``penb.chapters.frequency.analysis``):

* ``quarter_bars(q, points)``: accuracy per quarter of target positions (``by_quarter`` /
  ``quarter_seeds``): rows = (target, disturbants) conditions, columns = models, vanilla and PE
  bars side by side;
* ``position_lines(p, points)``: the same position by position (``by_position`` /
  ``position_seeds``): rows = models, columns = conditions;
* ``harm_points(sh, summary)``: the graded measure, the harm of RARE disturbants per seed
  (``seed_harm`` / ``harm_summary``): one panel per model, vanilla vs. PE, each seed's pair
  joined by a line.
"""
from __future__ import annotations

from typing import Optional, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from penb.chapters.frequency.analysis import CONDITIONS
from penb.names import VARIANT_LABELS, model_name
from penb.plotting import COLORS

VARIANTS = tuple(VARIANT_LABELS.values())                 # vanilla, position-encoded


def _title(target: str, disturbants: str) -> str:
    return f"{target.upper()} target, {disturbants.upper()} disturbants"


def _pick(frame: pd.DataFrame, **eq) -> pd.DataFrame:
    mask = np.ones(len(frame), bool)
    for k, v in eq.items():
        mask &= (frame[k] == v).to_numpy()
    return frame[mask]


def _jitter(n: int, width: float) -> np.ndarray:
    return np.linspace(-width / 2, width / 2, n) if n > 1 else np.zeros(n)


def quarter_bars(q: pd.DataFrame, points: pd.DataFrame,
                 models: Optional[Sequence[str]] = None, width: float = 11.0):
    """Figure: rows = the four conditions, columns = models; x = quarter of target positions.

    q: columns model, variant, target, disturbants, quarter, accuracy, lo, hi (seed level);
    points: columns model, variant, seed, target, disturbants, quarter, accuracy (one per seed).
    """
    models = list(models or dict.fromkeys(q["model"]))
    start = q["quarter"].str.split("-").str[0].astype(int)
    order = list(dict.fromkeys(q.assign(_s=start).sort_values("_s")["quarter"]))
    fig, axes = plt.subplots(len(CONDITIONS), len(models),
                             figsize=(width, 2.1 * len(CONDITIONS) + 0.6),
                             squeeze=False, sharex=True, sharey=True)
    x = np.arange(len(order))
    bar = 0.38
    for i, (target, dist) in enumerate(CONDITIONS):
        for j, model in enumerate(models):
            ax = axes[i, j]
            for k, variant in enumerate(VARIANTS):
                at = dict(model=model, variant=variant, target=target, disturbants=dist)
                g = _pick(q, **at).set_index("quarter").reindex(order)
                y = g["accuracy"].to_numpy(float)
                err = np.vstack([y - g["lo"].to_numpy(float), g["hi"].to_numpy(float) - y])
                xs = x + (k - 0.5) * bar
                ax.bar(xs, y, bar, yerr=np.clip(err, 0, None), capsize=2,
                       color=COLORS[variant], alpha=0.55, error_kw=dict(lw=1),
                       label=variant if (i, j) == (0, 0) else None)
                pts = _pick(points, **at)
                for qi, name in enumerate(order):
                    v = pts[pts["quarter"] == name]["accuracy"].to_numpy(float)
                    ax.plot(xs[qi] + _jitter(len(v), 0.6 * bar), v, "o", ms=2.5,
                            color=COLORS[variant], mec="k", mew=0.3)
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


def position_lines(p: pd.DataFrame, points: pd.DataFrame,
                   models: Optional[Sequence[str]] = None, width: float = 12.0):
    """Figure: rows = models, columns = the four conditions; accuracy against the position t.

    p: columns model, variant, target, disturbants, position, accuracy, lo, hi (seed level);
    points: columns model, variant, seed, target, disturbants, position, accuracy.
    """
    models = list(models or dict.fromkeys(p["model"]))
    fig, axes = plt.subplots(len(models), len(CONDITIONS),
                             figsize=(width, 2.2 * len(models) + 0.6),
                             squeeze=False, sharex=True, sharey=True)
    for i, model in enumerate(models):
        for j, (target, dist) in enumerate(CONDITIONS):
            ax = axes[i, j]
            for k, variant in enumerate(VARIANTS):
                at = dict(model=model, variant=variant, target=target, disturbants=dist)
                g = _pick(p, **at).sort_values("position")
                ax.plot(g["position"], g["accuracy"], color=COLORS[variant], lw=1.3,
                        label=variant if (i, j) == (0, 0) else None)
                ax.fill_between(g["position"], g["lo"], g["hi"], color=COLORS[variant],
                                alpha=0.2, lw=0)
                pts = _pick(points, **at)
                ax.plot(pts["position"] + (k - 0.5) * 0.3, pts["accuracy"], ".", ms=2,
                        color=COLORS[variant], alpha=0.6)
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


def harm_points(sh: pd.DataFrame, summary: pd.DataFrame,
                models: Optional[Sequence[str]] = None, width: float = 9.0):
    """Figure: one panel per model; the harm of RARE disturbants (accuracy with FREQUENT minus
    with RARE disturbants) of each seed, vanilla vs. PE, a seed's two runs joined by a line; the
    mean over seeds with its 95% bootstrap interval beside the points.

    sh: columns model, variant, seed, harm (one row per run); summary: columns model, variant,
    harm, lo, hi (seed level).
    """
    models = list(models or dict.fromkeys(sh["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(width, 3.2), squeeze=False, sharey=True)
    for j, model in enumerate(models):
        ax = axes[0, j]
        at = sh[sh["model"] == model]
        wide = at.pivot_table(index="seed", columns="variant", values="harm")
        for _, row in wide.iterrows():
            ys = [row.get(v, np.nan) for v in VARIANTS]
            ax.plot([0, 1], ys, "-", color="0.75", lw=0.8, zorder=1)
        for k, variant in enumerate(VARIANTS):
            v = at[at["variant"] == variant]["harm"].to_numpy(float)
            ax.plot(k + _jitter(len(v), 0.12), v, "o", ms=4, color=COLORS[variant],
                    mec="k", mew=0.4, zorder=2)
            s = _pick(summary, model=model, variant=variant)
            if not s.empty:
                m, lo, hi = (float(s[c].iloc[0]) for c in ("harm", "lo", "hi"))
                ax.errorbar(k + 0.22, m, yerr=[[m - lo], [hi - m]], fmt="D", ms=6,
                            color=COLORS[variant], capsize=4, lw=1.5, zorder=3)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xticks([0, 1], [v.replace("-", "-\n") for v in VARIANTS])
        ax.set_xlim(-0.4, 1.5)
        ax.set_title(model_name(model))
        ax.grid(axis="y", alpha=0.3)
        if j == 0:
            ax.set_ylabel("harm of RARE disturbants\n(accuracy, FREQUENT - RARE)")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig

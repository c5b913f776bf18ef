"""Figures of the chapter ``beyond_rnn``, on the shared helper ``penb.plotting.variant_dots``."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from penb.plotting import COLORS, variant_dots

VANILLA_COLOR = COLORS["vanilla"]


def studies(summ: pd.DataFrame, frame: pd.DataFrame, groups: dict[str, list[str]], chance: float):
    """One panel per study (``groups``: title -> variants in order, vanilla and PE included): held-out token
    accuracy per variant, mean over seeds with its 95% interval and every seed; dotted line: chance."""
    widths = [max(len(v), 2) for v in groups.values()]
    fig, axes = plt.subplots(1, len(groups), figsize=(3.2 + 0.55 * sum(widths), 3.6), sharey=True,
                             gridspec_kw={"width_ratios": widths}, squeeze=False)
    for ax, (title, order) in zip(axes[0], groups.items()):
        variant_dots(ax, summ, frame, order, highlight={"vanilla": VANILLA_COLOR, "sinusoidal": COLORS[
            "position-encoded"]})
        if "vanilla" in summ.index:
            ax.axhline(summ.loc["vanilla", "accuracy"], color=VANILLA_COLOR, lw=0.8, ls="--")
        ax.axhline(chance, color="k", lw=0.6, ls=":")
        ax.set_title(title, fontsize=10)
    axes[0][0].set_ylabel("token accuracy")
    fig.tight_layout()
    return fig


def invertibility_scatter(summ: pd.DataFrame, floor: pd.Series, rho: list[float]):
    """Each blog encoding's invertibility floor (x, log) against its accuracy gain over vanilla (y: mean over
    seeds with its 95% interval); the title gives the per-seed rank correlations."""
    fig, ax = plt.subplots(figsize=(6.2, 4.2))
    for k, x in floor.items():
        if k not in summ.index:
            continue
        r = summ.loc[k]
        ax.errorbar([x], [r["gain"]], yerr=[[max(r["gain"] - r["gain_lo"], 0)], [max(r["gain_hi"] - r["gain"], 0)]],
                    marker="o", ms=6, capsize=3, color="#1f77b4" if not k.endswith("_learned") else "#ff7f0e")
        ax.annotate(k, (x, r["gain"]), textcoords="offset points", xytext=(5, 4), fontsize=8)
    ax.axhline(0, color=VANILLA_COLOR, lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("invertibility loss floor (lower: easier to invert)")
    ax.set_ylabel("accuracy gain over vanilla")
    ax.set_title(f"rank correlation per seed: {', '.join(f'{x:+.2f}' for x in rho)}"
                 f" (mean {np.mean(rho):+.2f})", fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig

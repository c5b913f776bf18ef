"""Figures of the chapter "Invertibility of position encodings" (Hansen's blog study).

Every function takes per-step loss frames (index ``step``, one column per encoding, as
``penb.chapters.invertibility.analysis.run_study`` returns) and returns a matplotlib Figure. Exact
floors, when given as ``{"affine": x, "normal": y}``, are drawn as horizontal lines.
"""
from __future__ import annotations

from typing import Optional

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.layout_engine import ConstrainedLayoutEngine


STAMP_INCHES = 0.22  # bottom strip kept free for penb.report.stamp
_C = plt.get_cmap("tab10").colors
COLORS = {"sincos": _C[0], "direct1": _C[1], "directN": _C[2], "linear_normal": _C[3],
          "linear_normal_learned": _C[3], "linear_uniform": _C[4], "linear_uniform_learned": _C[4],
          "normal": _C[6], "normal_learned": _C[6]}  # a learned variant: its base's colour, dashed
FLOOR_STYLE = {"affine": dict(color="0.35", ls=":", label="affine floor"),
               "normal": dict(color="0.0", ls="--", label="normal floor")}


def _figure(nrows: int, ncols: int, figsize):
    fig, axes = plt.subplots(nrows, ncols, figsize=figsize, squeeze=False)
    b = STAMP_INCHES / figsize[1]
    fig.set_layout_engine(ConstrainedLayoutEngine(rect=(0, b, 1, 1 - b)))
    return fig, axes


def _style(key: str) -> dict:
    return dict(color=COLORS.get(key), ls="--" if key.endswith("_learned") else "-", lw=1.4)


def curves_ax(ax, df: pd.DataFrame, steps: Optional[tuple[int, int]] = None, logy: bool = False,
              floors: Optional[dict] = None, title: str = "", ylim=None) -> None:
    """Mean loss per encoding over ``steps = (first, last)`` (inclusive; default: all)."""
    part = df if steps is None else df.loc[steps[0]:steps[1]]
    for key in part.columns:
        ax.plot(part.index, part[key], label=key, **_style(key))
    for name, y in (floors or {}).items():
        ax.axhline(y, lw=1.0, **FLOOR_STYLE[name])
    if logy:
        ax.set_yscale("log")
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set(title=title, xlabel="Adam step", ylabel="mean MSE over initialisations")
    ax.grid(alpha=0.3)


def blog_views(df: pd.DataFrame, floors: Optional[dict] = None, early: int = 1500, late: int = 2000):
    """The blog's four views: whole run, early steps, late steps (zoomed on the floors), log scale."""
    last = int(df.index[-1])
    early, late = min(early, last), min(late, last)
    fig, axes = _figure(2, 2, (11.5, 8.4))
    top = float(df.iloc[0].max())
    curves_ax(axes[0, 0], df, title="(a) whole run", ylim=(0, top * 1.05))
    curves_ax(axes[0, 1], df, (0, early), title=f"(b) early steps 0-{early}", ylim=(0, top * 1.05))
    lo = floors["affine"] * 2.5 if floors else float(df.loc[late:].max().max())
    curves_ax(axes[1, 0], df, (late, last), floors=floors, title=f"(c) late steps {late}-{last}", ylim=(0, lo))
    curves_ax(axes[1, 1], df, floors=floors, logy=True, title="(d) whole run, log scale")
    handles, labels = axes[1, 1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    return fig


def crossing_view(df: pd.DataFrame, a: str, b: str, step: Optional[int], claim: Optional[int] = None,
                  floors: Optional[dict] = None, window: int = 4000):
    """``a`` and ``b`` around their crossing step (ours marked; the blog's value dotted)."""
    last = int(df.index[-1])
    centre = step if step is not None else (claim if claim is not None and claim <= last else last // 2)
    lo, hi = max(0, centre - window), min(last, centre + window)
    fig, axes = _figure(1, 1, (7.0, 4.0))
    ax = axes[0, 0]
    curves_ax(ax, df[[a, b]], (lo, hi), logy=True, floors=floors, title=f"{a} vs {b}")
    if step is not None:
        ax.axvline(step, color="C3", lw=1.0, label=f"our crossing ({step})")
    if claim is not None and lo <= claim <= hi:
        ax.axvline(claim, color="C3", lw=1.0, ls=":", label=f"blog: about {claim}")
    ax.legend(fontsize=8)
    return fig


def published_overlay(ours: pd.DataFrame, published: pd.DataFrame, floors: Optional[dict] = None):
    """Our means (solid) over the published means x 200 (thick, pale), log scale, one panel per encoding."""
    keys = [k for k in ours.columns if k in published.columns]
    ncols = 3
    nrows = -(-len(keys) // ncols)
    fig, axes = _figure(nrows, ncols, (11.5, 2.9 * nrows + 0.3))
    last = int(min(ours.index[-1], published.index[-1]))
    for ax, key in zip(axes.flat, keys):
        ax.plot(published.loc[:last].index, published.loc[:last, key], color=COLORS[key], lw=4, alpha=0.3,
                label="published x 200")
        ax.plot(ours.loc[:last].index, ours.loc[:last, key], color=COLORS[key], lw=1.2, label="ours")
        for name, y in (floors or {}).items():
            ax.axhline(y, lw=0.8, **{**FLOOR_STYLE[name], "label": None})
        ax.set_yscale("log")
        ax.set_xscale("symlog", linthresh=10)
        ax.set_xlim(0, last)
        ax.set(title=key, xlabel="Adam step (log beyond 10)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)
    return fig


def sentinel_view(frames: dict[str, pd.DataFrame], floors: Optional[dict] = None):
    """One panel per encoding; one curve per sentinel value (``{label: frame}``), log scale."""
    keys = list(next(iter(frames.values())).columns)
    fig, axes = _figure(1, len(keys), (5.6 * len(keys), 4.0))
    styles = ["-", "--", ":", "-."]
    for ax, key in zip(axes.flat, keys):
        for (label, df), ls in zip(frames.items(), styles):
            ax.plot(df.index, df[key], ls=ls, color=COLORS[key], lw=1.4, label=f"sentinel {label}")
        if floors and "normal" in floors:
            ax.axhline(floors["normal"], lw=1.0, **FLOOR_STYLE["normal"])
        ax.set_yscale("log")
        ax.set_xscale("symlog", linthresh=10)
        ax.set_xlim(0, int(df.index[-1]))
        ax.set(title=key, xlabel="Adam step (log beyond 10)", ylabel="mean MSE over initialisations")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return fig

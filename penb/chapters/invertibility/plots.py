"""Figures of the chapter "Invertibility of position encodings" (Hansen's blog study).

Every function takes per-step loss frames (index ``step``, one column per encoding, as
``penb.chapters.invertibility.analysis.run_study`` returns) and returns a matplotlib Figure. Exact
floors, when given as ``{"affine": x, "normal": y}``, are drawn as horizontal lines.
"""
from __future__ import annotations

from typing import Optional

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.layout_engine import ConstrainedLayoutEngine

from penb.claims.intervals import seed_interval


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


# --- the claims' measures, per seed ----------------------------------------------------------
def _measure_panel(ax, per_seed: pd.DataFrame, pooled: pd.Series, cols: list, labels: list,
                   blog: Optional[dict] = None, factor: float = 2.0, ref: Optional[float] = None,
                   band: float = 0.0, log: bool = True, title: str = "", ylabel: str = "") -> None:
    """One column per measure: each seed a hollow point, the seed-level mean with its bootstrap
    interval over seeds, the pooled value (what the rule grades) as a cross; the blog's value as
    a star with its factor band, or a reference line ``ref`` with a relative ``band``."""
    blog = blog or {}
    for j, col in enumerate(cols):
        v = per_seed[col].to_numpy(float)
        v = v[np.isfinite(v)]
        jitter = np.linspace(-0.1, 0.1, len(v)) if len(v) > 1 else np.zeros(len(v))
        ax.scatter(j + jitter, v, s=16, facecolors="none", edgecolors="0.35", lw=0.9, zorder=3,
                   label="one seed" if j == 0 else None)
        if len(v):
            mean, lo, hi = seed_interval(v)
            ax.errorbar(j, mean, yerr=[[mean - lo], [hi - mean]], fmt="o", color="C0", ms=5,
                        capsize=3, zorder=2, label="mean over seeds, 95% interval" if j == 0 else None)
        if np.isfinite(pooled[col]):
            ax.scatter(j - 0.25, pooled[col], marker="x", color="C3", s=40, zorder=4,
                       label="all seeds pooled (graded)" if j == 0 else None)
        if col in blog:
            ax.fill_between([j - 0.4, j + 0.4], blog[col] / factor, blog[col] * factor, color="C2",
                            alpha=0.15, lw=0, label=f"blog's value, factor {factor:g}" if j == 0 else None)
            ax.scatter(j + 0.25, blog[col], marker="*", color="C2", s=90, zorder=4)
    if ref is not None:
        ax.axhline(ref, color="0.3", lw=0.8)
        if band:
            ax.axhspan(ref * (1 - band), ref * (1 + band), color="C2", alpha=0.15, lw=0,
                       label=f"within {band:.0%}")
    if log:
        ax.set_yscale("log")
    ax.set_xticks(range(len(cols)), labels, rotation=30, ha="right", fontsize=8)
    ax.set(title=title, ylabel=ylabel)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)


def claim_measures(per_seed: pd.DataFrame, pooled: pd.Series, blog: dict, factor: float = 2.0,
                   rel: float = 0.1, floor_rel: float = 0.05):
    """The numbers the claims read, per seed (rows of ``checks.measure_table``) and pooled.

    (a) the blog's step claims with its values (``blog``: {measure: value}); (b) steps to stay
    within 1.1 x the floor, fixed vs learned and normal vs uniform; (c) final losses over the direct
    encodings'; (d) final losses over their exact floor (``pooled`` and ``per_seed`` hold
    ``final/floor:<enc>`` columns for it)."""
    fig, axes = _figure(2, 2, (11.5, 8.4))
    steps = ["cross", "last_beaten", "plateau:normal", "plateau:normal_learned"]
    _measure_panel(axes[0, 0], per_seed, pooled, steps,
                   ["sincos below both\nnormal from", "sincos last beaten\n(normal aside)",
                    "normal plateau", "normal_learned\nplateau"], blog, factor,
                   title="(a) the blog's step claims", ylabel="step")
    reach = [f"reach:{k}" for k in ("linear_normal", "linear_normal_learned", "linear_uniform",
                                     "linear_uniform_learned", "normal", "normal_learned")]
    _measure_panel(axes[0, 1], per_seed, pooled, reach, [c.split(":")[1] for c in reach],
                   title="(b) steps to stay within 1.1 x the exact floor", ylabel="step")
    finals = [f"final/direct:{k}" for k in ("normal", "normal_learned", "sincos",
                                             "linear_normal_learned", "linear_uniform_learned")]
    _measure_panel(axes[1, 0], per_seed, pooled, finals, [c.split(":")[1] for c in finals], ref=1.0,
                   band=rel, title="(c) final loss / the direct encodings'", ylabel="ratio")
    floors = [c for c in per_seed.columns if c.startswith("final/floor:")]
    _measure_panel(axes[1, 1], per_seed, pooled, floors, [c.split(":")[1] for c in floors], ref=1.0,
                   band=floor_rel, log=False, title="(d) final loss / its exact floor", ylabel="ratio")
    return fig

"""Figures of the chapter "Positional encodings": tables, similarities, PCA paths, norms.

Every function takes plain numpy/pandas data (from ``penb.chapters.encodings.analysis``) and
returns a Figure. NaN entries (the blog's sentinel row of ``normal``) are drawn blank.
"""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.ticker import ScalarFormatter

STAMP_INCHES = 0.22  # bottom margin kept free for penb.report.stamp


def _subplots(nrows: int, ncols: int, figsize, **kw):
    """``plt.subplots`` with constrained layout and a free strip at the bottom for the stamp."""
    fig, axes = plt.subplots(nrows, ncols, figsize=figsize, **kw)
    b = STAMP_INCHES / figsize[1]
    fig.set_layout_engine(ConstrainedLayoutEngine(rect=(0, b, 1, 1 - b)))
    return fig, axes


def _grid(n: int, ncols: int, size=(3.2, 2.8)):
    ncols = min(ncols, n)
    nrows = math.ceil(n / ncols)
    fig, axes = _subplots(nrows, ncols, (size[0] * ncols, size[1] * nrows + 0.3), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def _limit(values: np.ndarray) -> float:
    """Symmetric colour limit: the largest |finite value| (1 if there is none or it is 0)."""
    v = np.abs(values[np.isfinite(values)])
    return float(v.max()) if v.size and v.max() > 0 else 1.0


def heatmap_ax(ax, table: np.ndarray, title: str) -> None:
    """One encoding table ``[P, D]`` as an image: positions down, dimensions across."""
    lim = _limit(table)
    im = ax.imshow(np.ma.masked_invalid(table), aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim,
                   interpolation="nearest")
    ax.set(title=title, xlabel="dimension", ylabel="position")
    plt.colorbar(im, ax=ax, shrink=0.85)


def heatmaps(tables: dict, ncols: int = 3):
    """A grid of heatmaps, one per ``{title: table[P, D]}``, colours symmetric about 0."""
    fig, axes = _grid(len(tables), ncols)
    for ax, (title, t) in zip(axes, tables.items()):
        heatmap_ax(ax, t, title)
    return fig


def similarity_ax(ax, sim: np.ndarray, title: str, kind: str = "cosine") -> None:
    """A ``[P, P]`` similarity matrix between positions."""
    lim = 1.0 if kind == "cosine" else _limit(sim)
    im = ax.imshow(np.ma.masked_invalid(sim), cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    ax.set(title=title, xlabel="position", ylabel="position")
    plt.colorbar(im, ax=ax, shrink=0.85)


def similarities(sims: dict, kind: str = "cosine", ncols: int = 3):
    """A grid of ``{title: sim[P, P]}`` matrices (cosine in [-1, 1], or dot products)."""
    fig, axes = _grid(len(sims), ncols)
    for ax, (title, s) in zip(axes, sims.items()):
        similarity_ax(ax, s, title, kind)
    return fig


def offset_profile(dots: np.ndarray, starts, title: str = "sinusoidal, Eq. 1-2"):
    """``dots[len(starts), K+1]`` (``e_s . e_{s+k}``) against the offset ``k``, one line per start ``s``."""
    fig, ax = _subplots(1, 1, (6.4, 3.4))
    k = np.arange(dots.shape[1])
    for row, s, ls in zip(dots, starts, ["-", "--", ":", "-."] * 10):
        ax.plot(k, row, ls, lw=1.6, label=f"from position {s}")
    ax.axhline(0, color="0.7", lw=0.8)
    ax.set(xlabel="offset k", ylabel=r"$e_s \cdot e_{s+k}$", title=title)
    ax.legend(frameon=False, fontsize=8)
    return fig


def pca_ax(ax, coords: np.ndarray, ratio: np.ndarray, title: str) -> None:
    """A 2-D PCA path through positions 0..P-1, coloured by position."""
    ok = np.isfinite(coords).all(axis=1)
    pos = np.arange(len(coords))
    seg = np.stack([coords[:-1], coords[1:]], axis=1)
    keep = ok[:-1] & ok[1:]
    lc = LineCollection(seg[keep], cmap="viridis", linewidths=1.0, alpha=0.6)
    lc.set_array(pos[:-1][keep].astype(float))
    ax.add_collection(lc)
    sc = ax.scatter(coords[ok, 0], coords[ok, 1], c=pos[ok], cmap="viridis", s=9, zorder=3)
    if ok.any():
        first = np.argmax(ok)
        ax.scatter(*coords[first], marker="*", s=110, color="crimson", zorder=4)
    ax.autoscale()
    ax.set(title=title, xlabel=f"PC1 ({ratio[0]:.0%})", ylabel=f"PC2 ({ratio[1]:.0%})")
    plt.colorbar(sc, ax=ax, shrink=0.85, label="position")


def pca_paths(paths: dict, ncols: int = 3):
    """A grid of PCA paths, ``{title: (coords[P, 2], explained_ratio[2])}``."""
    fig, axes = _grid(len(paths), ncols, size=(3.4, 3.0))
    for ax, (title, (c, r)) in zip(axes, paths.items()):
        pca_ax(ax, c, r, title)
    return fig


def norms_figure(norms, shares, dim: int):
    """Left: L2 norms (mean, min-max bar) per vector, log scale. Right: the encoding's share of
    ``|[x, e]|^2`` against the dimension (``shares``: DataFrame indexed by dim, closed forms) and the
    shares measured at ``dim`` (``norms.share_lstm``)."""
    fig, (a, b) = _subplots(1, 2, (11, 3.8), gridspec_kw={"width_ratios": [1.25, 1]})
    y = np.arange(len(norms))[::-1]
    err = np.vstack([norms.norm_mean - norms.norm_min, norms.norm_max - norms.norm_mean])
    colors = ["0.45" if n.startswith(("token", "command")) else "C0" for n in norms.index]
    a.barh(y, norms.norm_mean, xerr=err, color=colors, capsize=3, height=0.6)
    a.set_xscale("log")
    a.xaxis.set_major_formatter(ScalarFormatter())
    a.xaxis.set_minor_formatter(ScalarFormatter())
    a.tick_params(axis="x", which="minor", labelsize=7)
    a.set_yticks(y, norms.index, fontsize=8)
    a.set_xlabel("L2 norm (bar: mean, whisker: min-max)")
    a.set_title("what the RNN reads at each step")
    for yi, v, hi in zip(y, norms.norm_mean, norms.norm_max):
        a.text(hi * 1.06, yi, f"{v:.3g}", va="center", fontsize=8)
    a.set_xlim(right=norms.norm_max.max() * 1.6)
    for col, ls in zip(shares.columns, ["-", "--", ":"]):
        b.plot(shares.index, shares[col], ls, lw=1.8, label=col)
    measured = norms.dropna(subset=["share"])
    b.set(xscale="log", yscale="log", xlabel="dimension D (= D_pos)",
          ylabel="encoding's share of |[x, e]|^2", title="how loud the encoding is at initialisation")
    if len(measured):
        b.scatter([dim] * len(measured), measured.share_lstm, color="k", marker="x", zorder=3,
                  label=f"measured in an LSTM input layer, D={dim}")
    b.legend(frameon=False, fontsize=8)
    return fig


def explorer_figure(table: np.ndarray, sim: np.ndarray, coords: np.ndarray, ratio: np.ndarray, key: str):
    """Three panels for the interactive explorer: table, cosine similarity, PCA path."""
    fig, axes = _subplots(1, 3, (13, 3.6))
    heatmap_ax(axes[0], table, f"{key}: table")
    similarity_ax(axes[1], sim, f"{key}: cosine similarity")
    pca_ax(axes[2], coords, ratio, f"{key}: 2-D PCA path")
    return fig

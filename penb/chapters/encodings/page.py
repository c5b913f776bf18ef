"""What the page ``notebooks/encodings.py`` shows and glues (issue 67): the texts'
settings, the registry, the figures with their provenance, the numbers the prose cites,
the blog's table claims and the explorer. The words around them stay in the notebook.

Tables are float64 numpy ``[positions, dim]`` (``analysis.paper_tables``,
``analysis.blog_tables``), similarities ``[P, P]``, PCA paths ``(coords[P, 2],
ratio[2])``. Imported by the notebook only (IPython, ipywidgets and myst_nb are not on
the device image).
"""
from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from penb import claims, report
from penb.chapters import pages
from penb.chapters.encodings import analysis, blog_claims, plots

PAPER, BLOG = "paper", "blog"   # whose tables a figure shows (its stamp: their size)


def overview() -> None:
    """Glue the texts' sizes (``enc_paper_dim``, ``enc_blog_k``, ``enc_blog_n``), then
    show the chapter's claims."""
    blog = claims.get("hansen.setup").value
    pages.glue_all({"enc_paper_dim": claims.get("morita.settings").value["hidden"],
                    "enc_blog_k": blog["dim"], "enc_blog_n": blog["length"]})
    display(claims.overview(c.key for c in claims.of_chapter("encodings")))


def size(cfg, tables: str = "") -> dict:
    """The positions and dimension of the paper's (``PAPER``) or the blog's (``BLOG``)
    tables at ``cfg``, as provenance items; ``{}`` for neither."""
    if tables == PAPER:
        return dict(positions=cfg.num_positions, dim=cfg.dim)
    if tables == BLOG:
        return dict(positions=cfg.blog_positions, dim=cfg.blog_dim)
    return {}


def show(fig, cfg, tables: str = "", **extra) -> None:
    """Stamp ``fig`` with the preset, the size of ``tables`` (:func:`size`) and
    ``extra``, show it, and print the same provenance line under it."""
    pages.show(fig, cfg, **size(cfg, tables), **extra)


def _views(paper_tables: dict) -> dict:
    """The paper's tables but the official code's layout (the same numbers permuted)."""
    return {k: t for k, t in paper_tables.items() if "code" not in k}


def registry(cfg) -> None:
    """The two texts' encodings as the registry defines them, with the provenance."""
    pages.table(analysis.registry_table(), cfg)


def similarity(cfg, tables: dict) -> tuple[dict, list, np.ndarray]:
    """The paper's similarities ``{title: [P, P]}`` (the code's layout left out), the
    start positions and the sinusoid's dot products by offset
    ``[len(starts), max_offset + 1]``; glues what the prose cites of them."""
    sims = analysis.similarities(_views(tables))
    starts, max_offset = analysis.offset_starts(cfg.num_positions)
    dots = analysis.offset_dots(tables[analysis.SINUSOID], starts, max_offset)
    pages.glue_all({"sin_cos1": float(sims[analysis.SINUSOID][0, 1]),
                    "sin_spread": float((dots.max(0) - dots.min(0)).max()),
                    "rand_cos": analysis.max_offdiag(sims["random"]),
                    "inv_sqrt_d": cfg.dim ** -0.5,
                    "far_k": max_offset,
                    "sin_far": float(dots[0, -1])})
    return sims, starts, dots


def pca(paper_tables: dict, blog_tables: dict) -> tuple[dict, dict]:
    """The 2-D PCA paths of the paper's tables (the code's layout left out) and the
    blog's; glues the variance two components explain (``sin_pca2``, ``rand_pca2``)."""
    paper = analysis.pca_paths(_views(paper_tables))
    blog = analysis.pca_paths(blog_tables)
    pages.glue_all({"sin_pca2": float(paper[analysis.SINUSOID][1].sum()),
                    "rand_pca2": float(paper["random"][1].sum())})
    return paper, blog


def norms(cfg) -> tuple:
    """The norm comparison (``analysis.norm_comparison``) shown with its provenance, the
    closed-form shares for D = 2..4096, and the numbers the prose cites, glued."""
    d = cfg.dim
    table = analysis.norm_comparison(
        d, cfg.vocab, cfg.num_positions, cfg.hidden,
        analysis.generator(cfg, analysis.SEED_OFFSETS["norms"]))
    shares = analysis.share_closed_form([2 ** k for k in range(1, 13)])
    row = analysis.NORM_ROWS
    mean, lstm = table.norm_mean, table.share_lstm
    pages.glue_all({"emb_norm": float(mean[row["tokens"]]),
                    "cmd_norm": float(mean[row["command"]]),
                    "sqrt_d": d ** 0.5, "dim": d, "raw_norm": float(mean[row["raw"]]),
                    "share_raw": float(lstm[row["raw"]]),
                    "share_unit": float(lstm[row["unit"]]),
                    "share_learn": float(lstm[row["learnable"]])})
    pages.table(table.round(4), cfg, dim=d, vocab=cfg.vocab, hidden=cfg.hidden)
    return table, shares


def blog_table_claims(cfg) -> list:
    """Grade the blog's three table claims (``blog_claims.grade``): show the shift fits
    (smallest share over draws) and the covariance per draw, glue ``enc_r_min`` and
    ``enc_normal_right``; returns the grades."""
    grades, relative, covariance = blog_claims.grade(cfg)
    display(relative.pivot_table(index="encoding", columns="offset",
                                 values=["correct", "affine_correct"],
                                 aggfunc="min", sort=False).round(3))
    pages.table(covariance.set_index("draw").round(4), cfg, **size(cfg, BLOG))
    normal = relative[relative["encoding"] == "normal"]
    pages.glue_all({"enc_r_min": float(covariance["r_min"].min()),
                    "enc_normal_right": float(normal["correct"].min())})
    return grades


def explorer(cfg) -> None:
    """Show the explorer: an encoding (the two texts' but ``none``; onehot needs dim >=
    positions), a dimension and a number of positions; its panels are the table, the
    cosine similarity and the 2-D PCA path (``plots.explorer_figure``)."""
    key_w = widgets.Dropdown(options=[k for k in analysis.TEXT_KEYS if k != "none"],
                             value="sinusoidal", description="encoding")
    dim_w = widgets.IntSlider(value=min(cfg.dim, 512), min=2, max=512, step=2,
                              description="dimension", continuous_update=False)
    pos_w = widgets.IntSlider(value=min(cfg.num_positions, 512), min=2, max=512,
                              description="positions", continuous_update=False)

    def draw(key: str, dim: int, num_positions: int) -> None:
        table = analysis.display_table(
            key, num_positions, dim,
            analysis.generator(cfg, analysis.SEED_OFFSETS["explorer"]))
        coords, ratio = analysis.pca_2d(table)
        fig = plots.explorer_figure(table, analysis.similarity(table), coords, ratio,
                                    key)
        report.stamp(fig, cfg, positions=num_positions, dim=dim)
        plt.show()

    out = widgets.interactive_output(draw, dict(key=key_w, dim=dim_w,
                                                num_positions=pos_w))
    display(widgets.VBox([widgets.HBox([key_w, dim_w, pos_w]), out]))


def draws(cfg) -> None:
    """Each random draw's generator seed and size (``analysis.draws_table``)."""
    pages.table(analysis.draws_table(cfg), cfg)

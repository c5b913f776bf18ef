"""What the page ``notebooks/irie.py`` shows and glues for the checks on random
models (Questions 1, 3 and 5, Fig. 1, Sec. 4, the exact claims per seed) and the
verdicts; Question 4's trained models are in :mod:`penb.chapters.irie.page_q4`. The
words around them stay in the notebook.

Each function displays a table or shows a figure with the provenance line under it and
glues the numbers the text quotes (``irie_*``). Imported by the notebook only (IPython
and myst_nb are not on the device image).
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from penb import claims
from penb.chapters import pages
from penb.chapters.irie import analysis, plots
from penb.report import provenance, stamp

# the Q3/Q5 table's columns of extremes, kept for exact_table and left off the page
EXTREMES = ["min_different", "max_equal", "min_checked", "max_last", "min_last",
            "mid_min_differ", "mid_max_same"]


def _tol() -> float:
    """The exact claims' threshold: the largest deviation that counts as rounding."""
    return claims.get("irie.q1").extra["max_deviation"]


def overview() -> None:
    """Show the chapter's claims (whole cells) and glue the threshold (``irie_tol``)."""
    display(claims.overview(c.key for c in claims.CLAIMS.values()
                            if c.key.startswith("irie.")))
    pages.glue_all({"irie_tol": f"{_tol():g}"})


def tolerances(cfg) -> None:
    """Print what counts as equal and as different, and the provenance."""
    print(f"equal: max |difference| <= {cfg.tol_equal:g};  "
          f"different: >= {cfg.tol_differ:g}")
    print(provenance(cfg, permutations=cfg.permutations))


def q1(cfg) -> pd.DataFrame:
    """Question 1's table (``analysis.q1_table``, first seed: three rows, (mask,
    encoding) = (full, none), (full, cfg.encoding), (causal, none)) with its provenance;
    glues ``irie_q1_n``, ``_of``, ``_err`` (no mask, no PE), ``_pe`` and ``_causal``."""
    table = analysis.q1_table(cfg)
    pages.table(table, cfg, permutations=cfg.permutations, seed=cfg.seeds[0])
    row = table.set_index(["mask", "encoding"])
    pages.glue_all({
        "irie_q1_n": f"{row.loc[('full', 'none'), 'equivariant']:,}",
        "irie_q1_of": f"{cfg.permutations:,}",
        "irie_q1_err": f"{row.loc[('full', 'none'), 'max_error']:.1e}",
        "irie_q1_pe": f"{row.loc[('full', cfg.encoding), 'equivariant']:,}",
        "irie_q1_causal": f"{row.loc[('causal', 'none'), 'equivariant']:,}"})
    return table


def q35(cfg) -> pd.DataFrame:
    """Questions 3 and 5's table (``analysis.q35_table``, first seed: a row per causal
    (attention, encoding, layers) and one full-mask row; :data:`EXTREMES` left off) with
    its provenance; glues the one-layer counts (``irie_q5_last``,
    ``irie_q5_equal``), the two-layer ones (``irie_q3_diff``, ``irie_q3_min``), the
    prediction's agreement (``irie_agree``) and the causal leaks (``irie_leak``)."""
    q35 = analysis.q35_table(cfg)
    pages.table(q35.drop(columns=EXTREMES), cfg, permutations=cfg.permutations,
                seed=cfg.seeds[0])
    causal = q35[q35["mask"] == "causal"]
    no_pe = causal[causal.encoding == "none"]
    softmax = no_pe[no_pe.attention == "softmax"]
    one = softmax[softmax.layers == 1].iloc[0]
    two = softmax[softmax.layers == 2].iloc[0]
    leaks = int((causal.before - causal.before_equal).sum())
    pages.glue_all({
        "irie_q5_last": f"{one.last_equal:,} of {one.permutations:,}",
        "irie_q5_equal": f"{one.equal:,} of {one.checked:,}",
        "irie_q3_diff": f"{two.different:,} of {two.checked:,}",
        "irie_q3_min": f"{no_pe[no_pe.layers >= 2].min_checked.min():.1e}",
        "irie_agree": f"{int(q35.agrees.sum()):,} of {int(q35.positions.sum()):,}",
        "irie_leak": f"{leaks:,}"})
    return q35


def figure1(cfg) -> dict:
    """Irie's Fig. 1 recomputed (``analysis.figure1``, ``plots.context_sets``), shown
    with its provenance; returns the figure's data for :func:`figure1_table`."""
    data = analysis.figure1(cfg)
    stamp(plots.context_sets(data), cfg)
    plt.show()
    print(provenance(cfg, seed=cfg.seeds[0]))
    return data


def figure1_table(data: dict, cfg) -> None:
    """Fig. 1's contexts as a table, and whether the reach of the mask composed over
    the layers equals the model's Jacobian (``reach_mask``, ``reach_jacobian``: bool
    [layers + 1, T, T] in ``data``)."""
    display(analysis.figure1_table(data))
    same = bool((data["reach_mask"] == data["reach_jacobian"]).all())
    print(f"reachability from the mask equals the model's Jacobian: {same}")
    print(provenance(cfg, seed=cfg.seeds[0]))


def linear(cfg) -> pd.DataFrame:
    """Sec. 4's table (``analysis.linear_table``: two rows, attention = "linear (no
    softmax)" and "softmax"): the parallel form against the fast-weight recurrence;
    glues their relative errors (``irie_lin_err``, ``irie_lin_soft``)."""
    table = analysis.linear_table(cfg)
    pages.table(table, cfg, seed=cfg.seeds[0])
    row = table.set_index("attention")
    pages.glue_all({
        "irie_lin_err": f"{row.loc['linear (no softmax)', 'rel_error']:.1e}",
        "irie_lin_soft": f"{row.loc['softmax', 'rel_error']:.1e}"})
    return table


def exact_figure(exact: pd.DataFrame, cfg) -> None:
    """The exact claims per seed (``plots.exact_checks`` of ``analysis.exact_table``)
    against the rule's threshold, shown with its provenance."""
    pages.show(plots.exact_checks(exact, _tol()), cfg, permutations=cfg.permutations)


def verdicts(exact: pd.DataFrame, q4_runs: dict, cfg) -> list:
    """Grade every ``irie.*`` claim (``analysis.grades``), show the verdict table with
    its provenance and glue each verdict (``irie_v_<claim>``), the preset
    (``irie_preset``) and the Q4 width (``irie_q4_dim``); returns the grades."""
    grades = analysis.grades(exact, q4_runs, cfg)
    pages.verdicts(grades, cfg, "irie_v_", permutations=cfg.permutations,
                   q4_seeds=cfg.q4_seeds, lm_seeds=cfg.lm_seeds, q4_steps=cfg.q4_steps,
                   lm_steps=cfg.lm_steps)
    pages.glue_all({"irie_preset": cfg.preset, "irie_q4_dim": cfg.q4_dim})
    return grades

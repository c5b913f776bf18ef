"""Figures of the chapter "Key findings" (Morita, Sec. 4.1, Fig. 2).

``vocab_sweep(summ, runs)`` draws Fig. 2's layout from
:func:`penb.chapters.key_findings.analysis.summary`: token accuracy (top) and mean
Damerau-Levenshtein distance (bottom) against the vocabulary size, one column per
model, vanilla vs. position-encoded: the mean over seeds with its 95% bootstrap
interval over seeds, and each valid run (one seed) as a hollow point over it. The
drawing itself is the shared :func:`penb.plotting.vocab_sweep`, which other chapters
reuse for their own sweeps.
"""
from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd

from penb import plotting


def seed_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """The valid runs of ``runs`` (the columns of ``analysis.frame``) with the
    summary's metric names (accuracy, distance): the per-seed points of the figure."""
    ok = runs[~runs["diverged"].astype(bool)]
    return ok.rename(columns={"token_accuracy": "accuracy",
                              "mean_distance": "distance"})


def vocab_sweep(summ: pd.DataFrame, runs: Optional[pd.DataFrame] = None,
                models: Optional[Sequence[str]] = None, width: float = 11.0):
    """Figure: rows = token accuracy and distance, columns = ``models`` (default:
    those of ``summ``).

    summ: DataFrame with columns model, vocab, variant, accuracy, accuracy_lo,
    accuracy_hi, distance, distance_lo, distance_hi (one row per model x vocabulary x
    variant). runs: optional, one row per run (``analysis.frame``): each valid run
    (seed) drawn as a point.
    """
    per_seed = None if runs is None else seed_frame(runs)
    return plotting.vocab_sweep(summ, models=models, width=width, per_seed=per_seed)

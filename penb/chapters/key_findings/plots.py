"""Figures of the chapter "Key findings" (Morita, Sec. 4.1, Fig. 2).

``vocab_sweep(summ)`` draws Fig. 2's layout from :func:`penb.chapters.key_findings.analysis.summary`:
token accuracy (top) and mean Damerau-Levenshtein distance (bottom) against the vocabulary size, one
column per model, vanilla vs. position-encoded with 95% bootstrap intervals. The drawing itself is the
shared :func:`penb.plotting.vocab_sweep`, which other chapters reuse for their own sweeps.
"""
from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd

from penb import plotting


def vocab_sweep(summ: pd.DataFrame, models: Optional[Sequence[str]] = None, width: float = 11.0):
    """Figure: rows = token accuracy and distance, columns = ``models`` (default: those of ``summ``).

    summ: DataFrame with columns model, vocab, variant, accuracy, accuracy_lo, accuracy_hi, distance,
    distance_lo, distance_hi (one row per model x vocabulary x variant).
    """
    return plotting.vocab_sweep(summ, models=models, width=width)

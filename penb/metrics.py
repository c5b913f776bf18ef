"""Metrics of the main paper: token and sequence accuracy, Damerau-Levenshtein distance, bootstrap CIs.

Predictions and targets are integer arrays ``[n, T]`` (NumPy or torch) laid out like a task's
targets: steps whose target is ``IGNORE = -100`` are not scored. The paper scores the output phase
of each held-out sequence; its captions give 95% confidence intervals from 10,000 bootstrap
resamples of five seeds x 1,024 held-out sequences, which :func:`bootstrap_ci` reproduces by
resampling the pooled per-sequence values (``level="sequence"``) or the per-seed means (``level="seed"``).
:func:`bootstrap_interval` is the book's own descriptive bar: a percentile bootstrap of the mean of per-seed values
(``penb.claims`` re-exports it; the protocol's graded interval is ``penb.claims.intervals.t_interval``). The two are
the book's only bootstraps.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np
from scipy.stats import bootstrap

try:
    from rapidfuzz.distance import DamerauLevenshtein
except ImportError:         # a GPU machine without rapidfuzz (penb.call.lease): the same distance, slower
    DamerauLevenshtein = None

from penb.tasks import IGNORE     # a step with no target (-100): not scored


def _np(x) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def _check(pred, target) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pred, target = _np(pred), _np(target)
    if pred.shape != target.shape or pred.ndim != 2:
        raise ValueError(f"predictions and targets must both be [n, T]; got {pred.shape} and {target.shape}")
    return pred, target, target != IGNORE


def per_sequence(pred, target) -> dict[str, np.ndarray]:
    """Per-sequence counts: ``correct`` and ``scored`` tokens, ``exact`` (bool; all scored tokens right).

    pred, target: int [n, T]. Rows with nothing scored count as not exact.
    """
    pred, target, mask = _check(pred, target)
    correct = ((pred == target) & mask).sum(1)
    scored = mask.sum(1)
    return {"correct": correct, "scored": scored, "exact": (correct == scored) & (scored > 0)}


def token_accuracy(pred, target) -> float:
    """Fraction of scored tokens predicted correctly (targets of -100 ignored)."""
    s = per_sequence(pred, target)
    return float(s["correct"].sum() / max(s["scored"].sum(), 1))


def sequence_accuracy(pred, target) -> float:
    """Fraction of sequences (with at least one scored token) whose scored tokens are all correct."""
    s = per_sequence(pred, target)
    keep = s["scored"] > 0
    return float(s["exact"][keep].mean()) if keep.any() else 0.0


def damerau_levenshtein(a: Sequence, b: Sequence) -> int:
    """Unrestricted Damerau-Levenshtein distance between two sequences of hashables (rapidfuzz).

    Insertions, deletions, substitutions and transpositions of adjacent symbols each cost 1, and a
    substring may be edited after a transposition (unlike the restricted "optimal string alignment"
    distance): ``damerau_levenshtein([3, 1], [1, 2, 3]) == 2`` where OSA gives 3.
    """
    if DamerauLevenshtein is None:
        return _damerau_levenshtein(list(a), list(b))
    return int(DamerauLevenshtein.distance(list(a), list(b)))


def _damerau_levenshtein(a: list, b: list) -> int:
    """The unrestricted Damerau-Levenshtein distance in plain Python (Lowrance and Wagner's algorithm, O(|a| |b|)),
    for machines without rapidfuzz; ``tests/test_metrics.py`` checks it equals rapidfuzz's."""
    n, m, far = len(a), len(b), len(a) + len(b)
    d = [[far] * (m + 2)] + [[far] + [0] * (m + 1) for _ in range(n + 1)]     # d[i + 1][j + 1]: a[:i] vs b[:j]
    for i in range(n + 1):
        d[i + 1][1] = i
    for j in range(m + 1):
        d[1][j + 1] = j
    last_row: dict = {}                          # symbol -> the last row of a in which it occurred
    for i in range(1, n + 1):
        last_col = 0                             # the last column of b matching a[i - 1] in this row
        for j in range(1, m + 1):
            k, col = last_row.get(b[j - 1], 0), last_col
            cost = 0 if a[i - 1] == b[j - 1] else 1
            if cost == 0:
                last_col = j
            d[i + 1][j + 1] = min(d[i][j] + cost, d[i + 1][j] + 1, d[i][j + 1] + 1,
                                  d[k][col] + (i - k - 1) + 1 + (j - col - 1))
        last_row[a[i - 1]] = i
    return d[n + 1][m + 1]


def distances(pred, target) -> np.ndarray:
    """int [n]: Damerau-Levenshtein distance between each row's predicted and target scored tokens."""
    pred, target, mask = _check(pred, target)
    return np.array([damerau_levenshtein(p[m].tolist(), t[m].tolist())
                     for p, t, m in zip(pred, target, mask)], dtype=np.int64)


def mean_distance(pred, target) -> float:
    """Mean per-sequence Damerau-Levenshtein distance (raw, not normalised), as in the paper."""
    d = distances(pred, target)
    return float(d.mean()) if d.size else 0.0


def grouped_accuracy(pred, target, groups) -> dict[int, float]:
    """Token accuracy per group label (e.g. per input length): {label: accuracy}; groups int [n]."""
    s = per_sequence(pred, target)
    groups = _np(groups)
    return {int(g): float(s["correct"][groups == g].sum() / max(s["scored"][groups == g].sum(), 1))
            for g in np.unique(groups)}


def bootstrap_ci(values, weights=None, *, n_resamples: int = 10_000, confidence: float = 0.95,
                 level: str = "sequence", method: str = "percentile",
                 seed: Optional[int] = 0) -> tuple[float, float, float]:
    """(estimate, low, high): a bootstrap confidence interval of a mean or a ratio of sums.

    values: [seeds, n] per-sequence values (e.g. ``correct``); weights: optional [seeds, n]
    (e.g. ``scored``), making the statistic sum(values)/sum(weights), the token accuracy;
    without weights it is the mean. ``level="sequence"`` resamples all seeds x n sequences pooled
    (scipy.stats.bootstrap, paired when weighted); ``level="seed"`` resamples the per-seed statistics.
    A degenerate sample (all statistics equal) returns (v, v, v).
    """
    if level not in ("sequence", "seed"):
        raise ValueError(f"unknown level {level!r}; valid: sequence, seed")
    if not 0 < confidence < 1 or n_resamples < 1:
        raise ValueError(f"need 0 < confidence < 1 and n_resamples >= 1, got {confidence}, {n_resamples}")
    v = np.atleast_2d(np.asarray(values, dtype=np.float64))
    w = np.ones_like(v) if weights is None else np.atleast_2d(np.asarray(weights, dtype=np.float64))
    if v.shape != w.shape or v.size == 0:
        raise ValueError(f"values and weights must be non-empty [seeds, n] of one shape; got {v.shape}, {w.shape}")
    if level == "seed":
        v, w = (v.sum(1) / w.sum(1))[None, :], np.ones((1, v.shape[0]))
    v, w = v.ravel(), w.ravel()
    estimate = float(v.sum() / w.sum())
    ratios = v / np.where(w == 0, 1, w)
    if np.all(ratios == ratios[0]) and np.all(w == w[0]):
        return estimate, estimate, estimate

    def ratio(a, b, axis=-1):
        return a.sum(axis) / b.sum(axis)

    res = bootstrap((v, w), ratio, paired=True, vectorized=True, n_resamples=n_resamples,
                    confidence_level=confidence, method=method, batch=1000,
                    random_state=np.random.default_rng(seed))
    return estimate, float(res.confidence_interval.low), float(res.confidence_interval.high)


def summarize(pred: dict[str, np.ndarray]) -> dict[str, float]:
    """Headline metrics of an ``evaluate`` result: token/sequence accuracy, mean DL distance; with
    ``"nll"`` (language modelling) also ``perplexity`` = exp(total nats / scored tokens), ``n_tokens``."""
    p, t = pred["predictions"], pred["targets"]
    out = {"token_accuracy": token_accuracy(p, t), "sequence_accuracy": sequence_accuracy(p, t),
           "mean_distance": mean_distance(p, t), "n_sequences": int(p.shape[0])}
    if "nll" in pred:
        n_tokens = int((t != IGNORE).sum())
        out.update(perplexity=math.exp(float(pred["nll"].sum()) / n_tokens), n_tokens=n_tokens)
    return out


def bootstrap_interval(values: Sequence[float], confidence: float = 0.95, n_resamples: Optional[int] = 10_000,
                       seed: int = 0) -> tuple[float, float, float]:
    """(mean, lo, hi) with a percentile bootstrap interval over seeds (``scipy.stats.bootstrap``), for descriptive
    bars only: at 5 seeds its nominal 95% covers the mean in only about 85% of draws."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    if x.size == 1 or np.all(x == x[0]):
        return float(x.mean()), float(x.min()), float(x.max())
    res = bootstrap((x,), np.mean, confidence_level=confidence, n_resamples=n_resamples or 10_000,
                    method="percentile", random_state=np.random.default_rng(seed))
    return float(x.mean()), float(res.confidence_interval.low), float(res.confidence_interval.high)

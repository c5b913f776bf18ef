"""Intervals over seeds and the seeds a comparison needs (``penb.claims.grading``).

* :func:`t_interval`: the Student-t interval of the mean over seeds, the protocol's interval. It keeps its
  level at 3-10 seeds for roughly normal per-seed values, and for paired differences of two variants with the
  same noise (a difference of two i.i.d. errors is symmetric even when each is skewed); ``tests/test_grading_
  coverage.py`` simulates it;
* ``bootstrap_interval`` (its home is :mod:`penb.metrics`, with the paper's pooled bootstrap): a percentile
  bootstrap over seeds, for the chapters' descriptive bars (figures and summary tables), which are not graded
  (protocol 1 graded with it; at 5 seeds it undercovers);
* :func:`seeds_needed`: the seeds that 80% power at the 5% level would need for a true effect equal to the
  claim's smallest effect of interest, from the observed per-seed SD (noncentral t).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np
from scipy import stats

from penb.metrics import bootstrap_interval  # noqa: F401 (one home: penb.metrics; the chapters' bars call it here)
from penb.sizing import POWER


DEFAULT_SESOI = 0.02             # the smallest effect of interest where a text states no gap (claim's unit)
# protocol 5: the step below which the book tells no two values of a trained model's measure apart, where neither
# the claim nor its evidence states one (the book reports accuracies to three decimals); no seed-level interval
# is narrower than it on either side of its mean, so that identical values on every seed (an accuracy pinned at
# 1.0) give an interval of this width, not one of zero width. Discrete measures state their own (a rank over k
# items: 12 / (k (k^2 - 1)), penb.chapters.beyond_rnn.analysis.rank_evidence)
DEFAULT_RESOLUTION = 0.001


def resolution_of(stated: Optional[float], trained: bool = True) -> Optional[float]:
    """The resolution a measure is read at: the one stated (claim or evidence), else :data:`DEFAULT_RESOLUTION`
    for a measure of trained models; none for an exact property."""
    return stated if stated is not None or not trained else DEFAULT_RESOLUTION


def no_narrower(mean: float, lo: float, hi: float, resolution: Optional[float]) -> tuple[float, float]:
    """(lo, hi) widened, where needed, to ``resolution`` on either side of ``mean`` (protocol 5)."""
    if not resolution:
        return lo, hi
    return min(lo, mean - resolution), max(hi, mean + resolution)
ALPHA = 0.05                      # the intervals' level (95%); POWER: what "the seeds needed" aims at (penb.sizing)
LEVEL = 0.95                     # every seed-level interval's level (read at call time: the calibration's mutants)
PRACTICAL_SEEDS = 30             # beyond this many seeds, a preset of larger scale has to decide


def t_quantile(n: int, confidence: Optional[float] = None) -> float:
    """The two-sided Student-t quantile of a ``confidence`` (default :data:`LEVEL`) interval over ``n`` seeds."""
    return float(stats.t.ppf(0.5 + (LEVEL if confidence is None else confidence) / 2, n - 1))


def t_interval(values: Sequence[float], confidence: Optional[float] = None) -> tuple[float, float, float]:
    """(mean, lo, hi): the mean over seeds and its Student-t interval (``scipy.stats.t``, n - 1 degrees of
    freedom) at ``confidence`` (default :data:`LEVEL`). One seed, or identical values, gives (x, x, x); an empty
    input NaNs."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    if x.size == 1 or np.all(x == x[0]):
        return float(x.mean()), float(x.min()), float(x.max())
    half = t_quantile(x.size, confidence) * x.std(ddof=1) / math.sqrt(x.size)
    return float(x.mean()), float(x.mean() - half), float(x.mean() + half)


def seed_interval(values: Sequence[float], confidence: Optional[float] = None) -> tuple[float, float, float]:
    """(mean, lo, hi) over seeds: the protocol's Student-t interval (:func:`t_interval`). The chapters'
    descriptive bars call :func:`bootstrap_interval` themselves, with their ``bootstrap`` resamples."""
    return t_interval(values, confidence)


def seeds_needed(sd: float, sesoi: float, power: float = POWER, alpha: float = ALPHA,
                 cap: int = 10_000) -> Optional[int]:
    """The fewest seeds n for which a two-sided one-sample t-test at level ``alpha`` detects a true mean effect
    of ``sesoi`` with probability ``power``, when the per-seed SD is ``sd`` (noncentral t,
    ``scipy.stats.nct``); None when even ``cap`` seeds would not do (or ``sesoi`` is not positive)."""
    if not (sesoi > 0) or not math.isfinite(sd):
        return None
    if sd <= 0:
        return 2
    d = sesoi / sd
    for n in range(2, cap + 1):
        df, nc = n - 1, d * math.sqrt(n)
        crit = stats.t.ppf(1 - alpha / 2, df)
        if stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc) >= power:
            return n
        if n > 50:                                   # past 50 seeds, jump ahead by the normal approximation
            z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
            guess = int(math.ceil((z / d) ** 2))
            return guess if guess <= cap else None
    return None


def needed_text(n_now: int, sd: float, sesoi: float) -> tuple[Optional[int], str]:
    """(seeds needed, the words for a reader) for an inconclusive comparison. A claim whose smallest effect of
    interest is 0 (any effect in its direction counts) sizes no seed count."""
    if not sesoi > 0:
        return None, ("the claim sets no smallest effect (any effect in its direction agrees with it), so no seed "
                      "count is sized for it; more seeds narrow the interval")
    n = seeds_needed(sd, sesoi)
    if n is None or n > PRACTICAL_SEEDS:
        many = f"about {n:,}" if n is not None else "thousands of"
        return n, (f"{many} seeds would be needed for 80% power at an effect of {sesoi:g}: no practical seed "
                   "count decides it at this preset; a larger-scale preset (gpu or paper) would")
    return n, f"80% power at an effect of {sesoi:g} needs about {n} seeds (this test had {n_now})"

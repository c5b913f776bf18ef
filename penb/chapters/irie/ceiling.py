"""The order-blind ceiling of ``reverse``: the best token accuracy of any predictor that sees only the
multiset of the inputs (all a one-layer causal Transformer without PE sees at an output step, Irie's
Question 5), and the test noise around it.

* :func:`blind_ceiling`: exact (integer arithmetic) for small V x L, float64 above :data:`EXACT_LIMIT`
  (:func:`blind_ceiling_float`);
* :func:`binomial_margin`: 4 binomial standard deviations of a token accuracy at the ceiling, the margin
  above which a seed counts as beating it (Question 4 here, ``beyond_transformers``' one-layer check).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np
from scipy.stats import poisson

EXACT_LIMIT = 20_000    # vocab_size x length above which blind_ceiling uses the float method


@lru_cache(maxsize=None)
def blind_ceiling(vocab_size: int, length: int) -> float:
    """E[max_v count_v] / L for L tokens drawn uniformly from V: the best token accuracy on ``reverse``
    of any predictor that sees only the multiset of the inputs (and the output step).

    Given the multiset, every arrangement is equally likely, so the target of any output step is v
    with probability count_v / L; the best guess is a most frequent token. Exact, by
    P(max <= m) = L! / V^L [x^L] (sum_{j<=m} x^j / j!)^V: in integers, the number of sequences whose
    counts are all at most m is the L-th entry of the V-th binomial-convolution power of (1, ..., 1) (m + 1
    ones), taken by repeated squaring. Cached: the chapters ask for the same (V, L) in every grading pass.
    """
    if vocab_size < 1 or length < 1:
        raise ValueError(f"need vocab_size >= 1 and length >= 1, got {vocab_size}, {length}")
    if vocab_size * length > EXACT_LIMIT:
        return blind_ceiling_float(vocab_size, length)
    total = vocab_size ** length
    expected = Fraction(0)
    for m in range(length):                       # E[max] = sum_{m >= 0} P(max > m)
        words = _egf_power([1] * (m + 1), vocab_size, length)
        at_most = Fraction(words[length], total) if len(words) > length else 0
        expected += 1 - at_most
    return float(expected / length)


def _egf_power(base: list[int], k: int, length: int) -> list[int]:
    """The k-th power of the exponential generating function with integer entries ``base`` (entry i: i! times
    the coefficient of x^i), entries up to x^``length``: entry n of a product is sum_i C(n, i) a_i b_(n-i)."""
    def product(a, b):
        out = [0] * min(len(a) + len(b) - 1, length + 1)
        for n in range(len(out)):
            out[n] = sum(comb(n, i) * a[i] * b[n - i] for i in range(max(0, n - len(b) + 1), min(n, len(a) - 1) + 1))
        return out

    power = [1]
    while k:
        if k & 1:
            power = product(power, base)
        k >>= 1
        if k:
            base = product(base, base)
    return power


def blind_ceiling_float(vocab_size: int, length: int) -> float:
    """:func:`blind_ceiling` in float64, for large V and L (paper sizes): the counts of L uniform draws
    over V tokens are V independent Poisson(L/V) counts conditioned on their sum being L, so
    P(max <= m) = P(N <= m)^V P(S = L | every N_i <= m) / P(S = L), the middle term the L-th entry of the
    V-fold convolution of the truncated Poisson pmf (by repeated squaring, entries above L dropped)."""
    lam = length / vocab_size
    log_pl = poisson.logpmf(length, length)                           # P(S = L), S ~ Poisson(L)
    expected = 0.0
    for m in range(length):
        pmf = poisson.pmf(np.arange(min(m, length) + 1), lam)        # [m + 1]
        mass = pmf.sum()
        base, power, k = pmf / mass, np.array([1.0]), vocab_size
        while k:
            if k & 1:
                power = np.convolve(power, base)[:length + 1]
            k >>= 1
            if k:
                base = np.convolve(base, base)[:length + 1]
        at_l = power[length] if len(power) > length else 0.0
        p_at_most = float(np.exp(vocab_size * np.log(mass) - log_pl) * at_l) if at_l > 0 else 0.0
        expected += 1 - min(p_at_most, 1.0)
    return expected / length


def binomial_margin(ceiling: float, n_tokens: int) -> float:
    """4 binomial standard deviations of a token accuracy at ``ceiling`` over ``n_tokens`` test tokens."""
    return 4 * (ceiling * (1 - ceiling) / n_tokens) ** 0.5

"""Metrics: Damerau-Levenshtein against a brute-force search, accuracies against loops, bootstrap CIs."""
import math
import random
from collections import deque

import numpy as np
import pytest

from penb import metrics

IGNORE = -100


def brute_force_dl(a, b):
    """Unrestricted Damerau-Levenshtein distance by breadth-first search over edited sequences.

    One edit = insert, delete, substitute or swap two adjacent symbols, applied to any intermediate
    sequence (so a swapped pair may be edited again: that is what the restricted OSA forbids).
    """
    a, b = tuple(a), tuple(b)
    alphabet = set(a) | set(b)
    cap = max(len(a), len(b)) + 1
    seen, queue = {a: 0}, deque([a])
    while queue:
        s = queue.popleft()
        d = seen[s]
        if s == b:
            return d
        nxt = []
        for i in range(len(s) + 1):
            if len(s) < cap:
                nxt += [s[:i] + (c,) + s[i:] for c in alphabet]
            if i < len(s):
                nxt.append(s[:i] + s[i + 1:])
                nxt += [s[:i] + (c,) + s[i + 1:] for c in alphabet if c != s[i]]
            if i < len(s) - 1:
                nxt.append(s[:i] + (s[i + 1], s[i]) + s[i + 2:])
        for t in nxt:
            if t not in seen:
                seen[t] = d + 1
                queue.append(t)
    raise AssertionError("unreachable")


def test_unrestricted_not_osa():
    assert metrics.damerau_levenshtein("CA", "ABC") == 2 == brute_force_dl("CA", "ABC")   # OSA gives 3
    assert metrics.damerau_levenshtein([3, 1], [1, 2, 3]) == 2
    assert metrics.damerau_levenshtein([8, 29, 2, 11], [11, 2, 29, 8]) == brute_force_dl([8, 29, 2, 11], [11, 2, 29, 8])


def test_damerau_levenshtein_against_brute_force():
    rng = random.Random(0)
    for _ in range(150):
        a = [rng.randrange(4) for _ in range(rng.randrange(0, 5))]
        b = [rng.randrange(4) for _ in range(rng.randrange(0, 5))]
        assert metrics.damerau_levenshtein(a, b) == brute_force_dl(a, b), (a, b)


def _example():
    target = np.array([[IGNORE, IGNORE, 1, 2, 3],
                       [IGNORE, IGNORE, 4, 5, IGNORE],
                       [IGNORE, IGNORE, 6, 7, 8]])
    pred = np.array([[9, 9, 1, 2, 3],          # all right (the -100 steps are not scored)
                     [0, 0, 4, 0, 5],          # 1 of 2 right
                     [0, 0, 7, 6, 8]])         # 1 of 3 right, a transposition
    return pred, target


def test_accuracies_against_counting():
    pred, target = _example()
    assert metrics.token_accuracy(pred, target) == pytest.approx(5 / 8)
    assert metrics.sequence_accuracy(pred, target) == pytest.approx(1 / 3)
    assert metrics.distances(pred, target).tolist() == [0, 1, 1]
    assert metrics.mean_distance(pred, target) == pytest.approx(2 / 3)
    assert metrics.grouped_accuracy(pred, target, [0, 1, 1]) == {0: 1.0, 1: pytest.approx(2 / 5)}
    with pytest.raises(ValueError, match=r"\[n, T\]"):
        metrics.token_accuracy(pred[:, :3], target)


def test_bootstrap_ci_of_a_mean_matches_the_normal_approximation():
    rng = np.random.default_rng(1)
    values = rng.binomial(1, 0.3, size=(5, 1024)).astype(float)
    est, lo, hi = metrics.bootstrap_ci(values, n_resamples=2000, seed=0)
    p, n = values.mean(), values.size
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    assert est == pytest.approx(p) and lo < est < hi
    assert (hi - lo) == pytest.approx(2 * half, rel=0.12)
    assert (lo + hi) / 2 == pytest.approx(p, abs=half / 4)


def test_bootstrap_ci_of_a_ratio_and_seed_level():
    rng = np.random.default_rng(2)
    scored = rng.integers(32, 65, size=(5, 200))
    correct = rng.binomial(scored, 0.8)
    est, lo, hi = metrics.bootstrap_ci(correct, scored, n_resamples=1000)
    assert est == pytest.approx(correct.sum() / scored.sum()) and lo < est < hi and hi - lo < 0.02
    e2, lo2, hi2 = metrics.bootstrap_ci(correct, scored, n_resamples=1000, level="seed")
    per_seed = correct.sum(1) / scored.sum(1)
    assert e2 == pytest.approx(per_seed.mean()) and per_seed.min() <= lo2 <= hi2 <= per_seed.max()
    assert metrics.bootstrap_ci(np.ones((5, 10)), n_resamples=100) == (1.0, 1.0, 1.0)   # degenerate
    with pytest.raises(ValueError, match="level"):
        metrics.bootstrap_ci(correct, level="token")


def test_the_plain_python_distance_is_rapidfuzz_s():
    """The fallback for machines without rapidfuzz (a GPU lease) gives the same unrestricted distance."""
    import random

    from rapidfuzz.distance import DamerauLevenshtein

    from penb.metrics import _damerau_levenshtein

    rng = random.Random(0)
    for _ in range(3000):
        a = [rng.randrange(rng.choice((2, 3, 5, 50))) for _ in range(rng.randrange(9))]
        b = [rng.randrange(5) for _ in range(rng.randrange(9))]
        assert _damerau_levenshtein(a, b) == DamerauLevenshtein.distance(a, b), (a, b)
    assert _damerau_levenshtein([3, 1], [1, 2, 3]) == 2          # unrestricted: OSA gives 3

"""Protocol 8's calibration (issue 66): simulated curves graded by ``penb.claims.composition.settle``, the composition
``penb.claims.grade`` uses, at the resolution ``grade()`` reads (:data:`RESOLUTION`), for every rule kind that grades
a trained claim. Used by ``tests/test_horizon_p8_calibration.py`` (what must hold) and
``scripts/horizon_calibration.py`` (the README's table: every rate, fooled or not).

A family draws, per seed, the true values of both models (or one, for a level) at budgets k (0 = N/4, 1 = N/2, 2 = N,
continuous beyond: k = 2 + log2(budget / N)); each seed adds a persistent offset (sd ``spread``) and each evaluation
its own noise (sd ``noise``). The truth is the mean over seeds at the horizon H (no noise). The audit's curves (issue
66): N 2,000 and 16,000, H 300,000, noise 0.005-0.01, offsets 0.008-0.02, 3, 5 and 10 seeds.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from penb.claims import composition
from penb.claims.intervals import DEFAULT_RESOLUTION, DEFAULT_SESOI
from penb.claims.outcomes import DIRECTION, NOT_REPRODUCED, REPRODUCED


RESOLUTION = DEFAULT_RESOLUTION          # what grade() reads for an accuracy (penb.claims.intervals.resolution_of)
H = 300_000                              # Morita's budget, the horizon of every Fig. 2 claim
SESOI = DEFAULT_SESOI
PARAMS = {"min_agree": 0.8, "min_seeds": 3}     # rule "better" as morita.fig2.* grade it
LEVEL = 0.95                                    # morita.fig2.level.*'s level


def k_at_h(n: int) -> float:
    """The horizon's budget index for runs at N = ``n`` (k = 2 at N)."""
    return 2.0 + math.log2(H / n)


def stated(level_n, before, ratio, cap):
    """A curve with the stated moves before N (``before`` = (N/4 -> N/2, N/2 -> N)) that then grow by ``ratio`` (per
    seed) a doubling from the last one, continuously in k, capped at ``cap``; at N its value is ``level_n``."""
    m0, m1 = before

    def f(k):
        k = float(k)
        if k <= 2:
            return np.minimum(cap, np.interp(k, [0, 1, 2], [level_n - m0 - m1, level_n - m1, level_n]) + 0 * ratio)
        t = k - 2
        return np.minimum(cap, level_n + m1 * ratio * (np.power(ratio, t) - 1) / (ratio - 1))
    return f


def flat(n, value):
    return lambda k: np.full(n, float(value))


def shrinking(n, level_n, last_move, ratio):
    """Moves that shrink by ``ratio`` a doubling, the move N/2 -> N being ``last_move``; its value at N ``level_n``."""
    def f(k):
        # the move from k - 1 to k is last_move * ratio^(k - 2): value(k) = level_n + last_move sum ...
        return level_n + last_move * ratio * (1 - np.power(ratio, float(k) - 2)) / (1 - ratio)
    return f


# --- families: (rng, n, N) -> (model a(k), model b(k) or None) --------------------------------------------------
def both_speeding_up(rng, n, N):
    """The audit's: PE's moves 0.004 then 0.008, vanilla's 0.006 then 0.014, each growing 1.8-2.5x a doubling after
    N; PE 0.8 at N (to 0.95), vanilla 0.5 (to 0.97): vanilla ahead at H."""
    gp, gv = rng.uniform(1.8, 2.5, n), rng.uniform(1.8, 2.5, n)
    return stated(0.8, (0.004, 0.008), gp, 0.95), stated(0.5, (0.006, 0.014), gv, 0.97)


def both_stopped(rng, n, N):
    """A real gap of 0.3: PE at 0.9, vanilla at 0.6, neither moving."""
    return flat(n, 0.9), flat(n, 0.6)


def both_moving(rng, n, N):
    """A real gap that stays: PE to 0.9, vanilla to 0.6, both still moving at N (moves shrinking by a ratio drawn in
    [0.6, 0.8] a doubling from 0.3 and 0.1 at N/4)."""
    rp, rv = rng.uniform(0.6, 0.8, n), rng.uniform(0.6, 0.8, n)
    return (lambda k: 0.9 - 0.6 * np.power(rp, float(k))), (lambda k: 0.6 - 0.5 * np.power(rv, float(k)))


def level_far_below(rng, n, N):
    """As the deep archive's PE GRU at V 256: 0.14 at N, still rising by more than the SESOI a doubling (its last move
    0.03, shrinking by 0.85 a doubling): far below 0.95 at H ("not reproduced" is true)."""
    return shrinking(n, 0.14, 0.03, 0.85), None


def level_reached_at_h(rng, n, N):
    """Moves shrinking by 0.9 a doubling from a start that reaches 0.95 exactly at H ("not reproduced" is false)."""
    r = rng.uniform(0.88, 0.92, n)
    kh = k_at_h(N)
    d = (0.951 - 0.6) / (1 - np.power(r, kh))
    return (lambda k: 0.6 + d * (1 - np.power(r, float(k)))), None


def level_speeding_up(rng, n, N):
    """A level under the text's at N (0.8) whose moves (0.006 then 0.014) grow 1.8-2.5x a doubling to 0.97 by H."""
    return stated(0.8, (0.006, 0.014), rng.uniform(1.8, 2.5, n), 0.97), None


def level_above(rng, n, N):
    """Reached and stopped: 0.975, above the text's 0.95 ("reproduced" is true)."""
    return flat(n, 0.975), None


def drifting_apart(rng, n, N):
    """No gain at N, a gain at H: a (0.80) rises 0.012 a doubling and b (0.80) falls 0.012, each within its own
    SESOI a doubling while the gap moves 0.024 ("no gain" is false at H)."""
    return (lambda k: np.full(n, 0.80 + 0.012 * (float(k) - 2))), (lambda k: np.full(n, 0.80 - 0.012 * (float(k) - 2)))


def equal_stopped(rng, n, N):
    """No gain, both stopped at 0.8 ("no gain" is true)."""
    return flat(n, 0.8), flat(n, 0.8)


# --- drawing and grading -----------------------------------------------------------------------------------------
KINDS = {"better": PARAMS, "level": {**PARAMS, "level": LEVEL}, "no_gain": {**PARAMS, "sesoi": SESOI}}


def draw(family: Callable, kind: str, n: int, N: int, rng, noise: float, spread: float) -> tuple[str, bool, float]:
    """(the rule's verdict at N, whether it stands, the truth at H: the gap a - b, or a - level) of one draw."""
    fa, fb = family(rng, n, N)
    kh = k_at_h(N)
    truth = float(np.mean(fa(kh) - (fb(kh) if fb is not None else LEVEL)))
    offsets = (spread * rng.standard_normal(n), spread * rng.standard_normal(n))

    def evidence(k):
        a = np.clip(fa(k) + offsets[0], 0, 1) + noise * rng.standard_normal(n)
        ev = {"a": list(a), "seeds": list(range(n)), "a_name": "PE", "resolution": RESOLUTION}
        if fb is not None:
            ev.update(b=list(np.clip(fb(k) + offsets[1], 0, 1) + noise * rng.standard_normal(n)), b_name="vanilla")
        return ev
    q, h, f = evidence(0), evidence(1), evidence(2)
    v, d = composition.settle(kind, KINDS[kind], f, h, (N // 2, N), SESOI, quarter=q, horizon=H)
    return v, d, truth


def wrong(kind: str, verdict: str, truth: float) -> bool:
    """A settled verdict that the truth at H contradicts."""
    found = verdict in (REPRODUCED, DIRECTION)
    if kind == "better":
        return (found and truth <= 0) or (verdict == NOT_REPRODUCED and truth >= SESOI)
    if kind == "level":
        return (found and truth <= 0) or (verdict == NOT_REPRODUCED and truth >= 0)
    return (found and truth >= SESOI) or (verdict == NOT_REPRODUCED and truth < SESOI)      # no_gain


def rate(family: Callable, kind: str, n: int, N: int, noise: float = 0.005, spread: float = 0.008,
         draws: int = 100, what: str = "false", seed: int = 0) -> float:
    """The share of ``draws`` that settle wrongly (``what`` "false") or settle as ``what`` (a verdict: power)."""
    rng = np.random.default_rng([seed, n, N, int(noise * 1e4), int(spread * 1e4), sum(map(ord, family.__name__))])
    hits = 0
    for _ in range(draws):
        v, d, truth = draw(family, kind, n, N, rng, noise, spread)
        hits += d and (wrong(kind, v, truth) if what == "false" else v == what)
    return hits / draws

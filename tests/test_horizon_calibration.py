"""The horizon (protocol 6 on, as the protocol in force reads it) against curve families fitted to this project's
own records (issue 49, item 2): how often does it *settle* a verdict that the models' state at the text's budget
contradicts? Required: at most 5% at 3, 5 and 10 seeds in every family, at the measured noise and at twice it; a 50%
interval and a rule that never settles must each fail the suite.

**What the records show** (``penb/chapters/key_findings/slice_search.csv``: the vanilla GRU at h64, L16, V 8-128,
seeds 0 and 1, WSD budgets 2k-16k; computed by :func:`records`, checked in ``test_the_records_are_what_the_families_
are_fitted_to``):

* the move per doubling shrinks by a factor of 0.34-0.98 from one doubling to the next where the model has left
  chance, and *grows* (1.3-1.8) at V 64 (seed 0) and V 128, where it is near chance: saturating approaches with a
  ratio drawn per seed in [0.35, 0.95], and a rise after a plateau;
* the spread across seeds at one budget has a median of about 0.008 (0.0004-0.048): a persistent per-seed offset of
  sd :data:`SPREAD` (it moves with the seed, not with the budget), and each evaluation its own noise of sd
  :data:`NOISE` (a held-out test of ~1,000 tokens at accuracy 0.5-0.9 has a binomial sd of 0.010-0.016 per token
  set; the book's tests average many: 0.005), run again at :data:`NOISE` x 2.

A family draws, per seed, both models' accuracy at every budget k (N_k = 1,000 x 2^k updates). The truth is the
mean over seeds at the horizon H (no noise): a gap found is wrong where the true gap at H is at most 0, a gap
denied where it is at least the SESOI. The verdicts come from ``penb.claims.composition.settle``, the composition
``penb.claims.grade`` uses, at N = 4,000 with runs at N/4, N/2 and N, and H = 512,000: the seven doublings the rule
counts from 4,000 to Morita's 300,000 (D = ceil(log2 75) = 7), so that a family can meet its truth exactly at H.
"""
import math

import numpy as np
import pandas as pd
import pytest

from penb.claims import composition, horizon, intervals
from penb.claims.outcomes import DIRECTION, NOT_REPRODUCED, REPRODUCED
from penb.store import paths

SESOI, NOISE, SPREAD, DRAWS = 0.02, 0.005, 0.008, 200
PARAMS = {"min_agree": 0.8, "min_seeds": 3}          # rule "better" as morita.fig2.* grade it
N, H = 4000, 4000 * 2 ** 7                           # a horizon 7 doublings on (Morita's 300,000 from 4,000: D = 7)
K_N = int(math.log2(N / 1000))                       # N's doubling index (budgets 1,000 x 2^k)
K_H = math.log2(H / 1000)


def approach(k, start, plateau, ratio):
    """Moves per doubling that shrink by ``ratio`` (a power-law approach in updates): ``start`` at k = 0."""
    return plateau - (plateau - start) * np.power(ratio, k)


def _seeds(rng, n, lo=0.35, hi=0.95):
    return rng.uniform(lo, hi, n)


# Each family: (rng, n) -> (PE(k), vanilla(k)), each k -> [n] true per-seed accuracies (offsets added by _draw)
def equal_plateaus(rng, n):
    """Both end at 0.9; PE's moves shrink fast (ratio 0.35-0.5), vanilla's slowly (0.85-0.95): no gap at H."""
    rp, rv = _seeds(rng, n, 0.35, 0.5), _seeds(rng, n, 0.85, 0.95)
    return (lambda k: approach(k, 0.3, 0.9, rp)), (lambda k: approach(k, 0.1, 0.9, rv)), 0.0


def unequal_plateaus(rng, n):
    """PE ends at 0.9, vanilla at 0.6, both near their plateaus by N (ratio 0.35-0.6, six doublings in at N): a gap
    of 0.3 at H."""
    rp, rv = _seeds(rng, n, 0.35, 0.6), _seeds(rng, n, 0.35, 0.6)
    return (lambda k: approach(k + 4, 0.3, 0.9, rp)), (lambda k: approach(k + 4, 0.1, 0.6, rv)), 0.3


def creep(rng, n, per=0.010):
    """PE at 0.95; vanilla creeps ``per`` a doubling, steadily, and meets PE exactly at H: no gap at H."""
    v0 = 0.95 - per * K_H
    return (lambda k: np.full(n, 0.95)), (lambda k: np.full(n, v0 + per * k)), 0.0


def sesoi_a_doubling(rng, n):
    """Vanilla moves exactly the SESOI (0.02) a doubling and meets PE (0.95) at H (the audit's boundary case)."""
    return creep(rng, n, per=SESOI)


def closing_at_horizon(rng, n):
    """PE at 0.95; vanilla's moves shrink by 0.9 a doubling (ratio drawn 0.88-0.92) from a start that brings it to
    PE's level exactly at H: the gap the runs see at N is what the doublings left could close."""
    r = _seeds(rng, n, 0.88, 0.92)
    d = (0.95 - 0.3) / (1 - np.power(r, K_H))                 # approach(K_H) = 0.95 for each seed
    return (lambda k: np.full(n, 0.95)), (lambda k: 0.3 + d * (1 - np.power(r, k))), 0.0


def plateau_then_rise(rng, n):
    """The records' V 64 seed 0 (moves 0.129 then 0.172: a curve that speeds up again): vanilla leaves 0.1 at k = 0,
    its moves growing by a factor drawn in [1.3, 1.8] from 0.13, until it meets PE's 0.9, where it stays. No gap at
    H; the runs at N see the moves grow."""
    g = _seeds(rng, n, 1.3, 1.8)

    def vanilla(k):
        k = np.clip(k, 0, None)
        return np.minimum(0.9, 0.1 + 0.13 * (np.power(g, k) - 1) / (g - 1))
    return (lambda k: np.full(n, 0.9)), vanilla, 0.0


def near_chance_creep(rng, n):
    """The records' V 128 (near chance, moves 0.008-0.030 that grow by 1.3-1.8): vanilla at 0.1, moves from 0.01
    growing by a factor drawn in [1.3, 1.8] a doubling; PE at 0.95. At H vanilla reaches 0.5-0.95 (the truth is
    the draw's own mean: "PE better" is false where vanilla catches up)."""
    g = _seeds(rng, n, 1.3, 1.8)
    van = lambda k: np.minimum(0.95, 0.1 + 0.01 * (np.power(g, k) - 1) / (g - 1))      # noqa: E731
    return (lambda k: np.full(n, 0.95)), van, float(np.mean(0.95 - van(K_H)))


def ceiling(rng, n):
    """Both at the ceiling (1.0) from k = 1 on: no gap at H."""
    return (lambda k: np.minimum(1.0, 0.99 + 0.01 * k)), (lambda k: np.minimum(1.0, 0.98 + 0.02 * k)), 0.0


def seed_spread(rng, n):
    """Vanilla's plateau drawn per seed around PE's (0.9, sd 0.02), both near it by N: no gap at H in the mean."""
    pv = 0.9 + 0.02 * rng.standard_normal(n)
    rp, rv = _seeds(rng, n, 0.35, 0.5), _seeds(rng, n, 0.35, 0.5)
    return (lambda k: approach(k, 0.3, 0.9, rp)), (lambda k: approach(k, 0.1, pv, rv)), 0.0


FAMILIES = {"equal plateaus": equal_plateaus, "unequal plateaus": unequal_plateaus, "creep": creep,
            "the SESOI a doubling": sesoi_a_doubling, "closing at the horizon": closing_at_horizon,
            "plateau then rise": plateau_then_rise, "near chance, speeding up": near_chance_creep,
            "the ceiling": ceiling, "seed spread of plateaus": seed_spread}
TOKENS = 10_000
RESOLUTION = intervals.DEFAULT_RESOLUTION   # what grade() reads for these measures (issue 66: calibrated as it grades)


def _measure(rng, true, offset, noise):
    v = np.clip(true + offset, 0.0, 1.0)
    if np.all(v > 0.995):                                # at the ceiling: errors counted over TOKENS tokens
        return 1.0 - rng.binomial(TOKENS, 1.0 - v) / TOKENS
    return v + noise * rng.standard_normal(v.shape)


def _evidence(rng, pe, van, offsets, k, noise):
    n = len(offsets[0])
    return {"a": list(_measure(rng, pe(k), offsets[0], noise)), "b": list(_measure(rng, van(k), offsets[1], noise)),
            "seeds": list(range(n)), "a_name": "PE", "b_name": "vanilla", "resolution": RESOLUTION}


def settles(family, n, rng, noise=NOISE, kind="better"):
    """(verdict at N, whether it stands, the true gap at H) for one draw."""
    pe, van, truth = family(rng, n)
    offsets = (SPREAD * rng.standard_normal(n), SPREAD * rng.standard_normal(n))
    q, h, f = (_evidence(rng, pe, van, offsets, k, noise) for k in (K_N - 2, K_N - 1, K_N))
    verdict, decided = composition.settle(kind, PARAMS, f, h, (N // 2, N), SESOI, quarter=q, horizon=H)
    return verdict, decided, truth


def false_settling(family, n, noise=NOISE, draws=DRAWS, seed=0) -> float:
    rng = np.random.default_rng([seed, n, int(noise * 1e4)])
    wrong = 0
    for _ in range(draws):
        verdict, decided, truth = settles(family, n, rng, noise)
        found = verdict in (REPRODUCED, DIRECTION)
        wrong += decided and ((found and truth <= 0) or (verdict == NOT_REPRODUCED and truth >= SESOI))
    return wrong / draws


def power(n, noise=NOISE, draws=DRAWS) -> float:
    """The share of draws in which the real gap of 0.3 (unequal plateaus) settles as "PE ahead"."""
    rng = np.random.default_rng([7, n, int(noise * 1e4)])
    hits = 0
    for _ in range(draws):
        verdict, decided, _ = settles(unequal_plateaus, n, rng, noise)
        hits += decided and verdict == REPRODUCED
    return hits / draws


@pytest.mark.parametrize("noise", [NOISE, 2 * NOISE])
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_protocol_settles_wrongly_in_at_most_5_percent(name, noise):
    rates = {n: false_settling(FAMILIES[name], n, noise) for n in (3, 5, 10)}
    assert max(rates.values()) <= 0.05, rates


def test_it_settles_a_real_gap_that_stays():
    """The rule does not pass by never settling: with both models near their plateaus by N, the gap of 0.3 settles
    in most draws at 10 seeds and fewer at 5 and 3 (seven doublings left, every move's growth charged): the price of
    the horizon at quick's seed counts, which the book states (README, the protocol's power table)."""
    p3, p5, p10 = power(3), power(5), power(10)
    assert p10 >= 0.4 and p3 <= p5 <= p10, (p3, p5, p10)


def test_never_settling_fails_the_suite(monkeypatch):
    monkeypatch.setattr(horizon, "test", lambda *a, **k: {"decided": False, "why": "never", "horizon": H})
    assert power(10, draws=50) < 0.9


def test_a_50_percent_interval_fails_the_suite(monkeypatch):
    """Intervals at 50% instead of 95% (the moves' and the gap's) settle the boundary families falsely in more
    than 5% of draws: the calibration can tell the two apart."""
    monkeypatch.setattr(intervals, "LEVEL", 0.5)           # every seed-level interval reads its level there
    rates = [false_settling(FAMILIES[f], n, draws=100) for f in ("closing at the horizon", "the SESOI a doubling")
             for n in (5, 10)]
    assert max(rates) > 0.05, rates


def records() -> dict:
    """The records' move ratios (later move / earlier, per seed and vocabulary, where the earlier move is above
    0.02) and the spread across seeds at one budget (median sd)."""
    d = pd.read_csv(paths.REPO / "penb" / "chapters" / "key_findings" / "slice_search.csv")
    w = d.pivot_table(index=["vocab", "seed"], columns="steps", values="token_accuracy")
    moves = w.diff(axis=1).iloc[:, 1:].to_numpy()
    ratios = [b / a for row in moves for a, b in zip(row[:-1], row[1:]) if a > 0.02]
    sd = w.groupby(level=0).std().to_numpy().ravel()
    return {"ratios": np.array(ratios), "spread": float(np.median(sd))}


def test_the_records_are_what_the_families_are_fitted_to():
    r = records()
    left_chance = r["ratios"][r["ratios"] < 1.0]
    assert 0.3 <= left_chance.min() and left_chance.max() <= 0.99            # the families' ratios 0.35-0.95
    assert (r["ratios"] > 1.2).any()                                           # some curves speed up again
    assert 0.004 <= r["spread"] <= 0.012                                       # SPREAD = 0.008


# --- the trend rule (Fig. 2's "the gap grows with the vocabulary"), on the same records' shapes -------------------
X = [8, 16, 32]


def _trend_evidence(rng, pe, van, offsets, k, noise):
    a = np.stack([_measure(rng, pe(k, j), offsets[0][:, j], noise) for j in range(len(X))], axis=1)
    b = np.stack([_measure(rng, van(k, j), offsets[1][:, j], noise) for j in range(len(X))], axis=1)
    return {"x": X, "gaps": (a - b).tolist(), "a_by_x": a.tolist(), "b_by_x": b.tolist(),
            "seeds": list(range(a.shape[0])), "a_name": "PE", "b_name": "vanilla", "resolution": RESOLUTION}


def trend_settles(fading: bool, n: int, rng, noise=NOISE, horizon=H) -> tuple[str, bool]:
    """A gap that grows with V at N: vanilla at V = 8, 16, 32 with moves that shrink by 0.9 (``fading``: it meets
    PE's 0.95 at H at every V, so no trend is left there) or that have stopped (a trend that stays)."""
    r = _seeds(rng, n, 0.88, 0.92)
    starts = np.array([0.7, 0.5, 0.3])
    if fading:
        d = (0.95 - starts[None, :]) / (1 - np.power(r, K_H))[:, None]
        van = lambda k, j: starts[j] + d[:, j] * (1 - np.power(r, k))                       # noqa: E731
    else:
        van = lambda k, j: np.full(n, [0.9, 0.7, 0.5][j])                                    # noqa: E731
    pe = lambda k, j: np.full(n, 0.95)                                                        # noqa: E731
    offsets = (SPREAD * rng.standard_normal((n, 3)), SPREAD * rng.standard_normal((n, 3)))
    q, h, f = (_trend_evidence(rng, pe, van, offsets, k, noise) for k in (K_N - 2, K_N - 1, K_N))
    return composition.settle("trend", {**PARAMS, "log2": True}, f, h, (N // 2, N), SESOI, quarter=q,
                              horizon=horizon)


@pytest.mark.parametrize("n", [3, 5, 10])
def test_a_trend_that_fades_by_the_horizon_settles_wrongly_in_at_most_5_percent(n):
    rng = np.random.default_rng([11, n])
    wrong = sum(d and v in (REPRODUCED, DIRECTION) for v, d in (trend_settles(True, n, rng) for _ in range(DRAWS)))
    assert wrong / DRAWS <= 0.05


def test_a_trend_that_stays_settles():
    rng = np.random.default_rng(12)
    hits = sum(d and v == REPRODUCED for v, d in (trend_settles(False, 10, rng) for _ in range(100)))
    assert hits / 100 >= 0.5, hits


# --- the gain against a reference (App. A's "PE helps less in sorting than in reversal") -------------------------
def gain_settles(closing: bool, n: int, rng, noise=NOISE, horizon=H) -> tuple[str, bool]:
    """Sorting: PE 0.9, vanilla 0.5 (a gain over the room left of 0.8). Reversal, the reference: PE 0.95, its
    vanilla creeping 0.015 a doubling to 0.75 exactly at H, where its gain over the room left is sorting's 0.8
    (``closing``: "helped less in sorting" is false there), or still at 0.2 (a reference gain of 0.94 that stays)."""
    per = 0.015
    ref_b = (lambda k: np.full(n, 0.75 - per * (K_H - k))) if closing else (lambda k: np.full(n, 0.2))
    offsets = [SPREAD * rng.standard_normal(n) for _ in range(4)]

    def evidence(k):
        a, b = _measure(rng, np.full(n, 0.9), offsets[0], noise), _measure(rng, np.full(n, 0.5), offsets[1], noise)
        ra, rb = _measure(rng, np.full(n, 0.95), offsets[2], noise), _measure(rng, ref_b(k), offsets[3], noise)
        return {"a": list(a), "b": list(b), "ref_b": list(rb), "ref_gain": list(ra - rb), "seeds": list(range(n)),
                "a_name": "PE", "b_name": "vanilla", "resolution": RESOLUTION}
    q, h, f = (evidence(k) for k in (K_N - 2, K_N - 1, K_N))
    params = {**PARAMS, "relation": "smaller", "ref_sesoi": 0.02}
    return composition.settle("gain_vs_reference", params, f, h, (N // 2, N), SESOI, quarter=q,
                              horizon=horizon)


@pytest.mark.parametrize("n", [3, 5, 10])
def test_a_reference_gain_that_closes_by_the_horizon_settles_wrongly_in_at_most_5_percent(n):
    rng = np.random.default_rng([13, n])
    wrong = sum(d and v == REPRODUCED for v, d in (gain_settles(True, n, rng) for _ in range(DRAWS)))
    assert wrong / DRAWS <= 0.05


def test_a_reference_gain_that_stays_settles():
    """With two doublings left (H = 4N) a reference gain that stays settles in most draws at 10 seeds (measured 72%;
    gains over the room left carry the accuracies' noise over a room of 0.5, twice it); with seven it rarely does
    (the README's power table)."""
    rng = np.random.default_rng(14)
    hits = sum(d and v == REPRODUCED for v, d in (gain_settles(False, 10, rng, horizon=4 * N) for _ in range(100)))
    assert hits / 100 >= 0.6, hits

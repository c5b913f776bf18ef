"""Protocol 5's doubling test against simulated training curves (issue 41, item 2): how often does it *settle* a
verdict that the models' end state contradicts? Required: at most 5% at 3, 5 and 10 seeds in every scenario, and
the same suite must fail protocol 4's rule (the gap alone), which settled "PE better" on equal plateaus reached at
different speeds.

Each seed draws its own time constants (10% jitter) and each evaluation its own test noise (0.005), as a WSD trunk
branched at N/2 and at N would give (one model per seed, two held-out tests). The end state (t -> infinity) is the
truth: a verdict that a gap exists is wrong where the plateaus are equal, a verdict that none exists is wrong where
they differ by more than the smallest effect of interest (0.02). The curves are written here from their
definitions; the verdicts come from ``penb.claims.composition.settle``, the composition ``penb.claims.grade`` uses.
"""
import numpy as np
import pytest

from penb.claims import composition
from penb.claims import doubling
from penb.claims.outcomes import DIRECTION, NOT_REPRODUCED, REPRODUCED

SESOI, NOISE, JITTER, DRAWS = 0.02, 0.005, 0.10, 300
PARAMS = {"min_agree": 0.8, "min_seeds": 3}          # rule "better" as morita.fig2.* grade it
BUDGETS = (1000, 2000, 4000, 8000, 16000, 32000)      # N; the half budget is N/2


def approach(t, start, plateau, tau):
    """A saturating curve: ``start`` at t = 0, ``plateau`` as t -> infinity, time constant ``tau``."""
    return plateau - (plateau - start) * np.exp(-np.asarray(t, float) / tau)


def equal_plateaus(rng, n, N):
    """Both end at 0.9; PE's time constant 1,000 updates, vanilla's 3,000 (issue 41's case): no gap at the end."""
    tp, tv = 1000 * (1 + JITTER * rng.standard_normal(n)), 3000 * (1 + JITTER * rng.standard_normal(n))
    return (lambda t: approach(t, 0.0, 0.9, tp)), (lambda t: approach(t, 0.0, 0.9, tv)), False


def gap_stays(rng, n, N):
    """PE ends at 0.9, vanilla at 0.6, vanilla the slower (3,000 against 1,000): a gap of 0.3 at the end."""
    tp, tv = 1000 * (1 + JITTER * rng.standard_normal(n)), 3000 * (1 + JITTER * rng.standard_normal(n))
    return (lambda t: approach(t, 0.0, 0.9, tp)), (lambda t: approach(t, 0.0, 0.6, tv)), True


def jump(rng, n, N, window=(0.5, 1.0)):
    """Vanilla sits at 0.1 until an onset drawn per seed in ``window`` x N, then climbs to PE's 0.9 with a time
    constant of N/8 (a plateau before a jump); PE is at 0.9 early. No gap at the end."""
    onset = N * rng.uniform(*window, n)
    tj = N / 8 * (1 + JITTER * rng.standard_normal(n))
    tp = 300 * (1 + JITTER * rng.standard_normal(n))

    def vanilla(t):
        return np.where(t < onset, 0.1, approach(np.maximum(t - onset, 0), 0.1, 0.9, tj))
    return (lambda t: approach(t, 0.0, 0.9, tp)), vanilla, False


def ceiling(rng, n, N):
    """Both reach the ceiling (1.0) within a few hundred updates; accuracies over 10,000 test tokens, so many a
    seed reads exactly 1.0 (a resolution of 1e-4 stated with the evidence). No gap at the end."""
    tp, tv = 100 * (1 + JITTER * rng.standard_normal(n)), 200 * (1 + JITTER * rng.standard_normal(n))
    return (lambda t: approach(t, 0.0, 1.0, tp)), (lambda t: approach(t, 0.0, 1.0, tv)), False


def late_bloomer(rng, n, N):
    """PE is the slower (3,000 updates against 500) but ends higher (0.9 against 0.6): early on vanilla leads, and a
    "not reproduced" settled then would be wrong. A gap of 0.3 at the end."""
    tp, tv = 3000 * (1 + JITTER * rng.standard_normal(n)), 500 * (1 + JITTER * rng.standard_normal(n))
    return (lambda t: approach(t, 0.0, 0.9, tp)), (lambda t: approach(t, 0.0, 0.6, tv)), True


SCENARIOS = {"equal plateaus, different speeds": equal_plateaus, "a real gap that stays": gap_stays,
             "a plateau before a jump": jump, "both at the ceiling": ceiling, "PE slower but higher": late_bloomer}
TOKENS = 10_000


def _test(rng, value):
    """One held-out test of a model whose true accuracy is ``value`` (per seed)."""
    value = np.clip(value, 0.0, 1.0)
    if np.all(value > 0.99):                            # near the ceiling: count errors over TOKENS tokens
        return 1.0 - rng.binomial(TOKENS, 1.0 - value) / TOKENS
    return value + NOISE * rng.standard_normal(value.shape)


def _evidence(rng, pe, vanilla, n, t):
    return {"a": list(_test(rng, pe(t))), "b": list(_test(rng, vanilla(t))), "seeds": list(range(n)),
            "a_name": "PE", "b_name": "vanilla", "resolution": 1.0 / TOKENS}


def false_settling(scenario, n: int, protocol: int, budgets=BUDGETS, draws: int = DRAWS, seed: int = 0) -> float:
    """The largest share, over ``budgets``, of draws in which the doubling test under ``protocol`` let stand a
    verdict that the end state contradicts."""
    worst = 0.0
    for N in budgets:
        rng = np.random.default_rng([seed, n, N])
        wrong = 0
        for _ in range(draws):
            pe, vanilla, gap = scenario(rng, n, N)
            half, full = _evidence(rng, pe, vanilla, n, N // 2), _evidence(rng, pe, vanilla, n, N)
            verdict, decided = composition.settle("better", PARAMS, full, half, (N // 2, N), SESOI, protocol)
            claims_gap = verdict in (REPRODUCED, DIRECTION)
            wrong += decided and ((claims_gap and not gap) or (verdict == NOT_REPRODUCED and gap))
        worst = max(worst, wrong / draws)
    return worst


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("n", [3, 5, 10])
def test_protocol_5_settles_wrongly_in_at_most_5_percent(name, n):
    assert false_settling(SCENARIOS[name], n, protocol=5) <= 0.05


def test_protocol_4_fails_the_same_suite():
    # issue 41 measured 68% at 3 seeds, 99% at 5 and 100% at 10 at N = 2,000 through protocol 4's test
    rates = {n: false_settling(equal_plateaus, n, protocol=4, budgets=(2000,)) for n in (3, 5, 10)}
    assert all(r > 0.05 for r in rates.values()), rates
    assert rates[10] >= rates[3] > 0.5, rates           # more seeds make the wrong verdict surer


def power(n: int, N: int = 32000, draws: int = 200) -> float:
    """The share of draws in which protocol 5 settles a real gap of 0.3 as "PE ahead" once both models have
    stopped (at 16,000 and 32,000 updates every curve is within 0.001 of its plateau)."""
    rng = np.random.default_rng([7, n])
    settled = 0
    for _ in range(draws):
        pe, vanilla, _ = gap_stays(rng, n, N)
        half, full = _evidence(rng, pe, vanilla, n, N // 2), _evidence(rng, pe, vanilla, n, N)
        verdict, decided = composition.settle("better", PARAMS, full, half, (N // 2, N), SESOI, 5)
        settled += decided and verdict == REPRODUCED
    return settled / draws


def test_the_suite_can_tell_settled_from_held_back():
    """The rule does not pass by never settling. With both models stopped, it settles the real gap in most draws
    at 5 seeds and nearly all at 10; at 3 seeds (t = 4.30, and three moves that must each stay within 0.02 of
    test noise 0.005) in about a quarter: the cost of the stricter rule at quick's seed count, which the book
    states (README, protocol 5)."""
    p3, p5, p10 = power(3), power(5), power(10)
    assert p10 >= 0.95 and p5 >= 0.6 and 0.1 <= p3 < p5, (p3, p5, p10)


def test_a_jump_after_n_is_beyond_any_doubling_test():
    """What no doubling test can see, reported rather than required: a plateau that breaks only after N (the onset
    in (N, 2N]) looks trained at N/2 and N. Protocol 5 settles it as often as protocol 4 does: the limit is the
    paper's own test's, and the book says so beside each verdict (the next doubling it would take)."""
    late = lambda rng, n, N: jump(rng, n, N, window=(1.0, 2.0))      # noqa: E731
    p4, p5 = (false_settling(late, 5, protocol=p, budgets=(4000,), draws=100) for p in (4, 5))
    assert p5 == pytest.approx(p4, abs=0.1) and p5 > 0.5

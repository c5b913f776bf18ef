"""What would decide an undecided verdict (penb.claims.to_decide, issue 59): the pass probability against a
simulation of Student-t intervals, and the projected budget and seeds against cases worked by hand."""
import math

import numpy as np
import pytest
from scipy import stats

from penb.claims import composition, to_decide

pytestmark = pytest.mark.real_horizon        # the doublings to the text's budget as penb.claims.horizon counts them


def simulated_pass(mean, sd, n, e, direction, draws=40_000, seed=0):
    """The share of draws in which the 95% t interval of n normal per-seed moves passes (independent of nct)."""
    x = np.random.default_rng(seed).normal(mean, sd, (draws, n))
    m, s = x.mean(axis=1), x.std(axis=1, ddof=1)
    half = stats.t.ppf(0.975, n - 1) * s / math.sqrt(n)
    lo, hi = m - half, m + half
    ok = {"shrink": lo > -e, "grow": hi < e, "still": (lo > -e) & (hi < e)}[direction]
    return ok.mean()


@pytest.mark.parametrize("mean,sd,n,e,direction", [
    (0.010, 0.020, 5, 0.02, "grow"),
    (-0.005, 0.015, 3, 0.02, "shrink"),
    (0.000, 0.030, 10, 0.02, "grow"),
    (0.015, 0.010, 8, 0.02, "grow"),
])
def test_pass_probability_matches_a_simulation(mean, sd, n, e, direction):
    assert to_decide.pass_probability(mean, sd, n, e, direction) == pytest.approx(
        simulated_pass(mean, sd, n, e, direction), abs=0.012)


def test_still_is_a_lower_bound():
    bound = to_decide.pass_probability(0.0, 0.02, 6, 0.02, "still")
    assert 0 < bound <= simulated_pass(0.0, 0.02, 6, 0.02, "still") + 0.01


def test_move_sd_inverts_the_t_interval():
    x = np.array([0.01, 0.03, 0.02, 0.05, 0.00])
    half = stats.t.ppf(0.975, 4) * x.std(ddof=1) / math.sqrt(5)
    m = {"mean": x.mean(), "lo": x.mean() - half, "hi": x.mean() + half, "n": 5}
    assert to_decide.move_sd(m) == pytest.approx(x.std(ddof=1))


def record(moves: dict, earlier: dict, budgets=(16_000, 32_000), decided=False, sesoi=0.02):
    return {"doubling": {"decided": decided, "budgets": list(budgets), "sesoi": sesoi, "protocol": 7,
                         "moves": moves, "earlier_moves": earlier,
                         "next_cost": {"runs": 10, "cpu_min": 50.0, "gpu_min": 0.04}}}


def move(mean, direction, sd=1e-4, n=5):
    half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": n, "direction": direction,
            "seeds": list(range(n))}


def test_a_halving_move_is_projected_to_the_doubling_where_it_passes():
    # vanilla rose 0.16 then 0.08: r = 0.5, so 0.04, 0.02 (not below 0.02), then 0.01 at 2^3 N
    d = record({"vanilla": move(0.08, "grow")}, {"vanilla": {"mean": 0.16}})
    est = to_decide.estimate(d)
    assert est["ratios"]["vanilla"] == pytest.approx(0.5)
    assert (est["j"], est["seeds"], est["updates"]) == (3, 3, 256_000)
    assert est["cost"]["cpu_min"] == pytest.approx(50.0 * 4 * 3 / 5)        # 2^(j-1) x seeds / 5


def test_moves_that_do_not_shrink_are_never_projected_to_pass():
    d = record({"vanilla": move(0.05, "grow")}, {"vanilla": {"mean": 0.04}})   # growing: r = 1
    est = to_decide.estimate(d, horizon=300_000)
    assert est["ratios"]["vanilla"] == 1.0 and est["j"] is None and est["most"] == 4
    assert "no budget" in to_decide.words(d, 300_000)


def test_no_earlier_move_no_projection_but_seeds_at_n():
    d = record({"gap": move(0.005, "shrink", sd=0.02)}, {})                  # below e already: seeds decide
    est = to_decide.estimate(d)
    assert est["unprojected"] == ["gap"] and est["j"] == 0
    # the fewest seeds whose power reaches 80%, checked against the simulation at n and n - 1
    n = est["seeds"]
    assert simulated_pass(0.005, 0.02, n, 0.02, "shrink") >= 0.78
    assert n == 3 or simulated_pass(0.005, 0.02, n - 1, 0.02, "shrink") < 0.82


def test_the_horizon_bound_is_projected():
    # decided by the doubling test, held by the horizon: 2 doublings left, the gap 0.01 above 0 at N and closing
    # by 0.01 a doubling (r = 1): at N it could close 0.02 (> 0.01); one doubling on, 0.01 (not above the margin)
    d = record({"gap": move(-0.01, "shrink")}, {"gap": {"mean": -0.01}}, decided=True)
    d["horizon"] = {"decided": False, "doublings": 2,
                    "quantities": {"gap": {"kind": "gap", "direction": "shrink", "interval_at_n": [0.01, 0.05]}}}
    est = to_decide.estimate(d)
    assert est["j"] == 1 and est["updates"] == 64_000


def test_nothing_to_estimate_where_nothing_held_it():
    assert to_decide.estimate(record({"gap": move(0.0, "shrink")}, {}, decided=True)) is None
    assert to_decide.estimate({}) is None and to_decide.words(None) == ""


def test_the_earlier_moves_are_recorded():
    rng = np.random.default_rng(3)
    seeds = list(range(5))
    q_a, h_a, n_a = (rng.uniform(0.5, 0.6, 5) + k * 0.05 for k in range(3))
    q_b, h_b, n_b = (rng.uniform(0.2, 0.3, 5) + k * 0.01 for k in range(3))
    ev = lambda a, b: {"a": list(a), "b": list(b), "seeds": seeds, "a_name": "PE", "b_name": "vanilla"}
    out = composition.compose("better", {"min_agree": 0.8, "min_seeds": 3}, "trained", ev(n_a, n_b), ev(h_a, h_b),
                              (1000, 2000), 0.02, None, quarter=ev(q_a, q_b), horizon=300_000)
    early = out[3]["doubling"]["earlier_moves"]
    assert early["gap"]["mean"] == pytest.approx(np.mean((h_a - h_b) - (q_a - q_b)))
    assert early["vanilla"]["mean"] == pytest.approx(np.mean(h_b - q_b))


def test_moves_of_opposite_sign_are_not_shown_to_shrink():
    """The module's rule (issue 66): two moves of one sign that shrink give |later| / |earlier|; moves that changed
    sign are not shown to shrink, r = 1 (not 0, which would project no further move at all)."""
    from penb.claims import to_decide

    def rec(early, late):
        return {"earlier_moves": {"gap": {"mean": early}}, "moves": {"gap": {"mean": late}}}
    assert to_decide.ratio("gap", rec(0.04, 0.01)) == 0.25
    assert to_decide.ratio("gap", rec(0.01, 0.04)) == 1.0
    assert to_decide.ratio("gap", rec(0.04, -0.01)) == 1.0 and to_decide.ratio("gap", rec(-0.02, 0.03)) == 1.0

"""Protocol 7's rules other than the calibration (issue 59, items 1-4), on hand-built evidence whose answers are
worked out here with scipy: the growth interval and the ratio a shrinking curve shows, what the doublings left could
close with growth charged, failing closed without N or a horizon, the assumption said, Hansen's seeds."""
import math

import numpy as np
import pytest
from scipy import stats

from penb import claims
from penb.claims import composition, horizon
from penb.claims.outcomes import INCONCLUSIVE, REPRODUCED

SEEDS = [0, 1, 2, 3, 4]
PARAMS = {"min_agree": 0.8, "min_seeds": 3}


def t_upper(x):
    x = np.asarray(x, float)
    return x.mean() + stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)


def test_growth_is_the_paired_interval_of_later_minus_earlier():
    q = {0: 0.50, 1: 0.52, 2: 0.49, 3: 0.51, 4: 0.50}
    h = {0: 0.56, 1: 0.57, 2: 0.55, 3: 0.58, 4: 0.56}
    f = {0: 0.59, 1: 0.60, 2: 0.57, 3: 0.61, 4: 0.585}
    g = horizon.growth(q, h, f, horizon.GROW, 1e-4)
    m1 = np.array([h[s] - q[s] for s in SEEDS])
    m2 = np.array([f[s] - h[s] for s in SEEDS])
    assert g["hi"] == pytest.approx(t_upper(m2 - m1), abs=1e-12)
    assert g["shown"] == (t_upper(m2 - m1) <= 1e-4)
    # the smallest ratio r on the grid whose later - r earlier has its upper end at most the resolution
    expect = next(r for r in horizon.GRID if t_upper(m2 - r * m1) <= 1e-4)
    assert g["shown"] and g["ratio"] == pytest.approx(expect)
    assert 0.4 < g["ratio"] < 0.9
    # a fall that could overturn: the same per seed, mirrored
    g_down = horizon.growth({s: -v for s, v in q.items()}, {s: -v for s, v in h.items()},
                            {s: -v for s, v in f.items()}, horizon.SHRINK, 1e-4)
    assert g_down["hi"] == pytest.approx(g["hi"]) and g_down["ratio"] == pytest.approx(g["ratio"])


def test_what_d_doublings_could_close():
    shown = {"hi": -0.01, "shown": True, "ratio": 0.5}
    assert horizon.carried(0.02, shown, 4) == pytest.approx(0.02 * (0.5 + 0.25 + 0.125 + 0.0625))
    assert horizon.carried(0.02, {**shown, "ratio": 1.0}, 4) == pytest.approx(4 * 0.02)       # protocol 6's D b
    open_ = {"hi": 0.01, "shown": False, "ratio": 1.0}
    assert horizon.carried(0.02, open_, 4) == pytest.approx(4 * 0.02 + 0.01 * 10)           # growth charged


def ev(a, b):
    return {"a": list(a), "b": list(b), "seeds": SEEDS, "a_name": "PE", "b_name": "vanilla", "resolution": 1e-4}


def jitter(x, scale=0.002):
    return [x + scale * d for d in (-2, -1, 0, 1, 2)]


def still():
    return (ev(jitter(0.95), jitter(0.3)), ev(jitter(0.95, 0.0021), jitter(0.3, 0.0019)),
            ev(jitter(0.95, 0.0019), jitter(0.3, 0.0021)))


@pytest.mark.parametrize("n, hz, why", [(0, 300_000, "budget N is unknown"), (4000, None, "names no text's budget")])
def test_an_unknown_budget_or_horizon_decides_nothing(n, hz, why):
    q, h, f = still()
    v, _, r, d, rv = composition.compose("better", PARAMS, "trained", f, h, (n // 2, n), 0.02, 1e-4, protocol=7,
                                         quarter=q, horizon=hz)
    assert rv == REPRODUCED and v == INCONCLUSIVE and why in r
    v6 = composition.compose("better", PARAMS, "trained", f, h, (n // 2, n), 0.02, 1e-4, protocol=6, quarter=q,
                             horizon=hz)[0]
    assert v6 == REPRODUCED                   # protocol 6 failed open here (issue 59): kept as it graded


@pytest.mark.real_horizon
def test_grade_with_no_budgets_decides_nothing():
    q, h, f = still()
    g = claims.grade("morita.fig2.gru", f, half=h, quarter=q)
    assert g.verdict == INCONCLUSIVE and "unknown" in g.reason
    assert g.previous["6"]["verdict"] == REPRODUCED


def test_a_decided_verdict_says_what_it_assumes():
    q, h, f = still()
    v, _, r, d, _ = composition.compose("better", PARAMS, "trained", f, h, (16_000, 32_000), 0.02, 1e-4, protocol=7,
                                        quarter=q, horizon=300_000)
    assert v == REPRODUCED and "assumes no take-off after 32,000 updates" in r
    assert d["horizon"]["assumes"].startswith("assumes no take-off")


def test_a_model_speeding_up_is_charged_even_where_the_gap_alone_looks_still():
    """Both models rise together, faster at each doubling (0.004 then 0.012, every seed): the gap does not move, but
    protocol 7 charges each model's growth into the gap's bound, so a gap of 0.3 does not stand with 7 doublings
    left; protocol 6 read the models through the gap and let it stand."""
    q = ev(jitter(0.60), jitter(0.30))
    h = ev(jitter(0.604, 0.0021), jitter(0.304, 0.0019))
    f = ev(jitter(0.616, 0.0019), jitter(0.316, 0.0021))
    args = ("better", PARAMS, "trained", f, h, (2000, 4000), 0.02, 1e-4)
    v7 = composition.compose(*args, protocol=7, quarter=q, horizon=4000 * 2 ** 7)
    v6 = composition.compose(*args, protocol=6, quarter=q, horizon=4000 * 2 ** 7)
    assert v7[0] == INCONCLUSIVE and v6[0] == REPRODUCED, (v7[2], v6[2])


@pytest.mark.parametrize("groups, agree, decided", [(1, 1, False), (3, 3, True), (5, 4, True), (5, 3, False)])
def test_a_check_over_initialisations_counts_seeds(groups, agree, decided):
    evidence = {"passed": True, "detail": "", "agreement": {"inits": 100, "share": 1.0, "agree": agree,
                                                            "groups": groups}}
    v, _, r, _, rv = composition.compose("check", {}, "course", evidence, None, (0, 0), None, None, protocol=7)
    assert (v == REPRODUCED) == decided, r
    if not decided:
        assert f"{agree} of {groups} seeds" in r

"""The protocol's calibration on the families of ``test_horizon_calibration`` plus the curves that issue 59's audit
found protocol 6 settling wrongly, each judged against its truth at the text's budget H, under the protocol in force
and at the resolution ``grade()`` reads (``test_horizon_calibration.RESOLUTION``).

New families (budgets 1,000 x 2^k, N at k = 2 with runs at N/4 and N/2, H seven doublings on):

* **shrink then grow**: vanilla's moves shrank by 0.7 a doubling up to N/2, and the move N/2 -> N is 1.5 times the one
  before; they keep growing by 1.5 until vanilla meets PE (0.9): the turn is inside the runs;
* **take-off under way**: vanilla's moves grow by 1.5 a doubling from 0.004, both moves the runs see below the SESOI,
  until it meets PE (0.9);
* **both speeding up**: both models' moves grow by 1.3-1.6 a doubling, vanilla's from further below: they meet at 0.95
  before H;
* **mixed seeds**: PE at 0.90; a share of 20% of the population (each seed drawn into it with that chance) creeps
  0.08 a doubling from 0.88, the rest stays at 0.88: the *population's* mean at H (0.8 x 0.88 + 0.2 x 1.0 = 0.904)
  is above PE's, whatever the draw's own seeds show.

What no finite test can see is published, never required (``scripts/horizon_calibration.py``, the README's table):
a **late take-off** (vanilla flat at 0.3 from N/4 to N, at PE's 0.9 from 4N on), and under protocol 8 the **take-off
under way** at 5 seeds, whose moves sit below the noise (6-7% of draws): the verdicts say that they assume none.

Mutants that must each fail the suite: the growth gate removed (every growth read as shown, ratio 1), 80%
intervals, and no doublings left.
"""

import numpy as np
import pytest

from tests import test_horizon_calibration as cal
from penb.claims import horizon, intervals
from penb.claims.outcomes import DIRECTION, NOT_REPRODUCED, REPRODUCED

K_N, K_H = cal.K_N, cal.K_H


def _growing(start_level, start_move, factor, cap):
    """A curve whose move from budget k to k + 1 is ``start_move`` x ``factor``^k (k = 0 at N/4), capped at ``cap``
    (k may be an array per seed)."""
    def f(k):
        k = np.clip(k, 0, None)
        total = start_move * (np.power(factor, k) - 1) / (factor - 1)
        return np.minimum(cap, start_level + total)
    return f


def shrink_then_grow(rng, n):
    """Moves 0.7 x before N/2, then 1.5 x a doubling from N/2 on (seen in the last move), until 0.9."""
    m0 = rng.uniform(0.02, 0.04, n)

    def vanilla(k):
        k = np.asarray(k, float)
        # the move N/4 -> N/2 is m0; N/2 -> N is 1.5 m0; each after 1.5 times the one before
        return np.minimum(0.9, 0.5 + np.where(k <= 1, m0 * np.clip(k, 0, 1), m0 + 1.5 * m0 * (1.5 ** (k - 1) - 1)
                                                                                   / 0.5))
    return (lambda k: np.full(n, 0.9)), vanilla, 0.0


def take_off(rng, n):
    """Moves 0.004 x 1.5^k: 0.004 then 0.006, below the SESOI, growing until vanilla meets PE (0.9)."""
    g = rng.uniform(1.4, 1.6, n)
    return (lambda k: np.full(n, 0.9)), _growing(0.6, 0.004, g, 0.9), 0.0


def both_speeding_up(rng, n):
    """PE from 0.7 with moves 0.01 x 1.3-1.4^k, vanilla from 0.5 with 0.01 x 1.5-1.6^k, both to 0.95."""
    gp, gv = rng.uniform(1.3, 1.4, n), rng.uniform(1.5, 1.6, n)
    return _growing(0.7, 0.01, gp, 0.95), _growing(0.5, 0.01, gv, 0.95), 0.0


def mixed_seeds(rng, n, share=0.2):
    """PE 0.90; each seed a creeper (0.08 a doubling from 0.88, capped at 1) with chance ``share``, else flat at 0.88.
    The truth is the population's: 0.8 x 0.88 + 0.2 x 1.0 = 0.904 > 0.90 at H, so "PE better" is false there."""
    creeper = rng.random(n) < share
    van = lambda k: np.where(creeper, np.minimum(1.0, 0.88 + 0.08 * np.clip(k, 0, None)), 0.88)    # noqa: E731
    truth = 0.9 - ((1 - share) * 0.88 + share * min(1.0, 0.88 + 0.08 * K_H))
    return (lambda k: np.full(n, 0.9)), van, truth


FAMILIES = {**cal.FAMILIES, "shrink then grow": shrink_then_grow, "take-off under way": take_off,
            "both speeding up": both_speeding_up, "mixed seeds (population)": mixed_seeds}
NEW = ("shrink then grow", "take-off under way", "both speeding up", "mixed seeds (population)")
# published, not required (the README's table): moves below the noise at 5 seeds, which no rule reading N/4, N/2 and
# N tells from a stopped curve without giving up the power the protocol must keep (issue 66)
BELOW_NOISE = ("take-off under way",)


DRAWS_TAG = 8    # part of the draws' seed: the README's table was generated with it (it once named the protocol)


def false_settling(family, n, noise=cal.NOISE, draws=cal.DRAWS, seed=0) -> float:
    rng = np.random.default_rng([seed, n, int(noise * 1e4), DRAWS_TAG])
    wrong = 0
    for _ in range(draws):
        verdict, decided, truth = cal.settles(family, n, rng, noise)
        found = verdict in (REPRODUCED, DIRECTION)
        wrong += decided and ((found and truth <= 0) or (verdict == NOT_REPRODUCED and truth >= cal.SESOI))
    return wrong / draws


@pytest.mark.parametrize("noise", [cal.NOISE, 2 * cal.NOISE])
@pytest.mark.parametrize("name", sorted(set(FAMILIES) - set(BELOW_NOISE)))
def test_the_protocol_settles_wrongly_in_at_most_5_percent(name, noise):
    rates = {n: false_settling(FAMILIES[name], n, noise) for n in (3, 5, 10)}
    assert max(rates.values()) <= 0.05, rates


def power(n, noise=cal.NOISE, doublings=4, draws=100) -> float:
    """The real gap of 0.3 (unequal plateaus: both models stopped by N) settled as "PE ahead", ``doublings`` from
    N to H (4: the deep preset's 32,000 -> 300,000)."""
    from penb.claims import composition

    rng = np.random.default_rng([7, n, int(noise * 1e4), doublings])
    hits = 0
    for _ in range(draws):
        pe, van, _ = cal.unequal_plateaus(rng, n)
        offsets = (cal.SPREAD * rng.standard_normal(n), cal.SPREAD * rng.standard_normal(n))
        q, h, f = (cal._evidence(rng, pe, van, offsets, k, noise) for k in (K_N - 2, K_N - 1, K_N))
        v, d = composition.settle("better", cal.PARAMS, f, h, (cal.N // 2, cal.N), cal.SESOI, quarter=q,
                                  horizon=cal.N * 2 ** doublings)
        hits += d and v == REPRODUCED
    return hits / draws


def test_it_settles_a_real_gap_where_its_power_lies():
    """Not a rule that never settles: with both models stopped and four doublings left, the gap of 0.3 settles in
    most draws at 10 seeds at the measured noise, and at 5 seeds where the noise is 0.002 (at 5 seeds and 0.005 the
    models' last moves, still seen, bound no ratio in most draws: the README's power table)."""
    assert power(10) >= 0.7 and power(5, noise=0.002) >= 0.7


# --- mutants: each must fail the suite ----------------------------------------------------------------------------
def _worst(families=NEW, seeds=(5, 10), draws=100):
    return max(false_settling(FAMILIES[f], n, draws=draws) for f in families for n in seeds)


def test_the_growth_gate_removed_fails_the_suite(monkeypatch):
    """Every quantity read as shown not to grow (ratio 1): moves that grow are carried as if they stayed."""
    real = horizon.growth8

    def no_gate(*a, **k):
        return {**real(*a, **k), "shown": True, "ratio": 1.0}
    monkeypatch.setattr(horizon, "growth8", no_gate)
    assert _worst() > 0.05


def test_80_percent_intervals_fail_the_suite(monkeypatch):
    monkeypatch.setattr(intervals, "LEVEL", 0.8)
    assert _worst(("shrink then grow", "take-off under way", "closing at the horizon", "the SESOI a doubling")) > 0.05


def test_no_doublings_left_fails_the_suite(monkeypatch):
    monkeypatch.setattr(horizon, "doublings_left", lambda h, n: 0)
    assert _worst(("creep", "closing at the horizon", "take-off under way")) > 0.05


def test_the_readme_tables_are_the_scripts_output():
    """The README's calibration block is ``scripts/horizon_calibration.py``'s output: its table heads and a row of
    each table, recomputed here, stand in it line for line (the whole script takes minutes)."""
    import importlib.util

    from penb.store import paths

    spec = importlib.util.spec_from_file_location("horizon_calibration",
                                                  paths.REPO / "scripts" / "horizon_calibration.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    readme = (paths.REPO / "README.md").read_text()
    block = readme.split("<!-- calibration:begin -->\n", 1)[1].split("\n<!-- calibration:end -->", 1)[0]
    lines = block.splitlines()
    label, family, kind = script.AUDIT[0]
    for row in (script.suite_row("creep", cal.NOISE), script.audit_row(label, family, kind, 16_000, 0.005, 0.008),
                script.power_row(*script.POWER[0], 16_000)):
        assert row in lines, row
    assert sum(line.startswith("| family |") or line.startswith("| truth |") for line in lines) == 4

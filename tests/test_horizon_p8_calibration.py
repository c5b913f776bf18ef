"""Protocol 8's calibration (issue 66): the audit's curves and every rule kind that grades a trained claim, at the
resolution ``grade()`` reads, through ``penb.claims.calibration`` (``composition.settle``, as ``grade()`` composes).

Required: both models speeding up visibly before N settle falsely in at most 5% of draws (N 2,000 and 16,000, H
300,000, noise 0.005 and 0.01 with offsets 0.008 and 0.02, 3, 5 and 10 seeds); stopped models with a real gap of 0.3
decide in at least 70% of draws at 5 seeds (N 16,000, noise 0.005); a level that reaches the text's by H, or speeds
up toward it, is not settled as missed; "no gain" is not settled while its models drift apart. Mutants that must
fail: the level fix reverted (a fixed SESOI holds back a level the horizon's bound decides). The power of every kind
and what the rule cannot see are published in the README (``scripts/horizon_calibration.py``), not asserted here.
"""
import pytest

from penb import claims
from penb.claims import calibration as cal
from penb.claims import composition, intervals
from penb.claims.outcomes import NOT_REPRODUCED, REPRODUCED

SEEDS = (3, 5, 10)


def test_the_calibration_reads_the_resolution_grade_reads():
    """One place: the calibration's resolution is ``penb.claims.intervals.DEFAULT_RESOLUTION``, the one ``grade()``
    gives an accuracy of a trained model (Fig. 2's claims state none of their own)."""
    from tests import test_horizon_calibration as families

    assert cal.RESOLUTION is intervals.DEFAULT_RESOLUTION and families.RESOLUTION is intervals.DEFAULT_RESOLUTION
    for key in ("morita.fig2.gru", "morita.fig2.level.gru", "morita.fig2.trend.gru"):
        c = claims.get(key)
        assert intervals.resolution_of(c.resolution, c.about != "none") == cal.RESOLUTION


@pytest.mark.parametrize("N,noise,spread", [(2000, 0.005, 0.008), (16_000, 0.005, 0.008), (16_000, 0.01, 0.02)])
def test_both_models_speeding_up_visibly_settle_falsely_in_at_most_5_percent(N, noise, spread):
    rates = {n: cal.rate(cal.both_speeding_up, "better", n, N, noise, spread) for n in SEEDS}
    assert max(rates.values()) <= 0.05, rates


def test_stopped_models_decide_in_70_percent_at_5_seeds():
    assert cal.rate(cal.both_stopped, "better", 5, 16_000, what=REPRODUCED, draws=200) >= 0.7


@pytest.mark.parametrize("family", [cal.level_reached_at_h, cal.level_speeding_up])
def test_a_level_reached_by_the_horizon_is_not_settled_as_missed(family):
    rates = {(n, N): cal.rate(family, "level", n, N) for n in SEEDS for N in (2000, 16_000)}
    assert max(rates.values()) <= 0.05, rates


def test_no_gain_is_not_settled_while_the_models_drift_apart():
    rates = {(n, N): cal.rate(cal.drifting_apart, "no_gain", n, N) for n in SEEDS for N in (2000, 16_000)}
    assert max(rates.values()) <= 0.05, rates


def test_a_level_far_below_the_texts_is_decided():
    """The deep archive's case: a level at 0.14 still rising (moves above the SESOI) cannot reach 0.95 by H, and the
    horizon's bound says so at 10 seeds."""
    assert cal.rate(cal.level_far_below, "level", 10, 16_000, what=NOT_REPRODUCED) >= 0.6


def test_the_level_fix_reverted_fails_the_suite(monkeypatch):
    """With the doubling test's fixed SESOI holding back the level again, the same level is (nearly) never decided."""
    monkeypatch.setattr(composition, "_levels_to_horizon", lambda rec, *a, **k: rec)
    assert cal.rate(cal.level_far_below, "level", 10, 16_000, what=NOT_REPRODUCED) < 0.6

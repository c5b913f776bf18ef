"""Protocol 6's rules other than the calibration (issue 49, items 1 and 3), on hand-built evidence whose answers are
worked out here: the horizon's doublings, one doubling only, moves that grow, what D doublings could close, a claim
at its text's budget; Sec. 4.1's extra-updates claim with its gates; budget claims below the text's budget; Hansen's
agreement over initialisations; read under the protocol in force."""

import pytest

from penb import claims
from penb.claims import composition, horizon
from penb.claims.outcomes import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTED, REPRODUCED

SEEDS = [0, 1, 2, 3, 4]
PARAMS = {"min_agree": 0.8, "min_seeds": 3}


def ev(a, b):
    return {"a": list(a), "b": list(b), "seeds": SEEDS, "a_name": "PE", "b_name": "vanilla", "resolution": 1e-4}


def jitter(x, scale=0.002):
    return [x + scale * d for d in (-2, -1, 0, 1, 2)]


def test_the_doublings_left_to_the_horizon():
    assert horizon.doublings_left(300_000, 2000) == 8          # log2(150) = 7.2
    assert horizon.doublings_left(300_000, 4000) == 7          # log2(75) = 6.2
    assert horizon.doublings_left(256_000, 2000) == 7          # exactly 2^7
    assert horizon.doublings_left(300_000, 300_000) == 0 and horizon.doublings_left(None, 10) == 0


def _settle(q, h, f, n=4000, hz=4000 * 2 ** 7):
    v, o, r, d, rv = composition.compose("better", PARAMS, "trained", f, h, (n // 2, n), 0.02, 1e-4,
                                         quarter=q, horizon=hz)
    return v, r, d


def test_a_gap_that_the_doublings_left_cannot_close_stands():
    """PE 0.9, vanilla 0.6 and both still (moves of +-0.002): D = 7 doublings of the moves' bounds (about 0.005
    each model) close about 0.07 of a gap of 0.3."""
    q = ev(jitter(0.9), jitter(0.6))
    h = ev(jitter(0.9, 0.0021), jitter(0.6, 0.0019))
    f = ev(jitter(0.9, 0.0019), jitter(0.6, 0.0021))
    v, r, d = _settle(q, h, f)
    assert v == REPRODUCED, r
    assert d["horizon"]["decided"] and d["horizon"]["doublings"] == 7


def test_one_doubling_only_reads_inconclusive_and_says_so():
    h = ev(jitter(0.9), jitter(0.6))
    f = ev(jitter(0.9, 0.0019), jitter(0.6, 0.0021))
    v, r, d = _settle(None, h, f)
    assert v == INCONCLUSIVE and "one doubling only" in r and "1,000 updates" in r


def test_a_creep_that_closes_the_gap_by_the_horizon_is_held_back():
    """Vanilla rises 0.05 a doubling, steadily (N/4 0.50, N/2 0.55, N 0.60): seven more close 0.35 > the gap 0.3,
    although the doubling test's own reading (the gap shrank by 0.05 > 0.02) already holds it back; at 0.015 a
    doubling the doubling test lets it stand and the horizon does not (7 x 0.015+ > 0.3 - 0.2?)."""
    q, h, f = ev(jitter(0.9), jitter(0.585)), ev(jitter(0.9), jitter(0.59)), ev(jitter(0.9), jitter(0.6))
    v, r, d = _settle(q, h, f)
    assert v == INCONCLUSIVE
    # a gap of 0.1 with vanilla creeping 0.015 a doubling: the doubling test lets it stand (0.015 < 0.02),
    # the horizon's 7 x (0.015 + its bound) > 0.1 does not
    q, h, f = ev(jitter(0.9), jitter(0.77)), ev(jitter(0.9), jitter(0.785)), ev(jitter(0.9), jitter(0.8))
    v, r, d = _settle(q, h, f)
    assert d["doubling"]["decided"] and v == INCONCLUSIVE and "horizon" in r, r
    assert d["horizon"]["quantities"]["gap"]["closable"] > 0.1


def test_moves_that_grow_are_not_extrapolated():
    """Vanilla moves 0.004 then 0.012 (shown: every seed rose): growing, so held back even where D x b would
    leave a gap of 0.5 clear."""
    q, h, f = ev(jitter(0.95, 0.0005), jitter(0.40, 0.0005)), ev(jitter(0.95, 0.0005), jitter(0.404, 0.0005)), \
        ev(jitter(0.95, 0.0005), jitter(0.416, 0.0005))
    v, r, d = _settle(q, h, f)
    q6 = d["horizon"]["quantities"]
    assert q6["gap"]["grows"] and v == INCONCLUSIVE, q6


def test_at_the_texts_budget_the_doubling_test_alone_decides():
    h, f = ev(jitter(0.9), jitter(0.6)), ev(jitter(0.9, 0.0019), jitter(0.6, 0.0021))
    v, r, d = _settle(None, h, f, n=300_000, hz=300_000)
    assert v == REPRODUCED and d["horizon"]["decided"]


def test_the_horizon_of_a_claim_is_its_texts_budget():
    assert claims.get("morita.fig2.gru").horizon == 300_000
    assert claims.get("morita.fig7").horizon == 600_000
    assert claims.get("hansen.converge_direct").horizon == 20_000
    assert all(c.horizon for c in claims.CLAIMS.values() if c.about in ("trained", "budget", "doubling"))


# --- Sec. 4.1's extra updates: the claim is itself a doubling test -----------------------------------------------
def more_updates(a, b, premise=True, earlier=None, vocab=512):
    return {"a": list(a), "b": list(b), "seeds": SEEDS, "baseline": 1 / vocab, "a_name": "vanilla GRU at N",
            "b_name": "vanilla GRU at N/2", "premise": {"holds": premise, "text": "PE settled"},
            **({"earlier_gain": list(earlier)} if earlier is not None else {})}


@pytest.mark.real_horizon
def test_more_updates_needs_a_model_above_chance_the_premise_and_the_horizon():
    key = "morita.sec4_1.more_updates.gru"
    at_chance = more_updates([1 / 512] * 5, [1 / 512] * 5)
    g = claims.grade(key, at_chance, budgets=(1000, 2000))
    assert g.verdict == INCONCLUSIVE and "chance" in g.reason
    still = more_updates(jitter(0.6), jitter(0.6, 0.0021))
    g = claims.grade(key, still, budgets=(1000, 2000))
    assert g.verdict == INCONCLUSIVE and "one doubling only" in g.reason
    g = claims.grade(key, {**still, "earlier_gain": [0.0005, -0.0005, 0.0, 0.0003, -0.0003]}, budgets=(1000, 2000))
    assert g.verdict == REPRODUCED, g.reason                           # 8 x its bound stays below 0.02
    g = claims.grade(key, more_updates(jitter(0.6), jitter(0.6, 0.0021), premise=False,
                                       earlier=[0.0] * 5), budgets=(1000, 2000))
    assert g.verdict == INCONCLUSIVE and "premise" in g.reason        # protocol 6: for both verdicts
    gains = more_updates(jitter(0.7), jitter(0.6))
    g = claims.grade(key, gains, budgets=(1000, 2000))
    assert g.verdict == INCONCLUSIVE and "says nothing of the text's" in g.reason


@pytest.mark.real_horizon
def test_a_budget_claim_below_its_texts_budget_is_not_tested():
    c = claims.get("morita.table1")
    assert c.about == "budget" and c.horizon == 300_000
    passed = {"passed": True, "detail": ""}
    v, o, r, d, rv = composition.compose("check", {}, "budget", passed, None, (0, 750), None, None,
                                         horizon=c.horizon)
    assert v == NOT_TESTED and "750" in r and "300,000" in r and rv == REPRODUCED
    assert composition.compose("check", {}, "budget", passed, None, (0, 300_000), None, None,
                               horizon=c.horizon)[0] == REPRODUCED


# --- Hansen: a check over initialisations ------------------------------------------------------------------------
@pytest.mark.parametrize("inits, share, decided", [(500, 1.0, True), (500, 0.8, True), (500, 0.6, False),
                                                   (8, 1.0, False)])
def test_a_check_decides_only_with_10_initialisations_80_percent_agreeing(inits, share, decided):
    evidence = {"passed": True, "detail": "", "agreement": {"inits": inits, "share": share, "agree": 4, "groups": 5}}
    v, o, r, d, rv = composition.compose("check", {}, "course", evidence, None, (0, 0), None, None)
    assert (v == REPRODUCED) == decided and rv == v


def test_a_level_is_read_against_its_own_level():
    """Review fix: rule "level" keeps its level in params["level"]. PE at 0.968 -> 0.964 -> 0.960 (falling 0.004 a
    doubling) against a level of 0.95: seven more doublings could take it to about 0.93, so "reached" does not
    stand; PE at 0.892 -> 0.896 -> 0.900 short of 0.95 with at most 0.03 to gain: "short of it" stands."""
    params = {"level": 0.95, "min_seeds": 3}

    def level(x):
        return {"a": jitter(x, 0.001), "seeds": SEEDS, "a_name": "PE", "resolution": 1e-4}
    n, hz = 4000, 4000 * 2 ** 7
    falling = composition.compose("level", params, "trained", level(0.960), level(0.964), (n // 2, n), 0.02, 1e-4,
                                  quarter=level(0.968), horizon=hz)
    assert falling[4] == REPRODUCED and falling[0] == INCONCLUSIVE, falling[2]
    rising = composition.compose("level", params, "trained", level(0.900), level(0.896), (n // 2, n), 0.02, 1e-4,
                                 quarter=level(0.892), horizon=hz)
    assert rising[4] == NOT_REPRODUCED and rising[0] == NOT_REPRODUCED, rising[2]


def test_quarter_evidence_that_lacks_a_quantity_reads_undecided():
    h, f = ev(jitter(0.9), jitter(0.6)), ev(jitter(0.9, 0.0019), jitter(0.6, 0.0021))
    v, r, d = _settle({"a": jitter(0.9), "seeds": SEEDS}, h, f)
    assert v == INCONCLUSIVE and "do not give" in r

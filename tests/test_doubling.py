"""The doubling test (protocol 4 on; issue 34, items 1 and 4), on hand-built curves.

Each case gives per-seed evidence at budgets N/2 and N, as the runs of those budgets would, and the training
histories of the N runs that protocol 3's rise criterion read (``penb.claims.training``, still recorded beside each
verdict). The expected readings are worked out from the texts' test (Sec. 4.1: more updates did not improve the
vanilla models) by hand: the move of the quantity that could overturn the verdict, against the claim's smallest
effect of interest (0.02 here); where the rise criterion errs, the test shows that it does.
"""
import numpy as np
import pandas as pd
import pytest

from penb import claims
from penb.claims import doubling, training


SEEDS = [2001, 2002, 2003]


def _ev(a, b, **more):
    # resolution: a token accuracy over 10,000 test tokens moves in steps of 1e-4 (protocol 5 reads no interval of
    # zero width without a stated resolution)
    return {"a": list(a), "b": list(b), "seeds": SEEDS, "baseline": 1 / 256, "a_name": "PE", "b_name": "vanilla",
            "resolution": 1e-4, **more}


def _history(f, steps):
    return [{"step": s, "loss": 1.0 - f(s), "accuracy": f(s)} for s in range(100, steps + 1, 100)]


def _p3_state(curves, steps):
    """Protocol 3's training record of the N runs: {model: [f per seed]}."""
    models = {name: training.model_state([_history(f, steps) for f in fs], steps) for name, fs in curves.items()}
    return training._record(models, "accuracy", training.RISE_LIMIT)


def _grade(key, full, half, state, budgets):
    """The grade, and what the rise criterion said of the N runs (protocol 3 decided by it)."""
    g = claims.grade(key, full, training=state, half=half, budgets=budgets)
    return g, state["state"]


def test_pe_polishing_is_decided_where_protocol_3_was_too_strict():
    # PE goes from 0.95 (N/2) to 0.998 (N), vanilla sits at 0.50: the gap grows; nothing can overturn "PE ahead"
    half = _ev([0.951, 0.948, 0.952], [0.50, 0.51, 0.49])
    full = _ev([0.998, 0.997, 0.998], [0.501, 0.509, 0.492])
    pe = [lambda t: 0.95 + 0.048 * t / 8000] * 3                  # second-half rise 0.048 * 0.5 = 0.024 > 0.02
    state = _p3_state({"PE": pe, "vanilla": [lambda t: 0.5] * 3}, 8000)
    g, p3 = _grade("morita.fig2.gru", full, half, state, (4000, 8000))
    assert g.verdict == claims.REPRODUCED, g.reason
    assert g.detail["doubling"]["decided"] and g.detail["doubling"]["moves"]["gap"]["mean"] == pytest.approx(
        np.mean([0.998 - 0.501, 0.997 - 0.509, 0.998 - 0.492]) - np.mean([0.951 - 0.50, 0.948 - 0.51, 0.952 - 0.49]))
    assert p3 == training.LEARNING                                 # the rise criterion: PE rose 0.024


def test_a_jump_at_the_end_of_a_plateau_is_not_decided_where_protocol_3_called_it_trained():
    # vanilla sat at 0.10 and began to jump in the last fortieth of the N runs: the N/2 runs end at 0.10, the N
    # runs at 0.15 (their held-out test after the jump began). Protocol 3's windows (means over (0.4N, 0.5N] and
    # (0.9N, N]) see a quarter of the jump: a rise of 0.0125
    half = _ev([0.40, 0.41, 0.39], [0.10, 0.10, 0.10])
    full = _ev([0.41, 0.42, 0.40], [0.15, 0.16, 0.15])
    jump = [lambda t: 0.10 + (0.05 if t > 7800 else 0.0)] * 3     # (7200, 8000]: two of eight logs at 0.15
    state = _p3_state({"PE": [lambda t: 0.40] * 3, "vanilla": jump}, 8000)
    g, p3 = _grade("morita.fig2.gru", full, half, state, (4000, 8000))
    assert g.verdict == claims.INCONCLUSIVE and "doubling" in g.reason and "16,000" in g.reason, g.reason
    m = g.detail["doubling"]["moves"]["gap"]
    assert m["mean"] == pytest.approx(-0.0433, abs=1e-3) and not m["holds"]
    # the rise criterion called it trained (protocol 3 decided it, as the rule alone does)
    assert p3 == training.TRAINED and g.detail["rule_verdict"] == claims.REPRODUCED


def test_a_creep_at_a_large_vocabulary_reads_on_the_gap():
    # vanilla creeps from 0.008 (N/2) to 0.015 (N), PE holds 0.30: the gap moves by -0.007, under the 0.02 that
    # matters, with an interval that excludes -0.02: decided. Protocol 3 agrees (vanilla's rise 0.0035 < 0.02)
    half = _ev([0.300, 0.305, 0.298], [0.008, 0.007, 0.009])
    full = _ev([0.301, 0.304, 0.299], [0.015, 0.014, 0.016])
    state = _p3_state({"PE": [lambda t: 0.30] * 3, "vanilla": [lambda t: 0.001 + 0.014 * t / 8000] * 3}, 8000)
    g, p3 = _grade("morita.fig2.lstm", full, half, state, (4000, 8000))
    # decided: the rule's verdict stands
    assert g.verdict == claims.REPRODUCED and g.detail["doubling"]["moves"]["gap"]["lo"] > -0.02
    assert p3 == training.TRAINED
    # the same creep, faster: 0.008 -> 0.05 moves the gap by -0.04: not decided, though the aggregate rise
    # over the N run's second half (0.021) only just passes protocol 3's limit
    faster = _ev([0.301, 0.304, 0.299], [0.050, 0.049, 0.051])
    assert claims.grade("morita.fig2.lstm", faster, half=half, budgets=(4000, 8000)).verdict == claims.INCONCLUSIVE


def test_rare_rising_under_a_flat_aggregate_is_read_on_rare():
    # Fig. 3's harm: vanilla accuracy with FREQUENT disturbants (a) minus with RARE ones (b). RARE rises 0.14
    # from N/2 to N while FREQUENT stays, so the harm shrinks by 0.14; the aggregate training accuracy (mostly
    # FREQUENT-disturbant sequences) rises 0.017 over the second half, which protocol 3 called trained
    half = _ev([0.80, 0.81, 0.79], [0.40, 0.42, 0.41], a_name="FREQUENT", b_name="RARE")
    full = _ev([0.80, 0.81, 0.80], [0.54, 0.55, 0.56], a_name="FREQUENT", b_name="RARE")
    state = _p3_state({"vanilla GRU": [lambda t: 0.70 + 0.034 * t / 8000] * 3}, 8000)
    g, p3 = _grade("morita.fig3.harm.gru", full, half, state, (4000, 8000))
    assert g.verdict == claims.INCONCLUSIVE and not g.detail["doubling"]["decided"], g.reason
    assert g.detail["doubling"]["moves"]["gap"]["hi"] < -0.02     # it did shrink by more than 0.02
    assert p3 == training.TRAINED                                  # the aggregate looked trained


def test_not_reproduced_stands_only_if_the_gap_would_not_grow():
    # gaps -0.01 and under at both budgets: at N the interval lies below the 0.02 that matters (not reproduced),
    # and the per-seed moves (-0.01, 0, 0) have an interval below +0.02: doubling would not open the gap
    half = _ev([0.30, 0.31, 0.29], [0.30, 0.32, 0.30])
    still = _ev([0.30, 0.31, 0.30], [0.31, 0.32, 0.31])
    assert claims.grade("morita.fig2.gru", still, half=half, budgets=(1, 2)).verdict == claims.NOT_REPRODUCED
    # gaps -0.04, -0.01, -0.03 at N/2 and -0.01, -0.005, -0.01 at N: the rule still excludes 0.02 at N, but the
    # gap grew by 0.018 [-0.013, +0.050]: a further doubling could open it, so nothing is decided
    half = _ev([0.30, 0.31, 0.29], [0.34, 0.32, 0.32])
    growing = _ev([0.30, 0.315, 0.30], [0.31, 0.32, 0.31])
    g = claims.grade("morita.fig2.gru", growing, half=half, budgets=(1, 2))
    assert g.detail["rule_verdict"] == claims.NOT_REPRODUCED and g.verdict == claims.INCONCLUSIVE, g.reason


def test_no_gain_needs_both_models_still_and_no_half_budget_decides_nothing():
    key = next(c.key for c in claims.graded() if c.rule is not None and c.rule.kind == "no_gain"
               and c.about == "trained")
    half = _ev([0.50, 0.51, 0.50], [0.50, 0.50, 0.51])
    flat = _ev([0.505, 0.51, 0.505], [0.50, 0.505, 0.51])
    moving = _ev([0.60, 0.62, 0.61], [0.60, 0.61, 0.62])            # both rose 0.10: the gap could open yet
    assert doubling.test("no_gain", {}, claims.REPRODUCED, flat, half, (1, 2), 0.02)["decided"]
    rec = doubling.test("no_gain", {}, claims.REPRODUCED, moving, half, (1, 2), 0.02)
    assert not rec["decided"] and set(rec["moves"]) == {"PE", "vanilla", "gap"}     # protocol 8 reads the gap too
    # protocol 8 (issue 66): each model within +-0.02 a doubling, the gap moving 0.024: the gap holds it back
    apart = _ev([0.512, 0.522, 0.512], [0.488, 0.488, 0.498])
    rec = doubling.test("no_gain", {}, claims.REPRODUCED, apart, half, (1, 2), 0.02)
    assert rec["moves"]["PE"]["holds"] and rec["moves"]["vanilla"]["holds"] and rec["held_by"] == ["gap"], rec["why"]
    g = claims.grade(key, flat)
    assert g.verdict in (claims.INCONCLUSIVE, claims.NOT_TESTED) and "half the budget" in g.reason
    # fewer than three seeds in both budgets decide nothing either
    assert not doubling.test("better", {}, claims.REPRODUCED, _ev([0.9, 0.9], [0.1, 0.1], seeds=[1, 2]),
                             _ev([0.9, 0.9], [0.1, 0.1], seeds=[1, 2]), (1, 2), 0.02)["decided"]


def test_sec4_1_more_updates_reads_vanilla_at_n_against_n_half():
    # Sec. 4.1: "extra training iterations did not improve the vanilla models". a = vanilla at N, b = at N/2
    key = "morita.sec4_1.more_updates.lstm"
    settled = {"holds": True, "text": "PE settled"}
    flat = {"a": [0.301, 0.298, 0.305], "b": [0.300, 0.300, 0.300], "seeds": SEEDS, "premise": settled}
    assert claims.grade(key, flat).verdict == claims.REPRODUCED
    gains = {**flat, "a": [0.40, 0.41, 0.42]}                   # +0.10 [+0.075, +0.125]: more updates helped
    assert claims.grade(key, gains).verdict == claims.NOT_REPRODUCED
    # with the PE model itself still moving, the budget is not the paper's: a vanilla gain refutes nothing
    moving = {**gains, "premise": {"holds": False, "text": "PE still rising"}}
    g = claims.grade(key, moving)
    assert g.verdict == claims.INCONCLUSIVE and "premise" in g.reason


def test_graded_with_half_reads_the_chapters_own_evidence_on_both_budgets(tmp_path, monkeypatch):
    from penb.claims import scorecard

    seen = []

    def grade_fn(frame, cfg):
        seen.append(frame["name"])
        return [claims.grade("morita.fig2.gru", _ev(frame["a"], frame["b"]), steps=2000)]

    # gaps 0.10, 0.11, 0.11 at N/2 and 0.30, 0.305, 0.31 at N: the gap moved +0.198
    half = {"name": "half", "a": [0.40, 0.41, 0.42], "b": [0.30, 0.30, 0.31]}
    full = {"name": "full", "a": [0.60, 0.61, 0.62], "b": [0.30, 0.305, 0.31]}
    recorded = []
    monkeypatch.setattr(scorecard, "record", lambda g, cfg=None, **p: recorded.append(g.claim))
    g, = claims.graded_with_half(grade_fn, full, half, None)
    assert seen == ["half", "full"] and recorded == ["morita.fig2.gru"]     # the half pass records nothing
    rec = g.detail["doubling"]
    assert rec["budgets"] == [1000, 2000] and rec["moves"]["gap"]["mean"] == pytest.approx(0.595 / 3)
    # the gap grew, which cannot overturn "PE ahead", and vanilla (the model behind) held still: settled
    assert rec["moves"]["gap"]["holds"] and rec["moves"]["vanilla"]["holds"] and rec["decided"]
    assert g.verdict == claims.REPRODUCED
    # without half-budget runs the chapter grades once, its claims about trained models undecided
    seen.clear()
    g, = claims.graded_with_half(grade_fn, full, None, None)
    assert seen == ["full"] and g.verdict == claims.INCONCLUSIVE


def test_the_doubling_figure_draws_one_bar_per_quantity_moved():
    from penb.claims import doubling_plot

    half = _ev([0.30, 0.31, 0.29], [0.30, 0.32, 0.30])
    full = _ev([0.30, 0.31, 0.30], [0.31, 0.32, 0.31])
    g = claims.grade("morita.fig2.gru", full, half=half, budgets=(1000, 2000))
    rows = doubling_plot.rows([g])
    assert [r["quantity"] for r in rows] == ["gap", "PE", "vanilla"]      # protocol 5: both models' moves too
    # the gap moved (-0.01, 0, 0) -> mean -0.0033, i.e. -1/6 of the 0.02 that matters; vanilla (+0.01, 0, +0.01)
    assert rows[0]["mean"] == pytest.approx(-0.01 / 3 / 0.02)
    assert rows[2]["mean"] == pytest.approx(0.02 / 3 / 0.02)
    assert len(doubling_plot.figure([g]).axes[0].lines) >= 2
    assert doubling_plot.rows([claims.grade("morita.fig2.gru", full)]) == []       # no N/2: nothing to draw


def test_fig2s_95_percent_is_a_level_that_can_fail():
    # issue 35: inside rule "better" a trained PE GRU at 0.70 read "direction only"; as its own claim the level
    # is refuted there, reached at 0.97-0.98, and open where the interval straddles 0.95
    key = "morita.fig2.level.gru"
    still = lambda a: claims.grade(key, {"a": a, "seeds": SEEDS, "baseline": 1 / 32, "a_name": "PE GRU",  # noqa
                                         "resolution": 1e-4},
                                   half={"a": a, "seeds": SEEDS, "a_name": "PE GRU"}, budgets=(1, 2))
    assert still([0.70, 0.71, 0.69]).verdict == claims.NOT_REPRODUCED
    assert still([0.97, 0.975, 0.98]).verdict == claims.REPRODUCED
    assert still([0.93, 0.97, 0.96]).verdict == claims.INCONCLUSIVE
    # a level below 0.95 that still rose 0.10 from N/2 to N is not refuted: it could yet be reached
    rising = claims.grade(key, {"a": [0.80, 0.81, 0.79], "seeds": SEEDS, "baseline": 1 / 32, "a_name": "PE GRU"},
                          half={"a": [0.70, 0.71, 0.69], "seeds": SEEDS, "a_name": "PE GRU"}, budgets=(1, 2))
    assert rising.verdict == claims.INCONCLUSIVE and rising.detail["rule_verdict"] == claims.NOT_REPRODUCED
    # the gap half no longer carries the level: PE ahead at 0.70 is reproduced (on models that held still)
    ahead = _ev([0.70, 0.71, 0.69], [0.30, 0.31, 0.30])
    assert claims.grade("morita.fig2.gru", ahead, half=ahead, budgets=(1, 2)).verdict == claims.REPRODUCED


def test_fig5_speaks_of_the_course_of_training_so_no_doubling_test_holds_it_back():
    """Issue 34, item 3: Fig. 5 monitors the score at checkpoints ('decreased gradually ... or rapidly'), a
    statement about the course of training. Its verdict is read at the budget shown, with no N/2 runs and no
    doubling gate, while a claim about trained models (fig2) with the same evidence stays inconclusive."""
    from penb.claims.recorded import doubling_words, training_mark

    # vanilla's drop 0.30 +- 0.01 against PE's 0.02: far apart on every seed (t interval well above 0)
    ev = {"a": [0.30, 0.31, 0.29], "b": [0.02, 0.03, 0.01], "seeds": SEEDS, "a_name": "vanilla drop",
          "b_name": "PE drop"}
    course = claims.grade("morita.fig5.gru", ev)
    assert claims.get("morita.fig5.gru").about == "course"
    assert course.verdict == claims.REPRODUCED
    assert "doubling" not in course.detail
    assert "course of training" in doubling_words(course.detail)
    assert 'data-doubling="course"' in training_mark(course.detail)
    trained = claims.grade("morita.fig2.gru", _ev([0.9, 0.91, 0.89], [0.5, 0.51, 0.49]))
    assert trained.verdict == claims.INCONCLUSIVE and 'data-doubling="no N/2"' in training_mark(trained.detail)
    # a row at a fixed budget (Table 1) says why it is read there
    assert "fixed budget" in doubling_words({"about": "budget"})


# --- protocol 5 (issue 41): the model behind, both models of a trend, both parts of a gain against a reference ----
def test_a_gap_that_grows_while_vanilla_still_climbs_is_not_settled():
    # both rise (PE 0.50 -> 0.80, vanilla 0.20 -> 0.35): the gap grew by 0.15, which protocol 4 settled; vanilla
    # rose 0.15 on every seed, so more training could still close the gap: protocol 5 holds it back
    half = _ev([0.50, 0.51, 0.49], [0.20, 0.21, 0.19])
    full = _ev([0.80, 0.81, 0.80], [0.35, 0.36, 0.34])
    g = claims.grade("morita.fig2.gru", full, half=half, budgets=(1000, 2000))
    rec = g.detail["doubling"]
    assert g.verdict == claims.INCONCLUSIVE and g.detail["rule_verdict"] == claims.REPRODUCED
    assert rec["held_by"] == ["vanilla"] and rec["moves"]["gap"]["holds"] and rec["moves"]["PE"]["holds"]
    assert "Undecided because of: vanilla" in g.reason
    # protocol 4 read the gap alone, and the gap grew by 0.15 on every seed: it would have settled
    assert rec["moves"]["gap"]["lo"] > 0


def test_no_gap_stands_only_where_the_model_that_would_pull_ahead_stopped():
    # PE and vanilla level at both budgets: "not reproduced" (the gap's interval below 0.02) stands; with PE and
    # vanilla both still rising by 0.1 (the gap unmoved) it does not: PE could still pull ahead
    half = _ev([0.300, 0.310, 0.300], [0.300, 0.305, 0.300])
    still = _ev([0.301, 0.309, 0.301], [0.300, 0.306, 0.301])
    assert claims.grade("morita.fig2.gru", still, half=half, budgets=(1, 2)).verdict == claims.NOT_REPRODUCED
    rising = _ev([0.401, 0.409, 0.401], [0.400, 0.406, 0.401])
    g = claims.grade("morita.fig2.gru", rising, half=half, budgets=(1, 2))
    assert g.detail["rule_verdict"] == claims.NOT_REPRODUCED and g.verdict == claims.INCONCLUSIVE
    assert g.detail["doubling"]["held_by"] == ["PE"]


def test_a_trend_reads_both_models_at_every_vocabulary():
    x = [32, 64, 128]
    gaps = [[0.05, 0.15, 0.25], [0.06, 0.14, 0.26], [0.05, 0.16, 0.24]]
    pe = [[0.95, 0.95, 0.95]] * 3
    van = lambda d: [[0.95 - g + d * (j == 2) for j, g in enumerate(row)] for row in gaps]   # noqa: E731
    ev = lambda v: {"x": x, "gaps": [[p - q for p, q in zip(pr, vr)] for pr, vr in zip(pe, v)],   # noqa: E731
                    "seeds": SEEDS, "a_by_x": pe, "b_by_x": v, "a_name": "PE", "b_name": "vanilla", "x_name": "V"}
    flat = claims.grade("morita.fig2.trend.gru", ev(van(0.0)), half=ev(van(0.0)), budgets=(1, 2))
    assert flat.verdict == claims.REPRODUCED and "vanilla at V 128" in flat.detail["doubling"]["moves"]
    # vanilla at V 128 still climbing by 0.05 (N/2 at -0.05): the slope could yet flatten
    climbing = claims.grade("morita.fig2.trend.gru", ev(van(0.0)), half=ev(van(-0.05)), budgets=(1, 2))
    assert climbing.verdict == claims.INCONCLUSIVE
    assert climbing.detail["doubling"]["held_by"] == ["slope", "vanilla at V 128"]
    # without the models' values, the test has nothing to read them with
    bare = {k: v for k, v in ev(van(0.0)).items() if k not in ("a_by_x", "b_by_x")}
    g = claims.grade("morita.fig2.trend.gru", bare, half=bare, budgets=(1, 2))
    assert g.verdict == claims.INCONCLUSIVE and "the models at each V" in g.reason


def test_both_parts_of_a_gain_against_a_reference_are_doubled():
    key = "morita.fig8.lstm"             # sorting's gain from PE smaller than reversal's (the reference)
    c = claims.get(key)
    assert c.rule.kind == "gain_vs_reference" and c.rule.params.get("relation", "smaller") == "smaller"

    def ev(a, ref_a, ref_b=0.20):
        return {"a": [a, a + 0.005, a - 0.005], "b": [0.20, 0.205, 0.195], "seeds": SEEDS, "a_name": "PE",
                "b_name": "vanilla", "ref_gain": [ref_a - ref_b] * 3, "ref_b": [ref_b] * 3, "baseline": 1 / 256}

    # this gain (0.30 - 0.20) / 0.80 = 0.125 of the room left, reversal's (0.90 - 0.20) / 0.80 = 0.875: smaller,
    # and every model held still from N/2 to N: settled
    g = claims.grade(key, ev(0.30, 0.90), half=ev(0.30, 0.90), budgets=(1, 2))
    moves = g.detail["doubling"]["moves"]
    assert {"second part", "PE (reference)", "vanilla (reference)", "PE", "vanilla"} <= set(moves)
    assert g.verdict == claims.REPRODUCED and g.detail["doubling"]["decided"], g.reason
    # sorting's PE still rising (+0.30) while reversal's PE rises too (+0.48 from 0.42): the second part's
    # margin grew, the gap grew, the models behind held still, and yet this gain could still catch up with the
    # reference's: PE is read both ways (the first part must not fall, the second must not rise)
    rising = claims.grade(key, ev(0.60, 0.90), half=ev(0.30, 0.42), budgets=(1, 2))
    rec = rising.detail["doubling"]
    assert rising.verdict == claims.INCONCLUSIVE and rec["moves"]["PE"]["direction"] == doubling.STILL
    assert "PE" in rec["held_by"] and rec["moves"]["second part"]["holds"]
    # the reference's vanilla still rising by 0.1 a doubling: its gain could shrink below this one
    behind = claims.grade(key, ev(0.30, 0.90), half=ev(0.30, 0.90, ref_b=0.10), budgets=(1, 2))
    assert behind.verdict == claims.INCONCLUSIVE and "vanilla (reference)" in behind.detail["doubling"]["held_by"]


def test_a_ranks_resolution_is_its_step_and_its_models_are_read():
    from penb.chapters.beyond_rnn import analysis

    frame = pd.DataFrame([{"variant": v, "seed": s, "token_accuracy": 0.3 + 0.1 * i, "diverged": False}
                          for i, v in enumerate(["vanilla", "a", "b", "c", "d", "e"]) for s in SEEDS])
    floor = pd.Series({"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0})
    ev = analysis.rank_evidence(frame.rename(columns={"variant": analysis.BY}), floor)
    assert ev["resolution"] == pytest.approx(0.1)            # 12 / (5 x 24): Spearman over five, no ties
    assert len(ev["held_models"]) == 5
    g = claims.grade("beyond.hansen.invertibility", ev, half=ev, budgets=(1, 2))
    assert g.detail["doubling"]["moves"]["gap"]["hi"] == pytest.approx(0.1)   # +-0.1 around a move of 0
    assert all(m["hi"] == pytest.approx(0.001) for k, m in g.detail["doubling"]["moves"].items() if "gain" in k)


def test_an_interval_of_zero_width_decides_nothing_without_a_resolution():
    # a rank over three items takes the values +-1 and +-0.5 per seed: 1.0 on every seed is an interval of zero
    # width, which settles nothing; stated as a resolution of 0.5, the move's interval is +-0.5, wider than 0.3
    rank = {"a": [1.0, 1.0, 1.0], "b": [0.0] * 3, "b_fixed": True, "seeds": SEEDS}
    rec = doubling.test("better", {}, claims.REPRODUCED, {**rank, "resolution": 0.0}, rank, (1, 2), 0.3)
    assert not rec["decided"] and rec["moves"]["gap"]["zero_width"]
    rec = doubling.test("better", {}, claims.REPRODUCED, {**rank, "resolution": 0.5}, rank, (1, 2), 0.3)
    assert not rec["decided"] and rec["moves"]["gap"]["lo"] == pytest.approx(-0.5)
    rec = doubling.test("better", {}, claims.REPRODUCED, {**rank, "resolution": 0.01}, rank, (1, 2), 0.3)
    assert rec["decided"]


def test_check_and_close_must_say_what_models_they_read():
    from penb.claims.claim import Claim
    from penb.claims.grading import Rule

    with pytest.raises(ValueError, match="must declare about="):
        Claim("x.check", "m", "Fig. 0", "s", chapter="c", rule=Rule("check", "t"))
    with pytest.raises(ValueError, match="must declare about="):
        Claim("x.close", "m", "Fig. 0", "s", chapter="c", rule=Rule("close", "t", {"rel": 0.1}))
    # every registered check and tolerance names it; Hansen's trained inverters are read at the blog's budget or
    # over its course, never as exact properties
    for c in claims.CLAIMS.values():
        if c.rule is not None and c.rule.kind in ("check", "close") and c.key.startswith("hansen."):
            trained_inverter = c.chapter == "invertibility" and "loss" in (c.measure + c.statement).lower()
            assert not trained_inverter or c.about in ("budget", "course"), c.key


def test_irie_q4_order_says_it_is_a_proxy_wherever_it_is_shown():
    from penb.claims.display import figure_of, short

    c = claims.get("irie.q4.order")
    assert "proxy" in figure_of(c.where) and short(c.statement).startswith("By proxy")

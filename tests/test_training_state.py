"""The training state (penb.claims.training; protocol 3 gated on it, later protocols show it) on hand-built histories and evidence.

The expected numbers are worked out by hand from the criterion's definition (second-half rise: mean of the
last tenth of training minus the mean of the tenth ending at the midpoint), never read off the code.
"""
import json

import numpy as np
import pandas as pd
import pytest

from penb import claims
from penb.claims import grading, training


def _history(f, steps=1000, every=100):
    return [{"step": s, "loss": 1.0 - f(s), "accuracy": f(s)} for s in range(every, steps + 1, every)]


def test_rise_over_second_half_by_hand():
    # accuracy = step / 1000, logged every 100: the window (400, 500] holds step 500 (0.5), (900, 1000] holds 1000
    s = training.run_summary(_history(lambda t: t / 1000), 1000)
    assert s["mid"] == pytest.approx(0.5) and s["end"] == pytest.approx(1.0) and s["rise"] == pytest.approx(0.5)
    # logged every 10: (400, 500] = steps 410..500, mean 0.455; (900, 1000] = 910..1000, mean 0.955
    s = training.run_summary(_history(lambda t: t / 1000, every=10), 1000)
    assert s["rise"] == pytest.approx(0.955 - 0.455)
    # a loss curve: the rise is the fall of the loss (mid - end)
    s = training.run_summary(_history(lambda t: t / 1000), 1000, metric="loss")
    assert s["rise"] == pytest.approx(0.5)


def test_a_flat_tail_after_a_late_rise_is_still_learning():
    # a cosine-like curve: flat in the last quarter, but +0.10 between the midpoint and the end
    f = lambda t: 0.5 + 0.1 * min(1.0, max(0.0, (t - 500) / 250))  # noqa: E731
    m = training.model_state([_history(f), _history(f)], 1000)
    assert m["state"] == training.LEARNING and m["rise"] == pytest.approx(0.1)
    flat = training.model_state([_history(lambda t: 0.9 if t > 300 else 0.3)], 1000)
    assert flat["state"] == training.TRAINED and flat["rise"] == pytest.approx(0.0)
    assert training.model_state([[]], 1000)["state"] == training.UNKNOWN


def _frame(tmp_path, curves):
    rows = []
    for i, (variant, f) in enumerate(curves):
        d = tmp_path / f"run{i}"
        d.mkdir()
        (d / "result.json").write_text(json.dumps({"history": _history(f)}))
        rows.append({"encoding": variant, "seed": i, "diverged": False, "path": str(d)})
    return pd.DataFrame(rows)


def test_state_of_a_comparison_and_combine(tmp_path):
    frame = _frame(tmp_path, [("pe", lambda t: 0.9), ("pe", lambda t: 0.9),
                              ("none", lambda t: t / 2000), ("none", lambda t: t / 2000)])
    t = training.state(frame, "encoding", ("pe", "none"), {"pe": "PE", "none": "vanilla"})
    assert t["state"] == training.LEARNING and t["learning"] == ["vanilla"]
    assert t["models"]["vanilla"]["rise"] == pytest.approx(0.25) and t["models"]["PE"]["state"] == training.TRAINED
    done = training.state(frame[frame.encoding == "pe"], "encoding", ("pe",))
    assert done["state"] == training.TRAINED
    assert training.combine([done, t])["state"] == training.LEARNING


def _clear_win(n=5):
    rng = np.random.default_rng(0)
    b = rng.uniform(0.3, 0.4, n)
    return {"a": rng.uniform(0.97, 0.99, n).tolist(), "b": b.tolist(), "baseline": 1 / 256,
            "a_name": "PE", "b_name": "vanilla"}


def _state(kind):
    model = {"state": kind, "rise": 0.1 if kind == training.LEARNING else 0.0, "end": 0.5, "n": 5,
             "updates": 2000, "curve": []}
    return training._record({"vanilla GRU": model}, "accuracy", training.RISE_LIMIT)


def test_the_training_state_is_recorded_beside_the_verdict_and_does_not_decide_it():
    """Protocol 3 gated verdicts on the rise criterion; since protocol 4 the doubling test decides (its own tests:
    tests/test_doubling.py), and the state is recorded beside the verdict for the scorecard's marks and curves."""
    ev = _clear_win()
    trained = claims.grade("morita.fig2.gru", ev, training=_state(training.TRAINED))
    learning = claims.grade("morita.fig2.gru", ev, training=_state(training.LEARNING))
    assert learning.detail["training"]["state"] == training.LEARNING
    assert trained.detail["training"]["state"] == training.TRAINED
    # without runs at half the budget, a claim about trained models is not decided, whatever the state says
    for g in (trained, learning):
        assert g.verdict == claims.INCONCLUSIVE and "half the budget" in g.reason
        assert g.detail["rule_verdict"] == claims.REPRODUCED


def test_premise_must_hold_for_not_reproduced():
    ev = _clear_win()
    flipped = {**ev, "a": ev["b"], "b": ev["a"], "premise": {"holds": False, "text": "no vanilla harm"}}
    half = {**flipped, "premise": None}
    g = claims.grade("morita.fig2.gru", flipped, training=_state(training.TRAINED), half=half, budgets=(1, 2))
    assert g.verdict == claims.INCONCLUSIVE and "premise" in g.reason
    flipped["premise"]["holds"] = True
    assert claims.grade("morita.fig2.gru", flipped, half=half, budgets=(1, 2)).verdict == claims.NOT_REPRODUCED


def test_decline_needs_the_control_to_decline_less():
    x = [64, 128, 256, 512]
    rng = np.random.default_rng(1)
    falling = [[0.1 * i + rng.normal(0, 0.005) for i in range(4)] for _ in range(5)]     # -acc rises 0.1/doubling
    rule = claims.get("morita.fig2.decline.gru").rule
    same = {"x": x, "gaps": falling, "control_gaps": [[v + 0.001 for v in row] for row in falling], "diverged": 0}
    v, _, reason, _ = grading.apply(rule, same)
    assert v == claims.INCONCLUSIVE and "as much" in reason
    flat = {**same, "control_gaps": [[rng.normal(0, 0.005) for _ in x] for _ in range(5)]}
    assert grading.apply(rule, flat)[0] == claims.REPRODUCED

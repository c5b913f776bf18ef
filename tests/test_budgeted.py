"""One time-budgeted driver (penb.call.budgeted, issue 51 item 4): the lease and the slice plan, drive, describe and
collect through it. A batch the deadline reaches mid-way checkpoints every unfinished run and stops; the next call
resumes them and stores what one uninterrupted call stores (fp64)."""
import json

import pytest

from penb import runs
from penb.call import budgeted
from penb.run_config import normalize
from penb.store.paths import checkpoint_path
from tests.test_lease import FakeClock as UpdateClock   # one second a reading: the driver reads once an update

TINY = dict(vocab_size=6, length=4, hidden=12, batch_size=8, steps=40, warmup=5, lr=1e-2, held_out=8,
            checkpoint_every=1000, log_every=10, device="cpu", core="gru", dtype="float64")


def configs():
    return [normalize({**TINY, "vocab_size": v, "encoding": e}) for v in (6, 9) for e in ("sinusoidal", "none")]


def test_one_run_per_group_or_a_figure_per_batch(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "store"))
    cs = configs()
    singles = budgeted.groups(cs[::-1], batched=False)
    assert [g["configs"] for g in singles] == [[c] for c in cs[::-1]]          # the caller's order, one run each
    assert all(g["runs"] == 1 and g["updates"] == 40 for g in singles)
    (batch,) = budgeted.groups(cs, batched=True, width=64)
    assert batch["runs"] == 4 and batch["updates"] == 40
    text = budgeted.describe([batch], "head line", [dict(core="gru", vocab=6, encoding="none", seed=0, **{
        "from": 0, "to": 7})])
    assert "head line" in text and "updates 0-7" in text and "gru" in text


def test_a_batch_cut_at_the_deadline_resumes_to_what_one_call_stores(tmp_path, monkeypatch):
    from penb.trainer import policy

    monkeypatch.setattr(policy, "batch_pays", lambda configs, to_go, when="auto": len(configs) > 1)
    cs = configs()
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "straight"))
    straight = budgeted.drive(budgeted.groups(cs, batched=True, width=64), 10 ** 9, UpdateClock(), fit=False)
    want = {runs.key(c): json.loads((runs.run_dir(c) / "result.json").read_text()) for c in cs}
    assert not straight["stopped"] and sorted(t["to"] for t in straight["trained"]) == [40] * 4

    monkeypatch.setenv("PENB_STORE", str(tmp_path / "cut"))
    short = normalize({**TINY, "steps": 10, "seed": 7})     # ends inside the batch, before the deadline: kept
    clock = UpdateClock()
    first = budgeted.drive(budgeted.groups(cs + [short], batched=True, width=64), clock.t + 17, clock, fit=False)
    assert first["stopped"] and {(t["from"], t["to"]) for t in first["trained"]} == {(0, 15), (0, 10)}
    assert runs.status(short) == "done"
    for c in cs:                                            # every run of the batch: a checkpoint where it stopped
        assert runs.status(c) != "done" and checkpoint_path(runs.run_dir(c), 15).exists()
    again = budgeted.drive(budgeted.groups(cs, batched=True, width=64), 10 ** 9, UpdateClock(), fit=False)
    assert {(t["from"], t["to"]) for t in again["trained"]} == {(15, 40)}
    for c in cs:
        got = json.loads((runs.run_dir(c) / "result.json").read_text())
        ref = want[runs.key(c)]
        assert [h["step"] for h in got["history"]] == [h["step"] for h in ref["history"]]
        assert [h["loss"] for h in got["history"]] == pytest.approx([h["loss"] for h in ref["history"]], rel=1e-9)


def test_a_group_that_would_end_past_the_deadline_waits_for_the_next_call(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "store"))
    groups = budgeted.groups(configs()[:1], batched=False)
    groups[0]["seconds"] = 100.0
    clock = UpdateClock()
    st = budgeted.drive(groups, clock.t + 50, clock)                        # fit: left whole
    assert st["stopped"] and st["trained"] == [] and runs.status(configs()[0]) != "done"


def test_the_ledger_counts_every_call_and_adopts_a_longer_one(tmp_path):
    led = budgeted.Ledger(tmp_path / "l.json", "abc")
    led.add(60.0, [])
    again = budgeted.Ledger(tmp_path / "l.json", "abc")
    assert again.spent_s == 60.0 and len(again.book["steps"]) == 1
    again.adopt({"config_key": "other", "spent_s": 500.0})                   # another configuration: ignored
    assert again.spent_s == 60.0
    again.adopt({"config_key": "abc", "spent_s": 500.0, "steps": []})
    assert again.spent_s == 500.0

"""Budgets that grow (issue 34, item 2): the WSD schedule by hand, and runs of one trunk that share its work.

The schedule's values are worked out from its definition (warm-up to lr, lr until the decay starts at
N - round(0.2 N), then linear to 0); a branched run is checked against the same run trained alone, bit for
bit (one torch thread), and the updates it trains are counted by a callback.
"""
import numpy as np
import pytest
import torch

from penb import runner
from penb import trunks
from penb.trainer import Trainer
from penb import runs
from penb import sweeps
from penb.run_config import normalize
from penb.trainer import load_model

TINY = dict(vocab_size=6, length=3, core="gru", hidden=8, batch_size=8, warmup=4, steps=40, held_out=8,
            checkpoint_every=10, log_every=5, device="cpu", seed=5, schedule="wsd")


def test_wsd_rate_by_hand():
    t = Trainer({**TINY, "lr": 1e-2})
    # warm-up: 0, 0.25, 0.5, 0.75 of lr; stable from 4 to the decay start 40 - 8 = 32; then (40 - s) / 8
    assert [t.lr_at(s) for s in (0, 1, 3)] == pytest.approx([0.0, 2.5e-3, 7.5e-3])
    assert [t.lr_at(s) for s in (4, 20, 31, 32)] == pytest.approx([1e-2] * 4)
    assert [t.lr_at(s) for s in (34, 36, 39, 40)] == pytest.approx([7.5e-3, 5e-3, 1.25e-3, 0.0])
    # the cosine is what it was: half the rate half-way through the post-warm-up span
    c = Trainer({**TINY, "schedule": "cosine", "lr": 1e-2})
    assert c.lr_at(22) == pytest.approx(5e-3)


def test_schedule_fields_checked_and_cosine_keys_unchanged():
    base = {k: v for k, v in TINY.items() if k != "schedule"}
    assert "schedule" not in normalize(base) and runs.key(base) == runs.key({**base, "schedule": "cosine"})
    assert normalize(TINY)["decay"] == 0.2 and runs.key(TINY) != runs.key(base)
    for bad, words in (({"schedule": "step"}, "unknown schedule"), ({"decay": 0}, "fraction"),
                       ({"decay": 1.5}, "fraction"), ({"steps": 4, "warmup": 4}, "inside the")):
        with pytest.raises(ValueError, match=words):
            normalize({**TINY, **bad})
    with pytest.raises(ValueError, match="field of schedule='wsd'"):
        normalize({**base, "decay": 0.3})


def test_branch_points_and_trunk_identity():
    c = normalize(TINY)
    # D(40) = 32, D(20) = 16, D(10) = 8: three budgets (the run's and two below it)
    assert trunks.branch_points(c) == [8, 16, 32]
    assert trunks.trunk_key(c) == trunks.trunk_key({**TINY, "steps": 80, "checkpoint_every": 7, "decay": 0.1})
    assert trunks.trunk_key(c) != trunks.trunk_key({**TINY, "seed": 6})
    assert trunks.trunk_key(c) != trunks.trunk_key({**TINY, "lr": 2e-3})


def _counted(config, store):
    seen = []
    result = runner.run(config, store=store, progress=False, callback=lambda t: seen.append(t.step))
    return result, len(seen)


def _same(a, b):
    assert a.metrics == b.metrics and a.history == b.history
    pa, pb = a.predictions(), b.predictions()
    assert all(np.array_equal(pa[k], pb[k]) for k in pa)
    sa, sb = load_model(a).state_dict(), load_model(b).state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)


def test_a_shorter_budget_branches_and_a_longer_one_extends(tmp_path):
    alone, n = _counted({**TINY, "steps": 20}, tmp_path / "alone")
    assert n == 20
    shared = tmp_path / "shared"
    _, n40 = _counted(TINY, shared)
    branched, n20 = _counted({**TINY, "steps": 20}, shared)
    assert n40 == 40 and n20 == 20 - 16                    # only the decay branch, from the trunk at D(20) = 16
    _same(alone, branched)
    longer_alone, _ = _counted({**TINY, "steps": 80}, tmp_path / "alone80")
    longer, n80 = _counted({**TINY, "steps": 80}, shared)
    assert n80 == 80 - 32                                  # extends the trunk from D(40) = 32
    _same(longer_alone, longer)


def test_a_sweep_trains_a_trunk_once(tmp_path):
    configs = [{**TINY, "steps": s, "seed": seed} for seed in (5, 6) for s in (10, 20, 40)]
    items = sweeps.groups([normalize(c) for c in configs])
    assert [len(i) for i in items] == [3, 3] and [c["steps"] for c in items[0]] == [40, 20, 10]
    results = sweeps.sweep(configs, store=tmp_path, progress=False)
    alone = runner.run({**TINY, "steps": 10, "seed": 6}, store=tmp_path / "alone", progress=False)
    _same(results[3], alone)
    assert len(list((tmp_path / trunks.FOLDER).glob("*/step-*.pt"))) == 6     # 3 branch points x 2 trunks

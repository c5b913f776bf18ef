"""K runs as one batched model (penb.batched): each run against the same run trained alone by penb.train.

Tolerances: a batched run computes its recurrence and readout in GEMMs of other shapes than the run alone (and, on
the CPU, without the single run's per-position encoding projection), so its numbers differ in the last bits and
the differences grow over the updates. After 30 updates in fp32 they were about 3e-7 relative (losses and weights);
the tests allow 1e-5 relative, 30x that. In fp64 the weights agreed to 5e-16, or 6e-11 where clipping scales
every gradient (both paths take the cross-entropy in fp32, ``logits.float()``, so fp32 rounding reaches fp64
gradients too): 1e-8 there. A wrong init, batch, clipping, Adam state or lr would differ by orders of magnitude
more. Against its batch-mates a run must be exactly
invariant: a zero block adds exact zeros, so swapping a batch-mate changes no bit of the others.
"""
import pytest
import torch

from penb import train
from penb.store import runs
from penb import sweeps
from penb.batched import BatchedTrainer, batchable, blocks, group_key
from penb.executors import LocalExecutor
from penb.executors.batched import BatchedExecutor, plan
from penb.run_config import normalize

TINY = dict(vocab_size=6, length=4, hidden=16, batch_size=16, steps=30, warmup=5, lr=1e-2, held_out=8,
            checkpoint_every=100, log_every=1, device="cpu")
REL = 1e-5


def alone(config, blow=False):
    """The run trained by penb.train alone: (its Trainer, its Diverged or None)."""
    t = trainer(config, blow)
    try:
        while t.step < t.config["steps"]:
            t.train_step()
    except train.Diverged as d:
        return t, d
    return t, None


def trainer(config, blow=False):
    """A fresh Trainer; ``blow``: its readout weights +-3e38, so that logits overflow to inf and its first loss and
    gradients are NaN (as a run that diverges)."""
    t = train.Trainer(config)
    if blow:
        with torch.no_grad():
            w = t.model.readout.weight
            w.copy_(torch.sign(w) * 3e38)
    return t


def batched(configs, blow=()):
    ts = [trainer(c, k in blow) for k, c in enumerate(configs)]
    return ts, BatchedTrainer(ts).run()


def rel(a, b):
    return ((a - b).abs().max() / b.abs().max()).item()


def assert_same_run(t, s, weights=REL, losses=REL):
    """Batched Trainer ``t`` against the single run ``s``: per-step losses, final weights and Adam moments."""
    assert [h["step"] for h in t.history] == [h["step"] for h in s.history]
    assert max(abs(a["loss"] - b["loss"]) / b["loss"] for a, b in zip(t.history, s.history)) < losses
    for (name, p), q in zip(t.model.named_parameters(), s.model.parameters()):
        assert rel(p, q) < weights, name
        for k in ("exp_avg", "exp_avg_sq"):
            assert rel(t.optimizer.state[p][k], s.optimizer.state[q][k]) < max(weights, 1e-4), (name, k)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("core", ["gru", "lstm"])
def test_batched_runs_match_each_run_alone(core, dtype):
    # three seeds, the third with a clipping norm so small that it clips every update
    configs = [{**TINY, "core": core, "dtype": dtype, "seed": s, "clip": c} for s, c in ((1, 1.0), (2, 1.0), (3, 1e-3))]
    ts, out = batched(configs)
    assert out == {0: "done", 1: "done", 2: "done"}
    for t, c in zip(ts, configs):
        s, diverged = alone(c)
        assert diverged is None and t.step == s.step == 30 and len(t.history) == 30
        assert_same_run(t, s, weights=REL if dtype == "float32" else 1e-8)
    assert max(abs(a["loss"] - b["loss"]) for a, b in zip(ts[0].history, ts[1].history)) > 1e-3  # seeds differ


@pytest.mark.parametrize("core", ["gru", "lstm"])
def test_a_run_does_not_see_its_batch_mates(core):
    a, _ = batched([{**TINY, "core": core, "seed": s} for s in (1, 2, 3)])
    b, _ = batched([{**TINY, "core": core, "seed": s} for s in (1, 2, 4)])
    for x, y in zip(a[:2], b[:2]):
        assert x.history == y.history
        assert all(torch.equal(p, q) for p, q in zip(x.model.parameters(), y.model.parameters()))
    assert a[2].history != b[2].history


def test_a_diverging_run_is_stored_as_alone_and_leaves_the_others_alone():
    configs = [{**TINY, "seed": s, "log_every": 5} for s in (1, 2, 3)]
    ts, out = batched(configs, blow=(1,))
    _, expected = alone(configs[1], blow=True)
    assert isinstance(out[1], train.Diverged) and out[1].as_dict() == expected.as_dict()
    assert expected.as_dict() == {"step": 5, "since": 0, "last_finite_loss": None, "bad_updates": 5}
    for k in (0, 2):
        assert out[k] == "done"
        assert_same_run(ts[k], alone(configs[k])[0])
    # two runs bad at one update: either may have leaked into the other, so both go back to train alone
    _, out = batched(configs, blow=(0, 1))
    assert out == {0: "alone", 1: "alone", 2: "done"}


def test_blocks_are_block_diagonal_per_gate():
    K, G, H, D = 3, 4, 2, 5
    w = torch.randn(K, G * H, D)
    expected = torch.cat([torch.block_diag(*[w[k, g * H:(g + 1) * H] for k in range(K)]) for g in range(G)])
    assert torch.equal(blocks(w, G), expected)                                  # [G*K*H, K*D]
    w.requires_grad_()
    blocks(w, G).sum().backward()
    assert torch.equal(w.grad, torch.ones_like(w))                              # only its own block reaches w


def test_what_may_share_a_batch():
    base = normalize({**TINY, "core": "gru"})
    assert group_key(base) == group_key(normalize({**TINY, "core": "gru", "seed": 9, "clip": 0.5, "held_out": 4}))
    assert group_key(base) != group_key(normalize({**TINY, "core": "gru", "hidden": 8}))
    assert not batchable(normalize({**TINY, "core": "s4d"}))
    assert not batchable(normalize({**TINY, "core": "gru", "encoding": "learnable"}))
    with pytest.raises(ValueError, match="differ only"):
        BatchedTrainer([train.Trainer(base), train.Trainer({**TINY, "core": "gru", "hidden": 8})])
    configs = [normalize({**TINY, "seed": s, "steps": n}) for n in (10, 20) for s in range(5)]
    batches = plan(configs, max_runs=2)
    assert [len(b) for b in batches] == [2, 2, 1, 2, 2, 1] and [b[0]["steps"] for b in batches] == [20] * 3 + [10] * 3


def test_a_batched_sweep_stores_what_single_runs_store(tmp_path):
    # WSD budgets N and N/2 of two seeds (the N/2 runs branch off the N runs' trunks), and an S4D run (not batchable)
    wsd = dict(TINY, steps=24, warmup=4, log_every=4, checkpoint_every=8, schedule="wsd", dtype="float64")
    configs = [{**wsd, "seed": s, "steps": n} for s in (1, 2) for n in (24, 12)] + [{**wsd, "core": "s4d"}]
    batched_runs = sweeps.sweep(configs, BatchedExecutor(max_runs=4), store=tmp_path / "a", progress=False)
    single_runs = sweeps.sweep(configs, LocalExecutor(), store=tmp_path / "b", progress=False)
    for r, s in zip(batched_runs, single_runs):
        assert r.key == s.key and r.config == s.config and not r.diverged
        assert set(r.result) - {"batched"} == set(s.result)
        if r.config["core"] == "gru":
            assert r.result["batched"]["runs"] == 2                          # the two seeds of one budget
        assert [h["step"] for h in r.history] == [h["step"] for h in s.history]
        assert max(abs(a["loss"] - b["loss"]) / b["loss"] for a, b in zip(r.history, s.history)) < REL
        assert r.metrics == pytest.approx(s.metrics, abs=1e-9)
        assert [c for c, _ in r.checkpoints()] == [c for c, _ in s.checkpoints()]
    trunk_steps = sorted(p.name for p in (tmp_path / "a" / "_trunks").rglob("step-*.pt"))
    assert trunk_steps == sorted(p.name for p in (tmp_path / "b" / "_trunks").rglob("step-*.pt")) and trunk_steps
    # a second sweep finds every run done and trains nothing
    written = [(r.path / "result.json").stat().st_mtime_ns for r in batched_runs]
    again = sweeps.sweep(configs, BatchedExecutor(max_runs=4), store=tmp_path / "a", progress=False)
    assert [r.key for r in again] == [r.key for r in batched_runs]
    assert [(r.path / "result.json").stat().st_mtime_ns for r in again] == written


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA (the GPU session runs it)")
@pytest.mark.parametrize("core", ["gru", "lstm"])
def test_batched_runs_match_each_run_alone_on_cuda(core, monkeypatch):
    # both paths run cuDNN; without TF32 (on by default for cuDNN) they differ by rounding and cuDNN's
    # non-deterministic backward only, well under 1e-4 after 30 updates
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    configs = [{**TINY, "core": core, "device": "cuda", "seed": s} for s in (1, 2, 3)]
    ts, out = batched(configs)
    assert out == {0: "done", 1: "done", 2: "done"}
    for t, c in zip(ts, configs):
        assert_same_run(t, alone(c)[0], weights=1e-4, losses=1e-4)


def test_runs_that_score_different_numbers_of_steps():
    # reverse_variable: each sequence has its own length, so the runs of a batch score different step counts
    configs = [{**TINY, "task": "reverse_variable", "length": 6, "held_out": 2, "steps": 12, "seed": s}
               for s in (1, 3)]
    b0, b1 = (train.Trainer(c).task.sample(16, train.Trainer(c).data_gen) for c in configs)
    assert (b0.targets != -100).sum() != (b1.targets != -100).sum()            # the first batches differ in count
    ts, out = batched(configs)
    assert out == {0: "done", 1: "done"}
    for t, c in zip(ts, configs):
        assert_same_run(t, alone(c)[0])

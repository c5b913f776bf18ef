"""Per-run stacked weights (penb.stacked, issue 42): K cores in one batched product per step, each the run it claims
to be, checked against torch.nn.GRU / nn.LSTM run one module at a time, and inside BatchedTrainer against the same
runs trained alone by penb.train.

Tolerances as in tests/test_batched.py: other GEMM shapes than the module's own kernels give last-bit differences
(fp32: about 1e-7 of the output; 1e-5 allowed), while a wrong gate order, a bias outside the reset product or one
run's weights applied to another would differ by orders of magnitude more.
"""
import pytest
import torch

from penb import stacked
from penb.batched import BatchedTrainer

from tests.test_batched import TINY, alone, assert_same_run, rel, trainer

K, B, T, D, H = 3, 5, 7, 4, 6


def modules(kind):
    cls = torch.nn.GRU if kind == "gru" else torch.nn.LSTM
    out = []
    for k in range(K):
        torch.manual_seed(100 + k)                     # each run its own initial weights
        out.append(cls(D, H, batch_first=True).double())
    return out


@pytest.mark.parametrize("kind", ["gru", "lstm"])
def test_each_stacked_core_is_its_own_module(kind):
    mods = modules(kind)
    x = torch.randn(K, B, T, D, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    weights = [w.clone().requires_grad_() for w in stacked.stack(mods)]
    got = stacked.core(kind, x, *weights)                                   # [K, B, T, H]
    want = torch.stack([m(x[k])[0] for k, m in enumerate(mods)])           # nn.GRU / nn.LSTM, one at a time
    assert got.shape == (K, B, T, H) and torch.allclose(got, want, rtol=0, atol=1e-12)
    # gradients: run k's weights get exactly what its module's get from the same loss
    probe = torch.randn(K, B, T, H, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    (got * probe).sum().backward()
    (want * probe).sum().backward()
    names = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
    for w, name in zip(weights, names):
        ref = torch.stack([getattr(m, name).grad for m in mods])
        assert torch.allclose(w.grad, ref, rtol=0, atol=1e-12), name


def test_a_nan_stays_in_its_run():
    mods = modules("gru")
    x = torch.randn(K, B, T, D, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    clean = stacked.gru(x, *stacked.stack(mods))
    x[1, 0, 3, 0] = float("nan")                                            # run 1 meets a NaN
    weights = [w.clone().requires_grad_() for w in stacked.stack(mods)]
    dirty = stacked.gru(x, *weights)
    dirty.nan_to_num().sum().backward()
    assert torch.isnan(dirty[1]).any()
    assert torch.equal(dirty[0], clean[0]) and torch.equal(dirty[2], clean[2])   # bit for bit: no zero blocks
    assert all(torch.isfinite(w.grad[[0, 2]]).all() for w in weights)


def test_an_unknown_core_is_refused():
    with pytest.raises(ValueError, match="unknown core"):
        stacked.core("s4d", *([torch.zeros(1)] * 5))
    with pytest.raises(ValueError, match="unknown kernel"):
        BatchedTrainer([trainer({**TINY, "core": "gru"})], kernel="vmap")


@pytest.mark.parametrize("core", ["gru", "lstm"])
def test_stacked_batch_matches_each_run_alone(core):
    configs = [{**TINY, "core": core, "seed": s, "clip": c} for s, c in ((1, 1.0), (2, 0.05), (3, 1.0))]
    ts = [trainer(c) for c in configs]
    out = BatchedTrainer(ts, kernel="stacked").run()
    assert set(out.values()) == {"done"}
    for t, c in zip(ts, configs):
        s, _ = alone(c)
        assert_same_run(t, s)


def test_stacked_and_packed_agree():
    configs = [{**TINY, "core": "lstm", "seed": s} for s in (4, 5)]
    a = [trainer(c) for c in configs]
    b = [trainer(c) for c in configs]
    BatchedTrainer(a, kernel="stacked").run()
    BatchedTrainer(b).run()
    for s, p in zip(a, b):
        for x, y in zip(s.model.parameters(), p.model.parameters()):
            assert rel(x, y) < 1e-5


@pytest.mark.parametrize("core", ["gru", "lstm"])
def test_a_stacked_run_does_not_see_its_batch_mates(core):
    def run(seeds):
        ts = [trainer({**TINY, "core": core, "seed": s}) for s in seeds]
        BatchedTrainer(ts, kernel="stacked").run()
        return ts

    a, b = run((1, 2, 3)), run((1, 2, 4))                    # the third batch-mate swapped
    for x, y in zip(a[:2], b[:2]):
        assert x.history == y.history
        assert all(torch.equal(p, q) for p, q in zip(x.model.parameters(), y.model.parameters()))
    assert a[2].history != b[2].history


def test_a_stacked_run_that_diverges_leaves_the_others_alone():
    from penb import train

    configs = [{**TINY, "core": "gru", "seed": s, "log_every": 5} for s in (1, 2, 3)]
    ts = [trainer(c, blow=(k == 1)) for k, c in enumerate(configs)]
    out = BatchedTrainer(ts, kernel="stacked").run()
    assert isinstance(out[1], train.Diverged) and out[0] == out[2] == "done"
    for k in (0, 2):
        assert_same_run(ts[k], alone(configs[k])[0])

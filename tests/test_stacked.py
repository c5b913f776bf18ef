"""Per-run stacked weights (penb.stacked, issue 42): K cores in one batched product per step, each the run it claims
to be, checked against torch.nn.GRU / nn.LSTM run one module at a time (inside the trainer: tests/test_trainer.py).

Tolerances: other GEMM shapes than the module's own kernels give last-bit differences
(fp32: about 1e-7 of the output; 1e-5 allowed), while a wrong gate order, a bias outside the reset product or one
run's weights applied to another would differ by orders of magnitude more.
"""
import pytest
import torch

from penb import stacked

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
    x = torch.zeros(1, 1, 1, D)
    with pytest.raises(ValueError, match="unknown core"):
        stacked.core("rnn", x, *stacked.stack(modules("gru"))[:4])


@pytest.fixture(params=["compiled", "plain"])
def pointwise(request, monkeypatch):
    """The GRU recurrence's element-wise steps compiled (the CPU's default) or as written (PENB_COMPILE=never)."""
    from penb import recurrence

    monkeypatch.setenv("PENB_COMPILE", "auto" if request.param == "compiled" else "never")
    return request.param


def _table_case(kind):
    g = torch.Generator().manual_seed(3)
    V, G = 4, stacked.GATES[kind] * H
    table = torch.randn(K * V, G, dtype=torch.float64, generator=g).requires_grad_()
    tokens = torch.randint(0, V, (K, B, T), generator=g) + torch.arange(K).view(K, 1, 1) * V   # rows repeat
    pos = torch.randn(K, T, G, dtype=torch.float64, generator=g).requires_grad_()
    w_hh = (0.5 * torch.randn(K, G, H, dtype=torch.float64, generator=g)).requires_grad_()
    b_hh = torch.randn(K, G, dtype=torch.float64, generator=g).requires_grad_()
    return table, tokens, pos, w_hh, b_hh


@pytest.mark.parametrize("kind", ["gru", "lstm"])
def test_the_written_out_backward_is_the_gradient(kind, pointwise):
    """fp64 finite differences (torch.autograd.gradcheck) of the table, the positional terms and the weights, with
    tokens that repeat (a table row's gradient adds up over its uses)."""
    from penb.recurrence import Recurrence

    table, tokens, pos, w_hh, b_hh = _table_case(kind)
    assert torch.autograd.gradcheck(lambda a, p, w, b: Recurrence.apply(kind, a, tokens, p, w, b),
                                    (table, pos, w_hh, b_hh))


@pytest.mark.parametrize("kind", ["gru", "lstm"])
def test_the_table_path_is_the_autograd_path(kind, pointwise):
    """:func:`penb.stacked.from_table` (the written-out recurrence) against the input terms built in full and run
    through :func:`penb.stacked.gru_steps` (``lstm_steps``) under autograd: outputs and every gradient to 1e-12."""
    case = _table_case(kind)
    got = stacked.from_table(kind, *case)
    table, tokens, pos, w_hh, b_hh = case
    want = {"gru": stacked.gru_steps, "lstm": stacked.lstm_steps}[kind](torch.nn.functional.embedding(tokens, table) + pos.unsqueeze(1), w_hh, b_hh)
    assert torch.allclose(got, want, rtol=0, atol=1e-12)
    probe = torch.randn(got.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    leaves = (table, pos, w_hh, b_hh)
    for a, b in zip(torch.autograd.grad((got * probe).sum(), leaves), torch.autograd.grad((want * probe).sum(), leaves)):
        assert torch.allclose(a, b, rtol=0, atol=1e-12)

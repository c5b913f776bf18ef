"""Models: S4D convolution = its recurrence = the kernel formula; input layouts; the folded encoding = the
concatenated input; seeding; bad input."""
import cmath
import math

import pytest
import torch

from penb import encodings, models
from penb.s4d import S4D
from tests.util import gen


def test_s4d_convolution_equals_recurrence():
    layer = S4D(6, state_size=8, generator=gen()).double()
    with torch.no_grad():                       # larger dt so that the modes rotate and decay visibly
        layer.kernel.log_dt.fill_(math.log(0.3))
    u = torch.randn(2, 33, 6, dtype=torch.float64, generator=gen(1))
    y_fft = layer.convolve(u)
    y_rec, states = layer.recurrence(u)
    assert torch.allclose(y_fft, y_rec, atol=1e-10)
    assert states.shape == (2, 33, 6, 4) and states.is_complex()
    assert torch.allclose(layer(u), layer.head(y_rec), atol=1e-10)


def test_s4d_kernel_matches_formula():
    layer = S4D(3, state_size=4, generator=gen()).double()
    K = layer.kernel(5)
    dt = layer.kernel.log_dt.exp().tolist()
    C = torch.view_as_complex(layer.kernel.C).tolist()
    for h in range(3):
        for l in range(5):
            total = 0
            for n in range(2):
                A = complex(-0.5, math.pi * n)                          # S4D-Lin at initialisation
                total += C[h][n] * (cmath.exp(dt[h] * A) - 1) / A * cmath.exp(dt[h] * A * l)
            assert abs(K[h, l].item() - 2 * total.real) < 1e-9      # A_imag holds float32 multiples of pi


def test_s4d_initialisation():
    layer = S4D(512, generator=gen())
    k = layer.kernel
    dt = k.log_dt.exp()
    assert dt.min() >= 1e-3 and dt.max() <= 1e-1
    assert dt.log().mean().item() == pytest.approx(math.log(1e-2), abs=0.15)      # log-uniform
    assert torch.allclose(-k.log_A_real.exp(), torch.full((512, 32), -0.5))
    assert torch.equal(k.A_imag[7], math.pi * torch.arange(32.0))
    c = torch.view_as_complex(k.C)
    assert (c.abs() ** 2).mean().item() == pytest.approx(1.0, abs=0.03)            # complex normal
    assert layer.output.out_channels == 1024                                        # 1x1 conv to 2h, GLU


@pytest.mark.parametrize("core", models.CORES)
def test_models_are_causal(core):
    m = models.build(12, 10, core=core, encoding="sinusoidal", hidden=8, generator=gen()).double()
    x = torch.randint(13, (3, 10), generator=gen(2))
    y = x.clone()
    y[:, 6] = (y[:, 6] + 1) % 13
    a, b = m(x), m(y)
    assert a.shape == (3, 10, 12)
    assert torch.allclose(a[:, :6], b[:, :6], atol=1e-12) and not torch.allclose(a[:, 6:], b[:, 6:])


def test_input_layouts():
    V, T, E = 9, 6, 8
    x = torch.randint(V + 1, (2, T), generator=gen())
    m = models.build(V, T, core="lstm", encoding="sinusoidal", hidden=E, generator=gen())
    v = m.input_vectors(x)
    assert m.core.rnn.input_size == 2 * E and v.shape == (2, T, 2 * E)
    assert torch.equal(v[..., :E], m.embedding.weight[x])
    assert torch.allclose(v[0, :, E:], encodings.sinusoidal(T, E))                 # positions 0..T-1
    d = models.build(V, T, core="lstm", encoding="none", input_mode="double", hidden=E, generator=gen())
    vd = d.input_vectors(x)
    assert torch.equal(vd, torch.cat([d.embedding.weight[x]] * 2, -1)) and d.core.rnn.input_size == 2 * E
    plain = models.build(V, T, core="gru", encoding="none", hidden=E, generator=gen())
    assert plain.core.rnn.input_size == E
    assert models.count_parameters(d) == models.count_parameters(m)                # App. C: same size as PE
    add = models.build(V, T, core="gru", encoding="sinusoidal", input_mode="add", hidden=E, generator=gen())
    assert torch.allclose(add.input_vectors(x), add.embedding.weight[x] + encodings.sinusoidal(T, E))


@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("encoding", ["sinusoidal", "learnable"])
@pytest.mark.parametrize("core", ["lstm", "gru"])
def test_folded_encoding_equals_concatenated_input(core, encoding, dtype, tol):
    """The per-position input projection (``RNNCore.forward_positional``) against ``nn.LSTM``/``nn.GRU`` on the
    concatenated ``[embedding; encoding]``: outputs and the gradients of every parameter, on random weights."""
    V, P, T, E, H, B = 20, 24, 12, 32, 16, 5                   # T < E: the fold applies
    m = models.build(V, P, core=core, encoding=encoding, hidden=H, embed=E, generator=gen(3), dtype=dtype)
    with torch.no_grad():                                       # larger weights than the init: saturating gates
        for p in m.core.rnn.parameters():
            p.mul_(3.0)
    x = torch.randint(V + 1, (B, T), generator=gen(4))
    assert m.folds_encoding(x) and m.core.rnn.weight_ih_l0.shape == (m.core.rnn.weight_hh_l0.shape[0], 2 * E)
    w = torch.randn(B, T, H, generator=gen(5), dtype=m.readout.weight.dtype)
    params = [p for name, p in m.named_parameters() if not name.startswith("readout")]
    out = m.features(x)
    grads = torch.autograd.grad((out * w).sum(), params)
    emb, pe = m.embedding.weight[x], m.encoding.table()[:T]    # the reference: the module on [emb; pe]
    ref = m.core.rnn(torch.cat([emb, pe.expand(B, T, E)], -1))[0]
    ref_grads = torch.autograd.grad((ref * w).sum(), params)
    assert out.shape == ref.shape == (B, T, H)
    assert torch.allclose(out, ref, atol=tol, rtol=0)
    for p, g, r in zip(params, grads, ref_grads):
        scale = r.abs().max().item()
        assert scale > 0 and torch.allclose(g, r, atol=tol * max(1.0, scale), rtol=0), p.shape


def test_fold_only_where_it_saves_work():
    x8, x40 = torch.zeros(2, 8, dtype=torch.long), torch.zeros(2, 40, dtype=torch.long)
    pe = models.build(9, 40, core="lstm", encoding="sinusoidal", hidden=16, generator=gen())
    assert pe.folds_encoding(x8) and not pe.folds_encoding(x40)                   # one-hot wider than D = 16
    for kwargs in (dict(core="lstm", encoding="none"), dict(core="gru", encoding="sinusoidal", input_mode="add"),
                   dict(core="s4d", encoding="sinusoidal")):
        assert not models.build(9, 40, hidden=16, generator=gen(), **kwargs).folds_encoding(x8), kwargs
    pe.fold_encoding = False
    assert not pe.folds_encoding(x8)


def test_command_row_is_learnable_and_standard_normal():
    V = 300
    m = models.build(V, 4, core="gru", encoding="none", hidden=512, generator=gen())
    w = m.embedding.weight
    assert w.shape == (V + 1, 512) and w.requires_grad
    assert w.std().item() == pytest.approx(1.0, abs=0.02)
    assert w[V].norm().item() == pytest.approx(math.sqrt(512), rel=0.15)
    m(torch.full((1, 4), V)).sum().backward()
    assert w.grad[V].abs().sum() > 0 and w.grad[:V].abs().sum() == 0


def test_seeded_initialisation():
    a = models.build(10, 4, core="s4d", hidden=8, generator=gen(5))
    b = models.build(10, 4, core="s4d", hidden=8, generator=gen(5))
    c = models.build(10, 4, core="s4d", hidden=8, generator=gen(6))
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not torch.equal(sa["core.in_proj.weight"], sc["core.in_proj.weight"])
    rnn = models.build(10, 4, core="lstm", hidden=16, generator=gen(5)).core.rnn
    w = rnn.weight_hh_l0
    assert w.abs().max() <= 1 / math.sqrt(16) and w.std().item() == pytest.approx(1 / math.sqrt(48), rel=0.1)


def test_dtype_and_device():
    m = models.build(10, 4, core="s4d", hidden=8, dtype="float64", device="cpu")
    assert all(p.dtype == torch.float64 for p in m.parameters())
    assert m(torch.zeros(1, 4, dtype=torch.long)).dtype == torch.float64


@pytest.mark.parametrize("kwargs, match", [
    (dict(core="rnn"), "unknown core"),
    (dict(encoding="fourier"), "unknown positional encoding"),
    (dict(input_mode="mul"), "unknown input_mode"),
    (dict(encoding="sinusoidal", input_mode="double"), "takes encoding 'none'"),
    (dict(dtype="float16"), "unknown dtype"),
    (dict(s4d_state=3), "even"),
    (dict(hidden=0), "hidden must be"),
])
def test_bad_model_settings_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        models.build(10, 4, **kwargs)


def test_cuda_without_cuda_raises(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)     # a machine without CUDA, whatever this is
    with pytest.raises(ValueError, match="CUDA is not available"):
        models.build(10, 4, device="cuda")


def test_too_many_steps_for_the_encoding():
    m = models.build(10, 4, core="gru", hidden=8)
    with pytest.raises(ValueError, match="positions 0..3"):
        m(torch.zeros(1, 5, dtype=torch.long))

"""The encoding registry against independent formulas (numpy loops, scipy) and the papers' invariants."""
import math

import numpy as np
import pytest
import scipy.special
import torch

from penb import encodings as E
from penb.chapters.encodings import analysis as V
from tests.util import gen


def paper_eq_1_2(num_positions, dim):
    """Morita Eq. 1-2 with a plain double loop (0-based p and i)."""
    out = np.zeros((num_positions, dim))
    for p in range(num_positions):
        for i in range(dim // 2):
            angle = p / 10000 ** (2 * i / dim)
            out[p, 2 * i] = math.sin(angle) / math.sqrt(dim / 2)
            out[p, 2 * i + 1] = math.cos(angle) / math.sqrt(dim / 2)
    return out


# --- sinusoidal (Sec. 3.2) -------------------------------------------------------------------------------

@pytest.mark.parametrize("num_positions,dim", [(7, 2), (30, 10), (128, 512)])
def test_sinusoidal_matches_equations(num_positions, dim):
    got = E.sinusoidal(num_positions, dim)
    assert got.shape == (num_positions, dim) and got.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), paper_eq_1_2(num_positions, dim), atol=2e-7)
    np.testing.assert_allclose(E.build("sinusoidal", num_positions, dim).table().numpy(),
                               paper_eq_1_2(num_positions, dim), atol=2e-7)


@pytest.mark.parametrize("dim", [2, 6, 64, 512])
def test_sinusoidal_rows_have_unit_norm_and_position_zero(dim):
    t = E.sinusoidal(300, dim).double()
    np.testing.assert_allclose(t.norm(dim=1).numpy(), 1.0, atol=1e-6)
    expected0 = np.tile([0.0, 1.0], dim // 2) / math.sqrt(dim / 2)
    np.testing.assert_allclose(t[0].numpy(), expected0, atol=1e-7)


def test_sinusoidal_dot_depends_only_on_offset():
    dim, n = 64, 80
    t = E.sinusoidal(n, dim).double().numpy()
    freqs = 10000.0 ** (-np.arange(0, dim, 2) / dim)
    for k in range(0, 30):
        closed = 2 / dim * np.cos(k * freqs).sum()
        dots = [t[p] @ t[p + k] for p in range(n - k)]
        np.testing.assert_allclose(dots, closed, atol=1e-6)
    np.testing.assert_allclose(V.offset_dots(t, [0, 5, 40], 20),
                               [[t[s] @ t[s + k] for k in range(21)] for s in (0, 5, 40)], atol=1e-12)


def test_official_layout_is_a_permutation():
    inter, concat = E.sinusoidal(40, 12), E.sinusoidal(40, 12, layout="concat")
    perm = [j for i in range(6) for j in (i, 6 + i)]  # [sin_0, cos_0, sin_1, cos_1, ...] from [sins, coss]
    torch.testing.assert_close(concat[:, perm], inter)
    assert not torch.allclose(concat, inter)


@pytest.mark.parametrize("args", [(10, 7), (0, 4), (4, 0), (3.0, 4), (True, 4)])
def test_bad_sizes_raise(args):
    with pytest.raises(ValueError):
        E.sinusoidal(*args)
    with pytest.raises(ValueError):
        E.build("sinusoidal", *args)
    with pytest.raises(ValueError, match="layout"):
        E.sinusoidal(4, 4, layout="zigzag")


# --- random, learnable, none (App. D) -------------------------------------------------------------------

def test_random_unit_norm_fixed_and_seeded():
    a = E.build("random", 50, 512, gen(3))
    np.testing.assert_allclose(a.table().norm(dim=1).numpy(), 1.0, atol=1e-5)
    torch.testing.assert_close(a.table(), E.build("random", 50, 512, gen(3)).table())
    assert not torch.allclose(a.table(), E.build("random", 50, 512, gen(4)).table())
    raw = torch.randn(50, 512, generator=gen(3))  # the definition: a normalised Gaussian draw
    torch.testing.assert_close(a.table(), raw / raw.norm(dim=1, keepdim=True))
    assert list(a.parameters()) == [] and "weight" in a.state_dict()
    out = a(torch.tensor([[0, 1], [49, 0]]))
    assert not out.requires_grad and out.shape == (2, 2, 512)


def test_random_directions_are_nearly_orthogonal():
    t = E.build("random", 100, 512, gen(0)).table().double().numpy()
    assert V.max_offdiag(V.similarity(t)) < 6 / math.sqrt(512)   # |cos| ~ 1/sqrt(D); 6 sd is ample


def test_learnable_is_standard_normal_parameter_with_gradients():
    m = E.build("learnable", 400, 64, gen(1))
    (w,) = list(m.parameters())
    assert w.shape == (400, 64) and w.requires_grad
    assert abs(w.detach().std().item() - 1) < 0.05 and abs(w.detach().mean().item()) < 0.05
    assert abs(w.detach().norm(dim=1).mean().item() - 8.0) < 0.3   # not normalised: ~sqrt(64)
    pos = torch.tensor([[0, 3, 3], [3, 7, 0]])
    m(pos).sum().backward()
    counts = torch.bincount(pos.flatten(), minlength=400).float()
    torch.testing.assert_close(w.grad, counts[:, None].expand(400, 64))


def test_none_has_width_zero_and_concatenates():
    m = E.build("none", 16, 32)
    pos = torch.arange(10).repeat(3, 1)
    out = m(pos)
    assert out.shape == (3, 10, 0) and m.table().shape == (16, 0) and m.width == 0
    emb = torch.randn(3, 10, 32)
    torch.testing.assert_close(torch.cat([emb, out], -1), emb)


def test_positions_out_of_range_raise():
    m = E.build("sinusoidal", 8, 4)
    for bad in (torch.tensor([8]), torch.tensor([[0, -1]]), torch.tensor([0.0, 1.0])):
        with pytest.raises(ValueError):
            m(bad)
    assert m(torch.empty(0, dtype=torch.long)).shape == (0, 4)


# --- the registry ---------------------------------------------------------------------------------------

def test_unknown_key_raises_listing_keys():
    with pytest.raises(ValueError, match="sinusoidal.*normal_learned"):
        E.get("sinusoid")
    with pytest.raises(ValueError):
        E.build(3, 4, 4)
    assert len(set(E.KEYS)) == 27 and set(E.PAPER_KEYS) | set(E.BLOG_KEYS) | set(E.BEYOND_KEYS) == set(E.KEYS)


@pytest.mark.parametrize("key", E.KEYS)
def test_every_key_builds_with_right_shape_and_flags(key):
    spec = E.get(key)
    assert spec.key == key
    m = spec.build(20, 24, gen(0))   # 24 >= 20 positions: onehot needs dim >= positions
    width = 0 if key == "none" else 24
    assert m.table().shape == (20, width)
    pos = torch.randint(0, 20, (4, 6), generator=gen(1))
    out = m(pos)
    assert out.shape == (4, 6, width)
    torch.testing.assert_close(out, m.table()[pos])
    params = [p for p in m.parameters() if p.requires_grad]
    assert bool(params) == spec.learnable


def test_blog_registry_matches_blog_module():
    blog = pytest.importorskip("penb.encodings.blog")
    assert tuple(blog.KEYS) == E.BLOG_KEYS
    assert {k for k in E.BLOG_KEYS if E.get(k).learnable} == set(blog.LEARNED)


# --- the blog's encodings against independent numpy formulas ---------------------------------------------

def test_blog_direct_and_sincos():
    pytest.importorskip("penb.encodings.blog")
    n, k = 100, 32
    t = np.arange(n) / n
    d1 = np.zeros((n, k)); d1[:, 0] = t
    np.testing.assert_allclose(E.build("direct1", n, k).table().numpy(), d1, atol=1e-7)
    np.testing.assert_allclose(E.build("directN", n, k).table().numpy(), np.repeat(t[:, None], k, 1), atol=1e-7)
    sc = np.zeros((n, k))
    for p in range(n):
        for i in range(k // 2):  # the blog code's layout: sines first, raw integer positions
            sc[p, i] = math.sin(p * 10000 ** (-i / (k // 2)))
            sc[p, k // 2 + i] = math.cos(p * 10000 ** (-i / (k // 2)))
    np.testing.assert_allclose(E.build("sincos", n, k).table().numpy(), sc, atol=1e-6)


def test_blog_linear_and_normal_use_their_parameters():
    pytest.importorskip("penb.encodings.blog")
    n, k = 50, 6
    t = np.arange(n) / n
    lin = E.build("linear_normal", n, k, gen(5))
    w, b = lin.w.numpy(), float(lin.b)
    np.testing.assert_allclose(lin.table().numpy(), t[:, None] * w + b, atol=1e-6)
    nor = E.build("normal_learned", n, k, gen(6))
    mu, v = nor.mu.detach().numpy(), nor.v.detach().numpy()
    want = mu + np.sqrt(np.abs(v)) * scipy.special.ndtri(t[1:, None])
    got = nor.table().detach().numpy()
    np.testing.assert_allclose(got[1:], want, rtol=1e-5, atol=1e-5)
    assert (got[0] == -9999999.0).all()
    assert np.isnan(V.display_table("normal", n, k, gen(6))[0]).all()
    nor.table()[1:].sum().backward()
    assert nor.mu.grad is not None and nor.v.grad is not None
    fixed = E.build("linear_uniform", n, k, gen(7))
    assert list(fixed.parameters()) == [] and (fixed.w.abs() <= 1).all() and abs(float(fixed.b)) <= 1


# --- the chapter's views -----------------------------------------------------------------------------------

def test_pca_of_rank_one_table_and_of_circle():
    t = np.arange(10)[:, None] * np.array([1.0, 2.0, -1.0]) + 3.0
    coords, ratio = V.pca_2d(t)
    np.testing.assert_allclose(ratio, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(np.abs(np.diff(coords[:, 0])), math.sqrt(6), atol=1e-9)
    assert (coords[:, 1] == 0).all()
    ang = np.linspace(0, 2 * np.pi, 8, endpoint=False)  # a circle: both components equal, radius kept
    c, r = V.pca_2d(np.stack([np.cos(ang), np.sin(ang), np.zeros(8)], 1))
    np.testing.assert_allclose(r, [0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(np.hypot(c[:, 0], c[:, 1]), 1.0, atol=1e-12)


def test_similarity_definitions():
    x = np.array([[3.0, 4.0], [0.0, 2.0], [0.0, 0.0]])
    np.testing.assert_allclose(V.similarity(x, "dot"), x @ x.T)
    cos = V.similarity(x)
    assert cos[0, 1] == pytest.approx(0.8) and np.isnan(cos[2, 2])
    with pytest.raises(ValueError):
        V.similarity(x, "angle")


def test_norm_comparison_against_closed_forms():
    dim = 64
    df = V.norm_comparison(dim, 4000, 32, hidden=64, generator=gen(0))
    assert df.loc["sinusoidal, Eq. 1-2", "norm_mean"] == pytest.approx(1.0, abs=1e-6)
    assert df.loc["sinusoidal without the 1/sqrt(D/2)", "norm_min"] == pytest.approx(math.sqrt(dim / 2), abs=1e-5)
    assert df.loc["token embedding rows, N(0,1)", "norm_mean"] == pytest.approx(math.sqrt(dim), rel=0.02)
    assert df.loc["sinusoidal, Eq. 1-2", "share"] == pytest.approx(1 / (1 + dim), rel=0.03)
    assert df.loc["sinusoidal without the 1/sqrt(D/2)", "share"] == pytest.approx(1 / 3, rel=0.03)
    # the measured share in an LSTM input matrix agrees with |e|^2 / (|x|^2 + |e|^2) up to sampling noise
    assert df.loc["sinusoidal, Eq. 1-2", "share_lstm"] == pytest.approx(1 / (1 + dim), rel=0.25)
    assert df.loc["learnable at init (App. D)", "share_lstm"] == pytest.approx(0.5, rel=0.1)
    closed = V.share_closed_form([2, 512])
    assert closed.loc[512, "unit norm (Eq. 1-2, random)"] == pytest.approx(1 / 513)

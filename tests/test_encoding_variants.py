"""The encodings beyond the texts (penb.encodings.variants) against independent loops of Eq. 1-2 and numpy/scipy."""
import math

import numpy as np
import pytest
import scipy.special
import torch

from penb import encodings as E
from penb import models
from penb.encodings import variants
from tests.util import gen

BANDS = ("sinusoidal_high", "sinusoidal_low", "sinusoidal_spread")


def eq_1_2_pairs(num_positions, dim, pairs, phases=None):
    """Morita Eq. 1-2 (0-based p, i) with plain loops, only the pairs ``pairs``, rows divided by sqrt(len(pairs))."""
    phases = [0.0] * len(pairs) if phases is None else list(phases)
    out = np.zeros((num_positions, dim))
    for p in range(num_positions):
        for i, phi in zip(pairs, phases):
            angle = p / 10000 ** (2 * i / dim) + phi
            out[p, 2 * i] = math.sin(angle) / math.sqrt(len(pairs))
            out[p, 2 * i + 1] = math.cos(angle) / math.sqrt(len(pairs))
    return out


def expected_pairs(key, dim):
    """The bands as the brief defines them, written independently (spread values worked out by hand)."""
    n = dim // 2
    if key == "sinusoidal_high":
        return [i for i in range(n) if 4 * i < dim]          # i < dim/4 (ceil(n/2) pairs for odd n)
    if key == "sinusoidal_low":
        return [i for i in range(n) if 4 * i >= dim]
    spread = {6: [0, 1, 2], 10: [0, 1, 3, 4], 12: [0, 2, 3, 5], 64: [0, 10, 21, 31], 512: [0, 85, 170, 255]}
    return spread[dim]


# --- the sinusoidal variants ------------------------------------------------------------------------------

@pytest.mark.parametrize("num_positions,dim", [(9, 6), (30, 10), (25, 12), (100, 64), (64, 512)])
@pytest.mark.parametrize("key", BANDS)
def test_band_tables_match_equations(key, num_positions, dim):
    pairs = expected_pairs(key, dim)
    m = E.build(key, num_positions, dim)
    got = m.table()
    assert got.shape == (num_positions, dim) and got.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), eq_1_2_pairs(num_positions, dim, pairs), atol=2e-7)
    np.testing.assert_allclose(got.double().norm(dim=1).numpy(), 1.0, atol=1e-6)
    others = [d for d in range(dim) if d // 2 not in pairs]
    assert (got[:, others] == 0).all()
    assert list(m.parameters()) == [] and not E.get(key).learnable and E.get(key).source == "penb"


@pytest.mark.parametrize("dim", range(2, 70, 2))
def test_bands_partition_and_spread(dim):
    n = dim // 2
    high, low = variants.band_pairs("high", dim), variants.band_pairs("low", dim)
    assert set(high).isdisjoint(low) and sorted(high + low) == list(range(n))
    assert len(high) == math.ceil(n / 2) and all(i < dim / 4 for i in high) and all(i >= dim / 4 for i in low)
    spread = variants.band_pairs("spread", dim)
    if n >= 4:
        assert len(set(spread)) == 4 and spread[0] == 0 and spread[-1] == n - 1 and list(spread) == sorted(spread)
    else:
        assert spread == tuple(range(n))
    assert variants.band_pairs("full", dim) == tuple(range(n))


def test_band_pairs_refuses_bad_input():
    with pytest.raises(ValueError, match="high, low, spread, full"):
        variants.band_pairs("middle", 8)
    for dim in (7, 0, 2.0):
        with pytest.raises(ValueError):
            variants.band_pairs("high", dim)


def test_sinusoidal_pairs_any_order_with_phases_and_full_set():
    pairs, phases = [5, 0, 2], [0.3, 2.0, -1.1]
    np.testing.assert_allclose(variants.sinusoidal_pairs(40, 12, pairs, phases).numpy(),
                               eq_1_2_pairs(40, 12, pairs, phases), atol=2e-7)
    np.testing.assert_allclose(variants.sinusoidal_pairs(40, 12, range(6)).numpy(),
                               eq_1_2_pairs(40, 12, range(6)), atol=2e-7)     # all pairs: Eq. 1-2 itself


@pytest.mark.parametrize("args", [(10, 7, [0]), (10, 8, []), (10, 8, [1, 1]), (10, 8, [4]), (10, 8, [-1]),
                                  (10, 8, [True]), (10, 8, [0.5]), (0, 8, [0])])
def test_sinusoidal_pairs_refuses_bad_input(args):
    with pytest.raises(ValueError):
        variants.sinusoidal_pairs(*args)
    with pytest.raises(ValueError, match="phases"):
        variants.sinusoidal_pairs(10, 8, [0, 1], phases=[0.1])


def test_phase_table_uses_its_drawn_phases_and_the_generator():
    m = E.build("sinusoidal_phase", 40, 16, gen(3))
    phases = m.phases.numpy()
    assert phases.shape == (8,) and (phases >= 0).all() and (phases < 2 * math.pi).all()
    np.testing.assert_allclose(phases, torch.rand(8, generator=gen(3), dtype=torch.float64).numpy() * 2 * math.pi)
    np.testing.assert_allclose(m.table().numpy(), eq_1_2_pairs(40, 16, range(8), phases), atol=2e-7)
    np.testing.assert_allclose(m.table().double().norm(dim=1).numpy(), 1.0, atol=1e-6)
    torch.testing.assert_close(m.table(), E.build("sinusoidal_phase", 40, 16, gen(3)).table(), rtol=0, atol=0)
    assert not torch.allclose(m.table(), E.build("sinusoidal_phase", 40, 16, gen(4)).table())
    assert list(m.parameters()) == []


# --- unit_* (the blog's encodings at mean row norm 1) -------------------------------------------------------

def blog_raw(key, params, n, k):
    """The blog's formula in numpy (t = pos/N), with normal's row 0 at ndtri(1/(2N)) instead of the sentinel."""
    p = {name: v.detach().double().numpy() for name, v in params.items()}
    t = np.arange(n) / n
    if key == "sincos":
        out = np.zeros((n, k))
        for pos in range(n):
            for i in range(k // 2):
                out[pos, i] = math.sin(pos * 10000 ** (-i / (k // 2)))
                out[pos, k // 2 + i] = math.cos(pos * 10000 ** (-i / (k // 2)))
        return out
    if key == "direct1":
        out = np.zeros((n, k))
        out[:, 0] = t
        return out
    if key == "directN":
        return np.repeat(t[:, None], k, 1)
    if key.startswith("linear"):
        return t[:, None] * p["w"] + p["b"]
    t[0] = 0.5 / n
    return p["mu"] + np.sqrt(np.abs(p["v"])) * scipy.special.ndtri(t[:, None])


@pytest.mark.parametrize("key", E.BLOG_KEYS)
def test_unit_tables_have_mean_norm_one_and_follow_the_formula(key):
    n, k = 40, 16
    m = E.build("unit_" + key, n, k, gen(11))
    blog_m = E.build(key, n, k, gen(11))                        # same generator: the same parameters
    for name, v in blog_m.params().items():
        torch.testing.assert_close(m.params()[name], v)
    got = m.table().detach().double().numpy()
    assert got.shape == (n, k) and np.isfinite(got).all()
    assert np.linalg.norm(got, axis=1).mean() == pytest.approx(1.0, abs=1e-5)
    raw = blog_raw(key, m.params(), n, k)
    want = raw / np.linalg.norm(raw, axis=1).mean()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    if key.startswith("normal"):
        mu, v = m.params()["mu"].detach().double().numpy(), m.params()["v"].detach().double().numpy()
        row0 = mu + np.sqrt(np.abs(v)) * scipy.special.ndtri(1 / (2 * n))
        np.testing.assert_allclose(got[0], row0 / np.linalg.norm(raw, axis=1).mean(), rtol=1e-5, atol=1e-6)
        assert np.isfinite(m.table(sentinel=float("nan")).detach().numpy()).all()
    assert "scale" in dict(m.named_buffers()) and "scale" not in dict(m.named_parameters())


@pytest.mark.parametrize("key", E.BLOG_KEYS)
def test_unit_learned_ones_train_through_the_model_fixed_ones_do_not(key):
    model = models.build(vocab_size=8, num_positions=8, core="gru", encoding="unit_" + key, hidden=16,
                         generator=gen(2))
    enc = model.encoding
    params = list(enc.parameters())
    assert bool(params) == key.endswith("_learned") == E.get("unit_" + key).learnable
    scale = enc.scale.clone()
    x = torch.randint(0, 8, (3, 8), generator=gen(5))
    model(x).logsumexp(-1).sum().backward()
    for p in params:
        assert p.requires_grad and p.grad is not None and p.grad.abs().sum() > 0
    if params:
        with torch.no_grad():
            params[0].add_(1.0)                                  # the table moves, the scale stays
        torch.testing.assert_close(enc.scale, scale)


def test_unit_direct_needs_two_positions():
    for key in ("unit_direct1", "unit_directN"):
        with pytest.raises(ValueError, match="all zeros"):
            E.build(key, 1, 4)
        E.build(key, 2, 4)


# --- onehot ---------------------------------------------------------------------------------------------------

def test_onehot_is_the_identity_and_needs_dim_at_least_positions():
    np.testing.assert_array_equal(E.build("onehot", 8, 8).table().numpy(), np.eye(8))
    np.testing.assert_array_equal(E.build("onehot", 5, 9).table().numpy(), np.eye(5, 9))
    with pytest.raises(ValueError, match=r"dim=8.*num_positions=9"):
        E.build("onehot", 9, 8)
    with pytest.raises(ValueError, match=r"dim=8.*num_positions=9"):
        models.check(8, 9, core="gru", encoding="onehot", hidden=8)            # embed None: embed = hidden
    with pytest.raises(ValueError, match=r"dim=4.*num_positions=9"):
        models.check(8, 9, core="gru", encoding="onehot", hidden=16, embed=4)
    models.check(8, 9, core="gru", encoding="onehot", hidden=16)
    models.check(8, 9, core="gru", encoding="onehot", hidden=4, embed=9)


@pytest.mark.parametrize("key,num_positions,embed", [("sinusoidal_low", 8, 2), ("sinusoidal_high", 8, 7),
                                                     ("sinusoidal_phase", 8, 5), ("unit_sincos", 8, 5),
                                                     ("unit_direct1", 1, 8), ("sinusoidal", 8, 5)])
def test_impossible_sizes_fail_in_models_check(key, num_positions, embed):
    with pytest.raises(ValueError):
        models.check(8, num_positions, core="gru", encoding=key, hidden=16, embed=embed)


# --- every new key in a model ---------------------------------------------------------------------------------

def test_beyond_keys_are_registered():
    assert E.KEYS == E.PAPER_KEYS + E.BLOG_KEYS + E.BEYOND_KEYS and len(E.BEYOND_KEYS) == 14
    assert set(E.BEYOND_KEYS) == {*BANDS, "sinusoidal_phase", "onehot", *("unit_" + k for k in E.BLOG_KEYS)}
    assert all(E.get(k).source == "penb" and E.get(k).description for k in E.BEYOND_KEYS)


@pytest.mark.parametrize("input_mode", ["concat", "add"])
@pytest.mark.parametrize("key", E.BEYOND_KEYS)
def test_every_new_key_runs_in_a_gru(key, input_mode):
    model = models.build(vocab_size=8, num_positions=8, core="gru", encoding=key, hidden=16,
                         input_mode=input_mode, generator=gen(0))
    x = torch.randint(0, 8, (2, 8), generator=gen(1))
    out = model(x)
    assert out.shape == (2, 8, 8) and torch.isfinite(out).all()
    assert model.input_vectors(x).shape == (2, 8, 32 if input_mode == "concat" else 16)

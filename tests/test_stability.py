"""Gradient stability: the similarity readings of Eq. 3-4 against plain loops and their invariants; the
latent Jacobians against central finite differences through PyTorch's own GRU/LSTM modules and the S4D
recurrence; the dual-frequency pairs' layout."""
import math

import pytest
import torch

from penb import runner
from penb import models
from penb.chapters.gradient_stability import similarity as st
from penb.tasks import make_task
from penb.trainer import load_model


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def rand_jac(shape=(5, 7), seed=0):
    """A Jacobian with rows of very different norms (so that the readings differ)."""
    J = torch.randn(*shape, dtype=torch.float64, generator=gen(seed))
    return J * torch.logspace(-1, 1, shape[0], dtype=torch.float64)[:, None]


# -- similarity -------------------------------------------------------------------------------------------
def loop_similarity(A, B, method):
    """Eq. 3-4 and the repairs written with Python floats, row by row."""
    A, B = A.tolist(), B.tolist()
    dot = [sum(x * y for x, y in zip(a, b)) for a, b in zip(A, B)]
    na = [math.sqrt(sum(x * x for x in a)) for a in A]
    nb = [math.sqrt(sum(x * x for x in b)) for b in B]
    if method == "printed":
        return sum(na[i] / sum(na) * nb[i] / sum(nb) * dot[i] for i in range(len(A)))
    if method == "weighted_rows":     # weighted mean of row cosines, weights a_i b_i (printed a_i)
        w = [na[i] / sum(na) * nb[i] / sum(nb) for i in range(len(A))]
        return sum(w[i] * dot[i] / (na[i] * nb[i]) for i in range(len(A))) / sum(w)
    if method == "frobenius":
        flat_a, flat_b = sum(A, []), sum(B, [])
        return (sum(x * y for x, y in zip(flat_a, flat_b))
                / math.sqrt(sum(x * x for x in flat_a) * sum(y * y for y in flat_b)))
    return sum(dot[i] / (na[i] * nb[i]) for i in range(len(A))) / len(A)


@pytest.mark.parametrize("method", st.METHODS)
def test_similarity_matches_plain_loop(method):
    for seed in range(3):
        A, B = rand_jac(seed=seed), rand_jac(seed=seed + 10)
        assert st.similarity(A, B, method) == pytest.approx(loop_similarity(A, B, method), rel=1e-12)


@pytest.mark.parametrize("method", ["weighted_rows", "frobenius", "mean_rows"])
def test_intended_readings_invariants(method):
    A, B = rand_jac(seed=1), rand_jac(seed=2)
    assert st.similarity(A, A, method) == pytest.approx(1.0, abs=1e-12)        # perfect alignment -> 1
    assert st.similarity(A, 3.7 * A, method) == pytest.approx(1.0, abs=1e-12)  # positive scale
    assert st.similarity(A, -A, method) == pytest.approx(-1.0, abs=1e-12)      # negation
    assert st.similarity(A, B, method) == pytest.approx(st.similarity(B, A, method), abs=1e-14)
    assert -1 <= st.similarity(A, B, method) <= 1


def test_printed_reading_is_not_one_and_scales():
    A = rand_jac(seed=3)
    n = torch.linalg.vector_norm(A, dim=1)
    closed = float((n ** 4).sum() / n.sum() ** 2)                    # sum |g_i|^4 / (sum |g_k|)^2
    assert st.similarity(A, A, "printed") == pytest.approx(closed, rel=1e-12)
    assert abs(closed - 1) > 0.1
    assert st.similarity(A, 2 * A, "printed") == pytest.approx(2 * closed, rel=1e-12)
    assert st.similarity(3 * A, 3 * A, "printed") == pytest.approx(9 * closed, rel=1e-12)


def test_weighted_rows_is_frobenius_over_alpha_beta():
    for seed in range(4):
        A, B = rand_jac(seed=seed), rand_jac(seed=seed + 20)
        alpha = torch.linalg.vector_norm(A, dim=1) / torch.linalg.matrix_norm(A)
        beta = torch.linalg.vector_norm(B, dim=1) / torch.linalg.matrix_norm(B)
        w, f = st.similarity(A, B, "weighted_rows"), st.similarity(A, B, "frobenius")
        assert w == pytest.approx(f / float((alpha * beta).sum()), rel=1e-12)
        assert abs(w) >= abs(f) - 1e-15
    A = rand_jac(seed=5)                                             # proportional row norms: equal
    B = rand_jac(seed=6)
    B = B / torch.linalg.vector_norm(B, dim=1, keepdim=True) * torch.linalg.vector_norm(A, dim=1, keepdim=True)
    assert st.similarity(A, B, "weighted_rows") == pytest.approx(st.similarity(A, B, "frobenius"), rel=1e-12)


def test_similarity_batch_equals_per_pair_and_edge_cases():
    Ja = torch.stack([rand_jac(seed=s) for s in range(4)])
    Jb = torch.stack([rand_jac(seed=s + 30) for s in range(4)])
    for m in st.METHODS:
        batch = st.similarity_batch(Ja, Jb, m)
        assert batch.shape == (4,) and batch.dtype == torch.float64
        assert torch.allclose(batch, torch.tensor([st.similarity(a, b, m) for a, b in zip(Ja, Jb)],
                                                  dtype=torch.float64), atol=1e-15)
        assert st.similarity(torch.zeros(3, 4), torch.ones(3, 4), m) == 0.0
    with pytest.raises(ValueError, match="unknown similarity"):
        st.similarity(Ja[0], Jb[0], "cosine")
    with pytest.raises(ValueError, match="one shape"):
        st.similarity_batch(Ja, Jb[:, :3])


# -- Jacobians against finite differences -----------------------------------------------------------------
V, L = 8, 5                     # T = 10


def tiny(core, seed=0):
    model = models.build(V, 2 * L, core=core, hidden=6, embed=4, s4d_state=4, generator=gen(seed),
                         dtype="float64").eval()
    if core == "s4d":                       # larger steps so that the modes rotate and decay visibly
        with torch.no_grad():
            model.core.ssm.kernel.log_dt.fill_(math.log(0.3))
    return model


def tokens(n=3, seed=1):
    return make_task("dual_frequency", V, L).render(torch.randint(V, (n, L), generator=gen(seed))).inputs


def reference_map(model, inputs, start, lstm_output="h", s4d_output="output"):
    """(z0 [P, S], g(z) -> out [P, D_out]) through PyTorch's nn.GRU/nn.LSTM or the S4D recurrence."""
    with torch.no_grad():
        x = model.input_vectors(inputs)
    if model.core.kind == "s4d":
        ssm = model.core.ssm
        u = model.core.in_proj(x)
        _, states = ssm.recurrence(u[:, :start + 1])
        z0 = torch.view_as_real(states[:, -1]).flatten(1)
        H = u.shape[-1]

        def g(z):
            y, _ = ssm.recurrence(u[:, start + 1:], torch.view_as_complex(z.reshape(len(z), H, -1, 2)))
            return y[:, -1] if s4d_output == "ssm" else ssm.head(y)[:, -1]
        # the reference itself reproduces the model's FFT forward pass at the unperturbed state
        assert torch.allclose(g(z0) if s4d_output == "output" else ssm.head(g(z0)[:, None])[:, 0],
                              model.features(inputs)[:, -1], atol=1e-10)
        return z0, g
    rnn = model.core.rnn
    _, state = rnn(x[:, :start + 1])
    H = rnn.hidden_size
    if model.core.kind == "gru":
        return state[0], lambda z: rnn(x[:, start + 1:], z[None].contiguous())[0][:, -1]
    z0 = torch.cat([state[0][0], state[1][0]], -1)

    def g(z):
        out, (h, c) = rnn(x[:, start + 1:], (z[None, :, :H].contiguous(), z[None, :, H:].contiguous()))
        return out[:, -1] if lstm_output == "h" else torch.cat([h[0], c[0]], -1)
    return z0, g


def finite_differences(z0, g, eps=1e-6):
    """Central differences: Tensor[P, D_out, D_in]."""
    cols = []
    with torch.no_grad():
        for j in range(z0.shape[1]):
            dz = torch.zeros_like(z0)
            dz[:, j] = eps
            cols.append((g(z0 + dz) - g(z0 - dz)) / (2 * eps))
    return torch.stack(cols, -1)


CASES = [("gru", {}, (6, 6)), ("lstm", {}, (6, 12)), ("lstm", {"lstm_output": "hc"}, (12, 12)),
         ("s4d", {}, (6, 24)), ("s4d", {"s4d_output": "ssm"}, (6, 24))]


@pytest.mark.parametrize("core,opts,shape", CASES)
@pytest.mark.parametrize("start", [0, 3])
def test_jacobian_matches_finite_differences(core, opts, shape, start):
    model, inputs = tiny(core), tokens()
    fd = finite_differences(*reference_map(model, inputs, start, **opts))
    variants = [{"engine": "chain"}, {"engine": "func"}, {"engine": "func", "mode": "jacfwd"}]
    for v in variants if core != "s4d" else variants[:1]:
        J = st.latent_jacobians(model, inputs, start, **opts, **v)
        assert J.shape == (3, *shape)
        assert torch.allclose(J, fd, atol=1e-8, rtol=1e-6), (v, (J - fd).abs().max())
    assert fd.abs().max() > 1e-3                                      # not a vacuous comparison


@pytest.mark.parametrize("core", st.CORES)
def test_batched_equals_per_sequence(core):
    model, inputs = tiny(core, seed=2), tokens(n=4, seed=3)
    J = st.latent_jacobians(model, inputs, 1)
    one = torch.cat([st.latent_jacobians(model, inputs[i:i + 1], 1) for i in range(4)])
    assert torch.allclose(J, one, atol=1e-13)
    assert torch.allclose(J, st.latent_jacobians(model, inputs, 1, chunk=3), atol=1e-13)


def test_s4d_pre_activation_jacobian_ignores_disturbants():
    """y_end is linear in the state: every pair scores 1 under s4d_output='ssm', not under 'output'."""
    task = make_task("dual_frequency", V, L)
    model, pairs = tiny("s4d", seed=4), st.make_pairs(task, 8, gen(5), target_position=1)
    ssm = st.pair_similarities(model, pairs, st.METHODS[:3], s4d_output="ssm")
    for v in ssm.values():
        assert torch.allclose(v, torch.ones_like(v), atol=1e-12)
    out = st.pair_similarities(model, pairs)["weighted_rows"]
    assert (out < 1 - 1e-9).all()


# -- pairs ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("position", [0, 3])
def test_pairs_layout(position):
    task = make_task("dual_frequency", 16, 8)
    pairs = st.make_pairs(task, 40, gen(7), target_position=position)
    a, b = pairs.a.inputs, pairs.b.inputs
    assert a.shape == b.shape == (40, 16) and len(pairs) == 40 and pairs.target_position == position
    assert (a[:, 8:] == task.command).all() and (b[:, 8:] == task.command).all()
    assert (a[:, :position + 1] == b[:, :position + 1]).all()         # shared prefix and target
    assert (a[:, position + 1:8] != b[:, position + 1:8]).any(1).all()  # different disturbants
    target, disturbants = pairs.conditions()
    tr, dr = pairs.a.info["target_rare"], pairs.a.info["disturbants_rare"]
    assert [(t, d) for t, d in zip(target, disturbants)] == \
        [(x, y) for x in st.LABELS for y in st.LABELS for _ in range(10)]
    rare = lambda t: t >= 8                                            # task.rare = 8..15
    assert list(task.rare) == list(range(8, 16))
    for seq in (a, b):
        assert (rare(seq[:, position]) == tr.bool()).all()
        others = torch.cat([seq[:, :position], seq[:, position + 1:8]], 1)
        assert (rare(others) == dr.bool()[:, None]).all()
    for batch, seq in ((pairs.a, a), (pairs.b, b)):                  # scored only at the target's output step
        scored = batch.targets != -100
        assert (scored.sum(1) == 1).all() and (scored.float().argmax(1) == 15 - position).all()
        assert (batch.targets[scored] == seq[:, position]).all()


def test_pairs_bad_input():
    task = make_task("dual_frequency", 16, 8)
    with pytest.raises(ValueError, match="multiple of 4"):
        st.make_pairs(task, 6, gen())
    with pytest.raises(ValueError, match="target_position"):
        st.make_pairs(task, 8, gen(), target_position=7)
    with pytest.raises(ValueError, match="dual_frequency"):
        st.make_pairs(make_task("reverse", 16, 8), 8, gen())
    model = tiny("gru")
    for kw in ({"engine": "autograd"}, {"mode": "hessian"}, {"lstm_output": "c"}, {"s4d_output": "state"}):
        with pytest.raises(ValueError, match="unknown"):
            st.latent_jacobians(model, tokens(), **kw)
    with pytest.raises(ValueError, match="start"):
        st.latent_jacobians(model, tokens(), start=9)
    assert st.default_target_position("gru", 64) == 0 and st.default_target_position("s4d", 64) == 22


# -- over checkpoints -------------------------------------------------------------------------------------
def test_stability_over_training_walks_checkpoints(tmp_path):
    cfg = dict(task="dual_frequency", vocab_size=8, length=4, core="gru", hidden=8, steps=2, batch_size=8,
               held_out=16, checkpoint_every=1, log_every=1, warmup=1, device="cpu")
    result = runner.run(cfg, store=tmp_path, progress=False)
    frame = st.stability_over_training(result, n_pairs=8, method=("weighted_rows", "printed"), progress=False)
    assert len(frame) == 2 * 2 * 4 and sorted(frame.step.unique()) == [1, 2]
    assert set(zip(frame.target, frame.disturbants)) == {(x, y) for x in st.LABELS for y in st.LABELS}
    assert (frame.n == 2).all() and (frame.core == "gru").all()
    task = make_task("dual_frequency", 8, 4)
    sims = st.pair_similarities(load_model(result, 1), st.make_pairs(task, 8, gen(0)))["weighted_rows"]
    got = frame[(frame.step == 1) & (frame.method == "weighted_rows")].similarity.to_numpy()
    assert torch.allclose(torch.tensor(got), sims.view(4, 2).mean(1), atol=1e-12)
    with pytest.raises(ValueError, match="unknown Jacobian option"):
        st.stability_over_training(result, n_pairs=8, engines="func", progress=False)
    with pytest.raises(ValueError, match="no checkpoint"):
        st.stability_over_training(result, n_pairs=8, steps=[5], progress=False)


def test_chain_engine_resolves_jacobians_below_float32_range():
    """A strongly contracting GRU (|J| ~ 1e-60 over 79 steps): float32 through torch.func underflows to 0,
    the chain engine's power-of-two rescaling keeps the similarities of the float64 computation."""
    task = make_task("dual_frequency", 8, 40)
    model = models.build(8, 80, core="gru", hidden=6, embed=4, generator=gen(8), dtype="float64").eval()
    with torch.no_grad():
        model.core.rnn.weight_hh_l0.mul_(0.2)
        model.core.rnn.bias_hh_l0[6:12] = -8.0                # update gate shut: h' ~ n, no carry-over
    pairs = st.make_pairs(task, 8, gen(9))
    ref = st.pair_similarities(model, pairs, ("weighted_rows", "printed"), engine="func")
    J = st.latent_jacobians(model, pairs.a.inputs, 0, engine="func")
    assert 0 < J.abs().max() < 1e-50                                 # far below float32's smallest value
    single = model.float()
    assert (st.latent_jacobians(single, pairs.a.inputs, 0, engine="func") == 0).all()
    got = st.pair_similarities(single, pairs, ("weighted_rows", "printed"))
    assert torch.allclose(got["weighted_rows"], ref["weighted_rows"], atol=1e-4)
    assert torch.allclose(got["printed"], ref["printed"], rtol=1e-3, atol=0)

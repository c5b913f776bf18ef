"""Tasks: layouts checked against plain-Python constructions, held-out exclusion, bad options."""
import math

import pytest
import torch

from penb.tasks import IGNORE, TASKS, make_task, row_keys
from tests.util import gen


def test_registry_keys():
    assert set(TASKS) == {"reverse", "sort", "reverse_add", "predecessor", "reverse_variable", "dual_frequency", "lm"}


@pytest.mark.parametrize("name, expected_output", [
    ("reverse", lambda x: x[::-1]),
    ("sort", lambda x: sorted(x)),
])
def test_reverse_and_sort_layout(name, expected_output):
    V, L = 7, 5
    b = make_task(name, vocab_size=V, length=L).sample(64, gen())
    assert b.inputs.shape == b.targets.shape == (64, 2 * L) and b.inputs.dtype == torch.long
    for inp, tgt in zip(b.inputs.tolist(), b.targets.tolist()):
        x = inp[:L]
        assert all(0 <= v < V for v in x)
        assert inp[L:] == [V] * L                                   # command token in the output phase
        assert tgt == [IGNORE] * L + list(expected_output(x))       # -100 in the input phase
    assert b.lengths.tolist() == [L] * 64


def test_reverse_example_from_paper():
    task = make_task("reverse", vocab_size=30, length=4)
    b = task.render(torch.tensor([[8, 29, 2, 11]]))
    assert b.inputs.tolist() == [[8, 29, 2, 11, 30, 30, 30, 30]]
    assert b.targets.tolist() == [[IGNORE] * 4 + [11, 2, 29, 8]]


def test_reverse_add_layout():
    V, L = 5, 4
    b = make_task("reverse_add", vocab_size=V, length=L).sample(64, gen())
    for inp, tgt in zip(b.inputs.tolist(), b.targets.tolist()):
        x, y = inp[:L], inp[L:]
        assert tgt[:L] == [IGNORE] * L
        assert tgt[L:] == [(x[L - 1 - i] + y[i]) % V for i in range(L)]


def test_predecessor_layout():
    V, L = 9, 6
    b = make_task("predecessor", vocab_size=V, length=L).sample(400, gen())
    assert b.inputs.shape == (400, L + 1)
    seen_q = set()
    for inp, tgt, q in zip(b.inputs.tolist(), b.targets.tolist(), b.info["query_index"].tolist()):
        x = inp[:L]
        assert len(set(x)) == L                                     # non-repeating
        assert 1 <= q <= L - 1 and inp[L] == x[q]                   # a non-initial token is queried
        assert tgt == [IGNORE] * L + [x[q - 1]]                     # its predecessor is the target
        seen_q.add(q)
    assert seen_q == set(range(1, L))


def test_variable_length_layout():
    V, L, lo = 6, 6, 3
    task = make_task("reverse_variable", vocab_size=V, length=L, min_length=lo)
    b = task.sample(300, gen())
    assert set(b.lengths.tolist()) == set(range(lo, L + 1))
    for inp, tgt, n in zip(b.inputs.tolist(), b.targets.tolist(), b.lengths.tolist()):
        x = inp[:n]
        assert all(0 <= v < V for v in x) and inp[n:] == [V] * (2 * L - n)
        assert tgt == [IGNORE] * n + x[::-1] + [IGNORE] * (2 * L - 2 * n)
    test = task.held_out(5, gen(1))
    assert sorted(test.lengths.tolist()) == sorted(list(range(lo, L + 1)) * 5)   # n per length


def test_dual_frequency_training_rarity():
    V, L = 10, 8
    b = make_task("dual_frequency", vocab_size=V, length=L).sample(4000, gen())
    x = b.inputs[:, :L]
    rare = (x >= V // 2).float().mean().item()
    n = x.numel()
    assert abs(rare - 1 / 8) < 5 * math.sqrt((1 / 8) * (7 / 8) / n)     # 5 sigma
    counts = torch.bincount(x.flatten(), minlength=V).float()
    ratio = counts[: V // 2].mean() / counts[V // 2:].mean()
    assert 6.0 < ratio < 8.2                                              # each FREQUENT ~7x each RARE


def test_dual_frequency_test_grid():
    V, L, per = 10, 4, 3
    task = make_task("dual_frequency", vocab_size=V, length=L)
    t = task.held_out(4 * L * per, gen())
    tr, dr, pos = t.info["target_rare"], t.info["disturbants_rare"], t.info["target_position"]
    cells = {}
    for i in range(len(t)):
        key = (int(tr[i]), int(dr[i]), int(pos[i]))
        cells[key] = cells.get(key, 0) + 1
        x = t.inputs[i, :L].tolist()
        p = key[2]
        assert (x[p] >= V // 2) == bool(key[0])
        assert all((v >= V // 2) == bool(key[1]) for j, v in enumerate(x) if j != p)
        scored = [(s, v) for s, v in enumerate(t.targets[i].tolist()) if v != IGNORE]
        assert scored == [(2 * L - 1 - p, x[p])]                          # only the target's output step
    assert cells == {(a, b, p): per for a in (0, 1) for b in (0, 1) for p in range(L)}
    with pytest.raises(ValueError, match="multiple of"):
        task.held_out(4 * L * per + 1, gen())


def test_held_out_never_trained_on():
    V, L = 2, 4                                       # 16 patterns, 12 held out: collisions are forced
    task = make_task("reverse", vocab_size=V, length=L)
    test = task.held_out(12, gen())
    held = {tuple(r) for r in test.inputs[:, :L].tolist()}
    assert len(held) == 12                            # held-out sequences are distinct
    seen = {tuple(r) for r in task.sample(2000, gen(1)).inputs[:, :L].tolist()}
    assert not seen & held
    assert len(seen) == 16 - 12                       # and every other pattern still occurs
    with pytest.raises(ValueError, match="cannot hold out"):
        task.held_out(16, gen())


@pytest.mark.parametrize("name, opts, n", [("reverse_variable", {"min_length": 2}, 5),
                                           ("dual_frequency", {}, 12), ("predecessor", {}, 10)])
def test_held_out_exclusion_other_tasks(name, opts, n):
    task = make_task(name, vocab_size=4, length=3, **opts)
    width = 3 if name == "dual_frequency" else task.num_steps   # dual: test rows differ in scoring only
    held = {tuple(r[:width]) for r in task.held_out(n, gen()).inputs.tolist()}
    seen = {tuple(r[:width]) for r in task.sample(3000, gen(1)).inputs.tolist()}
    assert len(seen) > 10 and not seen & held


def test_same_generator_state_same_batch():
    task = make_task("reverse", vocab_size=50, length=8)
    a, b = task.sample(16, gen(3)), task.sample(16, gen(3))
    assert torch.equal(a.inputs, b.inputs) and not torch.equal(a.inputs, task.sample(16, gen(4)).inputs)


def test_row_keys_distinguish_rows():
    rows = torch.cartesian_prod(*[torch.arange(5)] * 4)            # all 625 rows
    assert torch.unique(row_keys(rows)).numel() == 625


@pytest.mark.parametrize("name, kwargs, match", [
    ("reverse", dict(vocab_size=1, length=4), "vocab_size must be >= 2"),
    ("reverse", dict(vocab_size=4, length=0), "length must be >= 1"),
    ("nope", dict(vocab_size=4, length=4), "unknown task 'nope'"),
    ("reverse", dict(vocab_size=4, length=4, rarity=0.1), "unknown option"),
    ("predecessor", dict(vocab_size=3, length=4), "vocab_size >= length"),
    ("dual_frequency", dict(vocab_size=5, length=4), "even vocab_size"),
    ("dual_frequency", dict(vocab_size=6, length=4, rarity=1.5), "rarity"),
    ("reverse_variable", dict(vocab_size=6, length=4, min_length=5), "min_length"),
    ("reverse", dict(vocab_size=4.0, length=4), "must be an int"),
])
def test_bad_options_raise(name, kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_task(name, **kwargs)


@pytest.mark.parametrize("width", [1, 64, 150])
def test_row_keys_equal_the_python_polynomial_hash(width):
    M, bases = 2**31 - 1, (1_000_003, 998_244_353)
    rows = torch.randint(-1, 2**24, (4, width), generator=gen(width))
    for row, key in zip(rows.tolist(), row_keys(rows).tolist()):
        h = []
        for p in bases:
            acc = 0
            for v in row:
                acc = (acc * p + v + 2) % M
            h.append(acc)
        assert key == h[0] * M + h[1]

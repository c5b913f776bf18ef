"""The one trainer (penb.trainer, issue 48): a run inside a batch is the run trained alone.

Each run of a batch that mixes vocabulary sizes, encodings (sinusoidal, none, [emb, emb]), budgets and seeds is
checked against the same run trained alone with its own ``nn.GRU``/``nn.LSTM`` module (the ``module`` kernel): its
logits and gradients on one batch, its data, and its weights and losses over a few hundred updates, in fp64. The
two paths share only the loss and Adam (the stacked cores are checked against the modules in test_stacked.py, Adam
against torch.optim.Adam in test_train.py), so a run's padding, masking, slot or schedule going wrong would show as
a difference of order 1e-3 or more, against the 1e-7 allowed (fp64 rounding over other GEMM shapes: ~1e-15 seen;
the cross-entropy is taken in fp32, whose rounding reaches the gradients: up to 2e-9 after 200 updates).
"""
import pytest
import torch

from penb.tasks import IGNORE
from penb.trainer import Trainer, data, group_key, kernels
from penb.trainer.update import losses

TINY = dict(vocab_size=6, length=4, hidden=12, batch_size=8, steps=40, warmup=5, lr=1e-2, held_out=8,
            checkpoint_every=1000, log_every=10, device="cpu", core="gru", dtype="float64")
MIX = [TINY, {**TINY, "vocab_size": 9, "seed": 5, "lr": 3e-2}, {**TINY, "encoding": "none", "steps": 25},
       {**TINY, "vocab_size": 4, "input_mode": "double", "encoding": "none", "schedule": "wsd", "steps": 30},
       {**TINY, "encoding": "sinusoidal", "input_mode": "add", "seed": 9, "clip": 0.1}]


def rel(a, b):
    return ((a - b).abs().max() / b.abs().max().clamp(min=1e-30)).item()


def weights(model):
    return {n: p.detach() for n, p in model.named_parameters()}


@pytest.mark.parametrize("core", ["gru", "lstm"])
def test_a_batch_computes_each_runs_logits_and_gradients(core):
    mix = [{**c, "core": core} for c in MIX]
    batch = Trainer(mix, kernel="stacked", compile="never")
    batch._pack()
    b = batch.batch
    inputs, targets = b.feed.next([0] * len(mix))
    logits = b.kernel.logits(b.kernel.params, inputs)                        # [K, B, S, V_max]
    loss, _ = losses(logits, targets)
    grads = torch.autograd.grad(loss.sum(), b.kernel.params)
    for j, c in enumerate(mix):
        alone = Trainer(c)
        V, s0 = c["vocab_size"], alone.task.scored_from
        want = alone.model(inputs[j])[:, s0:]                                # the module's forward, [B, S, V]
        assert rel(logits[j, ..., :V], want) < 1e-12
        assert (logits[j, ..., V:] == float("-inf")).all()                   # past its own vocabulary
        mask = targets[j] != IGNORE
        ref = torch.nn.functional.cross_entropy(want[mask].float(), targets[j][mask])
        ref.backward()
        for n, g in zip(b.kernel.names, grads):
            own = dict(alone.model.named_parameters())[n].grad
            assert rel(g[b.kernel.view(j)[n]], own) < 1e-6, n                 # fp32 cross-entropy in both
            rest = g[j].clone()
            rest[b.kernel.view(j)[n][1:]] = 0
            assert not rest.any(), n                                          # padding gets no gradient


def test_a_run_trained_in_a_mixed_batch_is_the_run_trained_alone():
    batch = Trainer([{**c, "steps": c["steps"] * 5} for c in MIX], kernel="stacked", compile="never")
    out = batch.run(progress=False)
    assert set(out.values()) == {"done"}
    for j, c in enumerate(MIX):
        alone = Trainer({**c, "steps": c["steps"] * 5})
        alone.run(progress=False)
        assert [h["step"] for h in batch.runs[j].history] == [h["step"] for h in alone.history]
        assert [h["loss"] for h in batch.runs[j].history] == pytest.approx([h["loss"] for h in alone.history],
                                                                           rel=1e-6)   # fp32 cross-entropy
        mine, theirs = weights(batch.runs[j].model), weights(alone.model)
        assert all(rel(mine[n], theirs[n]) < 1e-7 for n in theirs), j
        assert batch.runs[j].step == c["steps"] * 5


def test_a_runs_data_do_not_depend_on_its_batch_or_its_start():
    runs = Trainer(MIX[:3], kernel="stacked", compile="never").runs
    feed = data.Feed([r.task for r in runs], [r.config["seed"] for r in runs], 8, runs[0].task.scored_from,
                     torch.device("cpu"))
    for steps in ([0, 0, 0], [15, 15, 15], [16, 3, 40], [17, 4, 41]):    # across blocks, runs at other updates
        inputs, targets = feed.next(steps)
        for j, (r, s) in enumerate(zip(runs, steps)):
            alone = data.batch_at(r.task, r.config["seed"], s, 8, torch.device("cpu"))
            assert torch.equal(inputs[j], alone.inputs) and torch.equal(targets[j], alone.targets[:, r.task.scored_from:])
    other = data.batch_at(runs[0].task, runs[0].config["seed"], 1, 8, torch.device("cpu"))
    assert not torch.equal(other.inputs, data.batch_at(runs[0].task, runs[0].config["seed"], 0, 8,
                                                       torch.device("cpu")).inputs)
    held = set(map(tuple, runs[0].test.inputs.tolist()))
    block = data.block(runs[0].task, runs[0].config["seed"], 0, 8, torch.device("cpu"))
    assert not held & set(map(tuple, block.inputs.tolist()))                # held-out rows never train


def test_a_diverging_batch_mate_changes_nothing_of_the_others():
    def trained(blow):              # one budget: the batch keeps its shape (packing anew would change the rounding)
        t = Trainer([MIX[0], MIX[1], {**MIX[2], "steps": 40}], kernel="stacked", compile="never")
        if blow:
            with torch.no_grad():
                t.runs[1].model.readout.weight[0, 0] = float("nan")         # run 1's first loss is NaN
        t.run(progress=False)
        return t

    clean, dirty = trained(False), trained(True)
    assert isinstance(dirty.runs[1].outcome, Exception) and dirty.runs[1].outcome.step == TINY["log_every"]
    for j in (0, 2):
        assert dirty.runs[j].outcome == "done"
        assert all(torch.equal(a, b) for a, b in zip(weights(dirty.runs[j].model).values(),
                                                      weights(clean.runs[j].model).values()))
        assert dirty.runs[j].history == clean.runs[j].history


def test_a_killed_batch_resumes_where_it_stopped(tmp_path):
    configs = [{**c, "checkpoint_every": 10} for c in MIX[:3]]
    straight = Trainer(configs, kernel="stacked", compile="never")
    straight.run(progress=False)

    dirs = [tmp_path / str(j) for j in range(3)]

    def kill(t):
        if t.runs[0].step == 23:
            raise KeyboardInterrupt

    first = Trainer(configs, dirs, kernel="stacked", compile="never")
    with pytest.raises(KeyboardInterrupt):
        first.run(callback=kill, progress=False)
    again = Trainer(configs, dirs, kernel="stacked", compile="never")
    again.run(progress=False)
    for a, b in zip(again.runs, straight.runs):
        assert a.history == b.history
        assert all(torch.equal(x, y) for x, y in zip(weights(a.model).values(), weights(b.model).values()))


def test_what_may_share_a_batch():
    base = {**TINY, "dtype": "float32"}
    assert group_key(base) == group_key({**base, "seed": 3, "vocab_size": 30, "encoding": "none", "steps": 7})
    assert group_key(base) != group_key({**base, "hidden": 8})
    with pytest.raises(ValueError, match="a batch takes"):
        Trainer([base, {**base, "hidden": 8}])
    with pytest.raises(ValueError, match="a batch takes"):
        Trainer([base, {**base, "core": "s4d"}])
    with pytest.raises(ValueError, match="unknown kernel"):
        Trainer(base, kernel="packed")
    assert kernels.stackable(Trainer(base).config) and not kernels.stackable(Trainer({**base, "core": "s4d"}).config)


@pytest.mark.slow
def test_the_stacked_update_compiles_whole():
    """torch.compile(fullgraph=True) of the whole update (forward, backward, per-run clipping, Adam): any graph
    break raises. The compiled batch agrees with the eager one (fp32, other fused kernels: ~3e-7 seen)."""
    mix = [{**c, "dtype": "float32", "steps": 12} for c in MIX[:3]]
    compiled = Trainer(mix, kernel="stacked", compile="always")
    compiled.run(progress=False)
    eager = Trainer(mix, kernel="stacked", compile="never")
    eager.run(progress=False)
    assert compiled.compile_s > 0
    for a, b in zip(compiled.runs, eager.runs):
        assert all(rel(x, y) < 1e-5 for x, y in zip(weights(a.model).values(), weights(b.model).values()))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA (the CPU runs the same checks above)")
@pytest.mark.parametrize("compile", ["never", "always"])
def test_on_cuda_a_batch_run_is_the_run_alone(compile):
    """On a GPU (fp32, cuDNN for the run alone; the batch eager or captured as a CUDA graph): weights after 40
    updates within 1e-4 relative (cuDNN and TF32-free GEMMs of other shapes; a wrong slot differs by 1e-1)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    mix = [{**c, "device": "cuda", "dtype": "float32"} for c in MIX]
    batch = Trainer(mix, kernel="stacked", compile=compile)
    batch.run(progress=False)
    for j, c in enumerate(mix):
        alone = Trainer(c)
        alone.run(progress=False)
        mine, theirs = weights(batch.runs[j].model), weights(alone.model)
        assert all(rel(mine[n], theirs[n]) < 1e-4 for n in theirs), j


def test_a_batched_sweep_stores_what_one_run_at_a_time_stores(tmp_path, monkeypatch):
    """A sweep through the batched executor (GRU runs of two vocabularies and both encodings, each at N and at N/2
    of one WSD trunk, beside an S4D that cannot share a batch) stores every run as the one-at-a-time sweep does: the
    same keys, histories and held-out predictions (fp64: to rounding), the N/2 runs branched off their trunk."""
    import numpy as np

    from penb import sweeps
    from penb.executors import LocalExecutor
    from penb.executors import batched as batched_executor

    base = {**TINY, "steps": 40, "schedule": "wsd", "log_every": 5}
    configs = [{**base, "vocab_size": v, "encoding": e, "steps": n}
               for v in (6, 9) for e in ("sinusoidal", "none") for n in (40, 20)]
    configs.append({**base, "core": "s4d", "steps": 20})
    from penb.trainer import policy

    monkeypatch.setattr(policy, "batch_pays", lambda configs, to_go, when="auto": len(configs) > 1)  # batch these too
    plan = batched_executor.schedule(sweeps.runs.settle(configs), 64)
    assert [[len(g) for g in s] for s in plan] == [[4, 1], [4]]       # N's four GRUs, the S4D; then the four N/2
    one = sweeps.sweep(configs, LocalExecutor(), store=tmp_path / "one", progress=False)
    many = sweeps.sweep(configs, batched_executor.BatchedExecutor(64), store=tmp_path / "many", progress=False)
    for a, b in zip(one, many):
        assert a.key == b.key and [h["step"] for h in a.history] == [h["step"] for h in b.history]
        assert [h["loss"] for h in a.history] == pytest.approx([h["loss"] for h in b.history], rel=1e-5)
        pa, pb = (np.load(r.path / "predictions.npz") for r in (a, b))
        assert np.array_equal(pa["targets"], pb["targets"]) and (pa["predictions"] == pb["predictions"]).mean() > 0.99
    trunk_dirs = list((tmp_path / "many" / "_trunks").iterdir())
    assert trunk_dirs and all(any(d.glob("step-*.pt")) for d in trunk_dirs)
    assert sorted(r.result.get("batched", {}).get("runs", 1) for r in many) == [1] + [4] * 8


def test_the_cpu_batches_a_small_lstm_in_parts_of_at_most_eight_and_a_large_one_not_at_all():
    """penb.executors.batched.schedule on the CPU (penb.trainer.policy): the GRU's runs of one shape in one batch;
    the LSTM's at hidden 64 in the fewest parts of at most 8 and of even size (its gain peaks at 4-8 runs); the LSTM's
    at hidden 128 one at a time; none below 4 runs."""
    from penb import sweeps
    from penb.executors import batched as batched_executor

    def sizes(n, **more):
        configs = [{**TINY, "steps": 400, "seed": s, **more} for s in range(n)]
        return sorted(len(g) for g in batched_executor.schedule(sweeps.runs.settle(configs), 64)[0])

    assert sizes(15, core="gru") == [15]
    assert sizes(15, core="lstm", hidden=64) == [7, 8] and sizes(9, core="lstm", hidden=64) == [4, 5]
    assert sizes(17, core="lstm", hidden=64) == [5, 6, 6] and sizes(3, core="lstm", hidden=64) == [1, 1, 1]
    assert sizes(9, core="lstm", hidden=128) == [1] * 9


def test_a_cpu_lstm_batch_that_would_leave_a_core_idle_trains_its_runs_alone():
    """penb.executors.batched.spread: with 2 worker processes, a stage whose only group is a batch of 6 small LSTMs
    (1.24x on one core) trains them alone over both cores (3 run-times against 6 / 1.24 = 4.8); with one process, or
    where other batches fill the second core, it stays a batch; a GRU batch (2.3x) always stays one."""
    from penb import sweeps
    from penb.executors import batched as batched_executor

    def sizes(configs, workers):
        return [sorted(len(g) for g in stage)
                for stage in batched_executor.schedule(sweeps.runs.settle(configs), 64, workers)]

    def cell(n, **more):
        return [{**TINY, "steps": 400, "seed": s, **more} for s in range(n)]

    lstm = cell(6, core="lstm")
    assert sizes(lstm, 2) == [[1] * 6] and sizes(lstm, 1) == [[6]]
    assert sizes(cell(6, core="gru"), 2) == [[6]]
    # two cells of 6 (one is another task: another batch): 4.8 a core batched against 6 alone
    both = lstm + cell(6, core="lstm", task="sort")
    assert sizes(both, 2) == [[6, 6]]


def _record_group(path, group):
    """A pool job: append the group's core and size to ``path`` (one worker: in the order the pool took them)."""
    with open(path, "a") as f:
        f.write(f"{group[0]['core']}:{len(group)}\n")
    return len(group)


def test_the_batched_pool_deals_groups_by_their_cost_over_the_measured_gain(tmp_path):
    """BatchedExecutor's pool takes a stage's groups in the order penb.executors.batched.makespan assumes: a group's
    runs' cost over its core's measured CPU gain (GRU 2.3x, LSTM 1.24x). 10 GRUs (10 / 2.3 = 4.35 run-times) come
    after 6 LSTMs (6 / 1.24 = 4.84), though their raw cost is larger, and a lone run after both."""
    from functools import partial

    from penb.executors import ProcessExecutor, _cost
    from penb.executors import batched as batched_executor

    run = {"steps": 400, "batch_size": 8, "length": 16, "hidden": 64}
    gru, lstm, one = [dict(run, core="gru")] * 10, [dict(run, core="lstm")] * 6, [dict(run, core="lstm")]
    c = _cost(run)
    assert [batched_executor.group_cost(g) / c for g in (gru, lstm, one)] == pytest.approx([10 / 2.3, 6 / 1.24, 1])
    assert batched_executor.makespan([gru, lstm, one], 2) / c == pytest.approx(10 / 2.3 + 1)
    out = tmp_path / "order.txt"
    assert ProcessExecutor(1, 1, cost=batched_executor.group_cost).map(
        partial(_record_group, str(out)), [one, gru, lstm]) == [1, 10, 6]
    assert out.read_text().split() == ["lstm:6", "gru:10", "lstm:1"]


def test_one_place_changes_weights():
    """penb has one training loop: gradients are taken and Adam applied only in penb/trainer/update.py (no
    torch.optim, no .backward() anywhere in the package)."""
    import re
    from pathlib import Path

    import penb

    root = Path(penb.__file__).parent
    found = {str(f.relative_to(root)): pat for f in root.rglob("*.py") for pat in
             (r"torch\.optim\b", r"\.backward\(", r"autograd\.grad\(", r"grad_and_value\(", r"\badam_\(")
             if re.search(pat, f.read_text())}
    assert set(found) == {"trainer/update.py", "trainer/adam.py"}, found
    assert re.findall(r"\badam_\(", (root / "trainer" / "update.py").read_text()) == ["adam_("]


def test_a_run_with_a_bad_update_since_its_last_log_saves_no_checkpoint_or_branch_point(tmp_path):
    """A NaN between two logs: the run's checkpoints and its trunk's branch points are not written (a shorter
    budget would otherwise resume from non-finite weights); its next log ends it as diverged."""
    cfg = {**TINY, "steps": 40, "schedule": "wsd", "log_every": 40, "checkpoint_every": 10}
    t = Trainer(cfg)
    with torch.no_grad():
        t.model.readout.weight[0, 0] = float("nan")
    t.run(tmp_path / "run", progress=False, trunk=tmp_path / "trunk")
    assert isinstance(t.runs[0].outcome, Exception)
    assert not list((tmp_path / "run").rglob("*.pt")) and not list((tmp_path / "trunk").rglob("*.pt"))
    healthy = Trainer({**cfg, "seed": 4})
    healthy.run(tmp_path / "run2", progress=False, trunk=tmp_path / "trunk2")
    assert len(list((tmp_path / "run2").rglob("*.pt"))) == 4 and list((tmp_path / "trunk2").glob("*.pt"))

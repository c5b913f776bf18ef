"""Training: schedule in closed form, optimiser settings, clipping, determinism, learning, bad configs."""
import math

import numpy as np
import pytest
import torch

from penb.metrics import summarize
from penb.run_config import DEFAULTS, derive_seed, normalize
from penb.trainer import build_model, Trainer
from penb.tasks import IGNORE

TINY = dict(vocab_size=6, length=3, hidden=16, batch_size=16, steps=12, warmup=4, held_out=8,
            checkpoint_every=4, log_every=3, device="cpu", seed=1)


def test_schedule_warmup_then_cosine_to_zero():
    t = Trainer({**TINY, "steps": 1000, "warmup": 100, "lr": 2e-3})
    assert t.lr_at(0) == 0.0
    assert t.lr_at(50) == pytest.approx(1e-3)
    assert t.lr_at(100) == pytest.approx(2e-3)
    assert t.lr_at(550) == pytest.approx(1e-3)                       # half-way through the cosine
    assert t.lr_at(100 + 900 // 3) == pytest.approx(2e-3 * (1 + math.cos(math.pi / 3)) / 2)
    assert t.lr_at(1000) == pytest.approx(0.0, abs=1e-15)


def test_optimiser_settings_and_betas_parameter():
    t = Trainer(TINY)
    assert t.config["betas"] == (0.9, 0.98) and t.config["eps"] == 1e-9 and t.config["weight_decay"] == 0.0  # official
    assert DEFAULTS["lr"] == 1e-3 and DEFAULTS["warmup"] == 1000 and DEFAULTS["clip"] == 1.0
    assert Trainer({**TINY, "betas": (0.9, 0.999)}).config["betas"] == (0.9, 0.999)


@pytest.mark.parametrize("core", ["gru", "s4d"])
def test_updates_are_torch_adam_after_clip_grad_norm(core):
    """The run's first updates against torch.optim.Adam after clip_grad_norm_ (a clip small enough to act), on a
    copy of the model fed the same batches (penb.trainer.data.batch_at) at the schedule's rates: an independent
    optimiser and clipping. The S4D's complex parameters go through Adam as their real views, as torch's do."""
    from penb.trainer import data

    cfg = {**TINY, "core": core, "dtype": "float64", "clip": 0.05, "warmup": 2, "lr": 3e-2}
    t = Trainer(cfg)
    ref = build_model(t.config)
    opt = torch.optim.Adam(ref.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
    s0 = t.task.scored_from
    for step in range(6):
        b = data.batch_at(t.task, cfg["seed"], step, cfg["batch_size"], torch.device("cpu"))
        logits = ref(b.inputs)[:, s0:]
        mask = b.targets[:, s0:] != IGNORE
        loss = torch.nn.functional.cross_entropy(logits[mask].float(), b.targets[:, s0:][mask])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(ref.parameters(), cfg["clip"])
        for g in opt.param_groups:
            g["lr"] = t.lr_at(step)
        opt.step()
        t.train_step()
    for (n, p), q in zip(t.model.named_parameters(), ref.parameters()):
        assert torch.allclose(p, q, rtol=1e-7, atol=1e-10), n


def test_loss_is_mean_cross_entropy_over_scored_steps():
    t = Trainer(TINY)
    batch = t.task.sample(4, torch.Generator().manual_seed(0))
    loss, _ = t.loss(batch)
    logits = t.model(batch.inputs)                                     # [B, T, V]
    total, count = 0.0, 0
    for b in range(4):
        for s in range(batch.targets.shape[1]):
            y = int(batch.targets[b, s])
            if y != IGNORE:
                total += -torch.log_softmax(logits[b, s], -1)[y].item()
                count += 1
    assert count == 4 * TINY["length"] and loss.item() == pytest.approx(total / count, rel=1e-5)


@pytest.mark.parametrize("core", ["gru", "lstm", "s4d"])
def test_same_seed_bit_identical_other_seed_different(core):
    def weights(seed):
        t = Trainer({**TINY, "core": core, "seed": seed})
        for _ in range(5):
            t.train_step()
        return torch.cat([p.detach().flatten() for p in t.model.parameters()])

    a, b, c = weights(1), weights(1), weights(2)
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_streams_are_independent_of_each_other():
    assert len({derive_seed(111, s) for s in ("model", "test", "train")}) == 3
    t1, t2 = Trainer(TINY), Trainer({**TINY, "held_out": 16})
    w1 = [p.detach().clone() for p in t1.model.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(w1, t2.model.parameters()))     # init ignores the test set


def test_a_tiny_model_learns_to_reverse():
    cfg = dict(vocab_size=5, length=3, hidden=32, batch_size=64, steps=300, warmup=10, lr=1e-2,
               held_out=16, device="cpu", core="gru", checkpoint_every=1000, log_every=50)
    t = Trainer(cfg)
    t.run(progress=False)
    assert t.history[-1]["accuracy"] >= 0.95 and t.history[-1]["loss"] < t.history[0]["loss"] / 10
    assert summarize(t.evaluate())["token_accuracy"] >= 0.6        # unseen sequences; chance 0.2


@pytest.mark.parametrize("task, options, core, n", [("reverse_variable", {"min_length": 2}, "lstm", 2),
                                                    ("dual_frequency", {}, "s4d", 12),
                                                    ("predecessor", {}, "gru", 8),
                                                    ("reverse_add", {}, "lstm", 8),
                                                    ("sort", {}, "gru", 8)])
def test_every_task_trains_and_evaluates(task, options, core, n):
    t = Trainer({**TINY, "task": task, "task_options": options, "core": core, "held_out": n, "steps": 3})
    t.run(progress=False)
    pred = t.evaluate(max_logits=50)                                        # several evaluation chunks
    assert pred["predictions"].shape == pred["targets"].shape == pred["inputs"].shape
    scored = pred["targets"] != IGNORE
    assert np.array_equal(pred["predictions"] == IGNORE, ~scored)
    assert (pred["predictions"][scored] >= 0).all() and (pred["predictions"][scored] < TINY["vocab_size"]).all()
    if task == "dual_frequency":
        assert {"target_rare", "disturbants_rare", "target_position"} <= set(pred)


@pytest.mark.parametrize("change, match", [
    (dict(bogus=1), "unknown run field"),
    (dict(steps=0), "'steps' must be >= 1"),
    (dict(core="rnn"), "unknown core"),
    (dict(encoding="rope"), "unknown positional encoding"),
    (dict(task="copy"), "unknown task"),
    (dict(vocab_size=1), "vocab_size must be >= 2"),
    (dict(length=0), "length must be >= 1"),
    (dict(amp="fp8"), "unknown amp"),
    (dict(betas=(0.9, 1.0)), "betas"),
    (dict(vocab_size=None), "must be an int"),
    (dict(vocab_size=2, held_out=8), "cannot hold out"),
])
def test_bad_config_raises(change, match):
    with pytest.raises(ValueError, match=match):
        normalize({**TINY, **change})


def test_cuda_and_bf16_refused_without_cuda(monkeypatch):
    """No CUDA: a CUDA device is refused; bf16 on the CPU is refused unless the CPU has AMX. The machine is
    taken to have no CUDA and then no AMX, then AMX, whatever it has."""
    from penb import device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="CUDA is not available"):
        normalize({**TINY, "device": "cuda"})
    monkeypatch.setattr(device, "cpu_bf16_native", lambda: False)
    with pytest.raises(ValueError, match="bf16"):
        normalize({**TINY, "amp": "bf16"})
    monkeypatch.setattr(device, "cpu_bf16_native", lambda: True)
    assert normalize({**TINY, "amp": "bf16"})["amp"] == "bf16"

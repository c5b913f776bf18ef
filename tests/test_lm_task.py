"""The ``lm`` task: windows are contiguous paragraph text, padding and unknown pieces are never scored,
the held-out set is the test split's first tokens, perplexity agrees with tests/lm_reference.py's independent sum."""
import math

import numpy as np
import pytest
import torch

from penb import runner
from penb import corpus
from penb.run_config import normalize
from tests import lm_reference as lm
from penb.tasks import IGNORE, make_task
from penb.tokenizer import train_tokenizer
from penb.trainer import load_model

V, T = 128, 12


@pytest.fixture(scope="module")
def text():
    """The training and test paragraphs tokenised directly (not through the task)."""
    valid, test = corpus.load_split("wikitext-2", "valid"), corpus.load_split("wikitext-2", "test")
    tok = train_tokenizer(valid, V)
    return tok, tok.encode_all(valid.paragraphs), tok.encode_all(test.paragraphs)


def windows(batch, task):
    """Rows of the batch as token lists: the real inputs followed by the last input's target."""
    out = []
    for inp, tgt, n in zip(batch.inputs.tolist(), batch.targets.tolist(), batch.lengths.tolist()):
        assert all(t == task.command for t in inp[n:]) and all(t == IGNORE for t in tgt[n:])     # padding
        out.append((inp[:n], tgt[:n]))
    return out


@pytest.mark.parametrize("crop", ["start", "random"])
def test_training_windows_are_contiguous_paragraph_text(text, crop):
    tok, train_ids, _ = text
    task = make_task("lm", V, T, crop=crop)
    batch = task.sample(48, torch.Generator().manual_seed(0))
    assert batch.inputs.shape == (48, T) and task.num_steps == T
    joined = [" ".join(map(str, p)) for p in train_ids]
    for inp, tgt in windows(batch, task):
        assert len(inp) >= 1
        for t in range(len(inp) - 1):                                    # targets are the next inputs
            assert tgt[t] in (inp[t + 1], IGNORE)
        assert all(t != tok.unk_id for t in tgt)                          # SentencePiece's unknown is never scored
        if tgt[-1] == IGNORE:
            continue
        w = " ".join(map(str, inp + [tgt[-1]]))
        if crop == "start":
            assert any(p == w or p.startswith(w + " ") for p in joined)
        else:
            assert any(f" {w} " in f" {p} " for p in joined)
            assert len(inp) == T or any(p.endswith(w) for p in joined)   # short only at a paragraph's end


def test_random_crop_reaches_past_the_start(text):
    _, train_ids, _ = text
    task = make_task("lm", V, T, crop="random")
    batch = task.sample(64, torch.Generator().manual_seed(1))
    starts = {tuple(p[:T]) for p in train_ids}
    assert sum(tuple(row) not in starts for row in batch.inputs.tolist()) > 32


def test_held_out_is_the_first_tokens_of_evenly_spread_test_paragraphs(text):
    tok, _, test_ids = text
    usable = [p for p in test_ids if len(p) >= 2]
    task = make_task("lm", V, T)
    assert task.test_paragraphs == len(usable)
    n = 50
    batch = task.held_out(n, torch.Generator())
    for i, (inp, tgt) in enumerate(windows(batch, task)):
        para = usable[i * len(usable) // n]
        assert inp == para[:min(len(para) - 1, T)]
        assert [t for t in tgt if t != IGNORE] == [t for t in para[1:T + 1] if t != tok.unk_id]
    assert len(set(batch.info["paragraph"].tolist())) == n
    everything = task.held_out(task.test_paragraphs, torch.Generator())
    assert len(everything) == len(usable)
    with pytest.raises(ValueError, match="usable paragraphs"):
        task.check_held_out(len(usable) + 1)


def test_bos_mark_precedes_each_window(text):
    tok, _, test_ids = text
    usable = [p for p in test_ids if len(p) >= 2]
    task = make_task("lm", V, T, bos=True)
    batch = task.held_out(30, torch.Generator())
    for i, (inp, tgt) in enumerate(windows(batch, task)):
        para = usable[i * len(usable) // 30][:T]                               # T tokens of text per row
        assert inp == [V] + para[:-1] and len(inp) == len(para)
        assert [t for t in tgt if t != IGNORE] == [t for t in para if t != tok.unk_id]
    train_batch = task.sample(16, torch.Generator().manual_seed(2))
    assert (train_batch.inputs[:, 0] == V).all() and (train_batch.targets[:, 0] != V).all()


def test_sampling_is_reproducible():
    task = make_task("lm", V, T, crop="random")
    a, b = (task.sample(8, torch.Generator().manual_seed(5)) for _ in range(2))
    assert torch.equal(a.inputs, b.inputs) and torch.equal(a.targets, b.targets)


def test_perplexity_agrees_with_an_independent_sum(text, tmp_path):
    tok, _, test_ids = text
    cfg = dict(task="lm", vocab_size=V, length=T, core="transformer", layers=1, heads=2, hidden=16, steps=3,
               batch_size=8, warmup=1, held_out=40, checkpoint_every=3, log_every=1, device="cpu")
    result = runner.run(cfg, store=tmp_path, progress=False)
    pred = result.predictions()
    assert pred["nll"].shape == (40,) and np.isfinite(pred["nll"]).all()
    usable = [p for p in test_ids if len(p) >= 2]
    seqs = [usable[i * len(usable) // 40][:T + 1] for i in range(40)]       # tokenised here, not by the task
    ev = lm.evaluate(load_model(result), seqs, batch_size=7, pad_id=V, ignore_ids=[tok.unk_id])
    assert result.metrics["n_tokens"] == ev.n_tokens
    assert result.metrics["perplexity"] == pytest.approx(ev.perplexity, rel=1e-5)
    assert result.metrics["perplexity"] == pytest.approx(math.exp(pred["nll"].sum() / ev.n_tokens), rel=1e-12)
    assert 1 < result.metrics["perplexity"] < 2 * V                          # 3 updates: near uniform, not worse


@pytest.mark.parametrize("options, match", [
    (dict(crop="middle"), "unknown crop"),
    (dict(train_split="test"), "must differ"),
    (dict(corpus="ptb"), "unknown corpus"),
    (dict(ignore_unk=1), "True or False"),
    (dict(window=3), "unknown option"),
])
def test_bad_options_raise(options, match):
    with pytest.raises(ValueError, match=match):
        make_task("lm", V, T, **options)


def test_bad_run_configs_raise():
    with pytest.raises(ValueError, match="must be >= 8"):
        normalize({"task": "lm", "vocab_size": 4, "length": T})
    with pytest.raises(ValueError, match="usable paragraphs"):
        normalize({"task": "lm", "vocab_size": V, "length": T, "held_out": 10**6})

"""The language-modelling appendix chapter (Morita App. E): presets -> runs, perplexity summary, missing corpus.

Numbers are checked against the paper's printed settings and Table 1, hand computations (math.exp of
summed nats), and a plain re-evaluation of a trained model by ``tests.lm_reference.evaluate`` (its own batching).
"""
import math
import sys

import pandas as pd
import pytest
import torch

from penb import corpus, presets, runs
from penb.chapters.lm_appendix import analysis as lm_appendix
from penb.tasks import lm as lm_task
from tests import lm_reference as lm
from penb.tasks import make_task


@pytest.fixture
def fresh_data_cache():
    """``penb.tasks.lm.load_data`` caches per process by corpus name; the tests change where corpora live."""
    lm_task.load_data.cache_clear()
    yield
    lm_task.load_data.cache_clear()


# ---------------------------------------------------------------- presets and run configurations

def test_paper_preset_expands_to_the_published_runs():
    cfg = presets.resolve("lm_appendix", "paper")
    configs = lm_appendix.run_configs(cfg, test_paragraphs=1234)   # held_out=0: every test paragraph
    assert len(configs) == 10                                       # 2 models x 5 seeds
    assert sorted((c["encoding"], c["seed"]) for c in configs) == sorted(
        (e, s) for e in ("none", "sinusoidal") for s in (111, 222, 333, 444, 555))
    for c in configs:                                               # App. E and Sec. 3.3
        assert c["task"] == "lm" and c["core"] == "lstm" and c["input_mode"] == "concat"
        assert c["task_options"] == {"corpus": "wikitext-103-raw", "train_split": "train", "test_split": "test"}
        assert (c["vocab_size"], c["length"], c["hidden"], c["batch_size"]) == (32768, 1024, 512, 512)
        assert (c["steps"], c["warmup"], c["lr"], c["betas"]) == (300_000, 1000, 1e-3, (0.9, 0.98))
        assert c["held_out"] == 1234


@pytest.mark.parametrize("preset", ["quick", "smoke"])
def test_offline_presets_train_on_wikitext2_valid_and_test_on_test(preset):
    cfg = presets.resolve("lm_appendix", preset)
    configs = lm_appendix.run_configs(cfg, test_paragraphs=2000)
    assert len(configs) == 2 * len(cfg.seeds) and len(cfg.seeds) >= 2
    assert {c["encoding"] for c in configs} == {"none", "sinusoidal"}
    for c in configs:
        assert c["task_options"] == {"corpus": "wikitext-2", "train_split": "valid", "test_split": "test"}
        assert c["vocab_size"] == cfg.vocab and c["length"] == cfg.length and c["hidden"] == cfg.hidden
        assert c["held_out"] == (2000 if cfg.held_out == 0 else cfg.held_out)
    if preset == "quick":
        assert len(cfg.seeds) >= 3 and cfg.held_out == 0


def test_smoke_configs_are_valid_runs(fresh_data_cache):
    """The smoke preset finds the shared WikiText-2 and its configs pass ``penb.train.normalize``."""
    cfg = presets.resolve("lm_appendix", "smoke")
    keys = {runs.key(c) for c in lm_appendix.run_configs(cfg)}
    assert len(keys) == 2 * len(cfg.seeds)                          # every run has its own folder


@pytest.mark.parametrize("override, match", [
    (dict(train_split="test"), "must not be trained on"),
    (dict(corpus="ptb"), "unknown corpus"),
    (dict(vocab=4), "vocab must be an int >= 8"),
    (dict(steps=100, warmup=100), "warmup"),
    (dict(held_out=-1), "held_out"),
    (dict(seeds=(1, 1)), "distinct"),
    (dict(workers=0), "workers"),
    (dict(lr=0.0), "lr"),
])
def test_impossible_values_are_refused(override, match):
    with pytest.raises(ValueError, match=match):
        presets.resolve("lm_appendix", "smoke", **override)


def test_encodings_must_hold_both_models():
    with pytest.raises(ValueError, match="'none' and 'sinusoidal'"):
        presets.resolve("lm_appendix", "smoke", encodings=("none",))
    with pytest.raises(ValueError, match="unknown encoding"):
        presets.resolve("lm_appendix", "smoke", encodings=("none", "sinusoidal", "rotary"))


# ---------------------------------------------------------------- perplexity summary

def test_summary_min_mean_max_by_hand():
    nats = {("none", 1): (4000.0, 1000), ("none", 2): (4100.0, 1000), ("none", 3): (3950.0, 1000),
            ("sinusoidal", 1): (4050.0, 1000), ("sinusoidal", 2): (4400.0, 1100), ("sinusoidal", 3): (3990.0, 1000)}
    frame = pd.DataFrame([dict(encoding=e, seed=s, total_nll=v[0], n_tokens=v[1]) for (e, s), v in nats.items()])
    summ = lm_appendix.summary(frame)
    for enc in ("none", "sinusoidal"):
        ppl = [math.exp(v[0] / v[1]) for (e, _), v in nats.items() if e == enc]
        assert summ.loc[enc, "min"] == pytest.approx(min(ppl), rel=1e-12)
        assert summ.loc[enc, "max"] == pytest.approx(max(ppl), rel=1e-12)
        assert summ.loc[enc, "mean"] == pytest.approx(sum(ppl) / 3, rel=1e-12)
        assert summ.loc[enc, "seeds"] == 3
    assert summ.loc["none", "min"] == pytest.approx(math.exp(3.95))
    t1 = lm_appendix.table1(summ)                                   # Table 1 as printed in the paper
    assert list(t1.loc["vanilla LSTM", ["paper min", "paper mean", "paper max"]]) == [36.8257, 37.7731, 38.916589]
    assert list(t1.loc["position-encoded LSTM", ["paper min", "paper mean", "paper max"]]) == [
        38.0685, 38.5384, 38.893656]
    assert t1.loc["position-encoded LSTM", "ours mean"] == summ.loc["sinusoidal", "mean"]


def test_paired_gap_and_verdict_by_hand():
    rows = []
    for seed, (a, b) in {1: (5.0, 4.5), 2: (4.0, 4.2)}.items():       # loss at step 10 (vanilla, PE)
        rows += [dict(encoding="none", seed=seed, step=10, loss=a), dict(encoding="none", seed=seed, step=40, loss=3.0),
                 dict(encoding="sinusoidal", seed=seed, step=10, loss=b),
                 dict(encoding="sinusoidal", seed=seed, step=40, loss=3.1)]
    gap = lm_appendix.paired_gap(pd.DataFrame(rows))
    assert gap.loc[10, 1] == pytest.approx(0.5) and gap.loc[10, 2] == pytest.approx(-0.2)
    assert gap.loc[10, "mean"] == pytest.approx(0.15) and gap.loc[40, "mean"] == pytest.approx(-0.1)
    frame = pd.DataFrame([dict(encoding=e, seed=sd, perplexity=p) for (e, sd), p in
                          {("none", 1): 30.0, ("sinusoidal", 1): 31.0, ("none", 2): 40.0, ("sinusoidal", 2): 41.0}.items()])
    v = lm_appendix.verdict(frame, pd.DataFrame(rows), steps=40)    # early: step <= 10; late: step > 30
    assert v["early_gap"] == pytest.approx(0.15) and v["late_gap"] == pytest.approx(-0.1)
    assert v["early_by_seed"] == {1: pytest.approx(0.5), 2: pytest.approx(-0.2)} and v["early_ahead"] == 1
    assert v["early_state"] == "mixed across seeds"
    assert v["test_ratio"] == pytest.approx(72 / 70) and v["test_by_seed"] == {1: pytest.approx(31 / 30),
                                                                              2: pytest.approx(41 / 40)}
    assert v["test_worse"] == 2 and v["test_state"] == "as in the paper"
    assert v["early_range"] == (10, 10) and v["late_range"] == (40, 40)
    assert lm_appendix.verdict_label(v) == "early training (Fig. 15): mixed across seeds; test (Table 1): as in the paper"
    v = lm_appendix.verdict(frame, pd.DataFrame(rows), steps=8)     # no update logged in the first quarter
    assert v["early_range"] == (10, 10) and v["early_gap"] == pytest.approx(0.15)
    ahead = pd.DataFrame(rows).assign(loss=lambda d: d["loss"] - 0.3 * (d["encoding"] == "sinusoidal"))
    better = frame.assign(perplexity=lambda d: d["perplexity"] - 2.0 * (d["encoding"] == "sinusoidal"))
    v = lm_appendix.verdict(better, ahead, steps=40)
    assert (v["early_state"], v["test_state"]) == ("as in the paper", "opposite") and v["test_worse"] == 0
    assert lm_appendix.verdict_label(lm_appendix.verdict(frame, ahead, steps=40)).startswith("both directions")


def test_run_perplexity_matches_a_plain_re_evaluation(tmp_path, fresh_data_cache):
    """A tiny chapter run: each row's perplexity equals exp(nats / targets) of ``tests.lm_reference.evaluate`` on the
    same model and test paragraphs (their first length + 1 pieces, SentencePiece's unknown piece ignored)."""
    torch.set_num_threads(1)
    cfg = presets.resolve("lm_appendix", "smoke", seeds=(111,), steps=6, warmup=2, held_out=12)
    frame = lm_appendix.run(cfg, store=tmp_path, progress=False)
    assert list(frame["encoding"]) == ["none", "sinusoidal"]
    task = make_task("lm", cfg.vocab, cfg.length, **lm_appendix.task_options(cfg))
    N = task.test_paragraphs
    seqs = [task.data.test[i * N // 12][: cfg.length + 1] for i in range(12)]
    for row, c in zip(frame.itertuples(), lm_appendix.run_configs(cfg)):
        model = runs.load(c, tmp_path).load_model(device="cpu")
        ev = lm.evaluate(model, seqs, batch_size=5, pad_id=cfg.vocab, ignore_ids=[task.data.unk_id])
        assert row.n_tokens == ev.n_tokens == lm.target_count(seqs, [task.data.unk_id])
        assert row.perplexity == pytest.approx(ev.perplexity, rel=1e-5)
        assert row.total_nll == pytest.approx(ev.total_nll, rel=1e-5)


# ---------------------------------------------------------------- no corpus: no silent fallback

@pytest.mark.parametrize("env_dir", [False, True])
def test_missing_corpus_names_both_ways(tmp_path, monkeypatch, fresh_data_cache, env_dir):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PENB_SHARED", str(empty))                   # the shared WikiText-2 is not there
    if env_dir:
        monkeypatch.setenv(corpus.ENV_VAR, str(empty))              # a corpus folder without wikitext-2/
    else:
        monkeypatch.delenv(corpus.ENV_VAR, raising=False)
    monkeypatch.setitem(sys.modules, "datasets", None)              # `import datasets` fails
    cfg = presets.resolve("lm_appendix", "smoke")
    store = tmp_path / "store"
    with pytest.raises(corpus.CorpusNotFoundError) as e:
        lm_appendix.run(cfg, store=store)
    msg = str(e.value)
    assert "WikiText-2" in msg and corpus.ENV_VAR in msg and "data_dir" in msg      # way 1: a local folder
    assert "datasets" in msg and "pip install datasets" in msg                      # way 2: the library
    assert not store.exists(), "nothing may be trained or written without a corpus"

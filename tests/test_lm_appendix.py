"""The language-modelling appendix chapter (Morita App. E): presets -> runs, perplexity summary
over seeds, Table 1 graded per seed through the claims registry, diverged runs, missing corpus.

Numbers are checked against the paper's printed settings and Table 1, hand computations (math.exp of
summed nats), and a plain re-evaluation of a trained model by ``tests.lm_reference.evaluate`` (its own batching).
"""
import json
import math
import sys

import numpy as np
import pandas as pd
import pytest
import torch

from penb import claims, corpus, presets, runs
from penb.chapters.lm_appendix import analysis as lm_appendix
from penb.claims import grading
from penb.names import variant_label
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
    configs = lm_appendix.run_configs(cfg, test_paragraphs=1234)  # held_out=0: every test paragraph
    assert len(configs) == 10                                       # 2 models x 5 seeds
    assert sorted((c["encoding"], c["seed"]) for c in configs) == sorted(
        (e, s) for e in ("none", "sinusoidal") for s in (111, 222, 333, 444, 555))
    for c in configs:                                              # App. E and Sec. 3.3
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
    assert len(keys) == 2 * len(cfg.seeds)                # every run has its own folder


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
        assert summ.loc[enc, "seeds"] == 3 and summ.loc[enc, "diverged"] == 0
        lo, hi = summ.loc[enc, "lo"], summ.loc[enc, "hi"]                # over seeds
        assert min(ppl) - 1e-9 <= lo < summ.loc[enc, "mean"] < hi <= max(ppl) + 1e-9
    assert summ.loc["none", "min"] == pytest.approx(math.exp(3.95))
    t1 = lm_appendix.table1(summ)                      # Table 1 as printed in the paper
    assert list(t1.loc["vanilla LSTM", ["paper min", "paper mean", "paper max"]]) == [36.8257, 37.7731, 38.916589]
    assert list(t1.loc["position-encoded LSTM", ["paper min", "paper mean", "paper max"]]) == [
        38.0685, 38.5384, 38.893656]
    assert t1.loc["position-encoded LSTM", "ours mean"] == summ.loc["sinusoidal", "mean"]


def test_paired_gap_and_early_late_by_hand():
    rows = []
    for seed, (a, b) in {1: (5.0, 4.5), 2: (4.0, 4.2)}.items():   # loss at step 10
        rows += [dict(encoding="none", seed=seed, step=10, loss=a),
                 dict(encoding="none", seed=seed, step=40, loss=3.0),
                 dict(encoding="sinusoidal", seed=seed, step=10, loss=b),
                 dict(encoding="sinusoidal", seed=seed, step=40, loss=3.1)]
    gap = lm_appendix.paired_gap(pd.DataFrame(rows))
    assert gap.loc[10, 1] == pytest.approx(0.5)
    assert gap.loc[10, 2] == pytest.approx(-0.2)
    assert gap.loc[10, "mean"] == pytest.approx(0.15)
    assert gap.loc[40, "mean"] == pytest.approx(-0.1)
    v = lm_appendix.early_late(pd.DataFrame(rows), steps=40)  # early: <= 10; late: > 30
    assert v["early_gap"] == pytest.approx(0.15)
    assert v["late_gap"] == pytest.approx(-0.1)
    assert v["early_by_seed"] == {1: pytest.approx(0.5), 2: pytest.approx(-0.2)}
    assert v["early_ahead"] == 1 and v["seeds"] == 2
    assert v["early_range"] == (10, 10) and v["late_range"] == (40, 40)
    v = lm_appendix.early_late(pd.DataFrame(rows), steps=8)  # nothing logged that early
    assert v["early_range"] == (10, 10) and v["early_gap"] == pytest.approx(0.15)


def lm_frame(ppl: dict, tokens=(1000, 1200, 900, 1100, 1000), diverged=()):
    """Runs with test perplexity ``ppl[encoding][i]`` for seed 1001 + i, each scored on
    its own number of tokens (so pooling nats across seeds would weigh seeds
    unequally)."""
    rows = []
    for enc, values in ppl.items():
        for i, (p, n) in enumerate(zip(values, tokens)):
            seed, gone = 1001 + i, (enc, 1001 + i) in diverged
            rows.append(dict(encoding=enc, variant=variant_label(enc), seed=seed,
                             total_nll=math.nan if gone else n * math.log(p),
                             n_tokens=0 if gone else n,
                             perplexity=math.nan if gone else p, diverged=gone,
                             diverged_at=7 if gone else math.nan, train_perplexity=p,
                             wall_s=1.0))
    return pd.DataFrame(rows)


def test_table1_is_graded_per_seed(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    cfg = presets.resolve("lm_appendix", "quick")
    van, pe = [40.0, 30.0, 50.0, 45.0, 35.0], [40.8, 30.5, 50.9, 45.7, 35.6]
    frame = lm_frame({"none": van, "sinusoidal": pe})
    ev = lm_appendix.table1_evidence(frame)
    assert ev["a"] == pytest.approx(pe) and ev["b"] == pytest.approx(van)
    assert ev["seeds"] == [1001, 1002, 1003, 1004, 1005] and ev["baseline"] is None
    table1, fig15 = lm_appendix.grade(frame, cfg)
    assert table1.verdict == grading.REPRODUCED and "5/5" in table1.ours  # PE worse
    assert fig15.verdict == grading.NOT_TESTED
    assert fig15.reason == claims.get("morita.fig15").not_tested
    recorded = json.loads((tmp_path / "lm_appendix.grades.json").read_text())
    assert set(recorded) == {"morita.table1", "morita.fig15"}
    better = lm_frame({"none": pe, "sinusoidal": van})               # PE better in all
    assert lm_appendix.grade(better, cfg)[0].verdict == grading.NOT_REPRODUCED
    mixed = lm_frame({"none": van, "sinusoidal": [40.8, 29.0, 50.9, 44.0, 35.6]})
    mixed_grade = lm_appendix.grade(mixed, cfg)[0]                   # protocol 2: not shown, not absent
    assert mixed_grade.verdict == grading.INCONCLUSIVE and "not shown with 5 seeds" in mixed_grade.reason
    assert mixed_grade.previous["1"]["verdict"] == grading.NOT_REPRODUCED


def test_a_diverged_lm_run_is_counted_not_summarised(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    cfg = presets.resolve("lm_appendix", "quick")
    van, pe = [40.0, 30.0, 50.0, 45.0, 35.0], [40.8, 30.5, 50.9, 45.7, 35.6]
    frame = lm_frame({"none": van, "sinusoidal": pe}, diverged={("sinusoidal", 1003)})
    summ = lm_appendix.summary(frame)
    assert summ.loc["sinusoidal", "seeds"] == 4
    assert summ.loc["sinusoidal", "diverged"] == 1
    kept = [p for i, p in enumerate(pe) if i != 2]
    assert summ.loc["sinusoidal", "mean"] == pytest.approx(np.mean(kept))
    assert summ.loc["sinusoidal", "lo"] <= np.mean(kept) <= summ.loc["sinusoidal", "hi"]
    table1 = lm_appendix.grade(frame, cfg)[0]
    assert 1003 not in table1.evidence["seeds"]
    assert table1.evidence["diverged"] == {"position-encoded": 1, "vanilla": 0}
    assert table1.verdict == grading.INCONCLUSIVE and "diverged" in table1.reason
    assert list(lm_appendix.run_table(frame)["diverged"]) == ["", "", "", "", "", "",
                                                            "", "at 7", "", ""]


def test_run_perplexity_matches_a_plain_re_evaluation(tmp_path, fresh_data_cache):
    """A tiny chapter run: each row's perplexity equals exp(nats / targets) of ``tests.lm_reference.evaluate`` on the
    same model and test paragraphs (their first length + 1 pieces, SentencePiece's unknown piece ignored)."""
    torch.set_num_threads(1)
    cfg = presets.resolve("lm_appendix", "smoke", seeds=(1001,), steps=6, warmup=2, held_out=12)
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
    monkeypatch.setenv("PENB_SHARED", str(empty))   # the shared WikiText-2 is not there
    if env_dir:
        monkeypatch.setenv(corpus.ENV_VAR, str(empty))  # a corpus folder without wikitext-2/
    else:
        monkeypatch.delenv(corpus.ENV_VAR, raising=False)
    monkeypatch.setitem(sys.modules, "datasets", None)         # `import datasets` fails
    cfg = presets.resolve("lm_appendix", "smoke")
    store = tmp_path / "store"
    with pytest.raises(corpus.CorpusNotFoundError) as e:
        lm_appendix.run(cfg, store=store)
    msg = str(e.value)
    assert "WikiText-2" in msg and corpus.ENV_VAR in msg and "data_dir" in msg  # way 1: a local folder
    assert "datasets" in msg and "pip install datasets" in msg      # way 2: the library
    assert not store.exists(), "nothing may be trained or written without a corpus"

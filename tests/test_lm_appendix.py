"""The language-modelling appendix chapter (Morita App. E): presets -> runs, perplexity summary
over seeds, Fig. 15's early gap, Table 1 and "no advantage" graded per seed through the claims registry
(the last two only on runs past Fig. 15's closing gap), diverged runs, missing corpus.

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

from penb import claims, corpus, presets
from penb import runs
from penb.chapters.lm_appendix import analysis as lm_appendix
from penb.chapters.lm_appendix import grading as lm_grading
from penb.claims import grading
from penb.names import variant_label
from penb.tasks import lm as lm_task
from tests import lm_reference as lm
from penb.tasks import make_task
from penb.trainer import load_model


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
    """The smoke preset finds the shared WikiText-2 and its configs pass ``penb.run_config.normalize``."""
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


def lm_frame(ppl: dict, tokens=(1000, 1200, 900, 1100, 1000), diverged=(), early=None, end=None):
    """Runs with test perplexity ``ppl[encoding][i]`` for seed 1001 + i, each scored on
    its own number of tokens (so pooling nats across seeds would weigh seeds
    unequally). ``early[encoding][i]``: the run's logged training loss at updates 10 and
    20 (a pair), then ``end[encoding]`` (default 3.0) at 100 (the end); default 5.0
    everywhere."""
    rows = []
    for enc, values in ppl.items():
        for i, (p, n) in enumerate(zip(values, tokens)):
            seed, gone = 1001 + i, (enc, 1001 + i) in diverged
            first = (early or {}).get(enc, [(5.0, 5.0)] * 5)[i]
            history = [dict(step=10, loss=first[0]), dict(step=20, loss=first[1]),
                       dict(step=100, loss=(end or {}).get(enc, 3.0))]
            rows.append(dict(encoding=enc, variant=variant_label(enc), seed=seed,
                             total_nll=math.nan if gone else n * math.log(p),
                             n_tokens=0 if gone else n,
                             perplexity=math.nan if gone else p, diverged=gone,
                             diverged_at=7 if gone else math.nan, train_perplexity=p,
                             wall_s=1.0, history=[] if gone else history))
    return pd.DataFrame(rows)


VAN, PE = [40.0, 30.0, 50.0, 45.0, 35.0], [40.8, 30.5, 50.9, 45.7, 35.6]


def long_cfg():
    """The quick preset (its 100-update test histories: the curves meet at 3.0 unless ``end`` says otherwise).
    Issue 28: Table 1 and "no advantage" are graded where the runs' own curves have met, not past a fixed
    30,000 updates."""
    assert claims.get("morita.table1").rule.params["meet_margin"] == 0.02
    return presets.resolve("lm_appendix", "quick", steps=100, warmup=10, checkpoint_every=100)


def test_table1_and_no_advantage_are_not_tested_before_the_curves_meet(tmp_path, monkeypatch):
    """Fig. 15's early phase: PE 0.03 nats ahead at the end of the run, above the 0.02 margin, so the runs are
    in the phase where the paper sees PE ahead; at 0.015 ahead, or behind, the curves have met."""
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    cfg = long_cfg()
    ahead = lm_frame({"none": VAN, "sinusoidal": PE}, end={"none": 3.0, "sinusoidal": 2.97})
    grades = {g.claim: g for g in lm_grading.grade(ahead, cfg)}
    for key in ("morita.table1", "morita.appE.no_advantage"):
        assert grades[key].verdict == grading.NOT_TESTED
        assert "have not met" in grades[key].reason and "+0.030" in grades[key].reason
    assert grades["morita.fig15.early"].verdict != grading.NOT_TESTED
    for end in ({"none": 3.0, "sinusoidal": 2.985}, {"none": 3.0, "sinusoidal": 3.2}):
        met = {g.claim: g for g in lm_grading.grade(lm_frame({"none": VAN, "sinusoidal": PE}, end=end), cfg)}
        assert met["morita.table1"].verdict != grading.NOT_TESTED, end
    recorded = json.loads((tmp_path / "lm_appendix.grades.json").read_text())
    assert set(recorded) == {c.key for c in claims.of_chapter("lm_appendix")}


def test_table1_is_graded_per_seed_on_long_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    cfg = long_cfg()
    frame = lm_frame({"none": VAN, "sinusoidal": PE})
    ev = lm_grading.table1_evidence(frame)                     # log perplexities (issue 28: a ratio)
    assert ev["a"] == pytest.approx([math.log(p) for p in PE]) and ev["b"] == pytest.approx([math.log(v) for v in VAN])
    assert ev["seeds"] == [1001, 1002, 1003, 1004, 1005] and ev["baseline"] is None
    grades = {g.claim: g for g in lm_grading.grade(frame, cfg)}
    table1 = grades["morita.table1"]
    assert table1.verdict == grading.REPRODUCED and "5/5" in table1.ours  # PE worse
    better = {g.claim: g for g in lm_grading.grade(lm_frame({"none": PE, "sinusoidal": VAN}), cfg)}
    assert better["morita.table1"].verdict == grading.NOT_REPRODUCED  # PE better in all
    mixed = lm_frame({"none": VAN, "sinusoidal": [40.8, 29.0, 50.9, 44.0, 35.6]})
    mixed_grade = next(g for g in lm_grading.grade(mixed, cfg) if g.claim == "morita.table1")  # not shown,
    assert mixed_grade.claim == "morita.table1"                                                 # not absent
    assert mixed_grade.verdict == grading.INCONCLUSIVE and "not shown with 5 seeds" in mixed_grade.reason
    # issue 35: "slightly worse" is a direction. Log ratios +0.009, +0.009, -0.002, -0.0045, +0.006: the
    # interval includes 0 but lies wholly under Table 1's whole gap (0.020), which the old margin read as "not
    # reproduced"; any inferiority agrees with the text, so it is open, not refuted
    close = lm_frame({"none": VAN, "sinusoidal": [40.36, 30.27, 49.90, 44.80, 35.21]})
    g = next(g for g in lm_grading.grade(close, cfg) if g.claim == "morita.table1")
    assert g.detail["lo"] < 0 < g.detail["hi"] < 0.020058 and g.verdict == grading.INCONCLUSIVE


def test_no_advantage_on_long_runs(tmp_path, monkeypatch):
    """PE's advantage = vanilla minus PE log perplexity, against Table 1's gap as a ratio; a PE
    model far behind has no advantage either (no control branch)."""
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    cfg, key = long_cfg(), "morita.appE.no_advantage"
    gap = claims.get(key).sesoi
    assert gap == pytest.approx(0.020058, abs=1e-6)             # ln(38.5384 / 37.7731), by hand

    def graded(van, pe):
        return next(g for g in lm_grading.grade(lm_frame({"none": van, "sinusoidal": pe}), cfg)
                    if g.claim == key)

    level = graded(VAN, [v + d for v, d in zip(VAN, (0.1, -0.1, 0.05, 0.0, -0.05))])
    assert level.evidence["a"] == pytest.approx([math.log(v) for v in VAN])   # a: vanilla, b: PE
    assert level.verdict == grading.REPRODUCED                          # interval within +-0.13
    far_behind = graded(VAN, [v + 5 + d for v, d in zip(VAN, (0.1, -0.1, 0.05, 0.0, -0.05))])
    assert far_behind.verdict == grading.REPRODUCED                     # no advantage, clearly
    ahead = graded(VAN, [v - 3 + d for v, d in zip(VAN, (0.1, -0.1, 0.05, 0.0, -0.05))])
    assert ahead.verdict == grading.NOT_REPRODUCED                      # PE better by 3
    noisy = graded(VAN, [v + d for v, d in zip(VAN, (3.0, -3.0, 2.0, -2.5, 0.5))])
    assert noisy.verdict == grading.INCONCLUSIVE


def test_no_advantage_reads_a_ratio_at_every_perplexity(tmp_path, monkeypatch):
    """Issue 28: PE 1% better at perplexities from 20 to 320 is the same ratio everywhere, under Table 1's 2%:
    no advantage that matters. In perplexity points (0.2 to 3.2, against 0.77) it was inconclusive."""
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    van = [20.0, 40.0, 80.0, 160.0, 320.0]
    pe = [v / 1.01 * (1 + e) for v, e in zip(van, (0.001, -0.001, 0.002, 0.0, -0.002))]
    adv = [math.log(v / p) for v, p in zip(van, pe)]            # about ln 1.01 = 0.00995 in every seed
    half = 2.7764451051977987 * np.std(adv, ddof=1) / math.sqrt(5)   # t(0.975, 4), printed tables
    assert np.mean(adv) + half < 0.020058                       # the whole interval under Table 1's gap
    g = next(g for g in lm_grading.grade(lm_frame({"none": van, "sinusoidal": pe}), long_cfg())
             if g.claim == "morita.appE.no_advantage")
    assert g.evidence["a"] == pytest.approx([math.log(v) for v in van])
    assert g.verdict == grading.REPRODUCED


def test_fig15_early_gap_is_graded_per_seed():
    """Evidence: per seed, the mean over the early window (a quarter of the run here) of
    vanilla minus PE training loss, computed by hand from the logged losses."""
    cfg = presets.resolve("lm_appendix", "quick", steps=80, warmup=10, checkpoint_every=40)
    van = [(5.0, 4.8), (5.1, 4.9), (4.9, 4.7), (5.0, 4.6), (5.2, 4.9)]
    pe = [(4.9, 4.6), (5.0, 4.8), (4.85, 4.6), (4.8, 4.5), (5.0, 4.8)]
    frame = lm_frame({"none": VAN, "sinusoidal": PE}, early={"none": van, "sinusoidal": pe})
    ev = lm_grading.early_evidence(frame, cfg)                   # window: updates <= 80 / 4 = 20
    want = [((v[0] - p[0]) + (v[1] - p[1])) / 2 for v, p in zip(van, pe)]
    assert ev["a"] == pytest.approx(want) and ev["b"] == [0.0] * 5
    assert ev["seeds"] == [1001, 1002, 1003, 1004, 1005]
    early = next(g for g in lm_grading.grade(frame, cfg) if g.claim == "morita.fig15.early")
    assert early.verdict == grading.REPRODUCED                   # PE ahead by 0.1-0.15 in all
    swapped = lm_frame({"none": VAN, "sinusoidal": PE}, early={"none": pe, "sinusoidal": van})
    assert lm_grading.grade(swapped, cfg)[0].verdict == grading.NOT_REPRODUCED
    short = presets.resolve("lm_appendix", "quick", steps=40, warmup=5, checkpoint_every=20)
    ev = lm_grading.early_evidence(frame, short)                 # window: updates <= 10
    assert ev["a"] == pytest.approx([v[0] - p[0] for v, p in zip(van, pe)])


@pytest.mark.real_horizon
def test_budget_claims_below_the_texts_budget_are_not_tested():
    """Protocol 6 through the chapter's grading (grading.grade) at smoke's settings run 100 updates, the curves
    met (3.0 both at the end): PE's test perplexity 1.6-2.0% above vanilla's in every seed, so Table 1's rule
    says 'reproduced' (PE worse) and "no advantage"'s too (its interval under Table 1's 0.020 gap); both speak of
    the text's 300,000 updates, 11.6 doublings on: 'not tested', the budgets named, the rule's verdict kept.
    Fig. 15's early gap (PE 0.1-0.15 nats ahead by update 20) speaks of early training: any budget decides it,
    its rule's 'reproduced' stands, with no doubling test or horizon recorded."""
    cfg = presets.resolve("lm_appendix", "smoke", steps=100, warmup=10, checkpoint_every=100)
    van = [(5.0, 4.8), (5.1, 4.9), (4.9, 4.7), (5.0, 4.6), (5.2, 4.9)]
    pe = [(4.9, 4.6), (5.0, 4.8), (4.85, 4.6), (4.8, 4.5), (5.0, 4.8)]
    grades = {g.claim: g for g in lm_grading.grade(lm_frame({"none": VAN, "sinusoidal": PE},
                                                            early={"none": van, "sinusoidal": pe}), cfg)}
    for key in ("morita.table1", "morita.appE.no_advantage"):
        g = grades[key]
        assert claims.get(key).about == "budget" and claims.get(key).horizon == 300_000
        assert g.verdict == grading.NOT_TESTED and "not tested below the text's budget" in g.reason, key
        assert "300,000 updates, these runs 100 " in g.reason and g.detail["rule_verdict"] == grading.REPRODUCED
    early = grades["morita.fig15.early"]
    assert early.verdict == grading.REPRODUCED and early.detail["about"] == "early"
    assert "horizon" not in early.detail and "doubling" not in early.detail


def test_a_diverged_lm_run_is_counted_not_summarised(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    cfg = long_cfg()
    frame = lm_frame({"none": VAN, "sinusoidal": PE}, diverged={("sinusoidal", 1003)})
    summ = lm_appendix.summary(frame)
    assert summ.loc["sinusoidal", "seeds"] == 4
    assert summ.loc["sinusoidal", "diverged"] == 1
    kept = [p for i, p in enumerate(PE) if i != 2]
    assert summ.loc["sinusoidal", "mean"] == pytest.approx(np.mean(kept))
    assert summ.loc["sinusoidal", "lo"] <= np.mean(kept) <= summ.loc["sinusoidal", "hi"]
    for g in lm_grading.grade(frame, cfg):
        if g.claim == "morita.fig15.meet":                     # runs of 100 updates: not tested (30,000)
            assert g.verdict == grading.NOT_TESTED
            continue
        assert 1003 not in g.evidence["seeds"]
        assert g.evidence["diverged"] == {"position-encoded": 1, "vanilla": 0}
        assert g.verdict == grading.INCONCLUSIVE and "diverged" in g.reason
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
        model = load_model(runs.load(c, tmp_path), device="cpu")
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

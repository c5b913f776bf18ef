"""Chapter "Key findings" (Fig. 2): presets -> run configs, CIs and verdicts on synthetic runs, bad input."""
import importlib.util
import json

import numpy as np
import pandas as pd
import pytest

from penb import names, paths, presets, runs, train
from penb.chapters.key_findings import analysis

IGNORE = -100


# -- presets -> run configs -----------------------------------------------------------------------
@pytest.mark.parametrize("preset", presets.PRESETS)
def test_every_preset_expands_to_one_distinct_run_per_cell(preset):
    cfg = presets.resolve("key_findings", preset)
    configs = analysis.run_configs(cfg)
    n_vocab = sum(len(cfg[f"{c}_vocab"]) for c in cfg.cores)
    assert len(configs) == n_vocab * len(cfg.encodings) * len(cfg.seeds)
    assert len({runs.key(c) for c in configs}) == len(configs)
    cells = {(c["core"], c["vocab_size"], c["encoding"], c["seed"]) for c in configs}
    assert cells == {(core, v, e, s) for core in cfg.cores for v in cfg[f"{core}_vocab"]
                     for e in cfg.encodings for s in cfg.seeds}
    for c in configs:
        n = train.normalize(c)
        assert n["task"] == "reverse" and n["input_mode"] == "concat" and n["embed"] is None
        own = analysis.settings(cfg, c["core"])
        assert (n["length"], n["hidden"], n["batch_size"], n["steps"], n["lr"], n["warmup"], n["betas"]) == \
            (cfg.length, own["hidden"], own["batch_size"], own["steps"], own["lr"], own["warmup"], tuple(cfg.betas))


def test_per_core_overrides_reach_only_their_model():
    cfg = presets.resolve("key_findings", "smoke", per_core={"gru": {"batch_size": 3, "steps": 7}})
    for c in analysis.run_configs(cfg):
        if c["core"] == "gru":
            assert (c["batch_size"], c["steps"]) == (3, 7)
        else:
            assert (c["batch_size"], c["steps"]) == (cfg.batch_size, cfg.steps)


def test_quick_keeps_the_paper_protocol_and_tests_direction():
    quick = presets.resolve("key_findings", "quick")
    paper = presets.resolve("key_findings", "paper")
    assert quick.encodings == paper.encodings == ("none", "sinusoidal")
    assert quick.betas == paper.betas == (0.9, 0.98) and quick.held_out == paper.held_out == 1024
    assert len(quick.seeds) >= 3 and set(quick.cores) == {"gru", "lstm", "s4d"}
    assert all(len(quick[f"{c}_vocab"]) >= 2 for c in quick.cores)


def test_quick_preset_is_the_confirmed_search_round():
    """The search script's confirmation round trains exactly the quick preset's runs (so the CSV's rows
    for that round are the chapter's own runs)."""
    spec = importlib.util.spec_from_file_location("search", paths.REPO / "scripts" / "search_key_findings.py")
    search = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(search)
    quick = analysis.run_configs(presets.resolve("key_findings", "quick"))
    confirm = [c for p in search.ROUNDS["confirm"] for c in search.configs(p)]
    assert {runs.key(c) for c in confirm} == {runs.key(c) for c in quick}


def test_search_table_is_shipped_and_complete():
    table = analysis.search_table()
    assert {"model", "length", "hidden", "batch_size", "steps", "lr", "vocab", "seeds", "acc_vanilla", "acc_pe",
            "wall_s_per_run"} <= set(table.columns)
    assert {"gru", "lstm", "s4d"} <= set(table["model"])
    acc = pd.to_numeric(table[["acc_vanilla", "acc_pe"]].stack())
    assert ((acc >= 0) & (acc <= 1)).all()


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad, match", [
    (dict(lstm_vocab=(1, 256)), "lstm_vocab must hold ints >= 2"),
    (dict(gru_vocab=()), "gru_vocab must hold ints >= 2"),
    (dict(length=0), "length must be an int >= 1"),
    (dict(steps=0), "steps must be an int >= 1"),
    (dict(workers=0), "workers must be an int >= 1"),
    (dict(cores=("lstm", "rnn")), "cores must be"),
    (dict(cores=()), "cores must be"),
    (dict(encodings=("none", "rope")), "unknown encoding 'rope'"),
    (dict(seeds=(1, 1)), "seeds must be distinct"),
    (dict(lr=0.0), "lr > 0"),
    (dict(betas=(0.9, 1.0)), "betas must be"),
    (dict(amp="fp16"), "amp must be"),
    (dict(gru_vocab=(2,), length=3, held_out=8), "fewer than held_out"),
    (dict(lstm_vocab=(256, 256)), "repeated"),
    (dict(device="tpu"), "unknown device"),
    (dict(per_core={"rnn": {"steps": 5}}), "per_core must map"),
    (dict(per_core={"gru": {"layers": 2}}), "may only set"),
    (dict(per_core={"gru": {"steps": 0}}), "impossible"),
    (dict(per_core={"lstm": {"lr": -1.0}}), "impossible"),
])
def test_impossible_values_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        presets.resolve("key_findings", "smoke", **bad)


# -- summaries, CIs and verdicts on synthetic runs ---------------------------------------------------
def fake_run(folder, correct_per_row, T=4, rng=None):
    """A run folder whose held-out predictions get exactly ``correct_per_row[i]`` of T tokens right in
    row i (the first ones), the rest wrong. Returns the folder."""
    rng = rng or np.random.default_rng(0)
    n = len(correct_per_row)
    targets = np.full((n, 2 * T), IGNORE)
    targets[:, T:] = rng.integers(0, 50, (n, T))
    pred = np.full_like(targets, IGNORE)
    pred[:, T:] = targets[:, T:] + 100                        # wrong everywhere (out of the target range)
    for i, k in enumerate(correct_per_row):
        pred[i, T:T + k] = targets[i, T:T + k]
    folder.mkdir(parents=True)
    with open(folder / "predictions.npz", "wb") as f:
        np.savez(f, predictions=pred, targets=targets)
    # a finished run as the store writes it (runs.RunResult reads result.json first)
    (folder / "result.json").write_text(json.dumps(dict(status="done", config={}, metrics={}, history=[])))
    return folder


def frame(tmp_path, cells):
    """cells: {(model, vocab, encoding): [correct_per_row for each seed]} -> a frame like analysis.run's."""
    rows = []
    for (model, vocab, enc), per_seed in cells.items():
        for seed, correct in enumerate(per_seed):
            path = fake_run(tmp_path / f"{model}-{vocab}-{enc}-{seed}", correct)
            rows.append(dict(model=model, vocab=vocab, encoding=enc, variant=names.VARIANT_LABELS[enc], seed=seed,
                             path=str(path)))
    return pd.DataFrame(rows)


def test_summary_estimates_match_closed_forms(tmp_path):
    rng = np.random.default_rng(1)
    per_seed = [rng.integers(0, 5, 40) for _ in range(3)]    # 0..4 of T=4 correct per sequence
    summ = analysis.summary(frame(tmp_path, {("lstm", 8, "none"): per_seed}), n_resamples=500)
    row = summ.iloc[0]
    allc = np.concatenate(per_seed)
    assert row.accuracy == pytest.approx(allc.sum() / (4 * allc.size))
    # the first k tokens right, the other 4-k replaced: the DL distance is 4-k substitutions
    assert row.distance == pytest.approx(np.mean(4 - allc))
    assert row.accuracy_lo < row.accuracy < row.accuracy_hi and row.distance_lo < row.distance < row.distance_hi
    assert row.accuracy_per_seed == tuple(round(c.sum() / (4 * c.size), 4) for c in per_seed)
    assert row.seeds == 3


def test_ci_against_a_plain_loop_bootstrap(tmp_path):
    """Token-accuracy interval vs. a percentile bootstrap written as a loop over resamples."""
    rng = np.random.default_rng(2)
    per_seed = [rng.integers(0, 5, 60) for _ in range(3)]
    summ = analysis.summary(frame(tmp_path, {("gru", 8, "none"): per_seed}), n_resamples=4000)
    c = np.concatenate(per_seed).astype(float)
    boot = np.array([c[idx].sum() / (4 * c.size) for idx in
                     (np.random.default_rng(s).integers(0, c.size, c.size) for s in range(4000))])
    lo, hi = np.percentile(boot, [2.5, 97.5])
    assert summ.iloc[0].accuracy_lo == pytest.approx(lo, abs=0.01)
    assert summ.iloc[0].accuracy_hi == pytest.approx(hi, abs=0.01)


def test_separation_and_verdict(tmp_path):
    half = [np.full(30, 2)] * 3                              # vanilla: exactly 2 of 4 right everywhere
    most = [np.full(30, 4)] * 3                              # PE: all right -> degenerate CI at 1.0
    noisy = [np.random.default_rng(s).integers(1, 4, 30) for s in range(3)]   # around 0.5, overlapping
    cells = {("gru", 8, "none"): half, ("gru", 8, "sinusoidal"): most,
             ("gru", 4, "none"): most, ("gru", 4, "sinusoidal"): most,
             ("lstm", 16, "none"): half, ("lstm", 16, "sinusoidal"): noisy}
    summ = analysis.summary(frame(tmp_path, cells), n_resamples=500)
    sep = analysis.separation(summ).set_index("model")
    assert list(sep.index) == ["gru", "lstm"] and sep.loc["gru", "vocab"] == 8          # the largest V
    assert sep.loc["gru", "vanilla"] == 0.5 and sep.loc["gru", "pe"] == 1.0
    assert bool(sep.loc["gru", "separated"]) and not bool(sep.loc["lstm", "separated"])
    assert analysis.verdict(summ) == "not reproduced"
    assert analysis.verdict(summ[summ.model == "gru"]) == "reproduced"                       # PE at 1.0 > 0.95
    assert sep.loc["gru", "pe_ahead_seeds"] == 3
    assert sep.loc["lstm", "pe_ahead_seeds"] == sum(np.mean(n) / 4 > 0.5 for n in noisy)   # vanilla: 0.5 per seed
    assert len(analysis.separation(summ, vocab="all")) == 3
    with pytest.raises(ValueError, match="largest"):
        analysis.separation(summ, vocab="smallest")


def test_verdict_direction_only(tmp_path):
    cells = {("s4d", 8, "none"): [np.full(20, 1)] * 3, ("s4d", 8, "sinusoidal"): [np.full(20, 3)] * 3}
    summ = analysis.summary(frame(tmp_path, cells), n_resamples=200)
    assert analysis.verdict(summ) == "direction only"                                        # 0.75 < 0.95


def test_process_executor_keeps_the_order_of_items():
    """Runs are submitted longest first (with a progress bar), but results come back in the order of the items."""
    import json

    from penb import executors

    items = [dict(steps=s, batch_size=1, length=1, hidden=1) for s in (1, 50, 3, 7)]
    out = executors.ProcessExecutor(workers=2, threads=1, desc="runs").map(json.dumps, items)
    assert out == [json.dumps(i) for i in items]
    assert [executors._cost(i) for i in items] == [1.0, 50.0, 3.0, 7.0] and executors._cost("x") == 0.0

"""Appendix chapters A-D: the tasks as the chapters configure them, the parameter control, the
summaries against plain loops, the grades, and bad options refused before any training."""
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import torch

from penb import presets, runs, train
from penb.chapters import key_findings
from penb.chapters.appendix import appendix_a, appendix_b, appendix_c, appendix_d, common, summary
from penb.chapters.appendix.common import Panel
from penb.tasks import IGNORE, make_task


def task_of(config: dict):
    c = train.normalize(config)
    return make_task(c["task"], c["vocab_size"], c["length"], **c["task_options"])


def panel_config(cfg, panels, name, **change):
    p = next(p for p in panels if p.name == name)
    return common.run_config(cfg, p, p.vocabs[-1], "sinusoidal", cfg.seeds[0]) | change


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# --- the tasks, through the chapters' config expansion -------------------------------------------

def test_sort_targets_are_the_sorted_inputs():
    cfg = presets.resolve("appendix_a", "smoke", sort_length=9, sort_lstm_vocab=(5,))
    b = task_of(panel_config(cfg, appendix_a.panels(cfg), "sort-lstm")).sample(200, gen())
    for inp, tgt in zip(b.inputs.tolist(), b.targets.tolist()):
        out = tgt[9:]
        assert tgt[:9] == [IGNORE] * 9
        assert all(a <= c for a, c in zip(out, out[1:]))                  # ascending
        assert Counter(out) == Counter(inp[:9])                            # same multiset (ties kept)
    assert any(len(set(r[:9])) < 9 for r in b.inputs.tolist())             # drawn with replacement


def test_delayed_addition_is_a_modular_sum_with_modulus_v():
    cfg = presets.resolve("appendix_a", "paper", device="cpu")
    config = panel_config(cfg, appendix_a.panels(cfg), "add")
    assert (config["vocab_size"], config["length"], config["steps"]) == (1088, 16, 600_000)
    b = task_of(config).sample(64, gen())
    V, L = 1088, 16
    for inp, tgt in zip(b.inputs.tolist(), b.targets.tolist()):
        x, y = inp[:L], inp[L:]
        for i in range(L):
            s = x[L - 1 - i] + y[i]
            assert tgt[L + i] == (s - V if s >= V else s)
    assert (b.inputs[:, :L] + b.inputs[:, L:].flip(1) >= V).any()          # the modulus was exercised


def test_predecessor_inputs_distinct_and_target_is_the_predecessor():
    cfg = presets.resolve("appendix_a", "smoke", pred_length=6, pred_vocab=(6, 40))
    for v in (6, 40):
        b = task_of(panel_config(cfg, appendix_a.panels(cfg), "predecessor", vocab_size=v)).sample(300, gen(v))
        assert b.inputs.shape == (300, 7)
        for inp, tgt in zip(b.inputs.tolist(), b.targets.tolist()):
            x, query = inp[:6], inp[6]
            assert len(set(x)) == 6 and query in x[1:]                     # distinct; a non-initial token
            assert tgt[:6] == [IGNORE] * 6 and tgt[6] == x[x.index(query) - 1]


def test_variable_length_held_out_masks_per_length():
    cfg = presets.resolve("appendix_b", "smoke", min_length=3, length=7, held_out=5)
    task = task_of(common.run_configs(cfg, appendix_b.panels(cfg))[0])
    test = task.held_out(5, gen())
    assert Counter(test.lengths.tolist()) == {n: 5 for n in range(3, 8)}
    for inp, tgt, n in zip(test.inputs.tolist(), test.targets.tolist(), test.lengths.tolist()):
        scored = [t for t, v in enumerate(tgt) if v != IGNORE]
        assert scored == list(range(n, 2 * n))                             # exactly the n output steps
        assert [tgt[t] for t in scored] == inp[:n][::-1]
        assert inp[n:] == [task.command] * (14 - n)


# --- the parameter control ------------------------------------------------------------------------

@pytest.mark.parametrize("hidden, vocab", [(16, 16), (24, 50)])
def test_double_vanilla_has_the_parameter_count_of_pe(hidden, vocab):
    cfg = presets.resolve("appendix_c", "smoke", hidden=hidden, vocab=vocab)
    counts = common.parameter_counts(cfg, appendix_c.panels(cfg)).set_index(["panel", "variant"])["parameters"]
    H = E = hidden
    lstm = lambda n_in: 4 * H * n_in + 4 * H * H + 8 * H                   # weights + two bias vectors
    closed = {"vanilla": (vocab + 1) * E + lstm(E) + H * vocab + vocab,
              "double": (vocab + 1) * E + lstm(2 * E) + H * vocab + vocab}
    closed["sinusoidal"] = closed["double"]                                # the table is fixed, not trained
    for task in ("reverse", "sort"):
        for var, n in closed.items():
            assert counts[task, var] == n
        assert counts[task, "double"] == counts[task, "sinusoidal"]
        assert counts[task, "double"] - counts[task, "vanilla"] == 4 * H * E


def test_double_vanilla_feeds_two_copies_of_the_embedding():
    cfg = presets.resolve("appendix_c", "smoke")
    model = train.build_model(panel_config(cfg, appendix_c.panels(cfg), "reverse") | dict(encoding="none",
                                                                                        input_mode="double"))
    x = torch.tensor([[1, 2, 3, 16]])
    v = model.input_vectors(x)
    e = model.embedding(x)
    assert torch.equal(v, torch.cat([e, e], -1))


def test_reverse_runs_coincide_with_key_findings_runs():
    """Appendix C/D's vanilla and sinusoidal reverse runs are the key-findings runs at equal settings."""
    cfg = presets.resolve("appendix_c", "smoke")
    kf = presets.resolve("key_findings", "smoke", cores=("lstm",), lstm_vocab=(cfg.vocab,), length=cfg.length,
                         hidden=cfg.hidden, batch_size=cfg.batch_size, steps=cfg.steps, warmup=cfg.warmup,
                         lr=cfg.lr, betas=cfg.betas, held_out=cfg.held_out, checkpoint_every=cfg.checkpoint_every,
                         seeds=cfg.seeds, device=cfg.device, amp=cfg.amp, encodings=("none", "sinusoidal"))
    ours = {runs.key(c) for c in common.run_configs(cfg, appendix_c.panels(cfg))
            if c["task"] == "reverse" and c["input_mode"] == "concat"}
    assert len(ours) == 2 * len(cfg.seeds)
    assert ours == {runs.key(c) for c in key_findings.analysis.run_configs(kf)}


# --- summaries against plain loops ----------------------------------------------------------------

def fake_run(tmp_path, name, pred, target, lengths):
    d = tmp_path / name
    d.mkdir()
    np.savez(d / "predictions.npz", predictions=pred, targets=target, lengths=lengths)
    (d / "result.json").write_text(json.dumps(dict(status="done", config={}, metrics={}, history=[])))
    return str(d)


def test_summary_and_per_length_match_plain_loops(tmp_path):
    rng = np.random.default_rng(0)
    rows, data = [], {}
    for var in ("vanilla", "sinusoidal"):
        for seed in (1, 2):
            n, T = 30, 8
            lengths = rng.integers(2, 5, n)
            target = np.full((n, T), IGNORE)
            for i, l in enumerate(lengths):
                target[i, l:2 * l] = rng.integers(0, 3, l)
            pred = np.where(rng.random((n, T)) < 0.6, target, 7)
            data[var, seed] = (pred, target, lengths)
            rows.append(dict(panel="p", title="P", task="reverse_variable", model="lstm", vocab=3, variant=var,
                             label=common.LABELS[var], seed=seed,
                             path=fake_run(tmp_path, f"{var}{seed}", pred, target, lengths)))
    frame = pd.DataFrame(rows)
    summ = summary.summary(frame, n_resamples=200).set_index("variant")
    pl = summary.per_length(frame, n_resamples=200).set_index(["variant", "length"])
    for var in ("vanilla", "sinusoidal"):
        correct = scored = 0
        per = {}
        for seed in (1, 2):
            pred, target, lengths = data[var, seed]
            for p, t, l in zip(pred, target, lengths):
                c = sum(int(a == b) for a, b in zip(p, t) if b != IGNORE)
                s = sum(int(b != IGNORE) for b in t)
                correct, scored = correct + c, scored + s
                per.setdefault(int(l), [0, 0])
                per[int(l)][0] += c
                per[int(l)][1] += s
        assert summ.loc[var, "accuracy"] == pytest.approx(correct / scored)
        assert summ.loc[var, "accuracy_lo"] <= correct / scored <= summ.loc[var, "accuracy_hi"]
        for l, (c, s) in per.items():
            assert pl.loc[(var, l), "accuracy"] == pytest.approx(c / s)


def test_grades():
    assert summary.grade(0.8, 0.85, 0.6, 0.7) == "reproduced"
    assert summary.grade(0.65, 0.72, 0.6, 0.7) == "direction only"
    assert summary.grade(0.5, 0.6, 0.6, 0.7) == "not reproduced"
    assert summary.no_gain_grade("reproduced") == "not reproduced"
    assert summary.no_gain_grade("not reproduced") == "reproduced"
    assert summary.worst(["reproduced", "direction only"]) == "direction only"
    assert summary.worst([]) == "not run"
    assert summary.clearer_grade(0.2, 0.1, ["reproduced", "reproduced"]) == "reproduced"
    assert summary.clearer_grade(0.2, 0.1, ["reproduced", "direction only"]) == "direction only"
    assert summary.clearer_grade(0.05, 0.1, ["reproduced"]) == "not reproduced"


def test_compare_picks_the_largest_vocabulary():
    summ = pd.DataFrame([dict(panel="p", title="P", model="lstm", vocab=v, variant=var, accuracy=a,
                              accuracy_lo=a - 0.01, accuracy_hi=a + 0.01)
                         for v, var, a in [(8, "vanilla", 0.9), (8, "sinusoidal", 0.9),
                                           (64, "vanilla", 0.3), (64, "sinusoidal", 0.6)]])
    c = summary.compare(summ, "sinusoidal", "vanilla")
    assert c["vocab"].tolist() == [64] and c["grade"].tolist() == ["reproduced"]
    assert c["gain"].iloc[0] == pytest.approx(0.3)
    assert len(summary.compare(summ, "sinusoidal", "vanilla", vocab="all")) == 2


# --- bad options, refused before any training -----------------------------------------------------

@pytest.mark.parametrize("chapter, overrides, match", [
    ("appendix_a", dict(pred_length=20, pred_vocab=(16, 64)), "pred_vocab must be >= pred_length"),
    ("appendix_a", dict(sections=("add", "nope")), "sections must be"),
    ("appendix_a", dict(sort_cores=("s4d",)), "sort_cores"),
    ("appendix_a", dict(add_vocab=()), "add_vocab must hold"),
    ("appendix_b", dict(min_length=9, length=8), "empty length range"),
    ("appendix_c", dict(tasks=("reverse", "nope")), "unknown task 'nope'"),
    ("appendix_c", dict(variants=("vanilla", "random")), "unknown variant 'random'"),
    ("appendix_d", dict(min_length=7, length=6), "empty length range"),
    ("appendix_d", dict(variants=("vanilla", "vanilla")), "variants must be distinct"),
    ("appendix_d", dict(vocab=1), "vocab must hold"),
])
def test_bad_options_refused(chapter, overrides, match, monkeypatch):
    monkeypatch.setattr(train, "train", lambda *a, **k: pytest.fail("training started"))
    with pytest.raises(ValueError, match=match):
        presets.resolve(chapter, "smoke", **overrides)


def test_validate_reaches_the_task_registry():
    cfg = presets.resolve("appendix_c", "smoke")
    bad = Panel("x", "X", "nope", "lstm", (16,), ("vanilla",), 4, 10)
    with pytest.raises(ValueError, match=r"panel 'x'.*unknown task 'nope'"):
        common.validate(cfg, [bad])
    pred = Panel("q", "Q", "predecessor", "lstm", (8,), ("vanilla",), 9, 10)
    with pytest.raises(ValueError, match="vocab_size >= length"):
        common.validate(cfg, [pred])


def test_every_preset_resolves_and_expands():
    expected = {"appendix_a": 2 * 5 * (4 + 4 + 7 + 7), "appendix_b": 2 * 5, "appendix_c": 2 * 3 * 5,
                "appendix_d": 2 * 4 * 5}
    for chapter, mod in (("appendix_a", appendix_a), ("appendix_b", appendix_b), ("appendix_c", appendix_c),
                         ("appendix_d", appendix_d)):
        for preset in ("smoke", "quick", "paper"):
            cfg = presets.resolve(chapter, preset, device="cpu")
            configs = common.run_configs(cfg, mod.panels(cfg))
            assert len({runs.key(c) for c in configs}) == len(configs)
        assert len(configs) == expected[chapter]                            # the paper preset's runs


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_appendix_d_reuses_the_runs_of_appendix_b_and_c(preset):
    """D's vanilla/sinusoidal runs at variable length are among B's, and at fixed length among C's."""
    b, c, d = (presets.resolve(ch, preset, device="cpu") for ch in ("appendix_b", "appendix_c", "appendix_d"))
    keys = lambda cfg, mod, pick: {runs.key(x) for x in common.run_configs(cfg, mod.panels(cfg)) if pick(x)}
    pe_or_vanilla = lambda x: x["encoding"] in ("none", "sinusoidal") and x["input_mode"] == "concat"
    d_var = keys(d, appendix_d, lambda x: x["task"] == "reverse_variable" and pe_or_vanilla(x))
    d_fix = keys(d, appendix_d, lambda x: x["task"] == "reverse" and pe_or_vanilla(x))
    assert d_var and d_var <= keys(b, appendix_b, pe_or_vanilla)
    assert d_fix and d_fix <= keys(c, appendix_c, lambda x: x["task"] == "reverse" and pe_or_vanilla(x))

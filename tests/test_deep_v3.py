"""DEEP_RULE v3 (issue 65): v2's V 256 trunks continued to the text's 300,000 updates.

Checked: the preset is v2's V 256 cell on v2's seeds and trunks at 300,000 with 150,000 and 75,000, and refuses
anything else; its power module reads the archived curves as a hand computation does, counts a trunk's remaining
work as the trunks module branches it, and the rule's written powers are the committed table's; the protocol holds a
comparison back at the text's budget while the model behind still gains (one reason v3 is underpowered), and
settles a stopped, clear gap there; a later preset's runs continue an earlier preset's packed trunks and store what they store
trained alone, bit for bit (fp64).
"""
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from penb import long_run, plan, presets, runs, sizing, trunks
from penb.chapters.key_findings import presets as kf
from penb.power import fig2_v3
from penb.run_config import decay_start

from tests.test_long_run import TINY, Ticks, same_result, trunk_configs, use_store


def test_the_v3_preset_continues_v2s_v256_trunks_to_the_texts_budget():
    v3 = plan.configs_for("key_findings", presets.resolve("key_findings", "deep_v3", device="cpu"))
    v2 = plan.configs_for("key_findings", presets.resolve("key_findings", "deep_v2", device="cpu", gru_vocab=(256,)))
    assert {c["steps"] for c in v3} == {300_000, 150_000, 75_000} and len(v3) == 2 * 5 * 3
    assert {c["vocab_size"] for c in v3} == {256} and {c["seed"] for c in v3} == set(sizing.DEEP_V2_SEEDS)
    assert {trunks.trunk_key(c) for c in v3} == {trunks.trunk_key(c) for c in v2}    # one set of runs per seed
    assert not {runs.key(c) for c in v3} & {runs.key(c) for c in v2}
    assert long_run.sources_for("key_findings", "deep_v3") == [long_run.folder_for("key_findings", "deep_v2")]


@pytest.mark.parametrize("override", [{"gru_vocab": (128,)}, {"gru_vocab": (128, 256)},
                                      {"per_core": {"gru": {"batch_size": 64, "steps": 128_000}}},
                                      {"seeds": presets.confirmation(5)}, {"amp": "bf16"}])
def test_the_v3_preset_refuses_other_targets(override):
    with pytest.raises(ValueError, match="deep_v3 preset's budgets are fixed targets"):
        presets.resolve("key_findings", "deep_v3", device="cpu", **override)


def test_the_power_module_reads_the_archive_as_a_hand_count_does():
    res = json.loads((fig2_v3.ARCHIVE / "results.json").read_text())
    by = {}
    for r in res.values():
        c = r["config"]
        if c["vocab_size"] == 256 and r["status"] == "done":
            by.setdefault(c["encoding"], {}).setdefault(c["steps"], []).append(r["metrics"]["token_accuracy"])
    x = fig2_v3.measured()
    for enc in ("sinusoidal", "none"):
        m = [np.mean(by[enc][n]) for n in (32_000, 64_000, 128_000)]
        assert np.allclose(x[enc].mean(axis=0), m)
        # 75,000 on the line between 64,000 and 128,000 in log2 N; 300,000 1.23 doublings on at the last move
        move = m[2] - m[1]
        held = fig2_v3.means(x[enc], "held")
        assert held[0] == pytest.approx(m[1] + math.log2(75 / 64) * move)
        assert held[2] == pytest.approx(m[2] + math.log2(300 / 128) * move)
        assert np.allclose(fig2_v3.means(x[enc], "stopped")[1:], m[2])


def test_a_trunks_remaining_work_is_counted_as_the_trunks_branch():
    # v2's trunk holds 25,600, 51,200 and 102,400 (what penb.trunks saves for v2's N = 128,000 at the preset's decay):
    # the stable part to 240,000 (137,600), the decays of 300,000, 150,000 and 75,000 (60,000, 30,000, 15,000) and
    # 75,000's stretch from 51,200 to its decay at 60,000 (8,800)
    v2 = max(plan.configs_for("key_findings", presets.resolve("key_findings", "deep_v2", device="cpu",
                                                              gru_vocab=(256,))), key=lambda c: c["steps"])
    v3 = plan.configs_for("key_findings", presets.resolve("key_findings", "deep_v3", device="cpu"))
    assert {c["decay"] for c in v3} == {v2["decay"]} == {fig2_v3.DECAY}
    assert fig2_v3.V2_POINTS == tuple(sorted(trunks.branch_points(v2))) == (25_600, 51_200, 102_400)
    assert fig2_v3.updates_left(300_000, fig2_v3.V2_POINTS) == 137_600 + 60_000 + 30_000 + 15_000 + 8_800
    assert fig2_v3.updates_left(300_000) == 240_000 + 60_000 + 30_000 + 15_000
    assert fig2_v3.updates_left(128_000) == 102_400 + 25_600 + 12_800 + 6_400


def test_the_rules_written_powers_are_the_committed_tables():
    t = pd.read_csv(fig2_v3.TABLE)
    fresh = fig2_v3.analyse(draws=1)              # all but the power (its draws) recomputed from the archive now
    same = [c for c in t.columns if not c.startswith("power_p")]
    pd.testing.assert_frame_equal(t[same], fresh[same], check_dtype=False)
    assert set(t["scenario"]) == set(fig2_v3.SCENARIOS) and set(t["seeds"]) == set(fig2_v3.SEED_COUNTS)
    p = fig2_v3.design_power()
    text = " ".join(line.lstrip("# ") for line in open(sizing.__file__).read().splitlines())
    said = re.search(r"settles \"reproduced\" in ([\d.]+)% of draws with both sides' last moves held, ([\d.]+)% with "
                     r"them slowing as v2 extrapolated, ([\d.]+)% with both stopped .*?, ([\d.]+)% at the SESOI", text)
    assert said, "the rule's sentence on the power is missing"
    assert [float(v) / 100 for v in said.groups()] == [p[s] for s in ("held", "slowing", "stopped", "sesoi")]
    assert max(t["power_p8"]) < 0.8                                           # underpowered, as the rule says


def test_at_the_texts_budget_a_gap_is_held_back_while_the_model_behind_gains_and_settled_once_stopped():
    """The protocol's doubling test at N = horizon: vanilla gaining 0.05 a doubling holds a clear gap back at any
    seed count; both stopped, the same gap at ten seeds settles as reproduced in nearly every draw."""
    from penb.power import searched

    van_moving = np.array([0.10, 0.15, 0.20])
    pe_moving = van_moving + 0.3
    held = searched.power(fig2_v3.SPEC, pe_moving, van_moving, 10, 0.01, 0.005, 300_000, 8, draws=40, horizon=300_000)
    stopped = searched.power(fig2_v3.SPEC, np.full(3, 0.5), np.full(3, 0.2), 10, 0.01, 0.005, 300_000, 8, draws=40,
                             horizon=300_000)
    assert held == 0.0 and stopped >= 0.9


def test_a_later_presets_runs_continue_an_earlier_presets_packed_trunks_bit_for_bit(tmp_path, monkeypatch):
    """v2 trains N = 128 with 64 and 32 and is packed; on a new machine v3's budgets 150, 75 and 37 on the same trunk
    restore v2's folder first (``sources``) and go on from its branch points: they take fewer updates than the same
    runs from nothing (a fake clock that ticks once an update counts them) and store what they store trained alone,
    bit for bit; v2's folder is left as it was; a segment with sources packs v3's runs into v3's folder."""
    from penb import runner
    from penb.call import budgeted

    early = trunk_configs(encodings=("none",), n=128)
    late = trunk_configs(encodings=("none",), n=150)
    assert {trunks.trunk_key(c) for c in early} == {trunks.trunk_key(c) for c in late}
    store = use_store(monkeypatch, tmp_path / "m1")
    v2 = tmp_path / "v2"
    long_run.segment(early, v2, minutes=30, workers=1, commit="v2", fields={"preset": "deep_v2"})
    before = {p.name: p.read_bytes() for p in v2.iterdir()}
    points = {int(p.stem.split("-")[1]) for p in trunks.trunk_dir(early[0], store).glob("step-*.pt")}
    assert points == {decay_start(n, TINY["decay"]) for n in (128, 64, 32)}

    def ticks_to_finish(machine, sources):
        store = use_store(monkeypatch, tmp_path / machine)
        long_run._restored(sources, store)
        clock = Ticks()
        budgeted.drive(budgeted.groups(late, batched=True, width=3), 10 ** 9, clock, fit=False)
        assert all(runs.status(c, store) == "done" for c in late)
        return clock.t, store

    scratch, _ = ticks_to_finish("m2", [])
    continued, store = ticks_to_finish("m3", [v2])
    # from nothing: the trunk to D(150) = 75 and the decays 75 + 38 + 18 (206); continued from 64, 32 and 16: 11 of
    # trunk, the same decays and the short stretches 32 -> 37 and 16 -> 19 (150): 56 updates fewer, and the clock's
    # few readings a group besides (measured: 234 against 159 readings)
    assert 50 <= scratch - continued, (scratch, continued)
    assert {p.name: p.read_bytes() for p in v2.iterdir()} == before
    for c in late:
        want = tmp_path / "alone" / runs.key(c)
        runner.train_one(c, want)
        same_result(c, store, want)

    use_store(monkeypatch, tmp_path / "m4")
    man = long_run.segment(late, tmp_path / "v3", minutes=30, workers=1, commit="v3", sources=[v2])
    assert man["reached"] == {runs.key(c): c["steps"] for c in late} and man["keys"] == sorted(runs.key(c) for c in late)


def test_the_v3_archive_reads_the_headlines_four_claims_and_leaves_the_trend_to_v2():
    from penb.chapters.key_findings import grading

    cfg = presets.resolve("key_findings", "deep_v3", device="cpu")
    largest = ("morita.fig2.gru", "morita.fig2.distance.gru", "morita.fig2.level.gru", "morita.sec4_1.more_updates.gru")
    assert all(grading.cells_not_trained(cfg, k, "gru") == "" for k in largest)
    for k in ("morita.fig2.trend.gru", "morita.fig2.decline.gru"):
        assert "DEEP_RULE v3 trains V 256 alone" in grading.cells_not_trained(cfg, k, "gru")


def test_an_archive_keeps_each_curve_on_a_log_grid_from_1000_updates():
    """A history logged every 100 updates to 128,000 keeps, by hand: 1,000, then the first entry at or past each
    1,000 x 2^(j/8) (1,090.5 -> 1,100, 1,189.2 -> 1,200, ..., 2,000, ... 128,000: 57 entries), and always the last;
    nothing before 1,000."""
    from penb.call.archive import committed, thinned

    h = [{"step": s, "accuracy": s / 1e6} for s in range(100, 128_001, 100)]
    grid = [1000 * 2 ** (j / 8) for j in range(57)]
    want = [min(s for s in range(100, 128_001, 100) if s >= g) for g in grid]
    got = [e["step"] for e in thinned(h)]
    assert got == want and got[:9] == [1000, 1100, 1200, 1300, 1500, 1600, 1700, 1900, 2000] and got[-1] == 128_000
    assert thinned(h[:5]) == [h[4]]                                      # a run shorter than 1,000: its last entry
    assert committed({"k": {"history": h, "x": 1}, "other": {}}, {"k"}) == {"k": {"history": thinned(h), "x": 1}}


def test_the_headline_view_reads_each_archives_longest_curves_budgets_and_verdicts(tmp_path):
    """Two fake archives (v2 to 128, v3 to 300 on the same seeds): the curves are each archive's longest run per
    encoding and seed, the budgets every run's held-out accuracy, the verdicts the four claims as recorded; another
    V or a diverged run is left out."""
    import matplotlib
    matplotlib.use("Agg")
    from penb.chapters.key_findings import headline

    def run(enc, seed, steps, acc, v=256, status="done"):
        return {"config": {"core": "gru", "vocab_size": v, "encoding": enc, "seed": seed, "steps": steps},
                "status": status, "metrics": {"token_accuracy": acc},
                "history": [{"step": s, "accuracy": acc * s / steps, "loss": 1.0} for s in (steps // 2, steps)]}

    for name, n in (("key_findings-deep_v2", 128), ("key_findings-deep_v3", 300)):
        d = tmp_path / name
        d.mkdir()
        rs = [run(e, s, b, 0.1 + 0.01 * s + (e == "sinusoidal") * 0.05)
              for e in ("none", "sinusoidal") for s in (1, 2) for b in (n, n // 2)]
        rs += [run("none", 1, n, 0.9, v=128), run("none", 3, n, 0.9, status="diverged")]
        (d / "results.json").write_text(json.dumps({str(i): r for i, r in enumerate(rs)}))
        (d / "key_findings.grades.json").write_text(json.dumps(
            {"morita.fig2.gru": {"scale": {"updates": n}, "protocol": 8, "verdict": f"v{n}", "ours": "x"},
             "morita.fig2.trend.gru": {"verdict": "not tested"}}))
        (d / "manifest.json").write_text(json.dumps({"preset": name[13:], "device": "cpu", "seeds": [1, 2],
                                                     "updates": {"gru": n}, "runs_commit": ["abcdef0123"]}))
    dirs = headline.folders(tmp_path)
    assert [d.name for d in dirs] == ["key_findings-deep_v2", "key_findings-deep_v3"]
    c = headline.curves(dirs)
    assert sorted(set(zip(c["archive"], c["step"]))) == [("key_findings-deep_v2", 64), ("key_findings-deep_v2", 128),
                                                          ("key_findings-deep_v3", 150), ("key_findings-deep_v3", 300)]
    assert len(c) == 2 * 2 * 2 * 2
    b = headline.budgets(dirs)
    assert len(b) == 16 and set(b["steps"]) == {64, 128, 150, 300}
    assert b[(b.encoding == "sinusoidal") & (b.seed == 2) & (b.steps == 300)]["token_accuracy"].item() == \
        pytest.approx(0.17)
    v = headline.verdicts(dirs)
    assert list(v["verdict"]) == ["v128", "v300"] and list(v["updates"]) == [128, 300]
    assert "seeds 1-2" in headline.provenance(dirs)
    headline.figure(dirs)


@pytest.mark.parametrize("preset", sizing.FIXED_TARGETS)
def test_every_fixed_target_preset_is_one_that_key_findings_refuses_to_change(preset):
    """penb.sizing.FIXED_TARGETS is the one list (penb.call.fit reads it): each of its presets refuses another
    budget in key findings, and key findings fixes no preset outside it."""
    from penb.call import fit as call_fit

    assert call_fit.FIXED_TARGETS is sizing.FIXED_TARGETS and set(kf.FIXED) == set(sizing.FIXED_TARGETS)
    with pytest.raises(ValueError, match="fixed targets"):
        presets.resolve("key_findings", preset, device="cpu", per_core={"gru": {"batch_size": 64, "steps": 1000}})


def test_a_device_call_restores_the_long_runs_trunks_before_it_trains(tmp_path, monkeypatch):
    """penb.long_run.restore_for (what penb.call.device_run calls after checking the tree): the committed state of a
    preset and of the presets it continues goes into the call's store, so that a GPU continues these trunks; a
    preset without a long run restores nothing."""
    early = trunk_configs(encodings=("none",), n=32)
    use_store(monkeypatch, tmp_path / "m1")
    folders = {p: tmp_path / f"key_findings-{p}-trunks" for p in ("deep_v2", "deep_v3")}
    long_run.segment(early, folders["deep_v2"], minutes=30, workers=1, commit="v2",
                     fields={"preset": "deep_v2"})
    monkeypatch.setattr(long_run, "folder_for", lambda chapter, preset: folders.get(preset, tmp_path / "none"))
    store = tmp_path / "device-store"
    got = long_run.restore_for(["key_findings"], "deep_v3", store)
    assert got == {"key_findings-deep_v2-trunks": len(list(long_run._members(early, runs.root())))}
    assert all(runs.status(c, store) == "done" for c in early)
    assert long_run.restore_for(["key_findings"], "quick", tmp_path / "other") == {}


def test_an_archive_of_a_long_runs_runs_names_each_segment_that_trained_them(tmp_path, monkeypatch):
    """``python -m penb collect`` (penb.long_run.collect) writes into the collected manifest, which the archive
    keeps, every segment of the long run behind the preset, those of the presets it continues first: their commit
    and minutes (issue 65's "each segment's host, commit and minutes in its manifest")."""
    early = trunk_configs(encodings=("none",), n=32)
    use_store(monkeypatch, tmp_path / "m1")
    folders = {p: tmp_path / f"key_findings-{p}-trunks" for p in ("deep_v2", "deep_v3")}
    long_run.segment(early, folders["deep_v2"], minutes=30, workers=1, commit="v2", fields={"preset": "deep_v2"})
    monkeypatch.setattr(long_run, "folder_for", lambda chapter, preset: folders.get(preset, tmp_path / "none"))
    got = long_run.trained_by("key_findings", "deep_v3")
    assert list(got) == ["key_findings-deep_v2-trunks"]
    (seg,) = got["key_findings-deep_v2-trunks"]["segments"]
    assert seg["commit"] == "v2" and seg["minutes"] >= 0 and seg["host"]["cores"]
    assert long_run.trained_by("key_findings", "quick") == {}

    seen = {}
    monkeypatch.setattr(long_run.budgeted, "collect_preset", lambda *a, **kw: seen.update(kw) or {})
    long_run.collect("key_findings", "deep_v3", tmp_path / "out")
    assert seen["long_run"] == got
    seen.clear()
    long_run.collect("key_findings", "quick", tmp_path / "out")
    assert "long_run" not in seen

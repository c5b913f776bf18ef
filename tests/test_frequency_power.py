"""Frequency's deep power analysis (issue 58, penb.power.fig3), checked against computations made
here: the budgets read by steps whichever trunk they came from, the noise and offsets read back from curves drawn
with them, the noncentral t's power where nothing is left to the horizon, the CPU rate and minutes by hand, and the
rule's choice on hand-made tables."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from penb import sizing
from penb.power import fig3 as power


def _search(noise=0.004, offset=0.02, seeds=40, rng=None):
    """A search table drawn with a known per-seed offset and evaluation noise: harm falling 0.01 a doubling for
    vanilla from 0.10, PE flat at 0.01, budgets 1k-32k on trunks 4k and 32k."""
    rng = rng or np.random.default_rng(0)
    rows = []
    for v in (32, 64):
        for enc, start, slope in (("none", 0.10, -0.01), ("sinusoidal", 0.01, 0.0)):
            for seed in range(seeds):
                off = rng.normal(0, offset)
                for trunk in (4000, 32_000):
                    for steps in (trunk // 4, trunk // 2, trunk):
                        k = math.log2(steps / 1000)
                        rows.append(dict(vocab=v, encoding=enc, seed=seed, trunk=trunk, steps=steps, diverged=False,
                                         harm=start + slope * k + off + rng.normal(0, noise), acc_frequent=0.9,
                                         batch_runs=6, batch_wall_s=100.0 if trunk == 32_000 else 12.0))
    return pd.DataFrame(rows)


def test_budgets_are_read_by_steps_across_trunks():
    t = _search(noise=0.0, offset=0.0, seeds=3)
    x = power.curve(t, 64, 8000, "none")               # 2,000 and 4,000 from the 4k trunk, 8,000 from the 32k one
    assert x.shape == (3, 3) and np.allclose(x[0], [0.09, 0.08, 0.07])
    with pytest.raises(ValueError, match="no budgets"):
        power.curve(t, 64, 64_000, "none")
    m, extrapolated = power.means(t, 64, 64_000, "none")
    assert extrapolated and np.allclose(m, [0.06, 0.05, 0.04])   # moves -0.01, -0.01: ratio 1


def test_the_noise_and_offsets_are_read_back_from_curves_drawn_with_them():
    offset, noise = power.spread_and_noise(_search())
    assert noise == pytest.approx(0.004, rel=0.1) and offset == pytest.approx(0.02, rel=0.15)


def test_power_where_nothing_is_left_to_the_horizon_is_the_noncentral_t_power():
    """Both sides still, no evaluation noise, N at the horizon: the rule alone decides, vanilla's harm above PE's
    when the paired Student-t interval lies above 0, so the power is the noncentral t's."""
    n, offset, gap = 5, 0.01, 0.012
    a, b = np.full(3, 0.05 + gap), np.full(3, 0.05)
    got = power.power(a, b, n, offset, 0.0, 32_000, 7, draws=2000, params={"min_agree": 0.0, "min_seeds": 3},
                      horizon=32_000)
    s = offset * math.sqrt(2)
    expect = 1 - stats.nct.cdf(stats.t.ppf(0.975, n - 1), n - 1, gap * math.sqrt(n) / s)
    assert 0.2 < expect < 0.9
    assert got == pytest.approx(expect, abs=0.035)


def test_the_cpu_rate_and_minutes_by_hand():
    t = _search(seeds=3)
    assert power.cpu_rate(t) == pytest.approx((6 * 32_000 + 6 * 4000) / (100.0 + 12.0))   # the trunks' batches
    t.loc[t["steps"] != t["trunk"], "batch_wall_s"] = 1.0               # a branch batch trains its decay only
    assert power.cpu_rate(t) == pytest.approx((6 * 32_000 + 6 * 4000) / (100.0 + 12.0))
    assert power.cpu_rate(t[t["trunk"] == 4000]) == pytest.approx(6 * 4000 / 12.0)
    assert power.cpu_minutes(32_000, 5, 1920.0) == pytest.approx(2 * 5 * 1.15 * 32_000 / 1920 / 2 / 60)


def _table(rows):
    return pd.DataFrame([dict(vocab=64, N=n, seeds=k, power_p7=p, cpu_min=c) for n, k, p, c in rows])


def test_the_rule_takes_the_smallest_budget_and_fewest_seeds_that_reach_the_power():
    t = _table([(8000, 5, 0.5, 10), (16_000, 5, 0.79, 20), (16_000, 8, 0.85, 32), (32_000, 5, 0.9, 40)])
    c = power.choose(t, protocol=7)
    assert (c["N"], c["seeds"], c["reached"]) == (16_000, 8, True)
    t = _table([(8000, 5, 0.5, 60), (16_000, 5, 0.6, 95), (8000, 10, 0.7, 89)])
    c = power.choose(t, protocol=7)
    assert (c["N"], c["seeds"], c["reached"]) == (8000, 10, False)     # 16,000 does not fit 90 CPU-minutes
    assert sizing.FREQ_DEEP_BUDGETS == (8000, 16_000, 32_000, 64_000)


# -- the deep preset the rule reads off the committed table ---------------------------------------------------------
def test_the_deep_preset_is_what_the_rule_reads_off_the_committed_table():
    from penb.chapters.frequency import presets as fq

    if not power.TABLE.exists():
        pytest.skip("no power analysis table committed yet")
    c = power.choose(pd.read_csv(power.TABLE))
    assert (fq.DEEP_N, fq.DEEP_SEEDS, fq.DEEP_VOCAB) == (c["N"], c["seeds"], power.DEEP_VOCAB)


def test_the_frequency_deep_preset_is_the_rules_fixed_targets():
    from penb import presets
    from penb.chapters import rnn_common
    from penb.chapters.frequency import analysis
    from penb.chapters.frequency import presets as fq

    cfg = presets.resolve("frequency", "deep")
    configs = analysis.run_configs(cfg)
    assert {(c["core"], c["vocab_size"], c["steps"], c["amp"]) for c in configs} == {("gru", 64, fq.DEEP_N, "none")}
    assert {c["encoding"] for c in configs} == {"none", "sinusoidal"}
    assert cfg.seeds == presets.confirmation(fq.DEEP_SEEDS)
    assert {c["steps"] for c in rnn_common.all_budgets(configs, cfg)} == {fq.DEEP_N, fq.DEEP_N // 2, fq.DEEP_N // 4}
    assert not set(cfg.seeds) & (set(presets.SEARCH_SEEDS) | set(presets.PILOT_SEEDS))


@pytest.mark.parametrize("override", [{"per_core": {"gru": {"steps": 4000}}}, {"seeds": (2001, 2002, 2003)},
                                      {"seeds": (0, 1, 2, 111, 222)}, {"gru_vocab": 32}, {"earlier": 0},
                                      {"amp": "bf16"}, {"cores": ("gru", "lstm")}])
def test_the_frequency_deep_preset_refuses_host_dependent_budgets(override):
    from penb import presets

    with pytest.raises(ValueError, match="fixed targets"):
        presets.resolve("frequency", "deep", **override)


# -- the search: quick's shapes in fp32, search seeds only, every budget a trunk's N, N/2 or N/4 ----------------------
def _search_module():
    import importlib.util

    from penb.store import paths

    spec = importlib.util.spec_from_file_location("search_deep", paths.REPO / "scripts" / "search_deep.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("chapter,core,vocab", [("frequency", "gru", [32, 64]), ("key_findings", "gru", [32, 256]),
                                                ("key_findings", "lstm", [256, 512])])
def test_the_search_lists_quick_shapes_in_fp32_at_every_budget(chapter, core, vocab):
    from penb import presets

    search = _search_module()
    todo = search.configs(core, vocab, [0, 1], [4000, 32_000], chapter, ("none", "sinusoidal"))
    quick = presets.resolve(chapter, "quick")
    shapes = {**{k: quick[k] for k in ("hidden", "batch_size", "lr", "length")}, **quick.per_core.get(core, {})}
    assert len(todo) == len(vocab) * 2 * 2 * 2 * 3                     # V x variants x seeds x trunks x budgets
    assert {c["steps"] for c in todo} == {1000, 2000, 4000, 8000, 16_000, 32_000}
    for c in todo:
        assert c["core"] == core and c["amp"] == "none" and c["schedule"] == "wsd" and c["seed"] in (0, 1)
        assert all(c[k] == v for k, v in shapes.items() if k in ("hidden", "batch_size", "lr", "length"))
    if chapter == "frequency":
        assert {c["task"] for c in todo} == {"dual_frequency"}
    with pytest.raises(SystemExit, match="search seeds only"):
        search.main(["--seeds", "2001", "--out", "/dev/null"])


# -- DEEP_RULE v2 for Fig. 2's GRU (penb.power.fig2): the same machinery, an H100's minutes, five fresh seeds ---------
def test_two_doublings_beyond_the_search_extrapolate_twice():
    from penb.power import searched

    t = _search(noise=0.0, offset=0.0, seeds=3)
    m, ext = searched.means(t, 64, 128_000, "none", "harm")     # 8k-32k searched: -0.01 a doubling, ratio 1
    assert ext and np.allclose(m, [0.05, 0.04, 0.03])
    t.loc[(t["encoding"] == "none") & (t["steps"] == 32_000), "harm"] -= 0.005   # last move -0.015: ratio clipped
    m, _ = searched.means(t, 64, 64_000, "none", "harm")
    assert np.allclose(m, [0.06, 0.045, 0.045 - 0.015])


def test_v2_takes_the_smallest_gpu_budget_at_the_five_fresh_seeds():
    from penb.power import fig2

    t = pd.DataFrame([dict(vocab=256, N=n, seeds=k, power_p7=p, cpu_min=999.0, h100_min=m)
                      for n, k, p, m in [(32_000, 5, 0.5, 5), (32_000, 8, 0.9, 8), (64_000, 5, 0.82, 10),
                                         (128_000, 5, 0.95, 40)]])
    c = fig2.choose(t, protocol=7)
    assert (c["N"], c["seeds"], c["reached"]) == (64_000, 5, True)      # 8 seeds are more than v2 holds
    t.loc[t["N"] == 64_000, "power_p7"] = 0.7
    c = fig2.choose(t, protocol=7)
    assert (c["N"], c["seeds"], c["reached"]) == (64_000, 5, False)     # 128,000 is past the 30 H100-minutes
    assert sizing.DEEP_V2_SEEDS == (2006, 2007, 2008, 2009, 2010) and sizing.GPU_DEEP_MINUTES == 30.0


def test_the_table_has_rows_only_where_both_sides_were_searched():
    from penb.power import searched

    t = _search(seeds=3)
    t = t[~((t["vocab"] == 32) & (t["encoding"] == "sinusoidal"))]
    spec = searched.Spec(claim=power.CLAIM, value="harm", sides=("none", "sinusoidal"), names=("a", "b"),
                         budgets=(32_000,), vocab=64, low=-1.0, baseline=0.0)
    rows = searched.rows(spec, t, (3,), lambda n, k: {"cpu_min": 1.0}, draws=5)
    assert [(r["vocab"], r["N"], r["seeds"]) for r in rows] == [(64, 32_000, 3)]
    assert rows[0]["a_at_n"] == pytest.approx(t[(t.vocab == 64) & (t.encoding == "none") & (t.steps == 32_000)]
                                              ["harm"].mean(), abs=1e-4)

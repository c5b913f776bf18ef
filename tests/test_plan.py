"""The plan a preset would train (``python -m penb plan``, issue 36): updates counted as the store trains them
(one WSD trunk per group of budgets, plus each shorter budget's decay branch), runs shared between chapters
counted once, and the plan printed before anything trains."""
import pytest

from penb import cli, plan, presets, run_config
from penb.chapters.key_findings import analysis as kfa
from penb.executors import cost


def _wsd(steps, seed=1, **more):
    cfg = presets.resolve("key_findings", "smoke", schedule="wsd")
    c = kfa.run_config(cfg, "gru", 16, "none", seed)
    return run_config.normalize({**c, "steps": steps, **more})


def test_a_trunk_of_two_budgets_costs_its_longest_run_and_one_decay_branch():
    # N = 1000 with a 20% decay: the trunk runs to 800 and decays to 1000; N/2 = 500 branches at 400 and
    # decays for 100 updates: 1,100 updates, 1.1 N (the figure protocol 4's budget rests on)
    n, half = _wsd(1000), _wsd(500)
    assert plan.updates([n, half]) == 1100
    # another seed is another trunk; a cosine run is trained in full
    assert plan.updates([n, half, _wsd(1000, seed=2)]) == 2100
    cosine = run_config.normalize({**n, "schedule": "cosine"})
    assert plan.updates([cosine, {**cosine, "steps": 500}]) == 1500


def test_gpu_hours_follow_the_updates_at_the_step_time_of_each_run():
    n, half = _wsd(1000), _wsd(500)
    assert cost.gpu_hours([n, half]) == 1100 * cost.step_seconds(n) / 3600


def test_runs_shared_between_chapters_count_once():
    rows = {r["chapter"]: r for r in plan.book("smoke", ["key_findings", "beyond_rnn"])}
    kf = presets.resolve("key_findings", "smoke")
    assert rows["key_findings"]["shared"] == 0 and rows["key_findings"]["runs"] > 0
    # beyond_rnn's vanilla and PE runs (and their N/2 branches) are key_findings' own
    assert rows["beyond_rnn"]["shared"] == 2 * 2 * len(kf.seeds)


def test_the_cli_prints_the_plan_with_a_total(capsys):
    assert cli.main(["plan", "--preset", "smoke", "key_findings", "frequency"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["chapter", "preset", "runs", "shared", "updates", "H100", "h", "batched"]
    assert "key_findings" in out and "frequency" in out and out.splitlines()[-2].startswith("total")


def _gpu_shape(n_runs, steps, **shape):
    """``n_runs`` cosine GRU runs of one shape (seeds 1..n), each ``steps`` updates, normalised."""
    cfg = presets.resolve("key_findings", "smoke")
    return [run_config.normalize({**kfa.run_config(cfg, "gru", 32, "none", s), "schedule": "cosine", "steps": steps,
                                  **shape}) for s in range(1, n_runs + 1)]


def test_a_small_batch_is_planned_at_the_measured_eager_rate_of_its_batch():
    # 16 quick GRU runs (h64, L16, batch 64, V32), 1,000 updates: too few to compile on CUDA; the H200 measured 16 such
    # runs as one eager batch at 739.4 run-updates/s (benchmarks/results/h200-2026-11-27.txt)
    group = _gpu_shape(16, 1000, hidden=64, length=16, batch_size=64)
    assert plan.batched_hours(group, max_runs=64) == pytest.approx(1000 * 16 / 739.4 / 3600)
    # split into batches of 8: eight runs twice, each read between the measured K = 1 and K = 16 times
    assert plan.batched_hours(group, max_runs=8) > plan.batched_hours(group, max_runs=64)


def test_a_compiled_batch_at_the_papers_size_is_charged_its_arithmetic():
    # at the paper's size (h512, L64, batch 512, V256) one run fills the device (16 as a batch ran 1.01x one run on an
    # H100): the compiled graph removes launches, not FLOPs, so 16 runs cost 16 runs' step time plus the compile
    from penb.executors.cost import PAPER_STEP_S

    group = _gpu_shape(16, 4000, hidden=512, length=64, batch_size=512, vocab_size=256)
    assert plan.batched_hours(group) == pytest.approx((120.0 + 4000 * 16 * PAPER_STEP_S["gru"]) / 3600)

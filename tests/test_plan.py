"""The plan a preset would train (``python -m penb plan``, issue 36): updates counted as the store trains them
(one WSD trunk per group of budgets, plus each shorter budget's decay branch), runs shared between chapters
counted once, and the plan printed before anything trains."""
from penb import cli, plan, presets, run_config
from penb.chapters.key_findings import analysis as kfa


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
    from penb.executors.cost import step_seconds

    n, half = _wsd(1000), _wsd(500)
    assert plan.gpu_hours([n, half]) == 1100 * step_seconds(n) / 3600


def test_runs_shared_between_chapters_count_once():
    rows = {r["chapter"]: r for r in plan.book("smoke", ["key_findings", "beyond_rnn"])}
    kf = presets.resolve("key_findings", "smoke")
    assert rows["key_findings"]["shared"] == 0 and rows["key_findings"]["runs"] > 0
    # beyond_rnn's vanilla and PE runs (and their N/2 branches) are key_findings' own
    assert rows["beyond_rnn"]["shared"] == 2 * 2 * len(kf.seeds)


def test_the_cli_prints_the_plan_with_a_total(capsys):
    assert cli.main(["plan", "--preset", "smoke", "key_findings", "frequency"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["chapter", "preset", "runs", "shared", "updates", "H100", "h"]
    assert "key_findings" in out and "frequency" in out and out.splitlines()[-2].startswith("total")

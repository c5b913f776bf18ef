"""The chapter "Frequency matters" (Fig. 3): the dual-frequency sampler's ratio by exact tests, the structured
test grid as the chapter's runs build it, quarter and cell counts against plain loops, the bootstrap of a
proportion against scipy's, the presets against the paper's numbers, and bad input."""
import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from penb import claims, presets, runs, train
from penb.chapters import frequency, gradient_stability
from penb.chapters.frequency import analysis
from penb.tasks import IGNORE, make_task


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# -- the sampler ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rarity", [1 / 8, 0.3])
def test_sampler_rare_share_and_per_token_ratio(rarity):
    V, L = 12, 16
    x = make_task("dual_frequency", V, L, rarity=rarity).sample(3000, gen(3)).inputs[:, :L].flatten()
    n, k_rare = x.numel(), int((x >= V // 2).sum())
    assert stats.binomtest(k_rare, n, rarity).pvalue > 1e-3                  # share of RARE positions
    assert stats.binomtest(k_rare, n, 1 / 2).pvalue < 1e-12                  # ... and clearly not uniform
    counts = torch.bincount(x, minlength=V).numpy()
    p = np.r_[np.full(V // 2, (1 - rarity) * 2 / V), np.full(V // 2, rarity * 2 / V)]   # Sec. 4.2
    assert stats.chisquare(counts, n * p).pvalue > 1e-3                      # each token as the paper says
    uniform = stats.chisquare(counts, np.full(V, n / V)).pvalue
    assert uniform < 1e-12


def test_frequent_token_seven_times_a_rare_one():
    """rarity 1/8: P(FREQUENT token) / P(RARE token) = (7/8) / (1/8) = 7 (text and official code)."""
    V, L = 8, 32
    x = make_task("dual_frequency", V, L).sample(4000, gen(5)).inputs[:, :L].flatten()
    counts = torch.bincount(x, minlength=V).numpy()
    freq, rare = counts[: V // 2].sum(), counts[V // 2:].sum()
    # conditional on a FREQUENT-or-RARE draw of one token of each group, P(frequent) = 7/8
    assert stats.binomtest(int(counts[0]), int(counts[0] + counts[V - 1]), 7 / 8).pvalue > 1e-3
    assert 6.5 < freq / rare < 7.5


# -- the test grid the chapter's runs hold -----------------------------------------------------------------------
def test_chapter_runs_hold_the_structured_grid():
    cfg = presets.resolve("frequency", "smoke", length=8, per_cell=5, gru_vocab=12, cores=("gru",))
    (config,) = [c for c in analysis.run_configs(cfg) if c["encoding"] == "none"]
    assert config["held_out"] == 4 * 8 * 5 and config["task_options"] == {"rarity": 0.125}
    test = train.Trainer(config).test
    V, L = 12, 8
    x, t = test.inputs.numpy(), test.targets.numpy()
    tr, dr, pos = (test.info[k].numpy() for k in ("target_rare", "disturbants_rare", "target_position"))
    count = {}
    for i in range(len(test)):
        count[tr[i], dr[i], pos[i]] = count.get((tr[i], dr[i], pos[i]), 0) + 1
        seq = x[i, :L]
        assert (seq[pos[i]] >= V // 2) == tr[i]                                # the target's group
        others = np.delete(seq, pos[i])
        assert ((others >= V // 2) == dr[i]).all()                             # all disturbants one group
        scored = np.flatnonzero(t[i] != IGNORE)
        assert scored.tolist() == [2 * L - 1 - pos[i]] and t[i, scored[0]] == seq[pos[i]]
    assert count == {(a, b, p): 5 for a in (0, 1) for b in (0, 1) for p in range(L)}


def test_cell_counts_and_quarters_against_a_hand_count():
    L, per = 8, 3
    task = make_task("dual_frequency", 10, L)
    test = task.held_out(4 * L * per, gen(1))
    rng = np.random.default_rng(0)
    pred = test.targets.numpy().copy()
    wrong = rng.random(len(test)) < 0.4
    scored = pred != IGNORE
    pred[wrong[:, None] & scored] = -1                                      # a token no target holds
    data = {"predictions": pred, "targets": test.targets.numpy(),
            **{k: v.numpy() for k, v in test.info.items()}}
    counts = analysis.cell_counts(data)
    assert len(counts) == 4 * L and (counts.n == per).all()
    hand = {}
    for i in range(len(test)):
        key = (analysis.LABELS[data["target_rare"][i]], analysis.LABELS[data["disturbants_rare"][i]],
               data["target_position"][i] + 1)
        hand[key] = hand.get(key, 0) + int(not wrong[i])
    assert {(r.target, r.disturbants, r.position): r.correct for r in counts.itertuples()} == hand
    cells = counts.assign(model="gru", vocab=10, encoding="none", variant="vanilla", seed=1)
    q = analysis.by_quarter(pd.concat([cells, cells.assign(seed=2)]), L, n_resamples=50)
    assert sorted(q.quarter.unique()) == ["1-2", "3-4", "5-6", "7-8"]
    for r in q.itertuples():
        lo, hi = map(int, r.quarter.split("-"))
        k = sum(v for (t, d, p), v in hand.items() if t == r.target and d == r.disturbants and lo <= p <= hi)
        assert r.correct == 2 * k and r.n == 2 * 2 * per                    # two seeds, two positions
        assert r.accuracy == pytest.approx(k / (2 * per)) and r.lo <= r.accuracy <= r.hi


def test_quarters():
    assert analysis.quarters(64) == [(1, 16), (17, 32), (33, 48), (49, 64)]          # the paper's
    assert analysis.quarters(16) == [(1, 4), (5, 8), (9, 12), (13, 16)]
    assert analysis.quarter_label(np.array([1, 16, 17, 64]), 64).tolist() == ["1-16", "1-16", "17-32", "49-64"]
    for bad in (10, 0, 2, 6.0, True):
        with pytest.raises(ValueError, match="multiple of 4"):
            analysis.quarters(bad)
    with pytest.raises(ValueError, match="positions"):
        analysis.quarter_label(np.array([0, 3]), 16)


# -- intervals ------------------------------------------------------------------------------------------------
def test_proportion_ci_matches_scipy_bootstrap():
    k, n = 37, 120
    values = np.r_[np.ones(k), np.zeros(n - k)]
    ref = stats.bootstrap((values,), np.mean, n_resamples=20_000, method="percentile",
                          random_state=np.random.default_rng(1)).confidence_interval
    est, lo, hi = analysis.proportion_ci([k], [n], n_resamples=20_000, seed=2)
    assert est[0] == k / n
    assert lo[0] == pytest.approx(ref.low, abs=0.012) and hi[0] == pytest.approx(ref.high, abs=0.012)
    est, lo, hi = analysis.proportion_ci([0, 5], [5, 5])                   # degenerate cells
    assert (lo == est).all() and (hi == est).all()


def test_harm_and_contrast():
    rows = []
    for variant, (kf, kr) in {"vanilla": (90, 20), "position-encoded": (95, 90)}.items():
        for d, k in (("frequent", kf), ("rare", kr)):
            rows.append(dict(model="gru", variant=variant, target="frequent", disturbants=d, position=1,
                             correct=k, n=100))
    h = analysis.harm(pd.DataFrame(rows), n_resamples=2000)
    van = h.set_index("variant").loc["vanilla"]
    assert van.harm == pytest.approx(0.7) and van.harm_lo < 0.7 < van.harm_hi
    c = analysis.contrast(h)
    assert bool(c.separated.iloc[0]) and analysis.verdict(c) == "direction reproduced"
    with pytest.raises(ValueError, match="both disturbant groups"):
        analysis.harm(pd.DataFrame(rows[:1] + rows[2:3]))


def test_harm_by_target_group():
    """RARE targets that fail everywhere must not dilute the FREQUENT-target harm (hand-computed values)."""
    rows = []
    for variant, (kf, kr) in {"vanilla": (80, 40), "position-encoded": (80, 80)}.items():
        for d, k in (("frequent", kf), ("rare", kr)):
            rows.append(dict(model="gru", variant=variant, target="frequent", disturbants=d, position=1, correct=k, n=100))
            rows.append(dict(model="gru", variant=variant, target="rare", disturbants=d, position=1, correct=0, n=300))
    cells = pd.DataFrame(rows)
    pooled = analysis.harm(cells, n_resamples=500).set_index("variant")
    assert pooled.loc["vanilla", "harm"] == pytest.approx(80 / 400 - 40 / 400)
    freq = analysis.harm(cells, n_resamples=500, target="frequent").set_index("variant")
    assert freq.loc["vanilla", "harm"] == pytest.approx(0.4) and freq.loc["position-encoded", "harm"] == 0
    assert (freq["target"] == "frequent").all()
    rare = analysis.harm(cells, n_resamples=500, target="rare")
    assert (rare["harm"] == 0).all()
    c = analysis.contrast(analysis.harm(cells, n_resamples=500, target="frequent"))
    assert c.target.iloc[0] == "frequent" and bool(c.separated.iloc[0])
    with pytest.raises(ValueError, match="target must be"):
        analysis.harm(cells, target="common")


def test_bad_input_refused():
    with pytest.raises(ValueError, match="correct"):
        analysis.proportion_ci([3], [2])
    with pytest.raises(ValueError, match="one shape"):
        analysis.proportion_ci([1, 2], [3])
    with pytest.raises(ValueError, match="missing"):
        analysis.cell_counts({"predictions": np.zeros((2, 4)), "targets": np.zeros((2, 4))})
    grid = {"predictions": np.zeros((1, 4), int), "targets": np.zeros((1, 4), int), "target_rare": np.zeros(1, int),
            "disturbants_rare": np.zeros(1, int), "target_position": np.zeros(1, int)}
    with pytest.raises(ValueError, match="exactly one scored"):
        analysis.cell_counts(grid)


# -- presets ---------------------------------------------------------------------------------------------------
def test_paper_preset_is_the_published_setting():
    cfg = presets.resolve("frequency", "paper")
    fig3 = claims.get("morita.fig3").extra
    assert {c: cfg[f"{c}_vocab"] for c in cfg.cores} == fig3["vocab"]
    assert cfg.rarity == fig3["rare_probability"] and cfg.per_cell == fig3["test_sequences_per_condition_position"]
    assert 4 * cfg.length * cfg.per_cell == 4096                                # Fig. 3 caption
    assert cfg.checkpoint_every == claims.get("morita.fig5").extra["checkpoint_every"]
    assert presets.resolve("gradient_stability", "paper").pairs == claims.get("morita.fig5").extra["pairs"]


@pytest.mark.parametrize("preset", presets.PRESETS)
def test_both_chapters_share_their_runs(preset):
    a = analysis.run_configs(presets.resolve("frequency", preset))
    b = analysis.run_configs(presets.resolve("gradient_stability", preset))
    assert [runs.key(c) for c in a] == [runs.key(c) for c in b]
    assert len({runs.key(c) for c in a}) == len(a)
    assert set(frequency.presets.TRAINING_KEYS) <= set(gradient_stability.presets.PAPER)


@pytest.mark.parametrize("override,match", [
    (dict(length=10), "multiple of 4"), (dict(gru_vocab=7), "even"), (dict(rarity=1.5), "rarity"),
    (dict(per_cell=0), "per_cell"), (dict(cores=("gru", "rnn")), "cores"), (dict(seeds=(1, 1)), "distinct"),
    (dict(encodings=("fourier",)), "encoding"), (dict(per_cel=3), "unknown parameter"),
])
def test_presets_refuse_bad_values(override, match):
    with pytest.raises(ValueError, match=match):
        presets.resolve("frequency", "smoke", **override)

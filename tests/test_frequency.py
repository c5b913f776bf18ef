"""The chapter "Frequency matters" (Fig. 3): the dual-frequency sampler's ratio by exact tests, the structured
test grid as the chapter's runs build it, quarter and cell counts against plain loops, the bootstrap of a
proportion against scipy's, the per-seed harm against hand computations, the grading of hand-built runs
(a variant at its baseline, a diverged run), the presets against the paper's numbers and the seed
protocol, and bad input."""
import json

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from penb import claims, presets
from penb.trainer import Trainer
from penb import runs
from penb.chapters import frequency, gradient_stability
from penb.chapters.frequency import analysis
from penb.claims import scorecard
from penb.tasks import IGNORE, make_task
from penb import runner
from tests.store_worker import poison_at


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
    cfg = presets.resolve("frequency", "smoke", length=8, per_cell=5, gru_vocab=12, cores=("gru",),
                          seeds=(1001,))
    (config,) = [c for c in analysis.run_configs(cfg) if c["encoding"] == "none"]
    assert config["held_out"] == 4 * 8 * 5 and config["task_options"] == {"rarity": 0.125}
    test = Trainer(config).test
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
    assert bool(c.separated.iloc[0])
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
    for key in analysis.HARM.values():
        fig3 = claims.get(key).extra
        assert {c: cfg[f"{c}_vocab"] for c in cfg.cores} == fig3["vocab"]
        assert cfg.rarity == fig3["rare_probability"] and cfg.length == fig3["length"]
        assert cfg.per_cell == fig3["test_sequences_per_condition_position"]
    assert 4 * cfg.length * cfg.per_cell == 4096                                # Fig. 3 caption
    assert len(cfg.seeds) == claims.get("morita.settings").value["seeds"]
    for core in ("gru", "lstm"):
        fig5 = claims.get(f"morita.fig5.{core}").extra
        assert cfg.checkpoint_every == fig5["checkpoint_every"]
        assert presets.resolve("gradient_stability", "paper").pairs == fig5["pairs"]


@pytest.mark.parametrize("preset", [p for p in presets.table("frequency") if p not in ("slice", "deep")])
def test_both_chapters_share_their_runs(preset):
    """Gradient stability scores runs of "Frequency matters": the same configs (seeds included),
    every model at smoke, quick and paper; gradient stability scores the GRU and LSTM at quick (Sec. 4.3's S4D
    half is left to gpu/paper: its effect fades after 10,000 updates)."""
    explicit = {"device": "cpu"} if preset in presets.GPU_ONLY else {}  # refused without CUDA unless explicit
    fq = presets.resolve("frequency", preset, **explicit)
    gs = presets.resolve("gradient_stability", preset, **explicit)
    a = [runs.key(c) for c in analysis.run_configs(fq)]
    b = [runs.key(c) for c in analysis.run_configs(gs)]
    assert len(set(a)) == len(a) and set(b) <= set(a) and fq.seeds == gs.seeds
    assert a == b or (preset == "quick" and set(b) < set(a))
    same = analysis.run_configs(gs.replace(cores=fq.cores))
    assert [runs.key(c) for c in same] == a
    assert set(frequency.presets.TRAINING_KEYS) <= set(gradient_stability.presets.PAPER)
    # slice and deep: frequency's alone (Fig. 5 reads checkpoints, which a slice does not hand back; the deep preset
    # is Fig. 3's GRU cell at the power analysis's budget, issue 58)
    assert [p for p in presets.table("frequency") if p not in ("slice", "deep")] == \
        list(presets.table("gradient_stability"))


def test_graded_presets_use_confirmation_seeds_only():
    quick = presets.resolve("frequency", "quick").seeds
    assert quick == presets.CONFIRMATION_SEEDS[:len(quick)] and len(quick) >= 3     # the rules need 3
    assert presets.resolve("gradient_stability", "quick").seeds == quick             # the same runs
    smoke = presets.resolve("frequency", "smoke").seeds
    assert set(smoke) <= set(presets.CONFIRMATION_SEEDS) and len(smoke) >= 2
    for chapter in ("frequency", "gradient_stability"):
        for name in ("smoke", "quick"):
            seeds = set(presets.resolve(chapter, name).seeds)
            assert not seeds & set(presets.SEARCH_SEEDS) and not seeds & set(presets.PILOT_SEEDS)


@pytest.mark.parametrize("override,match", [
    (dict(length=10), "multiple of 4"), (dict(gru_vocab=7), "even"), (dict(rarity=1.5), "rarity"),
    (dict(per_cell=0), "per_cell"), (dict(cores=("gru", "rnn")), "cores"), (dict(seeds=(1, 1)), "distinct"),
    (dict(encodings=("fourier",)), "encoding"), (dict(per_cel=3), "unknown parameter"),
])
def test_presets_refuse_bad_values(override, match):
    with pytest.raises(ValueError, match=match):
        presets.resolve("frequency", "smoke", **override)


# -- seed-level measures and the registered claims ------------------------------------------------------------
def synthetic_cells(accuracy: dict, n: int = 40, length: int = 4) -> pd.DataFrame:
    """Cells of runs with given accuracies: ``accuracy[(model, variant, seed)] = {(target, disturbants): p}``;
    each (target, disturbants, position) cell has ``n`` sequences of which round(p * n) are right."""
    rows = []
    for (model, variant, seed), acc in accuracy.items():
        for (t, d), p in acc.items():
            for pos in range(1, length + 1):
                rows.append(dict(model=model, vocab=32, encoding="none" if variant == "vanilla" else "sinusoidal",
                                 variant=variant, seed=seed, target=t, disturbants=d, position=pos,
                                 correct=round(p * n), n=n))
    return pd.DataFrame(rows)


def run_frame(cells: pd.DataFrame, diverged=()) -> pd.DataFrame:
    """The frame ``analysis.run`` gives, for the runs of ``cells`` plus ``diverged`` (model, variant, seed)."""
    valid = cells[["model", "vocab", "variant", "seed"]].drop_duplicates().assign(diverged=False)
    bad = pd.DataFrame([dict(model=m, vocab=32, variant=v, seed=s, diverged=True) for m, v, s in diverged])
    return pd.concat([valid, bad], ignore_index=True)


SEEDS = (1001, 1002, 1003, 1004, 1005)


def test_seed_harm_and_its_summary_against_a_hand_computation():
    rng = np.random.default_rng(0)
    acc = {("gru", v, s): {c: float(rng.uniform(0.2, 0.9)) for c in analysis.CONDITIONS}
           for v in ("vanilla", "position-encoded") for s in SEEDS}
    cells = synthetic_cells(acc)
    sh = analysis.seed_harm(cells).set_index(["variant", "seed"])
    for (m, v, s), a in acc.items():
        k = {c: round(p * 40) for c, p in a.items()}                          # right answers per position
        freq = (k["frequent", "frequent"] + k["rare", "frequent"]) / 80
        rare = (k["frequent", "rare"] + k["rare", "rare"]) / 80
        assert sh.loc[(v, s), "harm"] == pytest.approx(freq - rare, abs=1e-12)
        only = analysis.seed_harm(cells, target="frequent").set_index(["variant", "seed"])
        assert only.loc[(v, s), "harm"] == pytest.approx((k["frequent", "frequent"] - k["frequent", "rare"]) / 40)
    summ = analysis.harm_summary(analysis.seed_harm(cells), n_resamples=2000).set_index("variant")
    per_seed = analysis.seed_harm(cells)
    for v in ("vanilla", "position-encoded"):
        x = per_seed[per_seed.variant == v].harm.to_numpy()
        ref = stats.bootstrap((x,), np.mean, n_resamples=20_000, method="percentile",
                              random_state=np.random.default_rng(5)).confidence_interval
        assert summ.loc[v, "harm"] == pytest.approx(x.mean()) and summ.loc[v, "seeds"] == 5
        assert summ.loc[v, "lo"] == pytest.approx(ref.low, abs=0.02)
        assert summ.loc[v, "hi"] == pytest.approx(ref.high, abs=0.02)
    gap = analysis.harm_gap(per_seed, n_resamples=500).iloc[0]
    d = (per_seed[per_seed.variant == "vanilla"].set_index("seed").harm
         - per_seed[per_seed.variant == "position-encoded"].set_index("seed").harm)
    assert gap.gap == pytest.approx(d.mean()) and gap.ahead == int((d > 0).sum()) and gap.seeds == 5


def test_by_quarter_is_a_mean_over_seeds():
    acc = {("lstm", "vanilla", s): {c: p for c in analysis.CONDITIONS}
           for s, p in zip(SEEDS, (0.1, 0.3, 0.5, 0.7, 0.9))}
    q = analysis.by_quarter(synthetic_cells(acc, n=10, length=8), 8, n_resamples=500)
    assert len(q) == 4 * 4 and (q.seeds == 5).all()
    assert np.allclose(q.accuracy, 0.5) and (q.lo < 0.5).all() and (q.hi > 0.5).all()
    assert (q.lo >= 0.1).all() and (q.hi <= 0.9).all()                    # within the seeds' range
    assert ((q.seq_hi - q.seq_lo) < (q.hi - q.lo)).all()                   # pooled sequences: narrower
    assert (q.n == 5 * 2 * 10).all()


def _grades(cfg, cells, diverged=()):
    frame = run_frame(cells, diverged)
    return {g.claim: g for g in analysis.grade_claims(cfg, frame, analysis.seed_harm(cells), cells)}


def _cfg(**kw):
    return presets.resolve("frequency", "smoke", seeds=SEEDS, cores=("gru",), gru_vocab=32, **kw)


def test_grading_hand_built_runs():
    """Vanilla loses 0.3-0.4 to RARE disturbants in every seed, PE about nothing: both GRU claims hold (every
    seed's paired difference is positive, so any bootstrap interval of the mean lies above 0); the reverse
    pattern does not; the models not run are not graded, and the exception has no near-perfect model to stand
    out from."""
    acc = {}
    for i, s in enumerate(SEEDS):
        acc["gru", "vanilla", s] = {("frequent", "frequent"): 0.8, ("rare", "frequent"): 0.7,
                                    ("frequent", "rare"): 0.4 + 0.02 * i, ("rare", "rare"): 0.35}
        acc["gru", "position-encoded", s] = {c: 0.9 - 0.01 * i for c in analysis.CONDITIONS}
    g = _grades(_cfg(), synthetic_cells(acc))
    assert set(g) == {c.key for c in claims.of_chapter("frequency")} and analysis.EXCEPTION in g
    assert g["morita.fig3.harm.gru"].verdict == claims.REPRODUCED
    assert g["morita.fig3.pe_robust.gru"].verdict == claims.REPRODUCED
    ev = g["morita.fig3.harm.gru"].evidence
    assert ev["seeds"] == list(SEEDS) and ev["baseline"] == pytest.approx(1 / 32)
    # issue 35: the GRU's harm reads FREQUENT targets (0.8 with FREQUENT, 0.4 + 0.02 i with RARE disturbants)
    assert ev["a"] == pytest.approx([0.8] * 5)
    assert ev["b"] == pytest.approx([round((0.4 + 0.02 * i) * 40) / 40 for i in range(5)])   # 40 per cell
    assert "5/5" in g["morita.fig3.harm.gru"].ours
    for core in ("lstm", "s4d"):
        assert g[f"morita.fig3.harm.{core}"].verdict == claims.NOT_TESTED
        assert g[f"morita.fig3.harm.{core}"].reason.startswith("not at this preset")
    # the exception is graded at any budget (issue 34): a PE GRU at 0.86-0.9 everywhere is near perfect nowhere,
    # so there is nothing for an exception to stand out from
    assert g[analysis.EXCEPTION].verdict == claims.INCONCLUSIVE and "near perfect in only" in g[analysis.EXCEPTION].reason
    # issue 35: RARE targets among FREQUENT disturbants at 0.7 in every seed: below the 0.95 of "successfully"
    rare = g["morita.fig3.rare_target.gru"]
    assert rare.evidence["a"] == pytest.approx([0.7] * 5) and "b" not in rare.evidence
    assert rare.verdict == claims.NOT_REPRODUCED
    flipped = {(m, "position-encoded" if v == "vanilla" else "vanilla", s): a for (m, v, s), a in acc.items()}
    g = _grades(_cfg(), synthetic_cells(flipped))
    assert g["morita.fig3.harm.gru"].verdict == claims.NOT_REPRODUCED       # vanilla 0.9 throughout: no harm
    assert g["morita.fig3.pe_robust.gru"].verdict == claims.INCONCLUSIVE    # no harm to be robust against
    recorded = json.loads(scorecard.grades_file("frequency").read_text())
    assert recorded["morita.fig3.harm.gru"]["verdict"] == claims.NOT_REPRODUCED
    assert recorded["morita.fig3.harm.gru"]["seeds"] == list(SEEDS)


def test_a_variant_at_its_baseline_decides_nothing():
    """Vanilla at chance with FREQUENT disturbants (1/V + 0.01 <= 1/V + 0.02): the harm claim cannot be decided
    although RARE disturbants 'lower' it in every seed. A vanilla harm of 0.01 (<= 0 + 0.02): the robustness
    claim cannot be decided although PE's harm is below it in every seed."""
    V = 32
    at_chance = {("gru", "vanilla", s): {("frequent", "frequent"): 1 / V + 0.01, ("rare", "frequent"): 1 / V + 0.01,
                                         ("frequent", "rare"): 0.0, ("rare", "rare"): 0.0} for s in SEEDS}
    g = _grades(_cfg(), synthetic_cells(at_chance, n=100))
    assert g["morita.fig3.harm.gru"].evidence["a"] == pytest.approx([1 / V + 0.01] * 5, abs=0.005)
    assert g["morita.fig3.harm.gru"].verdict == claims.INCONCLUSIVE
    assert "baseline" in g["morita.fig3.harm.gru"].reason
    assert g["morita.fig3.pe_robust.gru"].verdict == claims.INCONCLUSIVE    # no valid PE run: 0 seeds
    assert g["morita.fig3.pe_robust.gru"].evidence["a"] == []
    g = _grades(_cfg(encodings=("none",)), synthetic_cells(at_chance, n=100))
    assert g["morita.fig3.pe_robust.gru"].reason.startswith("not at this preset")
    hardly = {("gru", "vanilla", s): {("frequent", "frequent"): 0.6, ("rare", "frequent"): 0.6,
                                      ("frequent", "rare"): 0.59, ("rare", "rare"): 0.59} for s in SEEDS}
    hardly.update({("gru", "position-encoded", s): {("frequent", "frequent"): 0.5, ("rare", "frequent"): 0.5,
                                                    ("frequent", "rare"): 0.7, ("rare", "rare"): 0.7} for s in SEEDS})
    g = _grades(_cfg(), synthetic_cells(hardly, n=100))
    robust = g["morita.fig3.pe_robust.gru"]
    assert robust.evidence["a"] == pytest.approx([0.01] * 5) and robust.evidence["b"] == pytest.approx([-0.2] * 5)
    assert robust.verdict == claims.INCONCLUSIVE and "baseline" in robust.reason


def test_a_diverged_run_is_counted_and_its_seed_unpaired():
    acc = {}
    for i, s in enumerate(SEEDS):
        acc["gru", "vanilla", s] = {("frequent", "frequent"): 0.8, ("rare", "frequent"): 0.8,
                                    ("frequent", "rare"): 0.3, ("rare", "rare"): 0.3 + 0.01 * i}
        if s != 1003:
            acc["gru", "position-encoded", s] = {c: 0.9 for c in analysis.CONDITIONS}
    g = _grades(_cfg(), synthetic_cells(acc), diverged=[("gru", "position-encoded", 1003)])
    robust = g["morita.fig3.pe_robust.gru"]
    assert robust.verdict == claims.INCONCLUSIVE and "diverged" in robust.reason
    assert robust.evidence["diverged"] == {"vanilla": 0, "position-encoded": 1}
    assert robust.evidence["seeds"] == [1001, 1002, 1004, 1005] and len(robust.evidence["a"]) == 4
    harm = g["morita.fig3.harm.gru"]                                   # compares vanilla runs only
    assert harm.evidence["diverged"] == {"vanilla": 0} and harm.verdict == claims.REPRODUCED


def test_run_keeps_a_diverged_run_apart(tmp_path):
    cfg = presets.resolve("frequency", "smoke", cores=("gru",), seeds=(1001, 1002, 1003), steps=10)
    bad = next(c for c in analysis.run_configs(cfg) if c["encoding"] == "none" and c["seed"] == 1002)
    runner.train_one(bad, tmp_path, callback=poison_at(2), progress=False)
    frame = analysis.run(cfg, store=tmp_path, progress=False)
    assert len(frame) == 6 and frame.diverged.sum() == 1
    row = frame[frame.diverged].iloc[0]
    assert (row.variant, row.seed) == ("vanilla", 1002) and np.isnan(row.token_accuracy) and row.diverged_at > 0
    cells = analysis.cells(frame)
    assert len(cells.groupby(["variant", "seed"])) == 5
    g = {x.claim: x for x in analysis.grade_claims(cfg, frame, analysis.seed_harm(cells), cells)}
    assert g["morita.fig3.harm.gru"].evidence["diverged"] == {"vanilla": 1}
    assert g["morita.fig3.harm.gru"].verdict == claims.INCONCLUSIVE
    assert g["morita.fig3.pe_robust.gru"].evidence["seeds"] == [1001, 1003]
    table = analysis.run_table(frame)
    assert table["diverged"].sum() == 1 and table["diverged_at"].notna().sum() == 1


def test_grading_refuses_the_exploratory_measure():
    acc = {("gru", v, s): {c: 0.5 for c in analysis.CONDITIONS} for v in ("vanilla", "position-encoded")
           for s in SEEDS}
    cells = synthetic_cells(acc)
    with pytest.raises(ValueError, match="all targets"):
        analysis.grade_claims(_cfg(), run_frame(cells), analysis.seed_harm(cells, target="frequent"), cells)


def test_disturbant_effect_against_a_hand_computation():
    """The hand-built vanilla GRU of test_grading_hand_built_runs: the disturbant effect averages FF - FR and
    RF - RR, the target effect FF - RF and FR - RR (F/R: FREQUENT/RARE target, then disturbants)."""
    acc = {}
    for i, s in enumerate(SEEDS):
        acc["gru", "vanilla", s] = {("frequent", "frequent"): 0.8, ("rare", "frequent"): 0.7,
                                    ("frequent", "rare"): 0.4 + 0.02 * i, ("rare", "rare"): 0.35}
        acc["gru", "position-encoded", s] = {c: 0.9 for c in analysis.CONDITIONS}
    g = _grades(_cfg(), synthetic_cells(acc, n=100))["morita.fig3.disturbants.gru"]
    fr = [0.4 + 0.02 * i for i in range(5)]
    assert g.evidence["a"] == pytest.approx([((0.8 - x) + (0.7 - 0.35)) / 2 for x in fr], abs=1e-9)
    assert g.evidence["b"] == pytest.approx([((0.8 - 0.7) + (x - 0.35)) / 2 for x in fr], abs=1e-9)
    assert g.verdict == claims.REPRODUCED
    # a RARE target hurting as much as RARE disturbants: no difference of effects, an interval around 0
    same = {k: {("frequent", "frequent"): 0.8, ("rare", "frequent"): 0.5, ("frequent", "rare"): 0.5,
                ("rare", "rare"): 0.2 + 0.01 * (i % 2)} for i, k in enumerate(acc)}
    g = _grades(_cfg(), synthetic_cells(same, n=100))["morita.fig3.disturbants.gru"]
    assert g.verdict != claims.REPRODUCED


def test_a_pe_model_at_chance_makes_robustness_inconclusive():
    """Vanilla hurt in every seed, PE at chance everywhere (so no harm), then PE at 0.3 everywhere (above
    chance, below the vanilla model's 0.75 with FREQUENT disturbants): without the control the claim would
    pass; a PE model that has little to lose decides nothing. PE at 0.9 everywhere: reproduced."""
    V = 32
    acc = {}
    for i, s in enumerate(SEEDS):
        acc["gru", "vanilla", s] = {("frequent", "frequent"): 0.8, ("rare", "frequent"): 0.7,
                                    ("frequent", "rare"): 0.3 + 0.01 * i, ("rare", "rare"): 0.3}
        acc["gru", "position-encoded", s] = {c: 1 / V for c in analysis.CONDITIONS}
    g = _grades(_cfg(), synthetic_cells(acc, n=64))["morita.fig3.pe_robust.gru"]
    assert g.verdict == claims.INCONCLUSIVE and "PE GRU's accuracy" in g.reason
    for c in acc:                       # uniformly poor but above chance: little to lose, still no evidence
        if c[1] == "position-encoded":
            acc[c] = {k: 0.3 for k in analysis.CONDITIONS}
    g = _grades(_cfg(), synthetic_cells(acc, n=64))["morita.fig3.pe_robust.gru"]
    assert g.verdict == claims.INCONCLUSIVE and "PE GRU's accuracy" in g.reason
    for c in acc:
        if c[1] == "position-encoded":
            acc[c] = {k: 0.9 for k in analysis.CONDITIONS}
    assert _grades(_cfg(), synthetic_cells(acc, n=64))["morita.fig3.pe_robust.gru"].verdict == claims.REPRODUCED


def test_level_check_counts_conditions_against_the_level():
    from penb.chapters.frequency.grading import level_check

    high = pd.DataFrame({f"c{i}": [0.97, 0.98, 0.99] for i in range(3)} | {"c3": [0.5, 0.6, 0.55]})
    assert level_check(high, 0.95, "most")["passed"] is True                 # 3 of 4 at or above
    out = level_check(high, 0.95, "all")
    assert out["passed"] is False and "inconclusive" not in out              # c3's interval lies below
    low = pd.DataFrame({f"c{i}": [0.5, 0.6, 0.55] for i in range(4)})
    out = level_check(low, 0.95, "most")
    assert out["passed"] is False and "inconclusive" not in out
    wide = pd.DataFrame({f"c{i}": [0.5, 1.0, 0.99] for i in range(4)})       # means 0.83, intervals reach 1.5
    assert "inconclusive" in level_check(wide, 0.95, "most")
    assert "inconclusive" in level_check(high.iloc[:2], 0.95, "most")         # two seeds: no interval


def test_level_claims_are_graded_at_any_budget_with_their_levels():
    """Issue 34 item 3 / issue 35: the level claims speak of trained models, so protocol 4's doubling test (here
    held still, conftest) decides them at any budget; the gate at 10% of the paper's updates is gone. 0.9 in every
    condition: not near perfect. The evidence names the per-seed level the doubling test reads."""
    acc = {("gru", v, s): {c: 0.9 for c in analysis.CONDITIONS} for v in ("vanilla", "position-encoded")
           for s in SEEDS}
    g = _grades(_cfg(), synthetic_cells(acc))["morita.fig3.pe_near_perfect.gru"]
    assert g.verdict == claims.NOT_REPRODUCED                                # 0.9 in every condition
    assert claims.get("morita.fig3.pe_near_perfect.gru").about == "trained"
    (levels,) = g.evidence["levels"].values()
    assert levels == pytest.approx([0.9] * 5) and g.evidence["level_seeds"] == list(SEEDS)


def test_where_the_vanilla_lstm_is_hurt_most():
    """Harm 0.5 in the first quarter of positions and 0.1 elsewhere, in every seed: reproduced."""
    rows = []
    for s in SEEDS:
        for v in ("vanilla", "position-encoded"):
            for t in analysis.LABELS:
                for d in analysis.LABELS:
                    for pos in range(1, 9):
                        p = 0.9 if d == "frequent" or v != "vanilla" else (0.4 if pos <= 2 else 0.8)
                        rows.append(dict(model="lstm", vocab=16, encoding="none" if v == "vanilla" else "sinusoidal",
                                         variant=v, seed=s, target=t, disturbants=d, position=pos,
                                         correct=round(p * 10), n=10))
    cells = pd.DataFrame(rows)
    cfg = presets.resolve("frequency", "smoke", seeds=SEEDS, cores=("lstm",), length=8)
    g = {x.claim: x for x in analysis.grade_claims(cfg, run_frame(cells), analysis.seed_harm(cells), cells)}
    where = g["morita.fig3.where.lstm"]
    assert where.evidence["a"] == pytest.approx([0.5] * 5) and where.evidence["b"] == pytest.approx([0.1] * 5)
    assert where.verdict == claims.REPRODUCED
    assert g["morita.fig3.where.s4d"].verdict == claims.NOT_TESTED


@pytest.mark.real_horizon
@pytest.mark.real_doubling
def test_quarter_budget_runs_carry_the_harm_to_the_papers_budget(monkeypatch):
    """Protocol 6 through the chapter's grading (analysis.grade_claims, half and quarter runs given): the vanilla
    GRU's harm a - b, FREQUENT targets at 0.6 minus 0.4 + 0.02 i with RARE disturbants (0.2-0.12, 200 sequences a
    cell so every value is exact), the same at N/4, N/2 and N = 6 (smoke): no move, so the gap's later move is
    bounded by the resolution and the 15.6 doublings to 300,000 updates close about 0.001: decided, reproduced.
    Without the N/4 runs: 'one doubling only', the rule's 'reproduced' kept in the detail. The RARE-disturbant
    accuracy climbing 0.015 a doubling (under the doubling test's 0.02) could close 15.6 x its bound 0.016 = 0.25,
    more than the gap's lower end (mean 0.16): held back by the horizon, not by the doubling test."""
    def cells_at(climb):
        return synthetic_cells({("gru", v, s): {("frequent", "frequent"): 0.6, ("rare", "frequent"): 0.6,
                                                ("frequent", "rare"): 0.4 + 0.02 * i - climb, ("rare", "rare"): 0.4}
                                if v == "vanilla" else {c: 0.9 for c in analysis.CONDITIONS}
                                for v in ("vanilla", "position-encoded") for i, s in enumerate(SEEDS)}, n=200)

    def harm(per_doubling, quarter=True):
        at = {b: cells_at(per_doubling * k) for b, k in (("n", 0), ("half", 1), ("quarter", 2))}
        monkeypatch.setattr(analysis, "cells", lambda runs: at[runs["budget"].iloc[0]])   # what _inputs counts
        frame = {b: run_frame(c).assign(budget=b) for b, c in at.items()}
        return {g.claim: g for g in analysis.grade_claims(
            _cfg(), frame["n"], analysis.seed_harm(at["n"]), at["n"], half=frame["half"],
            quarter=frame["quarter"] if quarter else None)}["morita.fig3.harm.gru"]

    g = harm(0.0)
    assert g.verdict == claims.REPRODUCED and g.detail["horizon"]["decided"], g.reason
    assert g.detail["horizon"]["budgets"] == [1, 3, 6] and g.evidence["a"] == pytest.approx([0.6] * 5)
    g = harm(0.0, quarter=False)
    assert g.verdict == claims.INCONCLUSIVE and "one doubling only" in g.reason
    assert g.detail["rule_verdict"] == claims.REPRODUCED
    g = harm(0.015)
    assert g.verdict == claims.INCONCLUSIVE and g.detail["horizon"]["held_by"] == ["gap"], g.reason
    assert g.detail["rule_verdict"] == claims.REPRODUCED


# -- the rest of Sec. 4.2 (issue 28): the RARE target among FREQUENT disturbants, the GRU's exception --------
def test_rare_target_among_frequent_disturbants():
    """Sec. 4.2: RARE targets "successfully retrieved" among FREQUENT disturbants, a level (issue 35): 0.79-0.81,
    as well as the FREQUENT targets' 0.8, is still short of 95%; 0.975 is above it, whatever the FREQUENT targets
    do; a vanilla model at chance decides nothing."""
    def grid(rare_acc, freq_dist=0.8):
        return {("gru", "vanilla", s): {("frequent", "frequent"): freq_dist, ("rare", "frequent"): rare_acc(i),
                                        ("frequent", "rare"): 0.4, ("rare", "rare"): 0.4}
                for i, s in enumerate(SEEDS)}

    key = "morita.fig3.rare_target.gru"
    g = _grades(_cfg(encodings=("none",)), synthetic_cells(grid(lambda i: 0.8 + 0.025 * (i % 2) - 0.0125)))
    assert g[key].verdict == claims.NOT_REPRODUCED, g[key].reason
    assert _grades(_cfg(encodings=("none",)), synthetic_cells(grid(lambda i: 0.975), 80))[key].verdict == \
        claims.REPRODUCED
    g = _grades(_cfg(encodings=("none",)), synthetic_cells(grid(lambda i: 1 / 32, freq_dist=1 / 32)))
    assert g[key].verdict == claims.INCONCLUSIVE and "baseline" in g[key].reason


def _conditions(exception: float, others: float, seeds: int = 5, spread: float = 0.01) -> pd.DataFrame:
    """Per-seed accuracies of the 16 conditions (length 64's quarters), the exception's two at ``exception``."""
    from penb.chapters.frequency.grid import quarters

    cols = [f"target {t}/{d} t {lo}-{hi}" for t in ("frequent", "rare") for d in ("frequent", "rare")
            for lo, hi in quarters(64)]
    rows = []
    for i in range(seeds):
        jitter = spread * (i - (seeds - 1) / 2) / seeds
        rows.append({c: (exception if c in EXC else others) + jitter for c in cols})
    return pd.DataFrame(rows)


EXC = ["target rare/rare t 1-16", "target rare/rare t 17-32"]


def test_gru_exception_check_on_hand_built_conditions():
    from penb.chapters.frequency.sec4_2 import exception_check

    assert exception_check(_conditions(0.6, 0.99), EXC, 0.95)["passed"]                 # the text's pattern
    near = exception_check(_conditions(0.99, 0.99), EXC, 0.95)                           # no exception
    assert not near["passed"] and "inconclusive" not in near and "near perfect" in near["why"]
    poor = exception_check(_conditions(0.6, 0.7), EXC, 0.95)                             # nothing near perfect
    assert "inconclusive" in poor
    assert "inconclusive" in exception_check(_conditions(0.6, 0.99, seeds=2), EXC, 0.95)
    straddle = exception_check(_conditions(0.95, 0.99, spread=0.2), EXC, 0.95)
    assert "inconclusive" in straddle


def test_gru_exception_is_graded_at_any_budget():
    """Issue 34 item 3: no gate at 10% of the paper's updates. Near perfect everywhere: no exception (not
    reproduced); the first half of the all-RARE conditions at 0.5: the text's pattern."""
    acc = {("gru", v, s): {c: 0.99 for c in analysis.CONDITIONS} for v in ("vanilla", "position-encoded")
           for s in SEEDS}
    g = _grades(_cfg(length=8), synthetic_cells(acc, length=8))[analysis.EXCEPTION]
    assert g.verdict == claims.NOT_REPRODUCED and "near perfect where" in g.reason
    cfg = _cfg(length=8)
    cells = synthetic_cells(acc, length=8)
    first_half = (cells["variant"] == "position-encoded") & (cells["target"] == "rare") & \
        (cells["disturbants"] == "rare") & (cells["position"] <= 4)
    cells.loc[first_half, "correct"] = 20                                                # 0.5 of 40
    g = _grades(cfg, cells)[analysis.EXCEPTION]
    assert g.verdict == claims.REPRODUCED, g.reason

"""Issue 35: the repaired readings of the registry, each on hand-built evidence (no training).

Every expected number below is worked out by hand from the texts' words or from the construction of the evidence
(the accuracies put into each hand-built cell, the slopes put into each gap), never read off the code. Each test
fails on the code before the repair (the rule, measure or claim it checks did not exist or read otherwise).
"""
import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from penb import claims, presets
from penb.chapters.frequency import analysis as freq
from penb.chapters.frequency import grading as freq_grading

SEEDS = (1001, 1002, 1003, 1004, 1005)
LABELS = ("frequent", "rare")


# --- hand-built dual-frequency test grids (Fig. 3) -----------------------------------------------------------
def grid(acc, models=("gru",), variants=("vanilla", "position-encoded"), length=4, n=40, vocab=32):
    """Cells as ``penb.chapters.frequency.grid.cells`` gives them: ``acc(model, variant, seed, target, disturbants,
    position)`` is the accuracy of each cell of ``n`` sequences (round(p * n) right)."""
    rows = []
    for m in models:
        for v in variants:
            for s in SEEDS:
                for t in LABELS:
                    for d in LABELS:
                        for pos in range(1, length + 1):
                            rows.append(dict(model=m, vocab=vocab, encoding="none" if v == "vanilla" else "sinusoidal",
                                             variant=v, seed=s, target=t, disturbants=d, position=pos,
                                             correct=round(acc(m, v, s, t, d, pos) * n), n=n))
    return pd.DataFrame(rows)


def frame_of(cells):
    return cells[["model", "vocab", "variant", "seed"]].drop_duplicates().assign(diverged=False)


def grade_grid(cells, half=None, **cfg_kw):
    """Every claim of the chapter on ``cells`` at N and ``half`` (default: the same cells) at N/2: a doubling that
    moved nothing unless ``half`` says otherwise (protocol 4 reads the half-budget evidence)."""
    kw = dict(seeds=SEEDS, cores=("gru", "lstm"), gru_vocab=32, lstm_vocab=32)
    cfg = presets.resolve("frequency", "smoke", **{**kw, **cfg_kw})
    half = cells if half is None else half
    at_half = (frame_of(half), freq.seed_harm(half), half, {})
    grades = freq_grading.grade_claims(cfg, frame_of(cells), freq.seed_harm(cells), cells, at_half)
    return {g.claim: g for g in grades}


# --- 1. Sec. 4.2's "successfully retrieved" is a level (rare_target) -------------------------------------------
def test_rare_target_is_a_level_not_an_equivalence():
    """0.40 against 0.40 passed the old equivalence and 0.97 against 0.94 failed it; as a level at the 95% that Sec.
    4.1 attaches to "successfully", the first is refuted and the second reached."""
    key = "morita.fig3.rare_target.gru"
    c = claims.get(key)
    assert c.rule.kind == "level" and c.rule.params["level"] == 0.95 and c.about == "trained"
    assert "exploratory" in c.measure

    def ev(a):
        return {"a": a, "seeds": list(SEEDS[:3]), "a_name": "vanilla GRU, RARE targets"}

    poor, good = ev([0.40, 0.41, 0.39]), ev([0.97, 0.975, 0.98])
    assert claims.grade(key, poor, half=poor, budgets=(1, 2)).verdict == claims.NOT_REPRODUCED
    assert claims.grade(key, good, half=good, budgets=(1, 2)).verdict == claims.REPRODUCED
    rising = claims.grade(key, poor, half=ev([0.30, 0.31, 0.29]), budgets=(1, 2))   # still rising by 0.10
    assert rising.verdict == claims.INCONCLUSIVE and rising.detail["rule_verdict"] == claims.NOT_REPRODUCED


def test_rare_target_reads_the_rare_targets_among_frequent_disturbants():
    """The vanilla GRU: FREQUENT targets 0.4, RARE targets 0.4 among FREQUENT disturbants (so they are "as well
    retrieved", the old reading's pass), 0.1 among RARE ones. The level reads 0.4: not reproduced."""
    def acc(m, v, s, t, d, pos):
        return 0.4 if d == "frequent" else 0.1

    g = grade_grid(grid(acc))["morita.fig3.rare_target.gru"]
    assert g.verdict == claims.NOT_REPRODUCED                      # the equivalence passed it: 0.4 - 0.4 = 0
    assert g.evidence["a"] == pytest.approx([0.4] * 5) and "b" not in g.evidence


# --- 2. the GRU's harm on FREQUENT targets ----------------------------------------------------------------------
def test_gru_harm_reads_frequent_targets_and_the_lstm_keeps_both():
    """RARE disturbants take a FREQUENT target from 0.9 to 0.5 and lift a RARE one from 0.5 to 0.9: pooled, no harm
    ((0.9 + 0.5) / 2 both ways); on FREQUENT targets, as Sec. 4.2 speaks of the GRU, a harm of 0.4. The LSTM's
    claim, for which the text names no target group, still pools: no harm."""
    def acc(m, v, s, t, d, pos):
        return 0.9 if (t == d) == (v == "vanilla") else 0.5 if v == "vanilla" else 0.9

    g = grade_grid(grid(acc, models=("gru", "lstm")))
    gru, lstm = g["morita.fig3.harm.gru"], g["morita.fig3.harm.lstm"]
    assert gru.evidence["a"] == pytest.approx([0.9] * 5) and gru.evidence["b"] == pytest.approx([0.5] * 5)
    assert gru.verdict == claims.REPRODUCED and "FREQUENT targets" in gru.evidence["a_name"]
    assert lstm.evidence["a"] == pytest.approx([0.7] * 5) and lstm.evidence["b"] == pytest.approx([0.7] * 5)
    assert lstm.verdict == claims.NOT_REPRODUCED
    assert claims.get("morita.fig3.harm.gru").extra["targets"] == "frequent"
    assert "exploratory" in claims.get("morita.fig3.harm.gru").measure


# --- 3. the PE RNNs' robustness to the frequency of the target (new) ---------------------------------------------
def test_pe_target_robustness_leaves_out_the_grus_stated_exception():
    """PE at 0.95 everywhere except RARE target x RARE disturbants in the first half of the positions (t = 1-2 of 4),
    at 0.25. The GRU's claim leaves those positions out for both target groups (the text's own exception): FREQUENT
    and RARE targets both 0.95, reproduced. The LSTM has no stated exception: RARE targets (0.95 + (2 x 0.25 + 2 x
    0.95) / 4) / 2 = 0.775 against 0.95, a gap of 0.175 beyond 0.02: not reproduced."""
    def acc(m, v, s, t, d, pos):
        return 0.25 if (v != "vanilla" and t == d == "rare" and pos <= 2) else 0.95

    g = grade_grid(grid(acc, models=("gru", "lstm")))
    gru, lstm = g["morita.fig3.pe_target.gru"], g["morita.fig3.pe_target.lstm"]
    assert gru.evidence["a"] == pytest.approx([0.95] * 5) and gru.evidence["b"] == pytest.approx([0.95] * 5)
    assert gru.verdict == claims.REPRODUCED
    assert lstm.evidence["b"] == pytest.approx([0.775] * 5) and lstm.verdict == claims.NOT_REPRODUCED
    assert "morita.fig3.pe_target.s4d" not in claims.CLAIMS            # the S4D's sentence names disturbants only


# --- 4. the level claims are about trained models: the doubling test reads their levels ---------------------------
def test_near_perfect_levels_are_read_by_the_doubling_test():
    """Nine of the PE GRU's 16 conditions at 0.975, seven at 0.5: the accuracy more than half of the conditions reach
    is the 9th highest, 0.975, per seed. Held still from N/2: reproduced, at a budget far under 10% of the paper's
    (no gate). With those nine at 0.85 at N/2, the level moved +0.125: not decided."""
    high = {(t, d, q) for t in LABELS for d in LABELS for q in (1, 2)} | {("rare", "rare", 3)}    # 9 conditions

    def acc(top):
        return lambda m, v, s, t, d, pos: top if (t, d, pos) in high else 0.5

    key = "morita.fig3.pe_near_perfect.gru"
    assert claims.get(key).about == "trained" and "min_fraction_of_paper_steps" not in claims.get(key).rule.params
    g = grade_grid(grid(acc(0.975)))[key]
    assert g.verdict == claims.REPRODUCED, g.reason
    (level,) = g.evidence["levels"].values()
    assert level == pytest.approx([0.975] * 5) and g.evidence["level_seeds"] == list(SEEDS)
    g = grade_grid(grid(acc(0.975)), half=grid(acc(0.85)))[key]
    assert g.verdict == claims.INCONCLUSIVE and g.detail["rule_verdict"] == claims.REPRODUCED
    (m,) = g.detail["doubling"]["moves"].values()
    assert m["mean"] == pytest.approx(0.125)


def test_exception_and_s4d_t1_name_their_levels():
    from penb.chapters.frequency.sec4_2 import exception_check

    cols = [f"c{i}" for i in range(16)]
    exc = ["c0", "c1"]
    values = pd.DataFrame([{c: (0.5 + 0.1 * (c == "c1") if c in exc else 0.99 - 0.01 * (c == "c2")) for c in cols}
                           for _ in range(3)], index=[7, 8, 9])
    out = exception_check(values, exc, 0.95)
    assert out["passed"] and out["level_seeds"] == [7, 8, 9]
    higher, majority = out["levels"].values()
    assert higher == pytest.approx([0.6] * 3)               # the higher of 0.5 and 0.6
    assert majority == pytest.approx([0.99] * 3)            # 13 of the other 14 at 0.99: the 8th highest is 0.99
    for key in ("morita.fig3.gru_exception", "morita.sec4_3.s4d_t1"):
        assert claims.get(key).about == "trained" and claims.get(key).sesoi == 0.02
    # the S4D at t = 1: each variant's lowest condition, per seed
    cells = grid(lambda m, v, s, t, d, pos: 0.9 if (v == "vanilla" and t == d == "rare") else 0.975, models=("s4d",))
    ev = freq_grading.s4d_t1_evidence(cells, 0.96)
    assert ev["levels"] == {"the vanilla S4D's lowest condition at t = 1": pytest.approx([0.9] * 5),
                            "the position-encoded S4D's lowest condition at t = 1": pytest.approx([0.975] * 5)}
    assert not ev["passed"] and "inconclusive" not in ev                     # 0.9 lies wholly below 0.96


# --- 5. Fig. 7's smallest growth of interest over its own span ------------------------------------------------------
def test_fig7_trend_sesoi_is_one_accuracy_effect_over_its_span():
    """App. A.1: V 896 to 1,088, log2(1088/896) = 0.280 doublings; 0.02 of accuracy over that span is 0.0714 per
    doubling. Slopes of -0.01, +0.03, +0.01 per doubling: interval [-0.040, +0.060] (Student-t, 2 df), above 0.02
    per doubling and below 0.0714: a growth that matters is excluded. Issue 41: the same 0.02 of widening over the
    span tested, so over quick's V 16-64 (2 doublings) 0.010 per doubling, where the old 0.0714 asked for 0.14."""
    c = claims.get("morita.fig7.trend")
    assert c.sesoi == 0.02 and c.rule.params["sesoi_over_span"] and "0.28 doublings" in c.sesoi_why

    def ev(x, slopes):
        gaps = [[0.1 + b * math.log2(v / x[0]) for v in x] for b in slopes]
        flat = [[0.5] * len(x) for _ in slopes]                      # vanilla, held still at every V
        return {"x": x, "gaps": gaps, "seeds": [1, 2, 3], "a_by_x": (np.array(gaps) + 0.5).tolist(),
                "b_by_x": flat}

    x = [896, 960, 1024, 1088]
    slopes = [-0.01, 0.03, 0.01]
    half = stats.t.ppf(0.975, 2) * np.std(slopes, ddof=1) / math.sqrt(3)
    assert 0.02 < np.mean(slopes) + half < 0.02 / math.log2(1088 / 896)    # the case this test is about
    g = claims.grade(c.key, ev(x, slopes), half=ev(x, slopes), budgets=(1, 2))
    assert g.verdict == claims.NOT_REPRODUCED and "smallest effect" in g.reason
    assert g.detail["sesoi"] == pytest.approx(0.02 / math.log2(1088 / 896))
    # quick's span, V 16-64: two doublings, so 0.010 per doubling. Slopes +0.004, +0.006, +0.005 ([+0.0025,
    # +0.0075]) widen the gap by 0.010 over the span: the effect is there, and no longer "not reproduced"
    quick = ev([16, 32, 64], [0.004, 0.006, 0.005])
    g = claims.grade(c.key, quick, half=quick, budgets=(1, 2))
    assert g.detail["sesoi"] == pytest.approx(0.01) and g.verdict == claims.REPRODUCED, g.reason
    # under the old 0.0714 per doubling a slope of at most 0.012 per doubling was refuted at V 16-64
    narrow = ev([16, 32, 64], [0.010, 0.011, 0.012])
    assert claims.grade(c.key, narrow, half=narrow, budgets=(1, 2)).verdict == claims.REPRODUCED


# --- 6. Hansen's "in general", and each encoding ---------------------------------------------------------------
def _tables():
    """Built here: a block rotation (sin/cos; e(t+k) = R_k e(t) exactly), a ramp in one dimension (direct1: e(t+k) =
    e(t) + k/N, affine only), and a probit line (the normal encoding's shape: mu + sd * ndtri(t/N), no linear or
    affine shift carries it k steps on)."""
    from scipy.special import ndtri

    n = 60
    t = np.arange(n)[:, None] * (0.3 / 2.0 ** np.arange(4))[None]
    rotation = np.hstack([np.sin(t), np.cos(t)])
    ramp = np.zeros((n, 8))
    ramp[:, 0] = np.arange(n) / n
    rng = np.random.default_rng(0)
    mu, sd = rng.normal(size=8), np.abs(rng.normal(size=8)) ** 0.5
    probit = np.vstack([np.full(8, -9999999.0), mu + sd * ndtri(np.arange(1, n) / n)[:, None]])
    return {"rotation": rotation, "ramp": ramp, "probit": probit}


def test_relative_states_its_reading_and_reports_each_encoding():
    from penb.chapters.encodings import blog_claims

    c = claims.get("hansen.relative")
    assert "in general" in c.statement and "universal reading" in c.rule.text
    rows = [dict(encoding=k, draw=0, offset=o, **blog_claims.shift_fit(t, o)) for k, t in _tables().items()
            for o in (1, 10)]
    ev = blog_claims.relative_evidence(pd.DataFrame(rows))
    outcome = {k: r["outcome"] for k, r in ev["per_encoding"].items()}
    assert outcome == {"rotation": "holds", "ramp": "holds only with a bias", "probit": "fails"}
    assert "rotation: holds" in ev["detail"] and "1 of 3 hold, 1 only with a bias, 1 fail" in ev["detail"]
    assert claims.grade(c.key, ev).verdict == claims.NOT_REPRODUCED          # 'in general' fails on the other two


# --- 7. Hansen's two sentences with no claim -----------------------------------------------------------------------
def test_sum_generalizes_concatenation():
    """Embedding [V, K] and encoding [N, K] concatenated are the sum of the two padded with zeros, exactly. Dense
    normal tables of width 2K over V = N = 100 > 2K + 1 rows: each centred table has rank 2K and so has the two
    stacked, so token and position parts share 2K dimensions; padded tables share none (a concatenation)."""
    from penb.chapters.encodings import blog_claims

    rng = np.random.default_rng(3)
    k, n = 6, 100
    e, p = rng.normal(size=(n, k)), rng.normal(size=(n, k))
    dense = blog_claims.sum_concat_row(e, p, rng.normal(size=(n, 2 * k)), rng.normal(size=(n, 2 * k)))
    assert dense["deviation"] == 0.0 and dense["overlap"] == 2 * k and dense["width"] == 2 * k
    padded = blog_claims.sum_concat_row(e, p, np.hstack([e, np.zeros((n, k))]), np.hstack([np.zeros((n, k)), p]))
    assert padded["overlap"] == 0
    key = "hansen.sum_generalizes_concat"
    assert claims.grade(key, blog_claims.sum_concat_evidence(pd.DataFrame([dense]))).verdict == claims.REPRODUCED
    assert claims.grade(key, blog_claims.sum_concat_evidence(pd.DataFrame([padded]))).verdict == claims.DIRECTION
    table = blog_claims.sum_concat_table(SimpleNamespace(blog_positions=100, blog_dim=32, seed=0))
    assert (table["overlap"] == 64).all() and (table["deviation"] == 0).all() and len(table) == 5


def _blog_measures():
    """logmean:/final: of the nine encodings from the blog's own loss file (the published values x 200)."""
    path = (Path(__file__).resolve().parents[2] / "shared/anchors/pos-enc-invert"
            / "100-inits_20000-iters_32-dims_100-len_lr1e-3.csv")
    if not path.exists():
        pytest.skip(f"the blog's loss file is not at {path}")
    d = pd.read_csv(path).set_index("iter") * 200
    return {**{f"logmean:{k}": float(np.log10(d[k]).mean()) for k in d}, **{f"final:{k}": float(d[k].iloc[-1])
                                                                             for k in d}}


def test_sincos_performs_well_in_both():
    """The blog's loss file: sincos's step-averaged log10 loss ranks 3rd of 9 (behind the two normal encodings, as
    the blog says until the late crossing) and its final loss 1st: the better half in both, reproduced. Moved to
    last in speed only: direction only; last in both: not reproduced."""
    from penb.chapters.invertibility.checks import sincos_both

    m = _blog_measures()
    by_speed = sorted((k[8:] for k in m if k.startswith("logmean:")), key=lambda k: m[f"logmean:{k}"])
    by_end = sorted((k[6:] for k in m if k.startswith("final:")), key=lambda k: m[f"final:{k}"])
    assert by_speed.index("sincos") + 1 == 3 and by_end.index("sincos") + 1 == 1
    key = "hansen.sincos_both"
    ev = sincos_both(m)
    assert "ranks 3 of 9" in ev["detail"] and "1 of 9" in ev["detail"]
    assert claims.grade(key, ev).verdict == claims.REPRODUCED
    slow = {**m, "logmean:sincos": max(m[f"logmean:{k}"] for k in by_speed) + 1}
    assert claims.grade(key, sincos_both(slow)).verdict == claims.DIRECTION
    worst = {**slow, "final:sincos": 1.0}
    assert claims.grade(key, sincos_both(worst)).verdict == claims.NOT_REPRODUCED


# --- 8. the S4D half of Sec. 4.3 --------------------------------------------------------------------------------
def s4d_curves(van_rare, pe_rare, steps=(10, 20, 30)):
    """Curves rows of the S4D runs: FREQUENT disturbants score 0.97 at every checkpoint; RARE ones ``van_rare[i]`` /
    ``pe_rare[i]`` at ``steps[i]`` (both targets, 8 pairs each), for every seed."""
    rows = []
    for v, rare in (("vanilla", van_rare), ("position-encoded", pe_rare)):
        for s in SEEDS:
            for step, r in zip(steps, rare):
                for t in LABELS:
                    for d in LABELS:
                        rows.append(dict(step=step, core="s4d", encoding="none" if v == "vanilla" else "sinusoidal",
                                         seed=s, method="weighted_rows", target=t, disturbants=d,
                                         similarity=0.97 if d == "frequent" else r, sd=0.1, n=8, variant=v))
    return pd.DataFrame(rows)


def s4d_grades(curves, accuracy=0.6):
    from penb.chapters.gradient_stability import analysis as gs

    cfg = presets.resolve("gradient_stability", "smoke", seeds=SEEDS, cores=("s4d",))
    frame = pd.DataFrame([dict(model="s4d", vocab=16, variant=v, seed=s, diverged=False, token_accuracy=accuracy)
                          for v in ("vanilla", "position-encoded") for s in SEEDS])
    return {g.claim: g for g in gs.grade_claims(cfg, frame, gs.seed_scores(curves), curves)}


def test_s4d_marginal_and_stable_by_itself():
    """Vanilla RARE 0.93, 0.95, 0.96 (drops 0.04, 0.02, 0.01), PE 0.95, 0.96, 0.965 (drops 0.02, 0.01, 0.005): PE's
    effect per checkpoint 0.02, 0.01, 0.005, mean 0.01167, inside +-0.02 (marginal); the vanilla S4D's lowest RARE
    score 0.93, above 0.9 (highly stable). PE removing a vanilla drop of 0.3 at every checkpoint is no marginal
    effect, and a vanilla score down to 0.67 is not highly stable."""
    g = s4d_grades(s4d_curves([0.93, 0.95, 0.96], [0.95, 0.96, 0.965]))
    marginal, stable = g["morita.sec4_3.s4d_marginal"], g["morita.sec4_3.s4d_stable"]
    assert marginal.evidence["a"] == pytest.approx([(0.02 + 0.01 + 0.005) / 3] * 5)
    assert marginal.verdict == claims.REPRODUCED, marginal.reason
    assert stable.evidence["a"] == pytest.approx([0.93] * 5) and stable.verdict == claims.REPRODUCED
    g = s4d_grades(s4d_curves([0.67, 0.67, 0.67], [0.97, 0.97, 0.97]))
    assert g["morita.sec4_3.s4d_marginal"].verdict == claims.NOT_REPRODUCED
    assert g["morita.sec4_3.s4d_stable"].verdict == claims.NOT_REPRODUCED
    # an S4D at chance (1/16) decides nothing: its linear recurrence can score high untrained
    g = s4d_grades(s4d_curves([0.93, 0.95, 0.96], [0.95, 0.96, 0.965]), accuracy=1 / 16)
    assert g["morita.sec4_3.s4d_stable"].verdict == claims.INCONCLUSIVE
    for key in ("morita.sec4_3.s4d_marginal", "morita.sec4_3.s4d_stable"):
        assert claims.get(key).about == "course" and claims.get(key).chapter == "gradient_stability"


# --- 9. Irie's view of PEs in RNNs, set against Morita's Fig. 2 ----------------------------------------------------
def test_pe_in_rnns_shows_moritas_rows_beside_it(tmp_path, monkeypatch):
    from penb.claims import scorecard

    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    ev = {"a": [0.9, 0.91, 0.89], "b": [0.5, 0.51, 0.49], "seeds": [1, 2, 3], "baseline": 1 / 256}
    claims.grade("morita.fig2.lstm", ev, half=ev, budgets=(1, 2))            # PE LSTM ahead: reproduced
    row = next(r for r in scorecard.rows(tmp_path) if r["key"] == "irie.pe_in_rnns")
    assert row["verdict"] == claims.NOT_TESTED and "opinion" in row["reason"]
    assert "morita.fig2.lstm reproduced" in row["reason"]
    assert "morita.fig2.gru not graded in this build" in row["reason"]


# --- 10. one helper for a comparison's training state ----------------------------------------------------------------
def test_one_training_state_helper(tmp_path):
    """accuracy = t / 2000 logged every 100 over 1,000 updates: (400, 500] holds 0.25, (900, 1000] 0.5, a rise of
    0.25 (still learning); a flat 0.9 rises 0 (trained). ``where`` keeps one model's rows, ``cells`` names each."""
    from penb.chapters.lm_appendix import grading as lm_grading
    from penb.claims import training

    rows = []
    for i, (model, vocab, variant, f) in enumerate([("gru", 8, "pe", lambda t: 0.9), ("gru", 16, "pe", lambda t: 0.9),
                                                    ("lstm", 8, "pe", lambda t: t / 2000)]):
        d = tmp_path / f"run{i}"
        d.mkdir()
        hist = [{"step": s, "loss": 1 - f(s), "accuracy": f(s)} for s in range(100, 1001, 100)]
        (d / "result.json").write_text(json.dumps({"history": hist}))
        rows.append(dict(model=model, vocab=vocab, variant=variant, seed=i, diverged=False, path=str(d)))
    frame = pd.DataFrame(rows)
    gru = training.of_frame(frame, "variant", ("pe",), {"pe": "PE"}, where={"model": "gru"},
                            cells={"V 8": {"vocab": 8}, "V 16": {"vocab": 16}})
    assert gru["state"] == training.TRAINED and set(gru["models"]) == {"PE V 8", "PE V 16"}
    lstm = training.of_frame(frame, "variant", ("pe",), where={"model": "lstm"})
    assert lstm["state"] == training.LEARNING and lstm["models"]["pe"]["rise"] == pytest.approx(0.25)
    # the chapters that wrapped training.state in a helper of their own no longer do
    assert not hasattr(freq_grading, "training_of") and not hasattr(lm_grading, "training_state")

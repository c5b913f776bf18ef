"""The blog's invertibility study: encodings, the batched trainer, floors, the published file, bad input.

References are independent: numpy/scipy formulas for the tables, plain autograd + torch.optim.Adam loops
for the batched trainer, scipy least squares for the floors, the derived anchor table for the loader.
"""
import math

import numpy as np
import pandas as pd
import pytest
import torch
from scipy.special import expit, ndtri

from penb import claims, presets
from penb.chapters.invertibility import analysis as inv
from penb.chapters.invertibility import checks as ic
from penb.chapters.invertibility import sentinel
from penb.encodings import blog as be

N, K = 100, 32


# --- the encodings ------------------------------------------------------------------------------------
def test_sincos_matches_formula():
    pos = np.arange(N)[:, None]
    rates = 10000.0 ** (-np.arange(K // 2) / (K // 2))
    ref = np.concatenate([np.sin(pos * rates), np.cos(pos * rates)], axis=1)
    got = be.table("sincos", {}, N, K, dtype=torch.float64).numpy()
    np.testing.assert_allclose(got, ref, atol=1e-12)
    assert got[7, 0] == pytest.approx(math.sin(7)) and got[7, K // 2] == pytest.approx(math.cos(7))


@pytest.mark.parametrize("key", ["direct1", "directN", "linear_normal", "linear_uniform_learned"])
def test_affine_tables(key):
    g = torch.Generator().manual_seed(3)
    p = be.init_params(key, K, g, batch=(2,), dtype=torch.float64)
    got = be.table(key, p, N, K).numpy()
    t = np.arange(N) / N
    if key == "direct1":
        ref = np.zeros((N, K)); ref[:, 0] = t
    elif key == "directN":
        ref = np.repeat(t[:, None], K, axis=1)
    else:
        w, b = p["w"].numpy(), p["b"].numpy()
        ref = t[None, :, None] * w[:, None, :] + b[:, None, None]
        assert got.shape == (2, N, K)
    np.testing.assert_allclose(got, ref, atol=1e-12)


def test_normal_table_ndtri_and_sentinel():
    g = torch.Generator().manual_seed(5)
    drawn = be.init_params("normal_learned", K, g, batch=(3,), dtype=torch.float64)
    p = {k: v.requires_grad_() for k, v in drawn.items()}
    assert (p["v"] >= 0).all()
    tab = be.table("normal_learned", p, N, K, sentinel=-123.0)
    mu, v = p["mu"].detach().numpy(), p["v"].detach().numpy()
    q = ndtri(np.arange(1, N) / N)
    ref = mu[:, None, :] + np.sqrt(v)[:, None, :] * q[None, :, None]
    np.testing.assert_allclose(tab[:, 1:].detach().numpy(), ref, rtol=1e-12, atol=1e-12)
    assert (tab[:, 0] == -123.0).all()
    assert be.table("normal", p, N, K)[0, 0, 0].item() == -9999999.0      # the original's default
    tab[:, 0].sum().backward()                                          # row 0 does not depend on mu, v
    assert p["mu"].grad.abs().max() == 0 and p["v"].grad.abs().max() == 0


def test_init_params_shapes_and_ranges():
    assert be.init_params("sincos", K) == {}
    p = be.init_params("linear_uniform", K, torch.Generator().manual_seed(0), batch=(500,))
    assert p["w"].shape == (500, K) and p["b"].shape == (500,)
    assert p["w"].abs().max() <= 1 and p["w"].min() < -0.9 and p["w"].max() > 0.9
    assert be.LEARNED == {k for k in be.KEYS if k.endswith("_learned")} and len(be.KEYS) == 9


def test_unknown_key_and_bad_sizes():
    with pytest.raises(ValueError, match="valid keys"):
        be.table("gaussian", {}, N, K)
    with pytest.raises(ValueError, match="valid keys"):
        be.init_params("gaussian", K)
    with pytest.raises(ValueError, match="even"):
        be.table("sincos", {}, N, 31)


# --- the batched trainer equals independent plain runs ------------------------------------------------
def plain_run(key, state, i, iterations, lr=1e-3, sentinel=be.SENTINEL):
    """One problem with autograd and torch.optim.Adam (float64): losses before each update, final params."""
    w = state[key]["w"][i].clone().requires_grad_()
    b = state[key]["b"][i].clone().requires_grad_()
    enc = {n: state[key]["enc_" + n if n in ("w", "b") else n][i].clone() for n in be.param_names(key)}
    learned = key in be.LEARNED
    for x in enc.values():
        x.requires_grad_(learned)
    opt = torch.optim.Adam([w, b, *(enc.values() if learned else [])], lr=lr, betas=(0.9, 0.999), eps=1e-8)
    t = torch.arange(N, dtype=torch.float64) / N
    losses, vmin = [], math.inf
    for _ in range(iterations):
        tab = be.table(key, enc, N, K, sentinel, dtype=torch.float64)
        loss = ((torch.sigmoid(tab @ w + b) - t) ** 2).mean()
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
        if "v" in enc:
            vmin = min(vmin, enc["v"].abs().min().item())
    named = {("enc_" + n if n in ("w", "b") else n): x.detach() for n, x in enc.items()}
    return np.array(losses), {"w": w.detach(), "b": b.detach(), **named}, vmin


def test_batched_equals_independent_runs():
    inits, iterations = 4, 150
    study = inv.simulate(inits=inits, iterations=iterations, dtype="float64", progress=False)
    state = inv.initial_state(be.KEYS, inits, K, 0, torch.float64)
    for e, key in enumerate(be.KEYS):
        compared = 0
        for i in range(inits):
            losses, final, vmin = plain_run(key, state, i, iterations)
            # normal_learned: a variance passing near 0 makes d sqrt|v| / dv blow up and the run chaotic, so
            # rounding differences grow; compare only the initialisations whose variances stay clear of 0
            if key == "normal_learned" and vmin < 1e-3:
                continue
            compared += 1
            np.testing.assert_allclose(study.losses[:, e, i], losses, rtol=1e-10, err_msg=key)
            assert set(final) == set(study.final[key]), key
            for n, x in final.items():
                np.testing.assert_allclose(study.final[key][n][i].numpy(), x.numpy(), atol=1e-10, err_msg=f"{key}.{n}")
        assert compared >= 2, key


def test_draws_do_not_depend_on_the_other_encodings():
    a = inv.simulate(inits=3, iterations=50, dtype="float64", progress=False)
    b = inv.simulate(inits=3, iterations=50, dtype="float64", progress=False, encodings=["normal", "sincos"])
    np.testing.assert_allclose(b.losses[:, 0], a.losses[:, be.KEYS.index("normal")], rtol=1e-12)
    np.testing.assert_allclose(b.losses[:, 1], a.losses[:, be.KEYS.index("sincos")], rtol=1e-12)


def test_mean_frame_layout():
    df = inv.run_study(inits=2, iterations=5, progress=False, encodings=["direct1", "normal"])
    assert list(df.columns) == ["direct1", "normal"] and list(df.index) == [0, 1, 2, 3, 4]
    # an untrained inverter (zero bias, small weights) predicts about 1/2: loss near mean((1/2 - t)^2)
    assert df.at[0, "direct1"] == pytest.approx(inv.constant_prediction_loss(N), rel=0.1)


# --- the floors -------------------------------------------------------------------------------------
def test_floors_equal_the_printed_constants():
    fl = inv.floors(N)
    assert fl["affine"] == pytest.approx(8.352947e-4, rel=1e-6)
    assert fl["normal"] == pytest.approx(3.016172e-5, rel=1e-6)
    # no (a, c) on a grid around the optimum does better than scipy's minimum
    t = np.arange(N) / N
    grid = [np.mean((expit(a * t + c) - t) ** 2) for a in np.linspace(2, 8, 61) for c in np.linspace(-4, 0, 41)]
    assert min(grid) >= fl["affine"] * (1 - 1e-9)


def test_training_reaches_the_floors():
    fl = inv.floors(N)
    # a larger learning rate than the blog's gets there in 3,000 steps
    df = inv.run_study(inits=2, iterations=3000, lr=0.01, dtype="float64", progress=False,
                       encodings=["direct1", "linear_uniform_learned", "normal", "normal_learned"])
    for key, floor in (("direct1", "affine"), ("linear_uniform_learned", "affine"), ("normal", "normal"),
                       ("normal_learned", "normal")):
        assert df[key].iloc[-1] == pytest.approx(fl[floor], rel=1e-4), key
        assert df[key].min() >= fl[floor] * (1 - 1e-9), key        # a floor is never crossed


# --- the published file -----------------------------------------------------------------------------
def test_published_loader_factor_200():
    raw, anchors = inv.load_published(correct=False), inv.load_anchor_table()
    if raw is None or anchors is None:
        pytest.skip("shared anchors not available")
    assert len(raw) == inv.PUBLISHED_ITERATIONS and inv.published_factor() == 200
    corrected = inv.load_published()
    np.testing.assert_allclose(corrected.loc[anchors.index].to_numpy(), anchors[corrected.columns].to_numpy(),
                               rtol=2e-6)
    assert corrected.iloc[-1][["direct1", "directN"]].to_numpy() == pytest.approx(inv.floors(N)["affine"], rel=1e-4)


def test_missing_file_gives_none(tmp_path):
    assert inv.load_published(tmp_path / "absent.csv") is None
    assert inv.load_anchor_table(tmp_path / "absent.csv") is None


# --- the sentinel side study -------------------------------------------------------------------------
def test_wrong_side_at_step_0_is_a_negative_weight_sum():
    """With the original sentinel (-9999999) and a zero bias, position 0 predicts 1 exactly when the
    inverter's weights sum below zero: the count at step 0, summed over seeds, read off the draws' signs."""
    cfg = presets.resolve("invertibility", "smoke", inits=16, iterations=2)
    studies = inv.run(cfg, progress=False, encodings=["normal", "normal_learned"])
    got = sentinel.wrong_side(studies, cfg)
    assert list(got.columns) == ["at step 0", "after the run"]
    assert got.index.name == f"inits (of {16 * len(cfg.seeds)}) predicting 1 at position 0"
    for k in ("normal", "normal_learned"):
        w = [inv.initial_state([k], 16, cfg.dim, s, torch.float64)[k]["w"] for s in cfg.seeds]
        assert got.at[k, "at step 0"] == sum(int((x.sum(-1) < 0).sum()) for x in w)
    assert 0 < got["at step 0"].sum() < 2 * 16 * len(cfg.seeds)  # both sides occur


def test_settle_table_on_hand_frames():
    f = pd.DataFrame({"normal": [4.0, 2.0, 1.05], "normal_learned": [3.0, 1.2, 1.0]})
    t = sentinel.settle_table({"a": f, "b": 2 * f}, 1.0)
    assert t.at["normal: step 0", "a"] == 4.0 and t.at["normal_learned: final", "b"] == 2.0
    assert t.at["normal: within 1.1 x floor from", "a"] == 2
    assert pd.isna(t.at["normal_learned: within 1.1 x floor from", "b"])       # never within 1.1 x



# --- reading claims ---------------------------------------------------------------------------------
def test_crossing_and_settle_steps():
    df = pd.DataFrame({"a": [5, 4, 1, 3, 1, 0.5], "b": [2, 2, 2, 2, 2, 2]})
    assert ic.crossing_step(df, "a", "b") == 4 and ic.crossing_step(df, "b", "a") is None
    assert ic.settle_step(df["a"], 1.0, rtol=0.0) == 4 and ic.settle_step(df["b"], 1.0) is None


# --- bad input --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(inits=0), dict(iterations=0), dict(encodings=["gauss"]), dict(encodings=[]),
                                dict(dim=31), dict(lr=0.0), dict(sentinel=float("nan")), dict(length=1),
                                dict(dtype="half"), dict(threads=0), dict(encodings=["normal", "normal"])])
def test_bad_input_raises_before_work(kw):
    with pytest.raises(ValueError):
        inv.run_study(**{"progress": False, **kw})


@pytest.mark.parametrize("kw", [dict(inits=0), dict(iterations=1), dict(dim=33), dict(lr=-1e-3),
                                dict(sentinel=float("inf")), dict(dtype="bf16")])
def test_chapter_check_refuses(kw):
    with pytest.raises(ValueError):
        presets.resolve("invertibility", "smoke", **kw)


def test_presets_quick_is_the_full_study_on_the_confirmation_seeds():
    t = presets.table("invertibility")
    assert {k: v for k, v in t["quick"].items() if k != "seeds"} == \
        {k: v for k, v in t["paper"].items() if k != "seeds"}
    paper = t["paper"]
    assert (paper["inits"], paper["iterations"], paper["dim"], paper["length"]) == (100, 20_000, 32, 100)
    assert t["quick"]["seeds"] == presets.confirmation(5)
    assert set(t["smoke"]["seeds"]) <= set(presets.CONFIRMATION_SEEDS)
    assert t["smoke"]["iterations"] == 20_000                  # so that smoke grades every claim too


# --- grading the blog's claims ------------------------------------------------------------------------
from penb.claims import grading  # noqa: E402


def test_plateau_and_lead_on_hand_frames():
    s = pd.Series([1.0, 0.5, 0.2, 0.1, 0.115, 0.1, 0.1])
    assert ic.plateau_step(s, 0.1) == 5                     # 0.115 / 0.1 = e^0.14: outside, then in for good
    assert ic.plateau_step(s, 0.2) == 3
    df = pd.DataFrame({"normal": [5, 1, 1, 1], "normal_learned": [5, 1, 1, 1], "sincos": [9, 9, 0.5, 0],
                       "direct1": [2.0, 2.0, 2.0, 2.0]})
    assert not ic.lead_holds(df, 0, None) and ic.lead_holds(df, 1, None)      # sincos's place is its crossing
    df.loc[3, "direct1"] = 0.5
    assert not ic.lead_holds(df, 1, None) and ic.lead_holds(df, 1, 3)


def _loop_plateau(v, tol):
    """First index from which |ln(v / v[-1])| <= tol holds to the end (a plain loop)."""
    first = None
    for i, x in enumerate(v):
        if abs(math.log(x / v[-1])) <= tol:
            first = i if first is None else first
        else:
            first = None
    return first


def _loop_flat(v, frac):
    """First index from which v - v[-1] <= frac * (v[0] - v[-1]) holds to the end (a plain loop)."""
    first = None
    for i, x in enumerate(v):
        if x - v[-1] <= frac * (v[0] - v[-1]):
            first = i if first is None else first
        else:
            first = None
    return first


def test_flat_step_on_a_hand_series():
    s = pd.Series([1.0, 0.5, 0.2, 0.06, 0.04, 0.05, 0.0])       # fall 1.0: flat within 0.05 of the end
    assert ic.flat_step(s, 0.05) == 4 and ic.flat_step(s, 0.1) == 3
    assert ic.flat_step(pd.Series([3.0, 3.0, 3.0]), 0.05) == 0   # no fall: flat from the start


def _loop_stays_below(a, b):
    first = None
    for i, (x, y) in enumerate(zip(a, b)):
        first = (i if first is None else first) if x < y else None
    return first


def test_measures_of_the_published_file_against_plain_loops():
    pub = inv.load_published()
    if pub is None:
        pytest.skip("shared anchors not available")
    m = ic.measures(pub, inv.floors(N))
    for k in ("normal", "normal_learned", "sincos", "linear_normal_learned"):
        assert m[f"plateau:{k}"] == _loop_plateau(pub[k].to_numpy(), 0.1), k
        assert m[f"flat:{k}"] == _loop_flat(pub[k].to_numpy(), 0.05), k
    # the blog's own loss file read the graded way gives the blog's plateaus (about 400 and 300) within 10%,
    # the linear-axis way far earlier: the log reading is the blog's (issue 28 asked)
    blog = claims.get("hansen.normal_plateau").value
    for k in ("normal", "normal_learned"):
        assert abs(m[f"plateau:{k}"] / blog[k] - 1) < 0.1 and m[f"flat:{k}"] < blog[k] / 2, k
    cross = max(_loop_stays_below(pub["sincos"].to_numpy(), pub[k].to_numpy()) for k in ic.NORMAL)
    assert m["cross"] == cross
    others = [k for k in pub.columns if k not in (*ic.NORMAL, "sincos")]
    last = max(i for i in range(len(pub)) if any(pub[k].iat[i] < pub["sincos"].iat[i] for k in others))
    assert m["last_beaten"] == last
    floor = inv.floors(N)["affine"] * 1.1
    below = pub["linear_uniform"].to_numpy() <= floor
    assert m["reach:linear_uniform"] == max(i for i in range(len(pub)) if not below[i]) + 1


def _measures(**change):
    """Hand-made measures in which every claim holds (the blog's story), changed by ``change``."""
    m = {"cross": 12_500.0, "lead": 1.0, "last_beaten": 1_100.0, "plateau:normal": 420.0,
         "plateau:normal_learned": 280.0, "flat:normal": 90.0, "flat:normal_learned": 70.0, "plateau:sincos": 15_000.0, "plateau:linear_normal_learned": 600.0,
         "plateau:linear_uniform_learned": 650.0, "direct": 8.353e-4}
    reach = {"linear_normal": 1_200.0, "linear_normal_learned": 600.0, "linear_uniform": 1_500.0,
             "linear_uniform_learned": 700.0, "normal": 450.0, "normal_learned": 330.0}
    m.update({f"reach:{k}": v for k, v in reach.items()})
    # sincos ends level with the direct encodings (hansen.converge_direct) and, by a hair, lowest of all (issue 35:
    # hansen.sincos_both, 'performs well in the long run')
    finals = {k: 8.353e-4 for k in ic.AFFINE} | {"normal": 8.4e-4, "normal_learned": 8.3e-4, "sincos": 8.29e-4}
    m.update({f"final:{k}": v for k, v in finals.items()})
    logmean = {"direct1": -2.7, "directN": -2.9, "linear_normal": -3.0, "linear_uniform": -3.01,   # the 4 worst
               "linear_normal_learned": -3.05, "linear_uniform_learned": -3.05, "sincos": -4.0, "normal": -4.5,
               "normal_learned": -4.5}
    m.update({f"logmean:{k}": v for k, v in logmean.items()})
    return {**m, **change}


def _grade(m, nonfinite=0):
    return {k: grading.apply(claims.get(k).rule, ev)[0] for k, ev in ic.evidence(m, nonfinite=nonfinite).items()}


def test_evidence_gives_the_registered_verdicts():
    R, D, NR, I = grading.REPRODUCED, grading.DIRECTION, grading.NOT_REPRODUCED, grading.INCONCLUSIVE
    checks = list(_grade(_measures()))
    assert checks == [c.key for c in claims.of_chapter("invertibility")]           # the floors are not claims
    assert {_grade(_measures())[k] for k in checks} == {R}
    assert _grade(_measures(cross=30_000.0))["hansen.normal_best"] == D            # order holds, crossing late
    assert _grade(_measures(cross=math.nan))["hansen.normal_best"] == D            # sincos never crosses
    assert _grade(_measures(lead=0.0))["hansen.normal_best"] == NR
    assert _grade(_measures(last_beaten=2_500.0))["hansen.sincos_1200"] == NR      # beyond a factor 2
    assert _grade(_measures(last_beaten=2_400.0))["hansen.sincos_1200"] == R
    assert _grade(_measures(**{"plateau:normal_learned": 610.0}))["hansen.normal_plateau"] == NR
    # the linear-axis reading (90 and 70 here, far below the blog's) is reported, not graded
    assert _grade(_measures(**{"flat:normal": 5_000.0}))["hansen.normal_plateau"] == R
    assert _grade(_measures(**{"reach:normal_learned": 500.0}))["hansen.learned_faster"] == D   # 2 of 3 pairs
    # issue 28: "... but seemingly converges to the same inversion loss": a pair 20% apart at the end
    assert _grade(_measures(**{"final:normal_learned": 1.0e-3}))["hansen.learned_faster"] == D  # sooner only
    apart = {"final:normal_learned": 1.0e-3, "reach:normal_learned": 500.0,
             "reach:linear_uniform_learned": math.nan}
    assert _grade(_measures(**apart))["hansen.learned_faster"] == NR               # 1 of 3 faster, apart
    slow = {"reach:normal_learned": 500.0, "reach:linear_uniform_learned": math.nan}
    assert _grade(_measures(**slow))["hansen.learned_faster"] == D                 # 1 of 3, same losses
    assert _grade(_measures(**{"reach:linear_uniform": 1_000.0}))["hansen.normal_faster"] == NR
    assert _grade(_measures(**{"final:normal": 3.0e-5}))["hansen.converge_direct"] == NR
    part = _grade(_measures(**{"plateau:sincos": 500.0}))                          # second part only
    assert part["hansen.learned_linear_peak"] == D
    far = {"final:linear_uniform_learned": 2e-3}
    assert _grade(_measures(**far))["hansen.learned_linear_peak"] == D              # first part only
    # hansen.direct_worst: the four direct encodings worst over the run, and ending together
    assert _grade(_measures(**{"logmean:linear_normal_learned": -2.95}))["hansen.direct_worst"] == D  # a learned
    assert _grade(_measures(**{"final:directN": 9.3e-4}))["hansen.direct_worst"] == D         # 11% apart at the end
    assert _grade(_measures(**{"final:directN": 9.1e-4}))["hansen.direct_worst"] == R         # 9% apart: together
    both = {"logmean:sincos": -2.0, "final:linear_uniform": 1e-3}
    assert _grade(_measures(**both))["hansen.direct_worst"] == NR
    # the exact floors: the book's sanity checks, under their registered rule, never recorded as claims
    sanity = {g.claim: g.verdict for g in ic.sanity(_measures(**far))}
    assert sanity == {"hansen.floor_affine": NR, "hansen.floor_normal": NR}                   # 2.4 times; 8.4e-4
    near = _measures(**{"final:normal": 3.1e-5, "final:normal_learned": 3.0e-5})
    assert {g.claim: g.verdict for g in ic.sanity(near)} == {"hansen.floor_affine": R, "hansen.floor_normal": R}
    assert all(claims.get(k).kind == "setting" and claims.get(k) not in claims.graded() for k in ic.SANITY)
    assert {v for k, v in _grade(_measures(), nonfinite=3).items() if k in checks} == {I}
    # issue 35, hansen.sincos_both: sincos 3rd of 9 by the step-averaged log loss; last at the end: one part only
    assert _grade(_measures(**{"final:sincos": 9e-4}))["hansen.sincos_both"] == D
    assert _grade(_measures(**{"final:sincos": 9e-4, "logmean:sincos": -2.0}))["hansen.sincos_both"] == NR


def _study(seed, losses):
    losses = np.asarray(losses, dtype=np.float32)                 # [iterations, E, inits]
    encs = tuple(be.KEYS[:losses.shape[1]])
    return inv.Study(encs, losses, {}, dict(seed=seed, inits=losses.shape[2], iterations=len(losses), wall_s=1.0))


def test_pooled_mean_leaves_out_and_counts_nonfinite_problems():
    a = _study(1001, [[[1.0, 3.0], [2.0, 2.0]], [[0.5, 1.5], [1.0, 1.0]]])
    b = _study(1002, [[[5.0, 1.0], [2.0, 2.0]], [[np.nan, 0.5], [1.0, 1.0]]])
    df = inv.pooled_mean([a, b])
    first = be.KEYS[0]
    assert df[first].tolist() == pytest.approx([(1 + 3 + 1) / 3, (0.5 + 1.5 + 0.5) / 3])   # NaN run left out
    assert df[be.KEYS[1]].tolist() == pytest.approx([2.0, 1.0])
    assert inv.nonfinite([a, b]).loc[1002, first] == 1 and inv.nonfinite([a, b]).loc[1001, first] == 0
    assert inv.run_table([a, b])["diverged"].tolist() == [0, 1]


def test_not_graded_off_the_blog_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    cfg = presets.resolve("invertibility", "smoke", lr=1e-2)
    df = pd.DataFrame({k: [1.0, 0.5] for k in be.KEYS})
    grades = ic.grade(df, inv.floors(N), cfg)
    assert [g.claim for g in grades] == [c.key for c in claims.of_chapter("invertibility")]
    assert all(g.verdict == grading.NOT_TESTED and "lr" in g.reason for g in grades)


@pytest.mark.real_horizon
def test_budget_claims_below_the_blogs_budget_are_not_tested(monkeypatch):
    """Protocol 6 through the chapter's grading (checks.grade, the blog's story as hand-made measures): at the
    blog's 20,000 iterations (smoke) no doubling is left, so every claim, course or budget, reads its rule's
    'reproduced', and none is carried to a horizon (course claims never are; budget claims are at theirs). At
    10,000 iterations the chapter's own gate names the iterations first: every claim 'not tested', '10000 (blog
    20000)'. With that gate lifted, protocol 6 alone: the three budget claims are 'not tested' below the text's
    20,000 updates (these runs 10,000), their rule's 'reproduced' said; the six course claims keep it."""
    monkeypatch.setattr(ic, "measures", lambda pooled, floors: _measures())
    df = pd.DataFrame({k: [1.0, 0.5] for k in be.KEYS})
    budget = {c.key for c in claims.of_chapter("invertibility") if c.about == "budget"}
    assert budget == {"hansen.converge_direct", "hansen.direct_worst", "hansen.sincos_both"}
    grades = ic.grade(df, inv.floors(N), presets.resolve("invertibility", "smoke"))
    assert {g.verdict for g in grades} == {grading.REPRODUCED}
    assert not any("horizon" in g.detail for g in grades)
    short = presets.resolve("invertibility", "smoke", iterations=10_000)
    grades = ic.grade(df, inv.floors(N), short)
    assert all(g.verdict == grading.NOT_TESTED and "iterations 10000 (blog 20000)" in g.reason for g in grades)
    monkeypatch.setattr(ic, "setting_gap", lambda cfg: "")
    for g in ic.grade(df, inv.floors(N), short):
        if g.claim in budget:
            assert g.verdict == grading.NOT_TESTED and "not tested below the text's budget" in g.reason
            assert "20,000 updates, these runs 10,000" in g.reason and "alone would say 'reproduced'" in g.reason
        else:
            assert g.verdict == grading.REPRODUCED and g.detail["about"] == "course", g.claim

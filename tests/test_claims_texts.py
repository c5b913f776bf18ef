"""What the registry says the texts say (issue 28): the text's scale only where the text states one, statements
no stronger than the texts, and the claims that were missing. Numbers are the texts' own (Morita Sec. 3.3,
4.2, App. A.1, App. E; Irie Question 5), typed here from the texts, not read from the code."""
from types import SimpleNamespace

import numpy as np
import pandas as pd

from penb import claims
from penb.claims import grading, scale


# --- the text's scale, only where the text states one ------------------------------------------------------
def test_irie_states_no_scale():
    """Irie's review trains nothing and prints no vocabulary, length or update count: no chapter preset stands
    in for its scale."""
    irie = [c for c in claims.CLAIMS.values() if c.key.startswith("irie.")]
    assert irie and all(c.scale == {} for c in irie)
    assert scale.smaller({"vocab": 32, "updates": 1500}, claims.get("irie.q4").scale) == []


def test_fig3_scale_is_each_models_own_vocabulary():
    """Sec. 4.2: K = 64, 1024, 2048 for GRU, LSTM, S4D (not the largest of the three for every model)."""
    for core, k in (("gru", 64), ("lstm", 1024), ("s4d", 2048)):
        for kind in ("harm", "pe_robust", "disturbants"):
            assert claims.get(f"morita.fig3.{kind}.{core}").scale["vocab"] == k, (kind, core)


def test_fig2_s4d_has_no_printed_vocabulary():
    """Sec. 4.1 prints the GRU's (32-256) and the LSTM's (256-16,384) vocabularies, none for the S4D."""
    for key in ("morita.fig2.s4d", "morita.fig2.trend.s4d"):
        sc = claims.get(key).scale
        assert "vocab" not in sc and sc["length"] == 64 and sc["updates"] == 300_000
    assert scale.show(claims.get("morita.fig2.lstm").scale["vocab"]) == "256-16,384"


# --- statements no stronger than the texts -----------------------------------------------------------------
def test_irie_q1_quotes_invariant_and_says_equivariance_is_tested():
    s = claims.get("irie.q1").statement
    assert '"permutation invariant"' in s and "equivariance" in s


def _exact(q5_some: float, q5_mid: float) -> pd.DataFrame:
    """A one-seed exact table whose columns pass every other check."""
    row = dict(q1=0.0, q1_contrast=1.0, q3=1.0, q5=0.0, q5_contrast=1.0, q5_mid=q5_mid, q5_mid_same=0.0,
               q5_some=q5_some, lin_q3=1.0, lin_q5=0.0, lin_q5_contrast=1.0, linear=0.0, linear_contrast=1.0)
    return pd.DataFrame([row], index=pd.Index([2001], name="seed"))


def test_irie_q5_some_positions_grades_some_positions_only():
    """Irie: outputs at *some* positions change. A permutation that moves some output passes even when a position
    the book's account expects to move does not; a permutation that moves no output before the last fails."""
    from penb.chapters.irie.analysis import exact_evidence

    cfg = SimpleNamespace(permutations=10, layers=(1, 2))
    assert "some positions" in claims.get("irie.q5.some_positions").statement
    assert "wherever" not in claims.get("irie.q5.some_positions").statement
    assert exact_evidence(_exact(q5_some=0.5, q5_mid=1e-12), cfg)["irie.q5.some_positions"]["passed"]
    assert not exact_evidence(_exact(q5_some=1e-12, q5_mid=1e-12), cfg)["irie.q5.some_positions"]["passed"]


def test_irie_q5_some_positions_on_random_models():
    """On random one-layer causal models (smoke size) every non-identity permutation of the prefix moves an
    output before the last: the first moved position sees another newest token."""
    from penb import presets
    from penb.chapters.irie.analysis import q35_table

    cfg = presets.resolve("irie", "smoke")
    t = q35_table(cfg)
    one = t[(t["mask"] == "causal") & (t["encoding"] == "none") & (t["layers"] == 1)]
    assert (one["mid_some"] > 1e-6).all() and (one["max_last"] < 1e-9).all()


def test_converge_direct_says_the_blog_contradicts_it():
    s = claims.get("hansen.converge_direct").statement
    assert "contradicts" in s and "twice" in s


def test_fig2_distance_is_graded_for_every_model_of_the_text():
    """Sec. 4.1: the distance panel shows the GRU, the LSTM and the S4D; each has its claim, graded on its own
    model's distance."""
    from penb.chapters.key_findings.grading import BETTER

    for core in ("gru", "lstm", "s4d"):
        c = claims.get(f"morita.fig2.distance.{core}")
        assert c.chapter == "key_findings" and BETTER[c.key] == (core, "mean_distance")


# --- Hansen's tables: relative positions (hansen.relative) and "no covariance" (hansen.normal_no_covariance) ---
def _rotation_table(n=40, pairs=4):
    """sin/cos of t * w_i, built here: e(t + k) = R_k e(t) for a block rotation R_k, exactly."""
    t = np.arange(n)[:, None] * (0.3 / 2.0 ** np.arange(pairs))[None]
    return np.hstack([np.sin(t), np.cos(t)])


def test_shift_fit_finds_an_exact_linear_shift_and_refuses_a_missing_bias():
    from penb.chapters.encodings.blog_claims import shift_fit

    for k in (1, 5, 20):
        fit = shift_fit(_rotation_table(), k)
        assert fit["correct"] == 1.0 and fit["residual"] < 1e-10 and fit["pairs"] == 40 - 1 - k
    ramp = np.zeros((30, 3))
    ramp[:, 0] = np.arange(30) / 30                               # direct1: e(t+k) = e(t) + k/N needs a bias
    fit = shift_fit(ramp, 3)
    assert fit["correct"] < 1.0 and fit["affine_correct"] == 1.0


def _normal_table(n=100, k=8, seed=0):
    """Hansen's normal encoding built here from scipy's probit: mu + sd * ndtri(i / n), row 0 a sentinel."""
    from scipy.special import ndtri

    rng = np.random.default_rng(seed)
    mu, sd = rng.normal(size=k), np.abs(rng.normal(size=k)) ** 0.5
    q = ndtri(np.arange(1, n) / n)
    return np.vstack([np.full(k, -9999999.0), mu + sd * q[:, None]]), mu, sd


def test_normal_components_are_normal_and_perfectly_correlated():
    """Each component is an increasing affine function of the same probit: normal one by one, correlation 1
    between any two (what the registered rule must call 'not reproduced')."""
    from penb.chapters.encodings.blog_claims import covariance_evidence, covariance_row

    table, mu, sd = _normal_table()
    row = covariance_row(table, mu, sd)
    assert row["ks"] < 0.02 and row["r_min"] > 0.999
    g = claims.grade("hansen.normal_no_covariance", covariance_evidence(pd.DataFrame([row])))
    assert g.verdict == grading.NOT_REPRODUCED and "correlate" in g.reason
    rng = np.random.default_rng(1)                                # what 'no covariance' would look like
    iid = np.vstack([np.zeros(4), rng.normal(size=(4000, 4))])
    free = covariance_row(iid, np.zeros(4), np.ones(4))
    assert free["max_abs_r"] < 0.1 and free["ks"] < 0.05
    assert claims.grade("hansen.normal_no_covariance",
                        covariance_evidence(pd.DataFrame([free]))).verdict == grading.REPRODUCED


def test_relative_rule_on_the_blog_tables():
    """sincos and the linear encodings shift exactly; direct1 and directN need a bias; the normal encoding's
    probit spacing is not a linear function of itself: the blog's 'seems to hold in general' fails."""
    from penb.chapters.encodings import blog_claims

    cfg = SimpleNamespace(blog_positions=100, blog_dim=32, seed=0)
    table = blog_claims.relative_table(cfg)
    worst = table.groupby("encoding")["correct"].min()
    assert {k for k, v in worst.items() if v == 1.0} == {"sincos", "linear_normal", "linear_normal_learned",
                                                         "linear_uniform", "linear_uniform_learned"}
    ev = blog_claims.relative_evidence(table)
    assert claims.grade("hansen.relative", ev).verdict == grading.NOT_REPRODUCED
    assert claims.grade("hansen.relative", blog_claims.relative_evidence(
        table[worst.reindex(table["encoding"]).to_numpy() == 1.0])).verdict == grading.REPRODUCED
    # the blog's normal table (penb.encodings.blog) matches the one built here from scipy, row for row
    t = blog_claims.blog_table("normal", 100, 32, 0)
    assert t[0, 0] == -9999999.0 and np.allclose(np.corrcoef(t[1:].T), 1.0)


def test_the_blog_table_claims_record_the_blogs_scale(tmp_path, monkeypatch):
    """Graded in the encodings chapter, whose own sizes (V 16,384, D 512) belong to Morita's encoding: the
    record says the blog's N = 100 positions, beside the blog's scale."""
    from penb import presets
    from penb.chapters.encodings import blog_claims
    from penb.claims import scorecard

    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    blog_claims.grade(presets.resolve("encodings", "smoke"))
    rec = scorecard.collect(tmp_path)
    for key in ("hansen.relative", "hansen.normal_no_covariance"):
        assert rec[key]["scale"] == {"length": 100} == rec[key]["claim_scale"] and not rec[key]["smaller_scale"]

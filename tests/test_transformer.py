"""penb.transformer and penb.chapters.irie (probes, analysis): Irie's claims as checks that a wrong mask
or depth would fail.

Every expectation is independent of the code under test: plain loops over the attention equations,
closed-form reachability (lower triangle, bands), or the pattern drawn in Irie's Fig. 1.
"""
import math

import numpy as np
import pytest
import torch

from penb import presets
from penb.chapters.irie import analysis, probes
from penb.transformer import SelfAttention, Transformer, attention_mask

EQ, NE = 1e-10, 1e-6   # float64: "equal" and "different" thresholds on max |difference|


@pytest.fixture(scope="module")
def cfg():
    return presets.resolve("irie", "smoke", length=6, permutations=200)


def setup(cfg, keep_last=True):
    g = torch.Generator().manual_seed(1)
    tokens = probes.distinct_tokens(cfg.vocab, cfg.length, g)
    return tokens, probes.random_permutations(cfg.permutations, cfg.length, g, keep_last=keep_last)


def band(T, width):
    """Closed form: position t reaches s iff 0 <= t - s <= width."""
    d = np.arange(T)[:, None] - np.arange(T)[None]
    return (d >= 0) & (d <= width)


# --- building blocks --------------------------------------------------------------------------------------

def test_bad_input_raises():
    with pytest.raises(ValueError, match="unknown mask"):
        attention_mask("diagonal", 4)
    with pytest.raises(ValueError, match="bool of shape"):
        attention_mask(torch.ones(3, 3, dtype=torch.bool), 4)
    with pytest.raises(ValueError, match="at least one key"):
        attention_mask(torch.zeros(2, 2, dtype=torch.bool), 2)
    with pytest.raises(ValueError, match="unknown norm"):
        Transformer(10, norm="middle")
    with pytest.raises(ValueError, match="divisible"):
        Transformer(10, dim=10, heads=4)
    with pytest.raises(ValueError, match="unknown positional encoding"):
        Transformer(10, encoding="rope")
    with pytest.raises(ValueError, match="max_len"):
        Transformer(10, dim=8, heads=2, encoding="sinusoidal", max_len=4)(torch.zeros(1, 5, dtype=torch.long))
    Transformer(10, dim=8, heads=2, max_len=4)(torch.zeros(1, 5, dtype=torch.long))  # no PE: any length
    with pytest.raises(ValueError, match="include 1"):
        presets.resolve("irie", "smoke", layers=(2, 3))
    with pytest.raises(ValueError, match="other than 'none'"):
        presets.resolve("irie", "smoke", encoding="none")
    with pytest.raises(ValueError, match="distinct"):
        presets.resolve("irie", "smoke", vocab=4, length=5)


def test_softmax_attention_matches_a_plain_loop():
    """Causal softmax attention, one position at a time, written from Irie Eq. 1-4 (with 1/sqrt(E))."""
    torch.manual_seed(0)
    attn = SelfAttention(8, 2).double()
    x = torch.randn(1, 5, 8, dtype=torch.float64)
    got = attn(x, attention_mask("causal", 5))[0].detach().numpy()
    W = {n: getattr(attn, n).weight.detach().numpy() for n in ("q", "k", "v", "out")}
    xs = x[0].numpy()
    y = np.zeros((5, 8))
    for h in range(2):
        r = slice(4 * h, 4 * h + 4)
        for t in range(5):
            q = W["q"][r] @ xs[t]
            s = np.array([q @ (W["k"][r] @ xs[j]) / math.sqrt(4) for j in range(t + 1)])
            w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
            y[t, r] = sum(w[j] * (W["v"][r] @ xs[j]) for j in range(t + 1))
    np.testing.assert_allclose(got, y @ W["out"].T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("norm", ["pre", "post", "none"])
def test_causal_outputs_ignore_later_tokens(cfg, norm):
    """Changing the tokens after t leaves outputs at <= t unchanged; with no mask they change."""
    tokens, _ = setup(cfg)
    t = 2
    later = tokens.clone()
    later[t + 1:] = (later[t + 1:] + 1) % cfg.vocab
    for mask, unchanged in (("causal", True), ("full", False)):
        model = probes.make_model(cfg, 2, mask=mask, norm=norm)
        with torch.no_grad():
            a, b = model(tokens[None])[0], model(later[None])[0]
        early = (a[: t + 1] - b[: t + 1]).abs().max().item()
        assert (early <= EQ) if unchanged else (early >= NE), (mask, early)
        assert (a[t + 1:] - b[t + 1:]).abs().amax(-1).min().item() >= NE


@pytest.mark.parametrize("layers", [1, 2, 3])
def test_reach_from_jacobian_and_mask_match_closed_forms(cfg, layers):
    tokens, _ = setup(cfg)
    T = cfg.length
    for mask, expected in (("causal", lambda l: np.tri(T, dtype=bool)),
                           ("full", lambda l: np.ones((T, T), bool)),
                           (torch.from_numpy(band(T, 1)), lambda l: band(T, l))):  # self + previous token
        model = probes.make_model(cfg, layers, mask=mask)
        jac = probes.reach_from_jacobian(model, tokens)
        m = attention_mask(mask, T).numpy()
        from_mask = probes.reach_from_mask(m, layers)
        for layer in range(layers + 1):
            want = np.eye(T, dtype=bool) if layer == 0 else expected(layer)
            assert (jac[layer] == want).all() and (from_mask[layer] == want).all(), (mask, layer)


# --- Irie's claims ---------------------------------------------------------------------------------------

def test_q1_no_mask_no_pe_is_permutation_equivariant(cfg):
    tokens, perms = setup(cfg, keep_last=False)
    n = len(perms)
    good = probes.equivariance(probes.make_model(cfg, 2, mask="full"), tokens, perms, EQ)
    assert good["equivariant"] == n and good["multiset_invariant"] == n
    for kw in (dict(mask="full", encoding="sinusoidal"), dict(mask="causal")):
        bad = probes.equivariance(probes.make_model(cfg, 2, **kw), tokens, perms, EQ)
        assert bad["equivariant"] == 0 and bad["multiset_invariant"] == 0, kw


@pytest.mark.parametrize("softmax", [True, False])
def test_q5_one_layer_last_position_is_invariant_two_layers_are_not(cfg, softmax):
    tokens, perms = setup(cfg)
    first = probes.first_change(perms)
    n = len(perms)
    one = probes.sensitivity(probes.differences(probes.make_model(cfg, 1, softmax=softmax), tokens, perms)[:, 1],
                             first, EQ, NE)
    assert one["last_equal"] == n and one["unclear"] == 0
    for layers in (2, 3):
        model = probes.make_model(cfg, layers, softmax=softmax)
        deep = probes.sensitivity(probes.differences(model, tokens, perms)[:, layers], first, EQ, NE)
        # Irie Q3: fully position-sensitive from the first changed position on; equal before it
        assert deep["equal"] == 0 and deep["different"] == deep["checked"] and deep["unclear"] == 0
        assert deep["before_equal"] == deep["before"] and deep["last_equal"] == 0


def test_q3_fails_without_the_causal_mask_and_q5_fails_with_pe(cfg):
    tokens, perms = setup(cfg)
    first = probes.first_change(perms)
    full = probes.sensitivity(probes.differences(probes.make_model(cfg, 2, mask="full"), tokens, perms)[:, 2],
                              first, EQ, NE)
    assert full["last_equal"] == len(perms) and full["equal"] > 0        # not position-sensitive
    pe = probes.sensitivity(
        probes.differences(probes.make_model(cfg, 1, encoding="sinusoidal"), tokens, perms)[:, 1], first, EQ, NE)
    assert pe["equal"] == 0 and pe["last_equal"] == 0                     # a PE restores order in one layer


def test_numbers_agree_with_the_mask_composed_contexts(cfg):
    table = analysis.q35_table(cfg.replace(permutations=60))
    assert (table["agrees"] == table["positions"]).all(), table


def test_linear_attention_is_the_fast_weight_recurrence(cfg):
    table = analysis.linear_table(cfg.replace(length=7, dim=12, heads=3)).set_index("attention")
    assert table.loc["linear (no softmax)", "rel_error"] < 1e-12
    assert table.loc["softmax", "rel_error"] > 1e-2


@pytest.mark.parametrize("softmax", [True, False])
def test_one_layer_changes_exactly_where_the_newest_token_or_the_seen_set_differs(cfg, softmax):
    """Irie's Q5 and Fig. 1: one causal layer without PE sees (newest token, set of tokens so far) at each
    position. Hand-picked permutations of (a, b, c, d, e, f), the last kept: the expected changed positions
    are written out from that rule, not computed by the code under test."""
    tokens = probes.distinct_tokens(cfg.vocab, 6, torch.Generator().manual_seed(3))
    perms = torch.tensor([[1, 0, 2, 3, 4, 5],       # b a c d e f: 1st newest differs, 2nd newest differs
                          [2, 1, 0, 3, 4, 5],       # c b a ...: the 2nd has the same newest (b), other set
                          [0, 1, 2, 4, 3, 5],       # a b c e d ...: only the 4th and 5th
                          [4, 1, 2, 3, 0, 5]])      # e b c d a ...: every position before the last
    changed = [[1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 0], [1, 1, 1, 1, 1, 0]]
    model = probes.make_model(cfg.replace(length=6), 1, softmax=softmax)
    diff = probes.differences(model, tokens, perms)[:, 1]                              # (4, 6) top layer
    expected = torch.tensor(changed, dtype=torch.bool)
    assert (diff[expected] >= NE).all() and (diff[~expected] <= EQ).all(), diff


def test_figure1_matches_irie(cfg):
    """The pattern drawn in Irie's Fig. 1 for (a, b, c) vs (b, a, c), two layers."""
    d = analysis.figure1(cfg)
    assert d["sets"][0][1] == ["{a}", "{a,b}", "{a,b,c}"]
    assert d["sets"][1][2][0] == "{{b}}"
    assert d["set_differs"].tolist() == [[True, True, False], [True, False, False], [True, True, True]]
    assert d["query_differs"][1].tolist() == [True, True, False]      # the query at t=2 is b vs a
    assert ((d["measured"] >= NE) == d["query_differs"]).all() and (d["measured"][~d["query_differs"]] <= EQ).all()
    assert (d["reach_mask"] == d["reach_jacobian"]).all()


# --- grading the exact claims through the registry ------------------------------------------------------

from penb import claims  # noqa: E402
from penb.claims import grading  # noqa: E402


def _verdicts(table, cfg):
    ev = analysis.exact_evidence(table, cfg)
    return {k: grading.apply(claims.get(k).rule, ev[k])[0] for k in analysis.EXACT_CLAIMS}


def _table(**change):
    """A hand-made exact table for two seeds: rounding where a claim says zero, 1e-3 and more where
    it says a change, unless ``change`` says otherwise (column -> value for seed 2)."""
    good = {"q1": 2e-16, "q1_contrast": 0.3, "q3": 8e-3, "q5": 6e-16, "q5_contrast": 5e-3, "q5_mid": 0.2,
            "q5_mid_same": 4e-16, "q5_some": 0.9, "lin_q3": 4e-2, "lin_q5": 3e-16, "lin_q5_contrast": 7e-2,
            "linear": 1e-15, "linear_contrast": 2.0}
    import pandas as pd

    return pd.DataFrame([{"seed": 1001, **good}, {"seed": 1002, **good, **change}]).set_index("seed")


def test_exact_rules_on_hand_made_numbers(cfg):
    tol = claims.get("irie.q1").extra["max_deviation"]
    assert tol == 1e-9                                               # the registered rule's text says 1e-9
    assert set(_verdicts(_table(), cfg).values()) == {grading.REPRODUCED}
    # one seed's deviation above the threshold fails the claim, whatever the other seed did
    got = _verdicts(_table(q1=3e-9, q5=2e-9, linear=5e-8), cfg)
    assert got["irie.q1"] == got["irie.q5"] == got["irie.linear"] == grading.NOT_REPRODUCED
    assert got["irie.q3"] == grading.NOT_REPRODUCED                  # one layer's last output moved
    assert _verdicts(_table(q3=5e-10), cfg)["irie.q3"] == grading.NOT_REPRODUCED  # a later output did not
    # a contrast at rounding: the probe could not have told, so the claim is undecided
    got = _verdicts(_table(q1_contrast=1e-16, q5_contrast=0.0, linear_contrast=1e-15, lin_q5_contrast=0.0), cfg)
    assert got["irie.q1"] == got["irie.q5"] == got["irie.linear"] == got["irie.linear.one_layer"] \
        == grading.INCONCLUSIVE
    # the one-layer model's earlier positions (issue 28: Irie claims a change at some positions only): a
    # permutation that changes no earlier output fails it; the book's account of where (every differing
    # context changes, and only those) is reported, not graded
    assert _verdicts(_table(q5_some=5e-10), cfg)["irie.q5.some_positions"] == grading.NOT_REPRODUCED
    assert _verdicts(_table(q5_mid=5e-10), cfg)["irie.q5.some_positions"] == grading.REPRODUCED
    assert _verdicts(_table(q5_mid_same=2e-9), cfg)["irie.q5.some_positions"] == grading.REPRODUCED
    # Sec. 4: the linear models graded on their own numbers, not the softmax ones
    got = _verdicts(_table(lin_q5=3e-9), cfg)
    assert got["irie.linear.one_layer"] == got["irie.linear.multi_layer"] == grading.NOT_REPRODUCED
    assert got["irie.q5"] == got["irie.q3"] == grading.REPRODUCED
    assert _verdicts(_table(lin_q3=5e-10), cfg)["irie.linear.multi_layer"] == grading.NOT_REPRODUCED


def test_exact_table_on_random_models(cfg):
    """Every seed's models satisfy the exact claims, and each seed draws different weights."""
    small = cfg.replace(permutations=30, seeds=(1001, 1002))
    table = analysis.exact_table(small)
    assert list(table.index) == [1001, 1002]
    assert (table[["q1", "q5", "linear", "q5_mid_same", "lin_q5"]] < 1e-12).all().all()
    assert (table[["q3", "q1_contrast", "q5_contrast", "linear_contrast", "q5_mid", "lin_q3",
                   "lin_q5_contrast"]] > 1e-6).all().all()
    assert table.loc[1001, "q3"] != table.loc[1002, "q3"]
    # the same seed reproduces its row exactly
    assert analysis.exact_row(small, 1002) == table.loc[1002].to_dict() | {"seed": 1002}


def test_grades_cover_every_irie_claim_in_registry_order(cfg, tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    small = cfg.replace(permutations=20, q4_task="sort")             # Q4 not testable: no ceiling for sort
    grades = analysis.grades(analysis.exact_table(small), {"order": [], "lm": []}, small)
    keys = [k for k in claims.CLAIMS if k.startswith("irie.") and claims.get(k).kind == "claim"]
    assert [g.claim for g in grades] == keys
    by = {g.claim: g for g in grades}
    assert by["irie.q4"].verdict == by["irie.q4.attention"].verdict == grading.NOT_TESTED
    assert by["irie.q4"].reason.startswith("not at this preset")
    import json

    recorded = json.loads((tmp_path / "irie.grades.json").read_text())
    assert set(recorded) == set(keys) and recorded["irie.q1"]["seeds"] == list(small.seeds)


def test_graded_presets_use_confirmation_seeds():
    from penb import presets as P

    for name in ("smoke", "quick"):
        t = P.table("irie")[name]
        for key in ("seeds", "q4_seeds", "lm_seeds"):
            assert set(t[key]) <= set(P.CONFIRMATION_SEEDS) and not set(t[key]) & set(P.SEARCH_SEEDS)
    quick = P.table("irie")["quick"]
    assert quick["q4_seeds"] == quick["lm_seeds"] == P.confirmation(3)     # every graded cell, see the presets
    assert P.table("irie")["smoke"]["seeds"] == P.confirmation(2)

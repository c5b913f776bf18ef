"""The chapter's checks of Irie's claims on random, seeded float64 Transformers (no training).

A resolved config in, a DataFrame (or plain data) out; every number comes from the probes of
``penb.chapters.irie.probes``, counted over ``cfg.permutations`` random permutations, for one
seed (``seed``, default the first of ``cfg.seeds``; it draws the weights, tokens and permutations):

* :func:`q1_table`: Question 1, outputs of an unmasked model without PE permute with the inputs.
* :func:`q35_table`: Questions 3 and 5, one causal layer vs several, with the prediction of the
  mask-composed contexts alongside the measured differences.
* :func:`linear_table`: Sec. 4 / App. B, linear causal attention is the fast-weight recurrence.
* :func:`figure1`, :func:`figure1_table`: Irie's Fig. 1 from the model's own mask and Jacobian.
* :func:`exact_table`: per seed of ``cfg.seeds``, the largest deviation each exact claim allows
  to be rounding and the smallest change its contrast needs; :func:`exact_evidence` and
  :func:`grade_exact` grade the exact claims (:data:`EXACT_CLAIMS`: Questions 1, 3 and 5, the
  one-layer model's earlier positions, Sec. 4's linear models) on it (the registered rule: a
  largest deviation under ``extra["max_deviation"]``, 1e-9).

Question 4 (trained models) is in ``penb.chapters.irie.q4`` (runs) and ``.q4_grading`` (grades).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from penb import claims
from penb.chapters.irie import q4_grading
from penb.chapters.irie.probes import (context_ids, context_strings, differences, distinct_tokens,
                                       equivariance, fast_weight_recurrence, first_change, make_model,
                                       random_permutations, reach_from_jacobian, reach_from_mask,
                                       sensitivity)
from penb.transformer import SelfAttention, attention_mask


def _labels(tokens: torch.Tensor, encoding: str) -> list:
    """Input labels for :func:`context_ids`: a token, or (token, position) when a PE is added."""
    toks = tokens.tolist()
    return toks if encoding == "none" else [(x, t) for t, x in enumerate(toks)]


def _seed(cfg, seed) -> int:
    return cfg.seeds[0] if seed is None else seed


def q1_table(cfg, seed: int | None = None) -> pd.DataFrame:
    """Q1 over ``cfg.permutations`` full permutations: no mask without PE, with PE, and causal without PE."""
    seed = _seed(cfg, seed)
    g = torch.Generator().manual_seed(seed)
    tokens = distinct_tokens(cfg.vocab, cfg.length, g)
    perms = random_permutations(cfg.permutations, cfg.length, g, keep_last=False)
    rows = []
    for mask, enc in (("full", "none"), ("full", cfg.encoding), ("causal", "none")):
        model = make_model(cfg, max(cfg.layers), mask=mask, encoding=enc, seed=seed)
        rows.append(dict(mask=mask, encoding=enc, layers=max(cfg.layers),
                         **equivariance(model, tokens, perms, cfg.tol_equal)))
    return pd.DataFrame(rows)


def q35_table(cfg, seed: int | None = None) -> pd.DataFrame:
    """Q3/Q5: permute all tokens but the last; compare top-layer outputs at every position.

    One row per (mask, attention, encoding, layers). ``agrees`` counts positions where the numbers
    match the prediction of :func:`context_ids` (query included) from the model's own mask. Before the
    last position: ``mid_min_differ`` is the smallest change where that prediction says the context
    differs (NaN: nowhere), ``mid_max_same`` the largest change where it says the context is the same
    (0 where there is no such position); ``mid_some`` the smallest, over permutations, of the largest change
    before the last position (Irie's "some positions": above rounding when every permutation moves one).
    """
    seed = _seed(cfg, seed)
    g = torch.Generator().manual_seed(seed)
    tokens = distinct_tokens(cfg.vocab, cfg.length, g)
    perms = random_permutations(cfg.permutations, cfg.length, g, keep_last=True)
    first = first_change(perms)
    variants = [("causal", sm, enc, L) for enc in ("none", cfg.encoding) for sm in (True, False) for L in cfg.layers]
    variants.append(("full", True, "none", max(cfg.layers)))          # the non-autoregressive contrast
    rows = []
    for mask, softmax, enc, L in variants:
        model = make_model(cfg, L, mask=mask, softmax=softmax, encoding=enc, seed=seed)
        diff = differences(model, tokens, perms)[:, L]                # (n, T) top layer
        seqs = [_labels(tokens, enc)] + [_labels(tokens[p], enc) for p in perms]  # a PE stays with its position
        ids = context_ids(seqs, attention_mask(mask, cfg.length).numpy(), L, query=True)[:, L]
        predicted_equal = torch.from_numpy(ids[1:] == ids[0])
        agrees = (predicted_equal & (diff <= cfg.tol_equal)) | (~predicted_equal & (diff >= cfg.tol_differ))
        c = sensitivity(diff, first, cfg.tol_equal, cfg.tol_differ)
        mid_differs, mid_same = ~predicted_equal[:, :-1], predicted_equal[:, :-1]   # positions before the last
        rows.append(dict(mask=mask, attention="softmax" if softmax else "linear", encoding=enc, layers=L, **c,
                         agrees=int(agrees.sum()), positions=int(agrees.numel()),
                         mid_min_differ=float(diff[:, :-1][mid_differs].min()) if mid_differs.any() else np.nan,
                         mid_max_same=float(diff[:, :-1][mid_same].max()) if mid_same.any() else 0.0,
                         mid_some=float(diff[:, :-1].amax(1).min()),       # the least-moved permutation's largest

                         fully_position_sensitive=c["equal"] == 0 and c["unclear"] == 0,
                         last_invariant=c["last_equal"] == c["permutations"]))
    return pd.DataFrame(rows)


def linear_table(cfg, sequences: int = 8, seed: int | None = None) -> pd.DataFrame:
    """Sec. 4 / App. B: one causal attention layer vs :func:`fast_weight_recurrence`, float64.

    ``rel_error`` = max |parallel - recurrence| / max |recurrence| over ``sequences`` random inputs
    (T = cfg.length, D = cfg.dim); the equality holds without softmax and must fail with it.
    """
    seed = _seed(cfg, seed)
    rows = []
    for softmax in (False, True):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            attn = SelfAttention(cfg.dim, cfg.heads, softmax).double()
        x = torch.randn(sequences, cfg.length, cfg.dim, dtype=torch.float64,
                        generator=torch.Generator().manual_seed(seed))
        with torch.no_grad():
            par = attn(x, attention_mask("causal", cfg.length)).numpy()
        rec = np.stack([fast_weight_recurrence(attn, xi) for xi in x.numpy()])
        err = np.abs(par - rec).max()
        rows.append(dict(attention="softmax" if softmax else "linear (no softmax)", sequences=sequences,
                         max_abs_error=err, rel_error=err / np.abs(rec).max(),
                         equal=bool(err / np.abs(rec).max() <= cfg.tol_equal)))
    return pd.DataFrame(rows)


def figure1(cfg, seqs=(("a", "b", "c"), ("b", "a", "c")), layers: int = 2, seed: int | None = None) -> dict:
    """Irie's Fig. 1 from a ``layers``-deep causal model without PE, for two orderings of the same tokens.

    Returns ``sets`` (per sequence, (L+1) x T strings, Irie's set view), ``set_differs`` and
    ``query_differs`` ((L+1, T) bool, without / with the query's own context), ``measured``
    ((L+1, T) max |difference| of the random-weight model's states), ``mask`` (T, T) and the
    reachability from the mask and from the Jacobian ((L+1, T, T) bool each).
    """
    T = len(seqs[0])
    if any(sorted(s) != sorted(seqs[0]) or len(set(s)) != T for s in seqs) or len(seqs) != 2:
        raise ValueError(f"figure1 needs two orderings of the same distinct labels, got {seqs}")
    seed = _seed(cfg, seed)
    model = make_model(cfg, layers, mask="causal", encoding="none", seed=seed)
    mask = attention_mask(model.mask, T).numpy()                      # the model's own mask
    ids = {q: context_ids(seqs, mask, layers, query=q) for q in (False, True)}
    g = torch.Generator().manual_seed(seed)
    tok = dict(zip(seqs[0], distinct_tokens(cfg.vocab, T, g).tolist()))
    tokens = torch.tensor([tok[x] for x in seqs[0]])
    perm = torch.tensor([[seqs[0].index(x) for x in seqs[1]]])
    return dict(seqs=seqs, layers=layers, mask=mask,
                sets=[context_strings(s, mask, layers) for s in seqs],
                set_differs=ids[False][0] != ids[False][1], query_differs=ids[True][0] != ids[True][1],
                measured=differences(model, tokens, perm)[0].numpy(),
                reach_mask=reach_from_mask(mask, layers), reach_jacobian=reach_from_jacobian(model, tokens))


def figure1_table(data: dict) -> pd.DataFrame:
    """One row per (layer, position) of :func:`figure1`'s data."""
    rows = []
    for layer in range(data["layers"] + 1):
        for t in range(len(data["seqs"][0])):
            rows.append({"layer": layer, "position": t + 1,
                         "context " + "".join(data["seqs"][0]): data["sets"][0][layer][t],
                         "context " + "".join(data["seqs"][1]): data["sets"][1][layer][t],
                         "set differs (Fig. 1)": bool(data["set_differs"][layer, t]),
                         "set or query differs": bool(data["query_differs"][layer, t]),
                         "model: max |Δ|": float(data["measured"][layer, t])})
    return pd.DataFrame(rows).set_index(["layer", "position"])


# -- grading the exact claims ------------------------------------------------------------------
EXACT_CLAIMS = ("irie.q1", "irie.q3", "irie.q5", "irie.q5.some_positions", "irie.linear", "irie.linear.one_layer",
                "irie.linear.multi_layer")


def exact_row(cfg, seed: int) -> dict:
    """The exact claims' numbers for one seed (float64, largest / smallest over permutations):

    ``q1`` max |f(P x) - P f(x)| without mask and PE; ``q1_contrast`` the smallest such error with
    a PE or the causal mask (must be far above rounding); ``q3`` the smallest top-layer change at
    a checked position (from the first moved one on) over the causal models without PE of two or
    more layers, softmax and linear; ``q5`` the largest last-position change of the one-layer
    causal models without PE (softmax and linear); ``q5_contrast`` the smallest last-position
    change with a PE; ``q5_mid`` the smallest change of the one-layer models without PE at a
    position before the last whose newest token or set of seen tokens differs, ``q5_mid_same`` the
    largest where neither differs; ``lin_q3``, ``lin_q5`` and ``lin_q5_contrast`` as ``q3``, ``q5``
    and ``q5_contrast`` for the linear-attention models only (Sec. 4); ``linear`` max |parallel -
    recurrence| without softmax; ``linear_contrast`` the same with softmax (must differ)."""
    q1 = q1_table(cfg, seed).set_index(["mask", "encoding"])
    q35 = q35_table(cfg, seed)
    causal = q35[q35["mask"] == "causal"]
    no_pe, pe = causal[causal.encoding == "none"], causal[causal.encoding != "none"]
    lin = linear_table(cfg, seed=seed).set_index("attention")
    one, lin_none, lin_pe = no_pe[no_pe.layers == 1], no_pe[no_pe.attention == "linear"], pe[pe.attention == "linear"]
    return {"seed": seed, "q1": q1.loc[("full", "none"), "max_error"],
            "q1_contrast": q1.drop(("full", "none"))["min_error"].min(),
            "q3": no_pe[no_pe.layers >= 2].min_checked.min(),
            "q5": one.max_last.max(),
            "q5_contrast": pe[pe.layers == 1].min_last.min(),
            "q5_mid": one.mid_min_differ.min(), "q5_mid_same": one.mid_max_same.max(),
            "q5_some": one.mid_some.min(),
            "lin_q3": lin_none[lin_none.layers >= 2].min_checked.min(),
            "lin_q5": lin_none[lin_none.layers == 1].max_last.max(),
            "lin_q5_contrast": lin_pe[lin_pe.layers == 1].min_last.min(),
            "linear": lin.loc["linear (no softmax)", "max_abs_error"],
            "linear_contrast": lin.loc["softmax", "max_abs_error"]}


def exact_table(cfg) -> pd.DataFrame:
    """:func:`exact_row` for every seed of ``cfg.seeds``, one row each."""
    return pd.DataFrame([exact_row(cfg, s) for s in cfg.seeds]).set_index("seed")


def exact_evidence(table: pd.DataFrame, cfg) -> dict[str, dict]:
    """{claim key: evidence of its "check" rule} from :func:`exact_table`: ``passed`` when the
    largest deviation over seeds is under the registered threshold (and, for Q3, every checked
    position changes by more than it); ``inconclusive`` when a contrast that must differ does not
    (the probe could not have told)."""
    tol = claims.get("irie.q1").extra["max_deviation"]
    n, seeds = cfg.permutations, len(table)
    over = f"over {n:,} permutations x {seeds} seed{'s' if seeds > 1 else ''}"
    worst = table.max()
    least = table.min()
    deeper = sorted(n for n in cfg.layers if n >= 2)
    deep = f"{deeper[0]}" if len(deeper) == 1 else f"{deeper[0]} to {deeper[-1]}"

    def contrast(col: str, what: str) -> dict:
        return {} if least[col] >= tol else {"inconclusive": f"the contrast ({what}) stays within "
                                                             f"{tol:g} too: the probe cannot tell"}

    return {
        "irie.q1": {"passed": bool(worst["q1"] < tol),
                    "detail": f"largest |f(Px) - Pf(x)| {worst['q1']:.1e} {over}; with a PE or the "
                              f"causal mask at least {least['q1_contrast']:.1e}",
                    "why": f"a deviation of {worst['q1']:.1e}, over {tol:g}",
                    **contrast("q1_contrast", "a PE or the causal mask")},
        "irie.q3": {"passed": bool(least["q3"] >= tol and worst["q5"] < tol),
                    "detail": f"smallest top-layer change at a later position, {deep} layers: "
                              f"{least['q3']:.1e}; one layer, last position: at most {worst['q5']:.1e} "
                              f"({over})",
                    "why": (f"a later position changes by only {least['q3']:.1e}" if least["q3"] < tol
                            else f"one layer's last position changes by {worst['q5']:.1e}")},
        "irie.q5": {"passed": bool(worst["q5"] < tol),
                    "detail": f"largest last-position change, one layer: {worst['q5']:.1e} {over}; "
                              f"with a PE at least {least['q5_contrast']:.1e}",
                    "why": f"a change of {worst['q5']:.1e}, over {tol:g}",
                    **contrast("q5_contrast", "one layer with a PE")},
        "irie.q5.some_positions": {
            "passed": bool(least["q5_some"] >= tol),
            "detail": f"one layer without PE, before the last position: every permutation changes some output by "
                      f"at least {least['q5_some']:.1e}; the book's account (not graded): smallest change where "
                      f"the newest token or the set of seen tokens differs {least['q5_mid']:.1e}, largest where "
                      f"neither does {worst['q5_mid_same']:.1e} ({over})",
            "why": f"a permutation changes no output before the last by more than {least['q5_some']:.1e}"},
        "irie.linear.one_layer": {"passed": bool(worst["lin_q5"] < tol),
                                  "detail": f"largest last-position change, one linear layer: {worst['lin_q5']:.1e} "
                                            f"{over}; with a PE at least {least['lin_q5_contrast']:.1e}",
                                  "why": f"a change of {worst['lin_q5']:.1e}, over {tol:g}",
                                  **contrast("lin_q5_contrast", "one linear layer with a PE")},
        "irie.linear.multi_layer": {
            "passed": bool(least["lin_q3"] >= tol and worst["lin_q5"] < tol),
            "detail": f"smallest top-layer change at a later position, linear, {deep} layers: {least['lin_q3']:.1e}; "
                      f"one linear layer, last position: at most {worst['lin_q5']:.1e} ({over})",
            "why": (f"a later position changes by only {least['lin_q3']:.1e}" if least["lin_q3"] < tol
                    else f"one linear layer's last position changes by {worst['lin_q5']:.1e}")},
        "irie.linear": {"passed": bool(worst["linear"] < tol),
                        "detail": f"largest |parallel - recurrence| {worst['linear']:.1e} over {seeds} "
                                  f"seed{'s' if seeds > 1 else ''}; with softmax "
                                  f"{least['linear_contrast']:.1e}",
                        "why": f"a difference of {worst['linear']:.1e}, over {tol:g}",
                        **contrast("linear_contrast", "softmax attention")},
    }


def grade_exact(table: pd.DataFrame, cfg) -> list[claims.Grade]:
    """Grades of the exact claims (:data:`EXACT_CLAIMS`) through the registry."""
    ev = exact_evidence(table, cfg)
    return [claims.grade(k, ev[k], cfg, permutations=cfg.permutations) for k in EXACT_CLAIMS]


def grades(exact: pd.DataFrame, q4_runs: dict, cfg) -> list[claims.Grade]:
    """Every ``irie.*`` claim of the registry, in its order: the exact claims graded on :func:`exact_table`;
    on the runs of ``q4.run``, the claims about trained models (``irie.one_layer``, ``irie.q4.order``,
    ``irie.q4.attention``) under protocol 4's doubling test and the language models' ``irie.q4`` at their budget
    (``penb.chapters.irie.q4_grading``); the claims no chapter tests recorded with the registry's reason."""
    out = {g.claim: g for g in grade_exact(exact, cfg)}
    out.update({g.claim: g for g in q4_grading.grade_trained(q4_runs, cfg)})
    out[q4_grading.CLAIM] = q4_grading.grade_lm(q4_runs, cfg)
    for key, c in claims.CLAIMS.items():
        if key.startswith("irie.") and c.kind == "claim" and c.not_tested:
            out[key] = claims.not_tested(key, c.not_tested, cfg)
    return [out[k] for k in claims.CLAIMS if k in out]

"""The grading of Irie's Question 4 on the runs of ``penb.chapters.irie.q4.run`` (issues 34-35).

Two claims, each read by its own gate:

* ``irie.q4`` (the language models): a comparison at the runs' fixed budget, as Morita's Table 1. Per seed, the
  two-layer model without PE's test log perplexity minus the PE model's (:func:`lm_evidence`), graded on a
  Student-t interval over seeds with no margin, and only where the runs' own training curves have met
  (:func:`curves`: the PE model's lead in training loss over the last quarter of the logged updates within the
  rule's ``meet_margin``), else not tested at that preset (:func:`grade_lm`);
* ``irie.q4.order`` (the order task): the two-layer model without PE's token accuracy per seed against the
  order-blind ceiling (:func:`order_evidence`), a claim about trained models.

:func:`grade_trained` grades the claims about trained models of the chapter (``irie.one_layer``,
``irie.q4.order``, ``irie.q4.attention``) under protocol 4 (``claims.graded_with_half``): the same evidence
code runs on the runs at half the updates (``order_half``, ``lm_half``), at a quarter (``order_quarter``,
``lm_quarter``, issue 58) and at the full budget.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from penb import claims
from penb.chapters.irie import attention, one_layer, q4
from penb.chapters.irie.budgets import run_cost
from penb.chapters.irie.ceiling import blind_ceiling
from penb.claims import training
from penb.claims.irie import Q4_PPL_RATIO

CLAIM, ORDER, NONE = q4.CLAIM, q4.ORDER, q4.NONE


def _cell(results: list, layers: int, encoding: str) -> tuple[list, list]:
    return q4.split([r for r in results if r.config["layers"] == layers and r.config["encoding"] == encoding])


# -- irie.q4.order: the order task ---------------------------------------------------------------------------
def order_evidence(results: dict, cfg) -> dict:
    """Evidence of ``irie.q4.order`` (rule "better"): per valid seed, the two-layer model without PE's test token
    accuracy (``a``) against the order-blind ceiling of ``reverse`` at (q4_vocab, q4_length) (``b``, the same
    number per seed); chance 1/V the trivial baseline; the diverged runs of the cell."""
    n = claims.get(ORDER).extra["layers"]
    valid, dead = _cell(results["order"], n, NONE)
    ceiling = blind_ceiling(cfg.q4_vocab, cfg.q4_length)
    acc = [float(r.metrics["token_accuracy"]) for r in valid]
    return {"a": acc, "b": [ceiling] * len(acc), "b_fixed": True, "seeds": [int(r.config["seed"]) for r in valid],
            "baseline": 1.0 / cfg.q4_vocab, "diverged": {f"order task, {q4.label(n, NONE)}": len(dead)},
            "ceiling": ceiling, "a_name": f"{q4.label(n, NONE)} on {cfg.q4_task} (token accuracy)",
            "b_name": "the order-blind ceiling"}


def grade_order(results: dict, cfg) -> claims.Grade:
    """``irie.q4.order`` on the order runs (not tested where ``cfg`` cannot test it)."""
    why = q4.missing(cfg)
    if why:
        return claims.not_tested(ORDER, f"not at this preset: {why}", cfg)
    n = claims.get(ORDER).extra["layers"]
    valid, _ = _cell(results["order"], n, NONE)
    state = training.of_results({f"order task, {q4.label(n, NONE)}": valid})
    return claims.grade(ORDER, order_evidence(results, cfg), cfg, training=state, next_cost=run_cost(valid),
                        q4_seeds=list(cfg.q4_seeds), q4_steps=cfg.q4_steps, steps=cfg.q4_steps)


# -- irie.q4: the language models ----------------------------------------------------------------------------
def lm_evidence(results: dict, cfg) -> dict:
    """Evidence of ``irie.q4`` (rule "no_gain", no margin): per seed valid in both, the two-layer language model
    without PE's test log perplexity (``a``, nats per token: the log of its perplexity) and the PE model's
    (``b``), so that a - b is the log of their perplexity ratio; the diverged runs of each; the control that the PE
    model learned (minus its mean log perplexity above minus log V); ``earlier``, the readings under the earlier
    margins (the ratio of the seed means of the perplexities, against 10% and against Table 1's seed range)."""
    n, pe = claims.get(CLAIM).extra["layers"], cfg.encoding
    per, dead = {}, {}
    for e in (NONE, pe):
        valid, gone = _cell(results["lm"], n, e)
        per[e] = {int(r.config["seed"]): float(r.metrics["perplexity"]) for r in valid}
        dead[f"LM {q4.label(n, e)}"] = len(gone)
    seeds = sorted(set(per[NONE]) & set(per[pe]))
    a, b = [math.log(per[NONE][s]) for s in seeds], [math.log(per[pe][s]) for s in seeds]
    ev = {"a": a, "b": b, "seeds": seeds, "diverged": dead, "baseline": None,
          "a_name": f"LM {q4.label(n, NONE)} (test log perplexity, nats)", "b_name": f"LM {q4.label(n, pe)}"}
    if seeds:
        ev["controls"] = {f"LM {q4.label(n, pe)} (minus its test log perplexity)":
                          [-float(np.mean(b)), -math.log(cfg.lm_vocab)]}
        ratio = float(np.mean([per[NONE][s] for s in seeds]) / np.mean([per[pe][s] for s in seeds]))
        ev["earlier"] = {"ratio": ratio, "within_10pct": ratio <= 1.10, "table1_ratio": Q4_PPL_RATIO,
                         "within_table1_range": ratio <= Q4_PPL_RATIO}
    return ev


def curves(results: dict, cfg) -> Optional[dict]:
    """Have the two language models' training curves met? Per seed trained with and without PE, the mean over
    the logged updates after 3/4 of ``lm_steps`` (the last logged one when none is) of the training loss without
    PE minus with PE (nats: the PE model's lead); {"lead": mean over seeds, "by_seed", "window": (first, last
    update read), "margin": the rule's ``meet_margin``, "met": lead <= margin}; None without curves of both."""
    n, pe = claims.get(CLAIM).extra["layers"], cfg.encoding
    hist = {}
    for e in (NONE, pe):
        hist[e] = {int(r.config["seed"]): {h["step"]: h["loss"] for h in r.history
                                           if h.get("loss") is not None and math.isfinite(h["loss"])}
                   for r in _cell(results["lm"], n, e)[0]}
    by_seed, read = {}, []
    for s in sorted(set(hist[NONE]) & set(hist[pe])):
        steps = sorted(set(hist[NONE][s]) & set(hist[pe][s]))
        late = [t for t in steps if t > 0.75 * cfg.lm_steps] or steps[-1:]
        if late:
            by_seed[s] = float(np.mean([hist[NONE][s][t] - hist[pe][s][t] for t in late]))
            read += late
    if not by_seed:
        return None
    margin = claims.get(CLAIM).rule.params["meet_margin"]
    lead = float(np.mean(list(by_seed.values())))
    return {"lead": lead, "by_seed": by_seed, "window": (int(min(read)), int(max(read))), "margin": margin,
            "met": lead <= margin}


def lm_training_state(results: dict, cfg) -> dict:
    """Protocol 3's record of the two language models (training loss), kept beside protocol 4's reading."""
    n = claims.get(CLAIM).extra["layers"]
    return training.of_results({f"LM, {q4.label(n, e)}": _cell(results["lm"], n, e)[0]
                                for e in (NONE, cfg.encoding)}, metric="loss")


def grade_lm(results: dict, cfg) -> claims.Grade:
    """``irie.q4`` at the runs' budget: not tested where ``cfg`` has no two-layer models, where no language model
    of either cell ran, or where the runs' own training curves have not met (:func:`curves`; with a diverged run
    the rule itself reads inconclusive); else graded by its rule."""
    why = q4.lm_missing(cfg)
    if why:
        return claims.not_tested(CLAIM, f"not at this preset: {why}", cfg)
    ev = lm_evidence(results, cfg)
    broken = any(ev["diverged"].values())
    if not ev["seeds"] and not broken:
        return claims.not_tested(CLAIM, "not at this preset: no language models of both cells were run", cfg)
    if not broken:
        met = curves(results, cfg)
        if met is None:
            return claims.not_tested(CLAIM, "not at this preset: no training curves of both models to tell "
                                            "whether they have met", cfg)
        ev["curves"] = met
        if not met["met"]:
            lo, hi = met["window"]
            return claims.not_tested(CLAIM, (
                f"not at this preset: the runs' own training curves have not met (the PE model still "
                f"{met['lead']:+.3f} nats ahead in training loss over updates {lo:,}-{hi:,}, above "
                f"{met['margin']}): the comparison at a fixed budget that the claim makes is read only once they "
                f"have; a longer budget (lm_steps) would tell whether they meet"), cfg,
                lm_seeds=list(cfg.lm_seeds), lm_steps=cfg.lm_steps)
    return claims.grade(CLAIM, ev, cfg, training=lm_training_state(results, cfg), lm_seeds=list(cfg.lm_seeds),
                        lm_steps=cfg.lm_steps, steps=cfg.lm_steps)


# -- the claims about trained models, under protocol 4 ---------------------------------------------------------
def shorter_of(results: dict, part: str) -> Optional[dict]:
    """The runs at a shorter budget (``part``: "half" or "quarter" of the updates) of
    :func:`penb.chapters.irie.q4.run`'s ``results`` as a results dict ({"order", "lm"}), or None when it holds none."""
    order, lm = list(results.get(f"order_{part}") or []), list(results.get(f"lm_{part}") or [])
    return {"order": order, "lm": lm} if order or lm else None


def _trained(results: dict, cfg) -> list[claims.Grade]:
    return [one_layer.grade(results, cfg), grade_order(results, cfg), attention.grade(results, cfg)]


def grade_trained(results: dict, cfg) -> list[claims.Grade]:
    """``irie.one_layer``, ``irie.q4.order`` and ``irie.q4.attention`` graded at the full budget, each against its
    evidence on the runs at half the updates (protocol 4's doubling test; without them each reads inconclusive),
    and at a quarter where the preset trains them (``earlier``: the horizon's earlier doubling)."""
    return claims.graded_with_half(_trained, results, shorter_of(results, "half"), cfg,
                                   quarter=shorter_of(results, "quarter"))

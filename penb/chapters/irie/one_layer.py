"""Irie's "one-layer models require PEs" (Abstract, Question 5, Sec. 4) on trained models: ``irie.one_layer``.

The order study of Question 4 (``penb.chapters.irie.q4``) trains a one-layer causal Transformer without PE on
reversal; at an output step such a model sees only the multiset of the tokens so far, so no training can
take it above the order-blind ceiling (``penb.chapters.irie.ceiling``). :func:`cells` (``q4.one_layer_cells``, which the
order study reads) makes that cell run on every order seed; :func:`evidence` checks each seed against the ceiling plus
four binomial standard deviations of the test set, with the control that the model learned something (above chance).
An upper bound that an untrained model passes too, so the claim is about trained models (issue 34): its evidence
names the per-seed accuracy as the level protocol 4's doubling test reads (``levels``), and the chapter trains the
cell again at half the updates (``q4.half_configs``; graded by ``q4_grading.grade_trained``).
"""
from __future__ import annotations

import numpy as np

from penb import claims
from penb.chapters.irie import q4
from penb.chapters.irie.budgets import run_cost
from penb.chapters.irie.q4 import one_layer_cells as cells, one_layer_missing as missing  # noqa: F401

CLAIM = "irie.one_layer"


def evidence(results: dict, cfg) -> dict:
    """The evidence of the "check" rule from the order runs of ``q4.run``: per valid seed of the one-layer model
    without PE, its token accuracy against the ceiling plus its margin."""
    p = claims.get(CLAIM).rule.params
    mine = [r for r in results["order"] if r.config["layers"] == 1 and r.config["encoding"] == q4.NONE]
    valid, dead = q4.split(mine)
    acc = [float(r.metrics["token_accuracy"]) for r in valid]
    ceiling, margin = q4.ceiling_margin(cfg)
    above = [a > ceiling + margin for a in acc]
    chance = 1.0 / cfg.q4_vocab
    mean = float(np.mean(acc)) if acc else float("nan")
    ev = {"passed": bool(acc) and not any(above), "order_accuracy": acc,
          "seeds": [int(r.config["seed"]) for r in valid], "ceiling": ceiling, "margin": margin,
          "diverged": len(dead), "baseline": chance,
          # what protocol 4's doubling test reads of a check (penb.claims.doubling): the per-seed level
          "levels": {"one-layer accuracy without PE": acc}, "level_seeds": [int(r.config["seed"]) for r in valid],
          "detail": (f"one layer without PE on {cfg.q4_task}: token accuracy {mean:.3f} over {len(acc)} seeds "
                     f"(largest {max(acc, default=float('nan')):.3f}) against the order-blind ceiling "
                     f"{ceiling:.3f} + {margin:.3f} test noise; chance {chance:.3f}"),
          "why": f"{sum(above)} of {len(acc)} seeds above the order-blind ceiling"}
    if dead:
        ev["inconclusive"] = f"{len(dead)} diverged run(s)"
    elif len(acc) < p["min_seeds"]:
        ev["inconclusive"] = f"{len(acc)} valid seeds, fewer than the {p['min_seeds']} the rule needs"
    elif not mean > chance + p["baseline_margin"]:
        ev["inconclusive"] = (f"the model sits at chance ({mean:.3f} against {chance:.3f}): a model that learned "
                              "nothing is under any ceiling")
    return ev


def grade(results: dict, cfg) -> claims.Grade:
    """``irie.one_layer`` graded on the order runs (or not tested where ``cfg`` cannot test it)."""
    why = missing(cfg)
    if why:
        return claims.not_tested(CLAIM, f"not at this preset: {why}", cfg)
    valid, _ = q4.split([r for r in results["order"] if r.config["layers"] == 1 and r.config["encoding"] == q4.NONE])
    return claims.grade(CLAIM, evidence(results, cfg), cfg, next_cost=run_cost(valid), q4_seeds=list(cfg.q4_seeds),
                        q4_steps=cfg.q4_steps, steps=cfg.q4_steps)

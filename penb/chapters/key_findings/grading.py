"""The grades of the claims of "Key findings" (Fig. 2, Sec. 4.1) through
``penb.claims``, on the evidence :mod:`.claim_evidence` reads.

* :data:`BETTER`, :data:`LEVEL`, :data:`TREND`, :data:`DECLINE`, :data:`RESCUE`: which
  claim reads which model, by which rule;
* :func:`grade`: every claim of ``claims.of_chapter("key_findings")`` graded, or
  recorded through ``claims.not_tested`` with the reason (a model not run, fewer than
  three vocabularies, cells not yet trained).
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from penb import claims
from penb.chapters import rnn_common
from penb.chapters.key_findings.claim_evidence import (
    PE, VANILLA, decline_evidence, evidence, level_evidence, rescue_evidence,
    training_state, trend_evidence)
from penb.chapters.key_findings.presets import FIXED
from penb.names import model_name
from penb.presets import left_out
from penb.sizing import QUICK_RULE, SLICE_S4D

CHAPTER = "key_findings"
# claim -> (model, metric), graded by rule "better" at the model's largest vocabulary
BETTER = {"morita.fig2.gru": ("gru", "token_accuracy"),
          "morita.fig2.lstm": ("lstm", "token_accuracy"),
          "morita.fig2.s4d": ("s4d", "token_accuracy"),
          **{f"morita.fig2.distance.{core}": (core, "mean_distance")
             for core in ("gru", "lstm", "s4d")}}
# claim -> model: Sec. 4.1's "above 95%", the PE model's level at its largest vocabulary
LEVEL = {f"morita.fig2.level.{core}": core for core in ("gru", "lstm")}
# claim -> model: the PE - vanilla gap's growth over the model's vocabularies (one
# claim per model: Sec. 4.1 speaks of "the vanilla models")
TREND = {f"morita.fig2.trend.{core}": core for core in ("gru", "lstm", "s4d")}
# claim -> model: the vanilla model's accuracy falls as the vocabulary grows
DECLINE = {f"morita.fig2.decline.{core}": core for core in ("gru", "lstm")}
TREND_MIN_VOCABS = 3                    # the trend rule needs three x-values
# claim -> model: Sec. 4.1's "extra training iterations did not improve the vanilla
# models", read on the doubling test's runs (N against N/2) at the largest vocabulary
RESCUE = {f"morita.sec4_1.more_updates.{core}": core for core in ("gru", "lstm", "s4d")}
# Sec. 4.1 claims that the registry says no chapter tests: recorded with its reason
UNTESTED = ("morita.sec4_1.no_rescue",)
# (preset, model) -> why the preset leaves the model out (issue 34: the hour)
NOT_RUN: dict = {("slice", "s4d"): SLICE_S4D}  # quick: none since issue 41


def grade(frame: pd.DataFrame, cfg,
          half: Optional[pd.DataFrame] = None,
          quarter: Optional[pd.DataFrame] = None) -> list[claims.Grade]:
    """The grades of the chapter's claims, in registry order: every claim of
    ``claims.of_chapter("key_findings")`` graded on the runs in ``frame`` (the columns
    of :func:`frame`, made from ``cfg``) through ``penb.claims.grade``, or recorded with
    ``penb.claims.not_tested`` where this preset cannot test it; then the claims of
    :data:`UNTESTED`, with the registry's reason. ``half`` holds the same runs at half
    their updates (protocol 4's doubling test; ``analysis.grade`` reads them from the
    store); without them the claims about trained models read undecided. ``quarter``:
    the runs at N/4 (protocol 6's horizon), where the preset trains them."""
    out = [_grade(c, frame, cfg, half, quarter) for c in claims.of_chapter(CHAPTER)]
    return out + [claims.not_tested(k, claims.get(k).not_tested, cfg) for k in UNTESTED]


def _grade(c: claims.Claim, frame: pd.DataFrame, cfg, half=None,
           quarter=None) -> claims.Grade:
    if c.rule is None:
        return claims.not_tested(c.key, c.not_tested, cfg)
    model = BETTER[c.key][0] if c.key in BETTER else \
        TREND.get(c.key) or DECLINE.get(c.key) or RESCUE.get(c.key) or \
        LEVEL.get(c.key)
    if model is None:
        raise ValueError(f"claim {c.key}: the chapter {CHAPTER} has no evidence for it")
    missing = _missing(cfg, model)
    if missing:
        return claims.not_tested(c.key, f"not at this preset: {missing}", cfg)
    untrained = cells_not_trained(cfg, c.key, model)
    if untrained:
        return claims.not_tested(c.key, untrained, cfg)
    vocabs = cfg[f"{model}_vocab"]
    if c.key in RESCUE:
        if _at_half(half, lambda *a: True, model) is None:
            return claims.not_tested(c.key, "not at this preset: no runs at half the "
                                     "budget (doubling=False)", cfg)
        ev = rescue_evidence(frame, half, model, max(vocabs), quarter)
        return claims.grade(c.key, ev, cfg, budgets=rnn_common.budgets(cfg, model),
                            vocab=max(vocabs))
    if c.key in LEVEL:
        return _trained(c, cfg, frame, half, model, [max(vocabs)], level_evidence,
                        max(vocabs), quarter=quarter)
    if c.key in BETTER:
        vocab = max(vocabs)
        return _trained(c, cfg, frame, half, model, [vocab], evidence, vocab,
                        BETTER[c.key][1], cfg.length, quarter=quarter)
    if len(vocabs) < TREND_MIN_VOCABS:
        rule = f"; {QUICK_RULE}, (a)" if cfg.preset == "quick" else ""
        return claims.not_tested(c.key, (
            f"not at this preset: the trend needs at least {TREND_MIN_VOCABS} "
            f"{model_name(model)} vocabularies, this preset has {len(vocabs)} "
            f"({', '.join(map(str, sorted(vocabs)))}){rule}"), cfg)
    of = trend_evidence if c.key in TREND else decline_evidence
    return _trained(c, cfg, frame, half, model, sorted(vocabs), of, vocabs,
                    quarter=quarter)


def _trained(c: claims.Claim, cfg, frame: pd.DataFrame, half, model: str, cells: list,
             of, *args, quarter=None) -> claims.Grade:
    """Grade a claim about trained models at ``cells`` (vocabularies) of ``model``:
    its evidence ``of(runs, model, *args)`` at N and at N/2, protocol 3's training
    state, the budgets and the next doubling's cost."""
    at = frame[frame["vocab"].isin(cells)]
    return claims.grade(c.key, of(frame, model, *args), cfg,
                        training=training_state(frame, model, cells),
                        half=_at_half(half, of, model, *args),
                        quarter=_at_half(quarter, of, model, *args),
                        budgets=rnn_common.budgets(cfg, model),
                        vocab=cells[0] if len(cells) == 1 else cells,
                        next_cost=rnn_common.next_cost(at, cfg, model))



def _at_half(half: Optional[pd.DataFrame], of, model: str, *args):
    """The evidence ``of(half, model, *args)`` on the half-budget runs, or None
    without them."""
    if half is None or not len(half) or not (half["model"] == model).any():
        return None
    return of(half, model, *args)


def cells_not_trained(cfg, key: str, model: str) -> str:
    """Why claim ``key`` cannot be read where a fixed-target preset is trained by cell
    (issue 65: ``gru_vocab`` a part of the preset's cells, a long run's partial
    archive): "cells not yet trained", naming them, where the claim reads a cell the
    part lacks (the largest vocabulary for a comparison, a level or a gain from more
    updates; every vocabulary for a trend or a decline); "" where the part holds what
    the claim reads, or the preset has no fixed cells."""
    if cfg.preset not in FIXED or model != "gru":
        return ""
    figure = tuple(FIXED[cfg.preset][2])
    if (key in TREND or key in DECLINE) and len(figure) < TREND_MIN_VOCABS:
        return (f"not at this preset: {FIXED[cfg.preset][3]} trains V "
                f"{', '.join(map(str, figure))} alone (the trend and the decline are "
                f"read over V 32-256 at deep_v2's budget)")
    have = set(cfg.gru_vocab)
    need = set(figure) if key in TREND or key in DECLINE else {max(figure)}
    lacking = sorted(need - have)
    if not lacking:
        return ""
    return (f"cells not yet trained: the {cfg.preset} preset's V "
            f"{', '.join(map(str, lacking))} (this part holds V "
            f"{', '.join(map(str, sorted(have)))}; a fixed-target preset trained by "
            f"cell, penb.long_run)")


def _missing(cfg, model: str) -> str:
    """Why ``cfg`` cannot compare PE with vanilla for ``model`` ("" when it can)."""
    if model not in cfg.cores:
        why = left_out(NOT_RUN, cfg, model)
        return (f"the {model_name(model)} is not among the models run "
                f"({', '.join(cfg.cores)})" + (f": {why}" if why else ""))
    if not {VANILLA, PE} <= set(cfg.encodings):
        return f"the comparison needs both encodings {VANILLA!r} and {PE!r}"
    return ""

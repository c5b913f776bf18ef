"""The evidence of the claims of "Key findings" (Fig. 2, Sec. 4.1), graded through
``penb.claims``.

* :func:`evidence`: rule "better" at one (model, vocabulary): PE against vanilla,
  paired by seed;
* :func:`trend_evidence`: rule "trend" over a model's vocabularies: the PE - vanilla
  gap per seed;
* :func:`decline_evidence`: rule "trend" on minus the vanilla accuracy (the vanilla
  model's decline);
* :func:`grade`: every claim of ``claims.of_chapter("key_findings")`` graded, or
  recorded through ``claims.not_tested`` with the reason (a model not run, fewer than
  three vocabularies).

``frame`` is :func:`penb.chapters.key_findings.analysis.frame`'s table of runs (one
row per run).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from penb import claims
from penb.chapters import rnn_common
from penb.chapters.key_findings.presets import FIXED
from penb.claims import evidence as evidence_table
from penb.claims import training
from penb.claims.intervals import t_interval
from penb.names import model_name, variant_label
from penb.presets import QUICK_RULE, SLICE_S4D, left_out

CHAPTER = "key_findings"
VANILLA, PE = "none", "sinusoidal"               # the two encodings Fig. 2 compares
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


def _paired(frame: pd.DataFrame, model: str, vocab: int, metric: str) -> pd.DataFrame:
    """[seeds valid in both variants, (vanilla, PE)] of ``metric`` at (model, vocab)
    (``penb.claims.evidence.wide``)."""
    at = frame[(frame["model"] == model) & (frame["vocab"] == vocab)]
    return evidence_table.wide(at, "encoding", (VANILLA, PE), metric)


def _diverged(frame: pd.DataFrame, model: str, vocabs) -> dict[str, int]:
    at = frame[(frame["model"] == model) & frame["vocab"].isin(list(vocabs))]
    counts = evidence_table.diverged(at, "encoding", (VANILLA, PE))
    return {variant_label(e): n for e, n in counts.items()}


def evidence(frame: pd.DataFrame, model: str, vocab: int,
             metric: str = "token_accuracy", length: Optional[int] = None) -> dict:
    """The evidence of rule "better" at (model, vocab), PE the expected better one.

    a, b: per-seed PE and vanilla values of ``metric`` (each run's own headline
    metric), over the seeds valid in both variants, in seed order; for
    ``mean_distance``, minus the distance per token of the sequence (divided by
    ``length``, so that higher is better and 0.02 means 2% of the sequence, the unit of
    the accuracy claims). baseline: chance (1/V) for the accuracy, none for the
    distance. diverged: the runs of each variant at this cell whose loss turned
    non-finite.
    """
    wide = _paired(frame, model, vocab, metric)
    if metric == "mean_distance" and not length:
        raise ValueError("the distance evidence needs the sequence length L")
    sign, what = (-1.0 / length, ", minus distance / L") if metric == "mean_distance" \
        else (1.0, "")
    return {"a": (sign * wide[PE]).tolist(), "b": (sign * wide[VANILLA]).tolist(),
            "seeds": [int(s) for s in wide.index],
            "baseline": 1.0 / vocab if metric == "token_accuracy" else None,
            "diverged": _diverged(frame, model, [vocab]),
            "a_name": f"PE {model_name(model)}{what}",
            "b_name": f"vanilla {model_name(model)}{what}",
            "vocab": int(vocab), "metric": metric}


def _above_chance(frame: pd.DataFrame, model: str, encoding: str, xs) -> pd.DataFrame:
    """[seed, vocab] of the accuracy above chance, (acc - 1/V) / (1 - 1/V), of one
    variant's valid runs, over the seeds valid at every vocabulary in ``xs``."""
    at = frame[(frame["model"] == model) & (frame["encoding"] == encoding)
               & frame["vocab"].isin(xs) & ~frame["diverged"].astype(bool)]
    wide = at.pivot(index="seed", columns="vocab", values="token_accuracy")
    wide = wide.reindex(columns=xs).dropna()
    chance = np.array([1.0 / x for x in xs])
    return (wide - chance) / (1 - chance)


def decline_evidence(frame: pd.DataFrame, model: str, vocabs) -> dict:
    """The evidence of rule "trend" for the vanilla decline: x (the vocabularies,
    ascending), gaps [seed][x] (minus the vanilla accuracy above chance,
    (acc - 1/V) / (1 - 1/V), over the seeds valid at every x: a falling accuracy is a
    rising line, and a model at chance everywhere is flat, not falling with 1/V),
    diverged (the model's vanilla runs at these vocabularies that diverged), and
    (protocol 3) control_gaps: the same for the PE model, over the same seeds: a
    decline that the PE model shows as much comes from the budget, not from the
    vocabulary's burden on the vanilla model."""
    xs = sorted(int(v) for v in vocabs)
    above = _above_chance(frame, model, VANILLA, xs)
    pe = _above_chance(frame, model, PE, xs)
    seeds = sorted(set(above.index) & set(pe.index))
    return {"x": xs, "gaps": (-above.loc[seeds]).to_numpy(float).tolist(),
            # protocol 5: the line is vanilla's own (minus its accuracy above chance)
            "a_by_x": (-above.loc[seeds]).to_numpy(float).tolist(), "b_fixed": True,
            "x_name": "V",
            "a_name": f"minus vanilla {model_name(model)} above chance",
            "control_gaps": (-pe.loc[seeds]).to_numpy(float).tolist(),
            "control_name": f"PE {model_name(model)}",
            "seeds": [int(s) for s in seeds],
            "diverged": _diverged(frame, model, xs)[variant_label(VANILLA)]}


def level_evidence(frame: pd.DataFrame, model: str, vocab: int) -> dict:
    """The evidence of rule "level": a, the PE ``model``'s token accuracy per valid
    seed at ``vocab``; baseline chance; diverged, the PE runs there whose loss turned
    non-finite (a vanilla run's fate does not touch the PE model's level)."""
    at = frame[(frame["model"] == model) & (frame["vocab"] == vocab)
               & (frame["encoding"] == PE)]
    ok = at[~at["diverged"].astype(bool)].sort_values("seed")
    return {"a": ok["token_accuracy"].tolist(), "seeds": [int(x) for x in ok["seed"]],
            "baseline": 1.0 / vocab, "a_name": f"PE {model_name(model)}",
            "diverged": {variant_label(PE): int(at["diverged"].astype(bool).sum())},
            "vocab": int(vocab)}


def rescue_evidence(frame: pd.DataFrame, half: pd.DataFrame, model: str,
                    vocab: int, quarter: Optional[pd.DataFrame] = None) -> dict:
    """The evidence of rule "no_gain" for Sec. 4.1's extra updates: a, the vanilla
    ``model``'s accuracy at N; b, at N/2 (paired by seed, valid at both); and the
    premise that the PE model has settled (its own move's Student-t interval within
    +-0.02), without which a vanilla model still gaining refutes nothing."""
    full, short = (_paired(f, model, vocab, "token_accuracy") for f in (frame, half))
    seeds = sorted(set(full.index) & set(short.index))
    move = (full.loc[seeds, PE] - short.loc[seeds, PE]).to_numpy(float)
    mean, lo, hi = t_interval(move)
    name = model_name(model)
    diverged = {k: _diverged(f, model, [vocab])["vanilla"]
                for k, f in (("at N", frame), ("at N/2", half))}
    return {"a": full.loc[seeds, VANILLA].tolist(),
            "b": short.loc[seeds, VANILLA].tolist(),
            "seeds": [int(x) for x in seeds], "baseline": 1 / vocab,
            "diverged": diverged, "a_name": f"vanilla {name} at N",
            "b_name": f"vanilla {name} at N/2",
            "premise": {"holds": bool(len(move) >= 2 and -0.02 < lo and hi < 0.02),
                        "text": f"PE {name} settled: its move from N/2 to N "
                                f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}], needs within "
                                "+-0.02"},
            **_earlier_gain(half, quarter, model, vocab, seeds)}


def _earlier_gain(half, quarter, model: str, vocab: int, seeds: list) -> dict:
    """{"earlier_gain": the vanilla model's gain from N/4 to N/2 per seed, in ``seeds``'
    order} where the runs at N/4 hold them all (protocol 6's horizon), else {}."""
    if quarter is None or not len(quarter) or not (quarter["model"] == model).any():
        return {}
    short, early = (_paired(f, model, vocab, "token_accuracy") for f in (half, quarter))
    if not set(seeds) <= set(early.index):
        return {}
    return {"earlier_gain": (short.loc[seeds, VANILLA]
                             - early.loc[seeds, VANILLA]).tolist()}


def training_state(frame: pd.DataFrame, model: str, vocabs) -> dict:
    """The training state of PE and vanilla ``model`` at each vocabulary in ``vocabs``
    (:func:`penb.claims.training.of_frame`, joined over the vocabularies)."""
    names = {PE: f"PE {model_name(model)}", VANILLA: f"vanilla {model_name(model)}"}
    cells = ({f"V {v}": {"vocab": v} for v in sorted(vocabs)} if len(vocabs) > 1
             else None)
    where = {"model": model, **({"vocab": list(vocabs)[0]} if len(vocabs) == 1 else {})}
    return training.of_frame(frame, "encoding", (PE, VANILLA), names, where=where,
                             cells=cells)


def trend_evidence(frame: pd.DataFrame, model: str, vocabs) -> dict:
    """The evidence of rule "trend": x (the vocabularies, ascending), gaps [seed][x]
    (PE minus vanilla token accuracy, over the seeds valid in both variants at every
    x), diverged (the model's runs at these vocabularies that diverged)."""
    xs = sorted(int(v) for v in vocabs)
    per_x = [_paired(frame, model, v, "token_accuracy") for v in xs]
    seeds = sorted(set.intersection(*(set(w.index) for w in per_x))) if per_x else []
    gaps = [[float(w.loc[s, PE] - w.loc[s, VANILLA]) for w in per_x] for s in seeds]
    by_x = {e: [[float(w.loc[s, e]) for w in per_x] for s in seeds]
            for e in (PE, VANILLA)}
    return {"x": xs, "gaps": gaps, "seeds": [int(s) for s in seeds],
            "diverged": sum(_diverged(frame, model, xs).values()),
            # protocol 5 reads both models at every vocabulary (penb.claims.doubling)
            "a_by_x": by_x[PE], "b_by_x": by_x[VANILLA], "x_name": "V",
            "a_name": f"PE {model_name(model)}",
            "b_name": f"vanilla {model_name(model)}"}


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

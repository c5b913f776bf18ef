"""The evidence each claim of "Key findings" (Fig. 2, Sec. 4.1) reads, from ``frame``
(:func:`penb.chapters.key_findings.analysis.frame`'s table of runs, one row per run);
:mod:`~penb.chapters.key_findings.grading` grades it.

* :func:`evidence`: rule "better" at one (model, vocabulary): PE against vanilla,
  paired by seed;
* :func:`trend_evidence`: rule "trend" over a model's vocabularies: the PE - vanilla
  gap per seed;
* :func:`decline_evidence`: rule "trend" on minus the vanilla accuracy (the vanilla
  model's decline);
* :func:`level_evidence`, :func:`rescue_evidence`: the PE model's level, and the
  vanilla model's gain from N/2 to N;
* :func:`training_state`: whether the models still gain, per vocabulary.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from penb.claims import evidence as evidence_table
from penb.claims import training
from penb.claims.intervals import t_interval
from penb.names import model_name, variant_label

VANILLA, PE = "none", "sinusoidal"               # the two encodings Fig. 2 compares


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

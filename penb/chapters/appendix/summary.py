"""Summaries of the appendix chapters A-D (Morita, App. A-D, Fig. 7-14), over seeds.

The seed is the independent unit: a seed's value is its run's own headline metric
(``token_accuracy``, ``mean_distance`` of the run's ``metrics``), and every interval on
a page is a 95% bootstrap interval over the valid seeds (``penb.claims.seed_interval``).
Diverged runs are counted, never averaged in.

* ``summary(frame)``: one row per (panel, vocabulary, variant) of the frame of
  ``common.run``, with the seed-level mean and interval of accuracy and distance, the
  per-seed values, the number of diverged runs and, as a secondary column only, the 95%
  interval that resamples the held-out sequences of all seeds pooled (the paper's error
  bars);
* ``per_length(frame)``: the same per input length (App. B, D), from each run's held-out
  predictions;
* ``table(summ)``: the summary as printed in the chapters.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from penb import claims, metrics
from penb.trainer import build_model
from penb import runs
from penb.chapters.appendix import common
from penb.chapters.appendix.common import Panel
from penb.models import count_parameters

KEYS = ["panel", "vocab", "variant"]


def per_sequence(path) -> dict[str, np.ndarray]:
    """{"correct", "scored", "distance", "lengths"}: int [n] per held-out sequence of
    the run stored in folder ``path`` (read through ``penb.runs.RunResult``)."""
    f = runs.RunResult.from_dir(path).predictions()
    pred, target, lengths = f["predictions"], f["targets"], f["lengths"]
    s = metrics.per_sequence(pred, target)
    return {"correct": s["correct"], "scored": s["scored"],
            "distance": metrics.distances(pred, target), "lengths": lengths}


def _interval(values, n_resamples: int, prefix: str) -> dict:
    mean, lo, hi = claims.bootstrap_interval(values, n_resamples=n_resamples)
    return {prefix: mean, f"{prefix}_lo": lo, f"{prefix}_hi": hi}


def _pooled(paths, n_resamples: int, seed: int) -> tuple[float, float]:
    """The secondary interval: token accuracy over the pooled held-out sequences of all
    valid seeds, resampling sequences (``metrics.bootstrap_ci``)."""
    if not len(paths):
        return np.nan, np.nan
    seqs = [per_sequence(p) for p in paths]
    correct = np.concatenate([s["correct"] for s in seqs])[None, :]
    scored = np.concatenate([s["scored"] for s in seqs])[None, :]
    _, lo, hi = metrics.bootstrap_ci(correct, scored, n_resamples=n_resamples,
                                     seed=seed)
    return lo, hi


def summary(frame: pd.DataFrame, n_resamples: int = 10_000, seed: int = 0,
            pooled: bool = True) -> pd.DataFrame:
    """One row per (panel, vocab, variant), seed-level.

    Columns: panel, title, task, model, vocab, length, steps, variant, label, seeds
    (valid runs), diverged (runs), accuracy(_lo, _hi), distance(_lo, _hi) (mean over
    valid seeds and its bootstrap interval over seeds), accuracy_per_seed (tuple, seed
    order), pooled_lo, pooled_hi (the pooled-sequence interval; NaN when ``pooled`` is
    False).
    """
    rows = []
    for (panel, vocab, variant), g in frame.groupby(KEYS, sort=False):
        g = g.sort_values("seed")
        ok = g[~g["diverged"]]
        first = g.iloc[0]
        lo, hi = (_pooled(list(ok["path"]), n_resamples, seed) if pooled
                  else (np.nan, np.nan))
        rows.append(dict(panel=panel, title=first.title, task=first.task,
                         model=first.model, vocab=int(vocab), length=int(first.length),
                         steps=int(first.steps), variant=variant, label=first.label,
                         seeds=len(ok), diverged=int(g["diverged"].sum()),
                         **_interval(ok["token_accuracy"], n_resamples, "accuracy"),
                         **_interval(ok["mean_distance"], n_resamples, "distance"),
                         accuracy_per_seed=tuple(round(float(x), 4)
                                                 for x in ok["token_accuracy"]),
                         pooled_lo=lo, pooled_hi=hi))
    return pd.DataFrame(rows)


def per_length(frame: pd.DataFrame, n_resamples: int = 10_000) -> pd.DataFrame:
    """One row per (panel, vocab, variant, input length): each valid seed's token
    accuracy over its held-out sequences of that length (App. B holds out the same
    number per length), their mean and bootstrap interval over seeds.

    Columns: panel, title, model, vocab, variant, label, length, seeds, accuracy(_lo,
    _hi), accuracy_per_seed.
    """
    rows = []
    for (panel, vocab, variant), g in frame.groupby(KEYS, sort=False):
        ok = g[~g["diverged"]].sort_values("seed")
        if ok.empty:
            continue
        seqs = [per_sequence(p) for p in ok["path"]]
        first = g.iloc[0]
        for n in np.unique(np.concatenate([s["lengths"] for s in seqs])):
            acc = [s["correct"][s["lengths"] == n].sum()
                   / max(s["scored"][s["lengths"] == n].sum(), 1) for s in seqs]
            rows.append(dict(panel=panel, title=first.title, model=first.model,
                             vocab=int(vocab), variant=variant, label=first.label,
                             length=int(n), seeds=len(acc),
                             **_interval(acc, n_resamples, "accuracy"),
                             accuracy_per_seed=tuple(round(float(x), 4) for x in acc)))
    return pd.DataFrame(rows)


def fmt(est: float, lo: float, hi: float, digits: int = 3) -> str:
    """'0.812 [0.801, 0.823]'."""
    return claims.fmt(est, lo, hi, digits)


def table(summ: pd.DataFrame) -> pd.DataFrame:
    """The summary as printed in the chapters, indexed by (panel title, vocabulary,
    label): valid seeds, diverged runs, token accuracy and distance as 'mean [lo, hi]'
    over seeds, the per-seed accuracies and the pooled-sequence interval (secondary)."""
    t = summ.assign(
        accuracy_over_seeds=[fmt(a, lo, hi) for a, lo, hi in
                             zip(summ.accuracy, summ.accuracy_lo, summ.accuracy_hi)],
        distance_over_seeds=[fmt(d, lo, hi, 2) for d, lo, hi in
                             zip(summ.distance, summ.distance_lo, summ.distance_hi)],
        pooled_sequences=[f"[{lo:.3f}, {hi:.3f}]" for lo, hi in
                          zip(summ.pooled_lo, summ.pooled_hi)])
    cols = ["title", "vocab", "label", "seeds", "diverged", "accuracy_over_seeds",
            "accuracy_per_seed", "distance_over_seeds", "pooled_sequences"]
    return t[cols].set_index(["title", "vocab", "label"])


def parameter_counts(cfg, panels: list[Panel]) -> pd.DataFrame:
    """Trainable parameters of each (panel, vocabulary, variant) model, built from its
    run config.

    Columns: panel, vocab, variant, label, input_width (the core's input size),
    parameters.
    """
    x = torch.zeros(1, 1, dtype=torch.long)
    rows = []
    for p in panels:
        for v in p.vocabs:
            for var in p.variants:
                config = common.run_config(cfg, p, v, var, cfg.seeds[0])
                model = build_model(config, device="cpu")
                rows.append(dict(panel=p.name, vocab=int(v), variant=var,
                                 label=common.LABELS[var],
                                 input_width=int(model.input_vectors(x).shape[-1]),
                                 parameters=count_parameters(model)))
    return pd.DataFrame(rows)

"""Summaries, comparisons and claim rows of the appendix chapters A-D (Morita, App. A-D, Fig. 7-14).

``summary`` gives one row per (panel, vocabulary, variant) of the frame of ``common.run``, with 95%
bootstrap intervals over seeds x held-out sequences, as the paper's captions describe; ``per_length``
does the same per input length (App. B, D), and ``compare`` and ``grade`` turn two variants' intervals
into a verdict; ``claim_rows`` sets them beside the paper's statement (``penb.claims``).

Verdicts (the figures of App. A-D print no numbers, so each claim is a direction):

* ``reproduced``: the claimed order holds with disjoint 95% intervals;
* ``direction only``: the claimed order holds for the estimates, but the intervals overlap;
* ``not reproduced``: the estimates are in the other order (or equal).
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

from penb import metrics, runs
from penb.chapters.appendix.common import LABELS

GRADES = ("reproduced", "direction only", "not reproduced")


def per_sequence(path) -> dict[str, np.ndarray]:
    """{"correct", "scored", "distance", "lengths"}: int [n] per held-out sequence of the run stored in
    folder ``path`` (read through ``penb.runs.RunResult``)."""
    f = runs.RunResult.from_dir(path).predictions()
    pred, target, lengths = f["predictions"], f["targets"], f["lengths"]
    s = metrics.per_sequence(pred, target)
    return {"correct": s["correct"], "scored": s["scored"], "distance": metrics.distances(pred, target),
            "lengths": lengths}


def _ci_row(seqs: list[dict], n_resamples: int, seed: int, keep=None) -> dict:
    """Token accuracy and mean distance with bootstrap CIs over the pooled sequences of all seeds.

    ``keep(s)`` (optional) selects a subset of each seed's sequences (seeds may keep different counts);
    the resampling pools every kept sequence, as ``metrics.bootstrap_ci(level="sequence")`` does.
    """
    parts = [{k: s[k] if keep is None else s[k][keep(s)] for k in ("correct", "scored", "distance")} for s in seqs]
    correct, scored, dist = (np.concatenate([p[k] for p in parts])[None, :] for k in ("correct", "scored", "distance"))
    acc = metrics.bootstrap_ci(correct, scored, n_resamples=n_resamples, seed=seed)
    dl = metrics.bootstrap_ci(dist, n_resamples=n_resamples, seed=seed)
    per_seed = tuple(round(float(p["correct"].sum() / max(p["scored"].sum(), 1)), 4) for p in parts)
    return dict(seeds=len(seqs), accuracy=acc[0], accuracy_lo=acc[1], accuracy_hi=acc[2],
                distance=dl[0], distance_lo=dl[1], distance_hi=dl[2], accuracy_per_seed=per_seed)


def summary(frame: pd.DataFrame, n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """One row per (panel, vocab, variant): accuracy/distance estimates with 95% bootstrap CIs.

    Columns: panel, title, task, model, vocab, variant, label, seeds, accuracy(_lo, _hi),
    distance(_lo, _hi), accuracy_per_seed.
    """
    rows = []
    for (panel, vocab, variant), g in frame.groupby(["panel", "vocab", "variant"], sort=False):
        g = g.sort_values("seed")
        first = g.iloc[0]
        rows.append(dict(panel=panel, title=first.title, task=first.task, model=first.model, vocab=int(vocab),
                         variant=variant, label=first.label,
                         **_ci_row([per_sequence(p) for p in g["path"]], n_resamples, seed)))
    return pd.DataFrame(rows)


def per_length(frame: pd.DataFrame, n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """One row per (panel, vocab, variant, input length): as :func:`summary`, over the held-out
    sequences of that length only (App. B holds out the same number per length)."""
    rows = []
    for (panel, vocab, variant), g in frame.groupby(["panel", "vocab", "variant"], sort=False):
        g = g.sort_values("seed")
        seqs = [per_sequence(p) for p in g["path"]]
        first = g.iloc[0]
        for n in np.unique(seqs[0]["lengths"]):
            row = _ci_row(seqs, n_resamples, seed, keep=lambda s, n=n: s["lengths"] == n)
            rows.append(dict(panel=panel, title=first.title, model=first.model, vocab=int(vocab), variant=variant,
                             label=first.label, length=int(n), **row))
    return pd.DataFrame(rows)


def grade(better_lo: float, better: float, worse: float, worse_hi: float) -> str:
    """'reproduced' (disjoint CIs in the claimed order), 'direction only' (estimates in order, CIs
    overlap) or 'not reproduced' (estimates not in order)."""
    if better_lo > worse_hi:
        return "reproduced"
    return "direction only" if better > worse else "not reproduced"


def compare(summ: pd.DataFrame, better: str, worse: str, vocab: str = "largest") -> pd.DataFrame:
    """Per panel (at its largest or every vocabulary): the accuracy of variant ``better`` against
    ``worse`` with CIs; ``gain`` = better - worse, ``grade`` as :func:`grade`."""
    if vocab not in ("largest", "all"):
        raise ValueError(f"vocab must be 'largest' or 'all', got {vocab!r}")
    rows = []
    for panel, g in summ.groupby("panel", sort=False):
        for v in ([g["vocab"].max()] if vocab == "largest" else sorted(g["vocab"].unique())):
            at = g[g["vocab"] == v].set_index("variant")
            if not {better, worse} <= set(at.index):
                continue
            b, w = at.loc[better], at.loc[worse]
            rows.append(dict(panel=panel, title=b.title, model=b.model, vocab=int(v), better=better, worse=worse,
                             better_acc=b.accuracy, better_lo=b.accuracy_lo, better_hi=b.accuracy_hi,
                             worse_acc=w.accuracy, worse_lo=w.accuracy_lo, worse_hi=w.accuracy_hi,
                             gain=b.accuracy - w.accuracy,
                             grade=grade(b.accuracy_lo, b.accuracy, w.accuracy, w.accuracy_hi)))
    return pd.DataFrame(rows)


def compare_lengths(per_len: pd.DataFrame, better: str, worse: str) -> pd.DataFrame:
    """Per (panel, input length): ``better`` vs. ``worse`` accuracy with CIs, gain and grade
    (the frame of :func:`per_length` in, one row per panel and length out)."""
    rows = []
    for (panel, n), g in per_len.groupby(["panel", "length"], sort=True):
        at = g.set_index("variant")
        if not {better, worse} <= set(at.index):
            continue
        b, w = at.loc[better], at.loc[worse]
        rows.append(dict(panel=panel, length=int(n), better=better, worse=worse, better_acc=b.accuracy,
                         better_lo=b.accuracy_lo, better_hi=b.accuracy_hi, worse_acc=w.accuracy,
                         worse_lo=w.accuracy_lo, worse_hi=w.accuracy_hi, gain=b.accuracy - w.accuracy,
                         grade=grade(b.accuracy_lo, b.accuracy, w.accuracy, w.accuracy_hi)))
    return pd.DataFrame(rows)


def fmt(est: float, lo: float, hi: float, digits: int = 3) -> str:
    """'0.812 [0.801, 0.823]'."""
    return f"{est:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def worst(grades: Sequence[str]) -> str:
    """The weakest of several grades (a claim made of parts holds as well as its weakest part)."""
    if not grades:
        return "not run"
    return max(grades, key=GRADES.index)


def claim_rows(claim: str, cmp: pd.DataFrame, part: str = "", labels: Optional[dict] = None) -> pd.DataFrame:
    """The rows of ``compare`` beside the paper's statement of ``claim`` (a key of ``penb.claims``);
    ``labels`` overrides ``common.LABELS`` in the ``part`` text.

    Columns: claim, part, paper, setting (the panel's key), panel (its title), vocab, better_variant,
    worse_variant, better (accuracy [CI]), worse, gain, grade.
    """
    from penb import claims

    c, names = claims.get(claim), {**LABELS, **(labels or {})}
    cols = ["claim", "part", "paper", "setting", "panel", "vocab", "better_variant", "worse_variant", "better",
            "worse", "gain", "grade"]
    return pd.DataFrame([dict(claim=claim, part=part or f"{names[r.better]} > {names[r.worse]}",
                              paper=c.statement, setting=r.panel, panel=r.title, vocab=int(r.vocab),
                              better_variant=r.better, worse_variant=r.worse,
                              better=fmt(r.better_acc, r.better_lo, r.better_hi),
                              worse=fmt(r.worse_acc, r.worse_lo, r.worse_hi), gain=round(float(r.gain), 4),
                              grade=r.grade) for r in cmp.itertuples()], columns=cols)


def no_gain_grade(cmp_grade: str) -> str:
    """Grade of a claim that variant A does NOT improve on B, from the grade of "A > B" (App. C):
    A clearly ahead -> 'not reproduced'; A ahead within the noise -> 'direction only'; else 'reproduced'."""
    return {"reproduced": "not reproduced", "direction only": "direction only"}.get(cmp_grade, "reproduced")


def clearer_grade(lead_variable: float, lead_fixed: float, variable_grades: Sequence[str]) -> str:
    """Grade of "the sinusoidal lead is clearer at variable length" (App. D, Fig. 14): 'reproduced' when
    its smallest lead over the alternatives is larger at variable length and every comparison there is
    'reproduced', 'direction only' when it is only larger, 'not reproduced' otherwise ('not run' if a
    setting is missing)."""
    if pd.isna(lead_variable) or pd.isna(lead_fixed) or not len(variable_grades):
        return "not run"
    if lead_variable <= lead_fixed:
        return "not reproduced"
    return "reproduced" if all(g == "reproduced" for g in variable_grades) else "direction only"


def ci_table(summ: pd.DataFrame) -> pd.DataFrame:
    """The summary as printed in the chapters: accuracy and distance as 'estimate [low, high]' strings,
    indexed by (panel title, vocabulary, label)."""
    t = summ.assign(accuracy_ci=[fmt(a, lo, hi) for a, lo, hi in zip(summ.accuracy, summ.accuracy_lo,
                                                                      summ.accuracy_hi)],
                    distance_ci=[fmt(d, lo, hi, 2) for d, lo, hi in zip(summ.distance, summ.distance_lo,
                                                                        summ.distance_hi)])
    return t[["title", "vocab", "label", "seeds", "accuracy_ci", "distance_ci", "accuracy_per_seed"]].set_index(
        ["title", "vocab", "label"])

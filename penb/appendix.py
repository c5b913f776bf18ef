"""Shared machinery of the appendix chapters A-D (Morita, App. A-D, Fig. 7-14).

A chapter is a list of :class:`Panel` s: one task on one core at a few vocabulary sizes, trained with a
few string-keyed *variants* of the input layer (:data:`VARIANTS`). ``run_configs`` expands a resolved
chapter config into ``penb.train`` configs (one per panel x vocabulary x variant x seed); ``run`` trains
or reuses them through the run store, so a run that another chapter already made with the same
configuration (e.g. the key-findings reverse runs) is not trained again. ``summary`` gives one row per
(panel, vocabulary, variant) with 95% bootstrap intervals over seeds x held-out sequences, as the
paper's captions describe; ``per_length`` does the same per input length (App. B, D), and ``compare``
and ``grade`` turn two variants' intervals into a verdict.

Verdicts (the figures of App. A-D print no numbers, so each claim is a direction):

* ``reproduced``: the claimed order holds with disjoint 95% intervals;
* ``direction only``: the claimed order holds for the estimates, but the intervals overlap;
* ``not reproduced``: the estimates are in the other order (or equal).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from penb import metrics, runs, train
from penb.presets import require, require_ints

# variant key -> the run fields that make it
VARIANTS = {
    "vanilla": dict(encoding="none", input_mode="concat"),
    "sinusoidal": dict(encoding="sinusoidal", input_mode="concat"),
    "random": dict(encoding="random", input_mode="concat"),
    "learnable": dict(encoding="learnable", input_mode="concat"),
    "double": dict(encoding="none", input_mode="double"),     # [emb, emb] (App. C)
}
LABELS = {"vanilla": "vanilla", "sinusoidal": "position-encoded", "random": "random PE",
          "learnable": "learnable PE", "double": "double vanilla"}
GRADES = ("reproduced", "direction only", "not reproduced")


@dataclass(frozen=True)
class Panel:
    """One task x core x vocabularies x variants (a panel of a paper figure).

    ``length`` is the input length L (the longest, for ``reverse_variable``); ``steps`` the updates per run.
    """

    name: str                       # short key, e.g. "sort-gru"
    title: str                      # axis title, e.g. "Sorting, GRU"
    task: str                       # a key of penb.tasks
    core: str                       # gru | lstm | s4d
    vocabs: tuple                   # vocabulary sizes
    variants: tuple                 # keys of VARIANTS
    length: int
    steps: int
    task_options: dict = field(default_factory=dict)


def check_common(cfg, ints: Sequence[str] = ("hidden", "batch_size", "held_out", "checkpoint_every",
                                                  "bootstrap", "workers")) -> None:
    """Raise ``ValueError`` for the training fields every appendix chapter shares."""
    require_ints(cfg, ints)
    require(isinstance(cfg.warmup, int) and cfg.warmup >= 0 and cfg.lr > 0,
            f"need an int warmup >= 0 and lr > 0, got {cfg.warmup!r}, {cfg.lr!r}")
    require(len(cfg.betas) == 2 and all(0 <= b < 1 for b in cfg.betas),
            f"betas must be two numbers in [0, 1), got {cfg.betas}")
    require(len(cfg.seeds) >= 1 and len(set(cfg.seeds)) == len(cfg.seeds)
            and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in cfg.seeds),
            f"seeds must be distinct ints >= 0, got {cfg.seeds}")
    require(cfg.amp in ("none", "bf16"), f"amp must be 'none' or 'bf16', got {cfg.amp!r}")


def check_vocab(name: str, vocab) -> None:
    require(len(vocab) >= 1 and all(isinstance(v, int) and not isinstance(v, bool) and v >= 2 for v in vocab),
            f"{name} must hold ints >= 2, got {vocab!r}")
    require(len(set(vocab)) == len(vocab), f"{name} has repeated sizes: {vocab}")


def check_variants(name: str, variants, allowed: Sequence[str]) -> None:
    require(len(variants) >= 1 and len(set(variants)) == len(variants), f"{name} must be distinct, got {variants!r}")
    for v in variants:
        require(v in allowed, f"unknown variant {v!r} in {name}; valid: {', '.join(allowed)}")


def run_config(cfg, panel: Panel, vocab: int, variant: str, seed: int) -> dict:
    """The ``penb.train`` config of one run (fields named as in the key-findings chapter, so runs coincide)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; valid: {', '.join(VARIANTS)}")
    return dict(task=panel.task, task_options=dict(panel.task_options), length=panel.length, hidden=cfg.hidden,
                batch_size=cfg.batch_size, steps=panel.steps, warmup=cfg.warmup, lr=cfg.lr, betas=tuple(cfg.betas),
                held_out=cfg.held_out, checkpoint_every=cfg.checkpoint_every, device=cfg.device, amp=cfg.amp,
                core=panel.core, vocab_size=vocab, seed=seed, **VARIANTS[variant])


def run_configs(cfg, panels: Sequence[Panel]) -> list[dict]:
    """One config per panel x vocabulary x variant x seed, in that order."""
    return [run_config(cfg, p, v, var, s) for p in panels for v in p.vocabs for var in p.variants for s in cfg.seeds]


def validate(cfg, panels: Sequence[Panel]) -> None:
    """``ValueError`` (naming the panel) unless every run of ``panels`` is a valid ``penb.train`` config.

    One seed per (panel, vocabulary, variant) is enough: seeds do not change validity. Cheap (no model
    is built), so chapter checks call it before any work.
    """
    require(len(panels) >= 1, "nothing to run: no panel selected")
    for p in panels:
        check_vocab(f"{p.name} vocabularies", p.vocabs)
        for v in p.vocabs:
            for var in p.variants:
                try:
                    train.normalize(run_config(cfg, p, v, var, cfg.seeds[0]))
                except ValueError as e:
                    raise ValueError(f"panel {p.name!r} (V={v}, {var}): {e}") from None


def stored(cfg, panels: Sequence[Panel], store: Optional[Path] = None) -> bool:
    """True when every run of ``panels`` is finished in the run store (so :func:`run` trains nothing)."""
    return all(runs.status(c, store) == "done" for c in run_configs(cfg, panels))


def variant_of(config: dict) -> str:
    """The variant key of a run config."""
    for k, fields in VARIANTS.items():
        if all(config.get(f) == v for f, v in fields.items()):
            return k
    raise ValueError(f"no variant has encoding={config.get('encoding')!r}, input_mode={config.get('input_mode')!r}")


def run(cfg, panels: Sequence[Panel], executor=None, store: Optional[Path] = None, progress: bool = True,
        desc: str = "runs") -> pd.DataFrame:
    """Train or reuse every run; one row per run.

    Columns: panel, title, task, model, vocab, variant, label, seed, token_accuracy, sequence_accuracy,
    mean_distance, wall_s, reused (found in the store before this call), key, path.
    """
    configs = run_configs(cfg, panels)
    owners = [p for p in panels for _ in range(len(p.vocabs) * len(p.variants) * len(cfg.seeds))]
    results, before = runs.chapter_sweep(configs, cfg, desc, executor, store, progress)
    rows = []
    for p, r, found in zip(owners, results, before):
        c = r.config
        var = variant_of(c)
        rows.append(dict(panel=p.name, title=p.title, task=c["task"], model=c["core"], vocab=c["vocab_size"],
                         variant=var, label=LABELS[var], seed=c["seed"],
                         token_accuracy=r.metrics["token_accuracy"], sequence_accuracy=r.metrics["sequence_accuracy"],
                         mean_distance=r.metrics["mean_distance"], wall_s=r.wall_s, reused=found, key=r.key,
                         path=str(r.path)))
    return pd.DataFrame(rows)


def per_sequence(path) -> dict[str, np.ndarray]:
    """{"correct", "scored", "distance", "lengths"}: int [n] per held-out sequence of the run in ``path``."""
    with np.load(Path(path) / "predictions.npz") as f:
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
    ``labels`` overrides :data:`LABELS` in the ``part`` text.

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


def parameter_counts(cfg, panels: Sequence[Panel]) -> pd.DataFrame:
    """Trainable parameters of each (panel, vocabulary, variant) model, built from its run config.

    Columns: panel, vocab, variant, label, input_width (the core's input size), parameters.
    """
    import torch

    from penb.models import count_parameters

    rows = []
    for p in panels:
        for v in p.vocabs:
            for var in p.variants:
                model = train.build_model(run_config(cfg, p, v, var, cfg.seeds[0]), device="cpu")
                width = model.input_vectors(torch.zeros(1, 1, dtype=torch.long)).shape[-1]
                rows.append(dict(panel=p.name, vocab=int(v), variant=var, label=LABELS[var], input_width=int(width),
                                 parameters=count_parameters(model)))
    return pd.DataFrame(rows)


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

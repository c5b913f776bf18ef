"""Morita's Fig. 3 (Sec. 4.2): accuracy on the dual-frequency test grid, vanilla vs. position-encoded.

The test set of a ``dual_frequency`` run (``penb.tasks``) holds, for every target group (FREQUENT/RARE),
disturbant group (all FREQUENT/all RARE) and target position t = 1..L, ``per_cell`` sequences; only the
target's output step is scored, so each test sequence is one Bernoulli outcome (right or wrong).

* :func:`run_configs` lists the runs of a resolved ``frequency`` (or ``gradient_stability``) config
  (``penb.chapters.frequency.presets``), :func:`run` trains them (or reuses them from the run store);
* :func:`cells` counts, per run, correct/scored sequences per (target, disturbants, position);
* :func:`by_quarter` and :func:`by_position` pool the seeds and give 95% bootstrap intervals;
* :func:`harm` measures how much RARE disturbants lower the accuracy (FREQUENT-disturbant accuracy minus
  RARE-disturbant accuracy), :func:`contrast` compares that harm between vanilla and PE per model.

Bootstrap: the paper resamples the pooled test sequences of all seeds (10,000 resamples). For 0/1 outcomes
the mean of n values resampled with replacement from a sample with k successes is exactly
Binomial(n, k/n) / n, so :func:`proportion_ci` draws those binomials instead of resampling indices: the
same percentile bootstrap, thousands of cells at once. A difference of two cells resamples each cell
independently (they hold different sequences).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import runs
from penb.chapters import rnn_common
from penb.executors import Executor
from penb.names import VARIANT_LABELS, model_name, variant_label
from penb.tasks import IGNORE

LABELS = ("frequent", "rare")
CONDITIONS = tuple((t, d) for t in LABELS for d in LABELS)     # (target, disturbants): FF, FR, RF, RR
SEARCH_LOG = Path(__file__).with_name("search_log.csv")       # the regime search's table (search_table)

# The paper's statements (Sec. 4.2), in our words, per model: what the vanilla model does with RARE
# disturbants, and what PE does.
PAPER_SAYS = {
    "gru": "vanilla: FREQUENT targets among RARE disturbants are hard; PE: nearly perfect except all-RARE "
           "data with the target in the first half (t <= 32 of 64)",
    "lstm": "vanilla: degraded by RARE disturbants, most with the target in the first quarter (t <= 16); "
            "PE: nearly perfect",
    "s4d": "vanilla: degraded by RARE disturbants, worst with the target in the second quarter (17-32); "
           "PE: more resilient",
}


def run_configs(cfg) -> list[dict]:
    """One ``penb.train`` config per (core, encoding, seed): the dual-frequency task, its test grid of
    ``4 x length x per_cell`` sequences. Only :data:`penb.chapters.frequency.presets.TRAINING_KEYS` enter,
    so the chapters ``frequency`` and ``gradient_stability`` agree."""
    common = dict(task="dual_frequency", task_options={"rarity": float(cfg.rarity)}, length=cfg.length,
                  betas=tuple(cfg.betas), held_out=4 * cfg.length * cfg.per_cell,
                  checkpoint_every=cfg.checkpoint_every, device=cfg.device, amp=cfg.amp)
    return [dict(common, **rnn_common.settings(cfg, core), core=core, vocab_size=cfg[f"{core}_vocab"],
                 encoding=e, seed=s)
            for core in cfg.cores for e in cfg.encodings for s in cfg.seeds]


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None, progress: bool = True) -> pd.DataFrame:
    """Train or reuse every run of the resolved ``frequency`` (or ``gradient_stability``) config.

    One row per run: model, vocab, encoding, variant, seed, token_accuracy (over the whole test grid),
    wall_s (training time where it was made), key, path (run folder).
    """
    results, _ = runs.chapter_sweep(run_configs(cfg), cfg, "Fig. 3 runs", executor, store, progress)
    rows = []
    for r in results:
        c = r.config
        rows.append(dict(model=c["core"], vocab=c["vocab_size"], encoding=c["encoding"],
                         variant=variant_label(c["encoding"]), seed=c["seed"],
                         token_accuracy=r.metrics["token_accuracy"], wall_s=r.wall_s, key=r.key, path=str(r.path)))
    return pd.DataFrame(rows)


def quarters(length: int) -> list[tuple[int, int]]:
    """The four quarters of target positions, 1-based and inclusive: L = 64 -> (1, 16), ..., (49, 64)."""
    if isinstance(length, bool) or not isinstance(length, int) or length < 4 or length % 4:
        raise ValueError(f"length must be an int multiple of 4 (four quarters), got {length!r}")
    q = length // 4
    return [(i * q + 1, (i + 1) * q) for i in range(4)]


def quarter_label(position, length: int) -> np.ndarray:
    """Labels "1-16", ... of 1-based ``position`` (int array) at input length ``length``."""
    position = np.asarray(position)
    if position.size and (position.min() < 1 or position.max() > length):
        raise ValueError(f"positions must lie in 1..{length}, got {position.min()}..{position.max()}")
    names = np.array([f"{a}-{b}" if b > a else f"{a}" for a, b in quarters(length)])
    return names[(position - 1) // (length // 4)]


def cell_counts(pred: dict) -> pd.DataFrame:
    """Per (target, disturbants, position) of one run's test grid: ``correct`` and ``n`` sequences.

    pred: a run's held-out predictions (``penb.runs.RunResult.predictions()``): ``predictions``/``targets``
    int [n, T] with one scored step per row, ``target_rare``, ``disturbants_rare``, ``target_position``
    (0-based) int [n]. Positions come out 1-based.
    """
    for k in ("predictions", "targets", "target_rare", "disturbants_rare", "target_position"):
        if k not in pred:
            raise ValueError(f"not a dual-frequency test grid: {k!r} missing (keys: {sorted(pred)})")
    p, t = np.asarray(pred["predictions"]), np.asarray(pred["targets"])
    scored = t != IGNORE
    if p.shape != t.shape or not (scored.sum(1) == 1).all():
        raise ValueError("every test sequence of the grid must have exactly one scored step")
    correct = ((p == t) & scored).sum(1)
    frame = pd.DataFrame({"target": np.array(LABELS)[np.asarray(pred["target_rare"])],
                          "disturbants": np.array(LABELS)[np.asarray(pred["disturbants_rare"])],
                          "position": np.asarray(pred["target_position"]) + 1, "correct": correct})
    g = frame.groupby(["target", "disturbants", "position"])["correct"]
    return g.agg(correct="sum", n="size").reset_index()


def cells(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`cell_counts` of every run of ``frame`` (from :func:`run`), with model, variant, seed.

    Each run's predictions are read through the store (``penb.runs.RunResult``) from its folder ``path``.
    """
    out = []
    for row in frame.itertuples():
        counts = cell_counts(runs.RunResult.from_dir(row.path).predictions())
        out.append(counts.assign(model=row.model, vocab=row.vocab, encoding=row.encoding, variant=row.variant,
                                 seed=row.seed))
    cols = ["model", "vocab", "encoding", "variant", "seed", "target", "disturbants", "position", "correct", "n"]
    return pd.concat(out, ignore_index=True)[cols]


def proportion_ci(correct, n, n_resamples: int = 10_000, confidence: float = 0.95,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high), each float [m]: percentile bootstrap of k/n for m cells of 0/1 outcomes.

    correct, n: int [m] (k successes out of n > 0 sequences per cell). Each resample is Binomial(n, k/n)/n,
    the exact distribution of a resampled mean of 0/1 values.
    """
    k, n = np.atleast_1d(np.asarray(correct, dtype=np.int64)), np.atleast_1d(np.asarray(n, dtype=np.int64))
    _check_counts(k, n, n_resamples, confidence)
    est = k / n
    draws = np.random.default_rng(seed).binomial(n[:, None], est[:, None], size=(len(k), n_resamples)) / n[:, None]
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(draws, [tail, 100 - tail], axis=1)
    return est, lo, hi


def _check_counts(k, n, n_resamples, confidence):
    if k.shape != n.shape or k.ndim != 1 or k.size == 0:
        raise ValueError(f"correct and n must be non-empty int arrays of one shape, got {k.shape}, {n.shape}")
    if (n < 1).any() or (k < 0).any() or (k > n).any():
        raise ValueError("need 0 <= correct <= n and n >= 1 in every cell")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1 or not 0 < confidence < 1:
        raise ValueError(f"need n_resamples >= 1 and 0 < confidence < 1, got {n_resamples}, {confidence}")


def _pooled(cells_: pd.DataFrame, by: list, n_resamples: int, confidence: float, seed: int) -> pd.DataFrame:
    g = cells_.groupby(by, sort=False)[["correct", "n"]].sum().reset_index()
    est, lo, hi = proportion_ci(g["correct"], g["n"], n_resamples, confidence, seed)
    return g.assign(accuracy=est, lo=lo, hi=hi)


def by_quarter(cells_: pd.DataFrame, length: int, n_resamples: int = 10_000, confidence: float = 0.95,
               seed: int = 0) -> pd.DataFrame:
    """Accuracy per model x variant x target x disturbants x quarter, seeds pooled, with bootstrap CIs.

    Columns: model, variant, target, disturbants, quarter ("1-16", ...), correct, n, accuracy, lo, hi.
    """
    c = cells_.assign(quarter=quarter_label(cells_["position"].to_numpy(), length))
    return _pooled(c, ["model", "variant", "target", "disturbants", "quarter"], n_resamples, confidence, seed)


def by_position(cells_: pd.DataFrame, n_resamples: int = 10_000, confidence: float = 0.95,
                seed: int = 0) -> pd.DataFrame:
    """Accuracy per model x variant x target x disturbants x position (1-based), seeds pooled, with CIs."""
    return _pooled(cells_, ["model", "variant", "target", "disturbants", "position"], n_resamples, confidence, seed)


def harm(cells_: pd.DataFrame, n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0,
         target: str = "all") -> pd.DataFrame:
    """How much RARE disturbants lower the accuracy, per model x variant (positions pooled).

    ``target``: "all" pools both target groups; "frequent" or "rare" keeps the test sequences whose
    target is of that group, which separates the disturbants' frequency from the target's own.
    Columns: model, variant, target, acc_frequent, acc_rare (accuracy with FREQUENT / RARE disturbants),
    harm = acc_frequent - acc_rare, harm_lo, harm_hi (percentile bootstrap, the two groups resampled
    independently).
    """
    if target not in ("all",) + LABELS:
        raise ValueError(f"target must be 'all', 'frequent' or 'rare', got {target!r}")
    if target != "all":
        cells_ = cells_[cells_["target"] == target]
    rng = np.random.default_rng(seed)
    tail = 100 * (1 - confidence) / 2
    rows = []
    for (model, variant), g in cells_.groupby(["model", "variant"], sort=False):
        s = g.groupby("disturbants")[["correct", "n"]].sum()
        if set(s.index) != set(LABELS):
            raise ValueError(f"{model}/{variant}: need both disturbant groups, got {sorted(s.index)}")
        k, n = s.loc[list(LABELS), "correct"].to_numpy(), s.loc[list(LABELS), "n"].to_numpy()
        _check_counts(k, n, n_resamples, confidence)
        draws = rng.binomial(n[:, None], (k / n)[:, None], size=(2, n_resamples)) / n[:, None]
        lo, hi = np.percentile(draws[0] - draws[1], [tail, 100 - tail])
        rows.append(dict(model=model, variant=variant, target=target, acc_frequent=k[0] / n[0], acc_rare=k[1] / n[1],
                         harm=k[0] / n[0] - k[1] / n[1], harm_lo=lo, harm_hi=hi))
    return pd.DataFrame(rows)


def contrast(harm_: pd.DataFrame) -> pd.DataFrame:
    """Per model: the harm of RARE disturbants to vanilla vs. to PE; ``separated`` when the vanilla
    interval lies wholly above the PE one (RARE disturbants hurt vanilla more, CIs disjoint)."""
    rows = []
    for model, g in harm_.groupby("model", sort=False):
        at = g.set_index("variant")
        if not set(VARIANT_LABELS.values()) <= set(at.index):
            continue
        van, pe = at.loc["vanilla"], at.loc["position-encoded"]
        rows.append(dict(model=model, target=van.get("target", "all"), vanilla_harm=van.harm,
                         vanilla_lo=van.harm_lo, vanilla_hi=van.harm_hi, pe_harm=pe.harm, pe_lo=pe.harm_lo, pe_hi=pe.harm_hi,
                         vanilla_rare=van.acc_rare, pe_rare=pe.acc_rare,
                         separated=bool(van.harm_lo > pe.harm_hi)))
    return pd.DataFrame(rows)


def verdict(contrast_: pd.DataFrame) -> str:
    """'direction reproduced' when RARE disturbants hurt vanilla more than PE with disjoint CIs for every
    model of ``contrast_`` (one target group), 'partly reproduced' for some models, 'not reproduced' for none."""
    if contrast_.empty or not contrast_["separated"].any():
        return "not reproduced"
    return "direction reproduced" if contrast_["separated"].all() else "partly reproduced"


def claims_table(quarter: pd.DataFrame, contrast_: pd.DataFrame) -> pd.DataFrame:
    """The paper's Sec. 4.2 statements beside ours, one row per model.

    Columns: model, paper, vanilla_harm / pe_harm (accuracy lost to RARE disturbants, [95% CI]),
    worst_quarter_vanilla (the quarter of target positions where vanilla is worst with RARE disturbants,
    targets pooled), direction.
    """
    rows = []
    for c in contrast_.itertuples():
        q = quarter[(quarter.model == c.model) & (quarter.variant == "vanilla") & (quarter.disturbants == "rare")]
        q = q.groupby("quarter", sort=False)[["correct", "n"]].sum()
        worst = (q.correct / q.n).idxmin() if len(q) else ""
        rows.append(dict(model=model_name(c.model), paper=PAPER_SAYS.get(c.model, ""),
                         vanilla_harm=f"{c.vanilla_harm:+.3f} [{c.vanilla_lo:+.3f}, {c.vanilla_hi:+.3f}]",
                         pe_harm=f"{c.pe_harm:+.3f} [{c.pe_lo:+.3f}, {c.pe_hi:+.3f}]",
                         worst_quarter_vanilla=worst,
                         direction="vanilla hurt more, CIs disjoint" if c.separated else
                         ("vanilla hurt more, CIs overlap" if c.vanilla_harm > c.pe_harm else "vanilla not hurt more")))
    return pd.DataFrame(rows)


def search_table(path: Optional[Path] = None) -> pd.DataFrame:
    """The regime search behind the ``quick`` preset (``search_log.csv`` beside this module, written by
    ``scripts/search_frequency.py``): one row per configuration and model tried."""
    path = Path(path) if path is not None else SEARCH_LOG
    return pd.read_csv(path, dtype={"seeds": str}, keep_default_na=False)

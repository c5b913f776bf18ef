"""The dual-frequency test grid of Fig. 3: counts per (target, disturbants, position) and per-seed accuracies.

* :func:`cell_counts` / :func:`cells`: correct and scored test sequences per cell of each valid run;
* :func:`per_seed`: each run's (seed's) accuracy per group of cells; :func:`by_quarter` and :func:`by_position`
  summarise the seeds (mean and descriptive bootstrap interval over seeds, with the pooled-sequence interval of
  Fig. 3's caption as the secondary columns ``seq_lo``/``seq_hi``);
* :func:`proportion_ci`: the bootstrap of a proportion, drawn as binomials (the mean of n right/wrong outcomes
  resampled from k right is exactly Binomial(n, k/n) / n).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from penb import claims
from penb import runs
from penb.tasks import IGNORE

LABELS = ("frequent", "rare")
CONDITIONS = tuple((t, d) for t in LABELS for d in LABELS)   # (target, disturbants)


def quarters(length: int) -> list[tuple[int, int]]:
    """The four quarters of target positions, 1-based, inclusive: 64 -> (1, 16), ..., (49, 64)."""
    if isinstance(length, bool) or not isinstance(length, int) or length < 4 or length % 4:
        raise ValueError(f"length must be an int multiple of 4 (four quarters), got {length!r}")
    q = length // 4
    return [(i * q + 1, (i + 1) * q) for i in range(4)]


def quarter_label(position, length: int) -> np.ndarray:
    """Labels "1-16", ... of 1-based ``position`` (int array) at input length ``length``."""
    position = np.asarray(position)
    if position.size and (position.min() < 1 or position.max() > length):
        raise ValueError(f"positions must lie in 1..{length}, got "
                         f"{position.min()}..{position.max()}")
    names = np.array([f"{a}-{b}" if b > a else f"{a}" for a, b in quarters(length)])
    return names[(position - 1) // (length // 4)]


def cell_counts(pred: dict) -> pd.DataFrame:
    """Per (target, disturbants, position) of one run's test grid: ``correct`` and ``n``.

    pred: a run's held-out predictions (``penb.runs.RunResult.predictions()``): ``predictions`` /
    ``targets`` int [n, T] with one scored step per row, ``target_rare``, ``disturbants_rare``,
    ``target_position`` (0-based) int [n]. Positions come out 1-based.
    """
    for k in ("predictions", "targets", "target_rare", "disturbants_rare", "target_position"):
        if k not in pred:
            raise ValueError(f"not a dual-frequency test grid: {k!r} missing "
                             f"(keys: {sorted(pred)})")
    p, t = np.asarray(pred["predictions"]), np.asarray(pred["targets"])
    scored = t != IGNORE
    if p.shape != t.shape or not (scored.sum(1) == 1).all():
        raise ValueError("every test sequence of the grid must have exactly one scored step")
    correct = ((p == t) & scored).sum(1)
    frame = pd.DataFrame({"target": np.array(LABELS)[np.asarray(pred["target_rare"])],
                          "disturbants": np.array(LABELS)[np.asarray(pred["disturbants_rare"])],
                          "position": np.asarray(pred["target_position"]) + 1,
                          "correct": correct})
    g = frame.groupby(["target", "disturbants", "position"])["correct"]
    return g.agg(correct="sum", n="size").reset_index()


def cells(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`cell_counts` of every valid run of ``frame`` (from :func:`run`), with model, vocab,
    encoding, variant, seed. Diverged runs have no predictions and are left out."""
    out = []
    for row in frame[~frame["diverged"].astype(bool)].itertuples():
        counts = cell_counts(runs.RunResult.from_dir(row.path).predictions())
        out.append(counts.assign(model=row.model, vocab=row.vocab, encoding=row.encoding,
                                 variant=row.variant, seed=row.seed))
    cols = ["model", "vocab", "encoding", "variant", "seed", "target", "disturbants",
            "position", "correct", "n"]
    return pd.concat(out, ignore_index=True)[cols] if out else pd.DataFrame(columns=cols)


def proportion_ci(correct, n, n_resamples: int = 10_000, confidence: float = 0.95,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high), each float [m]: percentile bootstrap of k/n for m cells of
    right/wrong outcomes (k right of n > 0 per cell); each resample is Binomial(n, k/n) / n."""
    k = np.atleast_1d(np.asarray(correct, dtype=np.int64))
    n = np.atleast_1d(np.asarray(n, dtype=np.int64))
    _check_counts(k, n, n_resamples, confidence)
    est = k / n
    rng = np.random.default_rng(seed)
    draws = rng.binomial(n[:, None], est[:, None], size=(len(k), n_resamples)) / n[:, None]
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(draws, [tail, 100 - tail], axis=1)
    return est, lo, hi


def _check_counts(k, n, n_resamples, confidence):
    if k.shape != n.shape or k.ndim != 1 or k.size == 0:
        raise ValueError(f"correct and n must be non-empty int arrays of one shape, got "
                         f"{k.shape}, {n.shape}")
    if (n < 1).any() or (k < 0).any() or (k > n).any():
        raise ValueError("need 0 <= correct <= n and n >= 1 in every cell")
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1
            or not 0 < confidence < 1):
        raise ValueError(f"need n_resamples >= 1 and 0 < confidence < 1, got {n_resamples}, "
                         f"{confidence}")


RUN = ["model", "vocab", "variant", "seed"]         # one run: one seed of a model x variant


def per_seed(cells_: pd.DataFrame, by: list) -> pd.DataFrame:
    """Each run's accuracy per group ``by`` of its cells: columns model, vocab, variant, seed,
    *by, correct, n, accuracy (= correct / n: that seed's own accuracy in the group)."""
    g = cells_.groupby(RUN + list(by), sort=False)[["correct", "n"]].sum().reset_index()
    return g.assign(accuracy=g["correct"] / g["n"])


def seed_summary(frame: pd.DataFrame, value: str, by: list,
                 n_resamples: int = 10_000) -> pd.DataFrame:
    """Per group ``by`` of per-seed rows: ``value`` (the mean over seeds), ``lo``, ``hi`` (95%
    bootstrap interval over seeds, ``penb.claims.seed_interval``) and ``seeds`` (how many)."""
    rows = []
    for k, g in frame.groupby(by, sort=False):
        mean, lo, hi = claims.bootstrap_interval(g[value].to_numpy(float), n_resamples=n_resamples)
        rows.append({**dict(zip(by, k)), value: mean, "lo": lo, "hi": hi, "seeds": len(g)})
    return pd.DataFrame(rows, columns=[*by, value, "lo", "hi", "seeds"])


def _by(cells_: pd.DataFrame, by: list, n_resamples: int, seed: int) -> pd.DataFrame:
    keys = ["model", "variant", "target", "disturbants", *by]
    s = seed_summary(per_seed(cells_, keys[2:]), "accuracy", keys, n_resamples)
    pooled = cells_.groupby(keys, sort=False)[["correct", "n"]].sum().reset_index()
    _, seq_lo, seq_hi = proportion_ci(pooled["correct"], pooled["n"], n_resamples, seed=seed)
    return s.merge(pooled.assign(seq_lo=seq_lo, seq_hi=seq_hi), on=keys)


def quarter_cells(cells_: pd.DataFrame, length: int) -> pd.DataFrame:
    """``cells_`` with a ``quarter`` column ("1-16", ...) of each target position."""
    return cells_.assign(quarter=quarter_label(cells_["position"].to_numpy(), length))


def quarter_seeds(cells_: pd.DataFrame, length: int) -> pd.DataFrame:
    """Each seed's accuracy per model x variant x target x disturbants x quarter (the points drawn
    over :func:`by_quarter`'s means): :func:`per_seed` of the quarter cells."""
    return per_seed(quarter_cells(cells_, length), ["target", "disturbants", "quarter"])


def position_seeds(cells_: pd.DataFrame) -> pd.DataFrame:
    """Each seed's accuracy per model x variant x target x disturbants x position."""
    return per_seed(cells_, ["target", "disturbants", "position"])


def by_quarter(cells_: pd.DataFrame, length: int, n_resamples: int = 10_000,
               seed: int = 0) -> pd.DataFrame:
    """Accuracy per model x variant x target x disturbants x quarter of target positions.

    Columns: model, variant, target, disturbants, quarter, accuracy (mean over seeds of each seed's
    accuracy), lo, hi (95% bootstrap interval over seeds), seeds, correct, n (pooled counts),
    seq_lo, seq_hi (secondary: percentile bootstrap over the pooled test sequences).
    """
    return _by(quarter_cells(cells_, length), ["quarter"], n_resamples, seed)


def by_position(cells_: pd.DataFrame, n_resamples: int = 10_000,
                seed: int = 0) -> pd.DataFrame:
    """As :func:`by_quarter`, per target position (1-based) instead of quarter."""
    return _by(cells_, ["position"], n_resamples, seed)


def majority_level(values: pd.DataFrame) -> pd.Series:
    """Per seed (row) of per-condition accuracies ``values`` (one column per condition): the accuracy that more
    than half of the conditions reach, i.e. the (floor(k/2) + 1)-th highest of the k conditions. "More than half
    of the conditions at or above a level" holds for a seed exactly when this is at or above it, so it is the
    per-seed level protocol 4's doubling test reads for the level claims of "most conditions"."""
    k = values.shape[1]
    ranked = -np.sort(-values.to_numpy(float), axis=1)          # each row from highest to lowest
    return pd.Series(ranked[:, k // 2] if k else np.full(len(values), np.nan), index=values.index)

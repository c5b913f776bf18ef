"""Morita's Fig. 2 (Sec. 4.1): vanilla vs. position-encoded GRU, LSTM and S4D.

* ``run_configs(cfg)``: one run config per (core, vocabulary, encoding,
  seed) of a resolved ``key_findings`` config (``.presets``);
* ``run(cfg)``: trains (or reuses from the run store) every one of them;
  ``frame(results)``: one row per run from ``penb.runs.RunResult``s, a diverged
  run included with its step and no metrics (``penb.runs.split_diverged``);
* ``summary(runs)``: one row per (model, vocabulary, variant): the mean over seeds of
  each run's own token accuracy and mean Damerau-Levenshtein distance, with its 95%
  bootstrap interval over seeds (``penb.claims.seed_interval``); valid and diverged
  runs counted; on request, the paper caption's interval over seeds x held-out
  sequences as secondary columns;
* :mod:`~penb.chapters.key_findings.grading` (re-exported here): ``evidence`` and
  ``trend_evidence``, what the registered rules of the chapter's claims read (one number
  per seed, seeds paired); ``grade(runs, cfg)``: every claim of the chapter graded
  through ``penb.claims`` (``claims.not_tested`` where the preset cannot test it);
* ``gaps(runs)``: the paired PE - vanilla gap at every vocabulary (exploratory);
* ``summary_table``, ``run_table``: the page's tables; ``search_table()``: the regime
  search behind the ``quick`` preset.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

import numpy as np
import pandas as pd

from penb import claims, metrics
from penb import runs
from penb import sweeps
from penb.chapters import rnn_common
from penb.chapters.key_findings.claim_evidence import (  # noqa: F401 (re-exported)
    PE, VANILLA, _paired, decline_evidence, evidence, trend_evidence)
from penb.chapters.key_findings.grading import (  # noqa: F401 (re-exported)
    BETTER, DECLINE, TREND, TREND_MIN_VOCABS, UNTESTED)
from penb.chapters.key_findings import grading
from penb.names import model_name, variant_label

if TYPE_CHECKING:      # annotations only: the GPU lease imports this module
                       # without submitit
    from penb.executors import Executor

CHAPTER = "key_findings"
SEARCH_LOG = Path(__file__).with_name("search_log.csv")   # the regime search's table
settings = rnn_common.settings                   # the training settings of one core
provenance_extra = rnn_common.provenance_extra   # L and per-model settings
METRICS = {"accuracy": "token_accuracy", "distance": "mean_distance"}  # summary <- run


def seeds_of(cfg, core: str, vocab: int) -> tuple:
    """The seeds of a cell: the first ``cfg.core_seeds[core]`` of ``cfg.seeds`` (all
    of them when the model has no entry). Every vocabulary of a model is graded (its
    trend and its vanilla decline read them all), so a model's cells share one seed
    count, chosen per model by the power calculation in the presets."""
    return tuple(cfg.seeds[:dict(cfg.core_seeds).get(core, len(cfg.seeds))])


def run_config(cfg, core: str, vocab: int, encoding: str, seed: int) -> dict:
    """The run config of one Fig. 2 run under ``cfg``'s training settings
    (also used by the chapters that share these runs, e.g. ``beyond_rnn``)."""
    return dict(task="reverse", length=cfg.length, betas=tuple(cfg.betas),
                held_out=cfg.held_out, checkpoint_every=cfg.checkpoint_every,
                device=cfg.device, **settings(cfg, core), core=core,
                vocab_size=vocab, encoding=encoding, seed=seed)


def run_configs(cfg) -> list[dict]:
    """One run config per (core, vocabulary, encoding, seed) of ``cfg``."""
    return [run_config(cfg, core, v, e, s)
            for core in cfg.cores for v in cfg[f"{core}_vocab"] for e in cfg.encodings
            for s in seeds_of(cfg, core, v)]


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None,
        progress: bool = True) -> pd.DataFrame:
    """Train or reuse every run of the resolved config ``cfg``; their :func:`frame`."""
    configs = run_configs(cfg)
    todo = rnn_common.all_budgets(configs, cfg)      # N, N/2 (and earlier ones)
    results, _ = sweeps.chapter_sweep(todo, cfg, "Fig. 2 runs", executor, store,
                                      progress)
    return frame(results[:len(configs)])


def grade(frame: pd.DataFrame, cfg, half: Optional[pd.DataFrame] = None,
          quarter: Optional[pd.DataFrame] = None) -> list:
    """:func:`penb.chapters.key_findings.grading.grade` with the runs at half the
    budget (protocol 4) and at a quarter (protocol 6's horizon, where the preset trains
    them): as :func:`half_frame` and :func:`quarter_frame` give them, read from the
    store when not given."""
    return grading.grade(frame, cfg, half_frame(cfg) if half is None else half,
                         quarter_frame(cfg) if quarter is None else quarter)


def quarter_frame(cfg, store: Optional[Path] = None) -> Optional[pd.DataFrame]:
    """The runs of ``cfg`` at a quarter of their updates (``earlier``: protocol 6's
    horizon), from the store, as :func:`frame`; None when the preset trains none."""
    found = rnn_common.load_quarter(run_configs(cfg), cfg, store)
    return frame(found) if found is not None else None


def half_frame(cfg, store: Optional[Path] = None) -> Optional[pd.DataFrame]:
    """The runs of ``cfg`` at half their updates (protocol 4's doubling test), from
    the store, as :func:`frame`; None when the preset trains none or they are
    missing."""
    found = rnn_common.load_half(run_configs(cfg), cfg, store)
    return frame(found) if found is not None else None


def frame(results: Iterable[runs.RunResult]) -> pd.DataFrame:
    """One row per run, in the order of ``results``.

    Columns: model, vocab, encoding, variant, seed, diverged (bool), diverged_at (the
    step at which the loss turned non-finite; NaN for a valid run), token_accuracy,
    sequence_accuracy, mean_distance (the run's own headline metrics; NaN when it
    diverged), wall_s, key, path.
    """
    rows = []
    for o in runs.outcomes(results):
        r, m = o["result"], o["metrics"]
        c = r.config
        rows.append(dict(
            model=c["core"], vocab=int(c["vocab_size"]), encoding=c["encoding"],
            variant=variant_label(c["encoding"]), seed=int(c["seed"]),
            diverged=o["diverged"], diverged_at=o["diverged_at"],
            token_accuracy=m.get("token_accuracy", np.nan),
            sequence_accuracy=m.get("sequence_accuracy", np.nan),
            mean_distance=m.get("mean_distance", np.nan),
            wall_s=r.wall_s, key=r.key, path=str(r.path)))
    return pd.DataFrame(rows)


def per_sequence(path) -> dict[str, np.ndarray]:
    """{"correct", "scored", "distance"}: int [n] per held-out sequence of the valid
    run in folder ``path`` (read through the store: ``penb.runs.RunResult``)."""
    f = runs.RunResult.from_dir(path).predictions()
    pred, target = f["predictions"], f["targets"]
    s = metrics.per_sequence(pred, target)
    return {"correct": s["correct"], "scored": s["scored"],
            "distance": metrics.distances(pred, target)}


def summary(frame: pd.DataFrame, n_resamples: int = 10_000, confidence: float = 0.95,
            seed: int = 0, pooled: bool = False) -> pd.DataFrame:
    """One row per (model, vocab, variant) of ``frame`` (the columns of :func:`frame`).

    Columns: model, vocab, encoding, variant, seeds (valid runs), diverged (runs),
    accuracy, accuracy_lo, accuracy_hi, distance, distance_lo, distance_hi (the mean
    over the valid seeds of each run's own metric, and its percentile bootstrap
    interval over seeds), accuracy_per_seed (tuple, in seed order). ``pooled=True``
    adds the paper caption's intervals over seeds x held-out sequences as secondary
    columns (accuracy_seq_lo/_hi, distance_seq_lo/_hi), from each valid run's
    predictions.
    """
    rows = []
    cells = frame.groupby(["model", "vocab", "encoding"], sort=False)
    for (model, vocab, enc), g in cells:
        g = g.sort_values("seed")
        ok = g[~g["diverged"].astype(bool)]
        row = dict(model=model, vocab=int(vocab), encoding=enc,
                   variant=variant_label(enc), seeds=len(ok),
                   diverged=int(g["diverged"].sum()))
        for name, col in METRICS.items():
            mean, lo, hi = claims.bootstrap_interval(ok[col].to_numpy(float),
                                                     confidence, n_resamples, seed)
            row.update({name: mean, f"{name}_lo": lo, f"{name}_hi": hi})
        row["accuracy_per_seed"] = tuple(round(float(a), 4)
                                         for a in ok["token_accuracy"])
        if pooled:
            row.update(_pooled(ok["path"], n_resamples, confidence, seed))
        rows.append(row)
    return pd.DataFrame(rows)


def _pooled(paths, n_resamples: int, confidence: float, seed: int) -> dict:
    """Intervals over seeds x held-out sequences pooled (the paper's caption)."""
    if len(paths) == 0:
        return dict(accuracy_seq_lo=np.nan, accuracy_seq_hi=np.nan,
                    distance_seq_lo=np.nan, distance_seq_hi=np.nan)
    seqs = [per_sequence(p) for p in paths]
    correct = np.stack([s["correct"] for s in seqs])                 # [seeds, n]
    scored = np.stack([s["scored"] for s in seqs])
    dist = np.stack([s["distance"] for s in seqs])
    opts = dict(n_resamples=n_resamples, confidence=confidence, seed=seed)
    acc = metrics.bootstrap_ci(correct, scored, **opts)
    dl = metrics.bootstrap_ci(dist, **opts)
    return dict(accuracy_seq_lo=acc[1], accuracy_seq_hi=acc[2],
                distance_seq_lo=dl[1], distance_seq_hi=dl[2])


def summary_table(summ: pd.DataFrame) -> pd.DataFrame:
    """:func:`summary` for the page, rounded: the intervals over seeds first, the
    pooled per-sequence ones (when present) as secondary columns."""
    def span(lo, hi, digits):
        return [f"[{a:.{digits}f}, {b:.{digits}f}]" for a, b in zip(lo, hi)]

    s = summ
    out = pd.DataFrame({
        "model": s["model"].map(model_name), "vocab": s["vocab"],
        "variant": s["variant"], "seeds": s["seeds"], "diverged": s["diverged"],
        "accuracy": s["accuracy"].round(4),
        "accuracy 95% (seeds)": span(s.accuracy_lo, s.accuracy_hi, 3),
        "distance": s["distance"].round(3),
        "distance 95% (seeds)": span(s.distance_lo, s.distance_hi, 2)})
    if "accuracy_seq_lo" in s:
        out["accuracy 95% (sequences)"] = span(s.accuracy_seq_lo, s.accuracy_seq_hi, 3)
        out["distance 95% (sequences)"] = span(s.distance_seq_lo, s.distance_seq_hi, 2)
    out["accuracy per seed"] = s["accuracy_per_seed"]
    return out.set_index(["model", "vocab", "variant"])


def gaps(frame: pd.DataFrame, n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Exploratory (graded by no claim): one row per (model, vocab) with seeds
    (paired), gap (mean over seeds of PE minus vanilla token accuracy), gap_lo, gap_hi
    (its bootstrap interval over seeds), pe_ahead (seeds in which PE was ahead)."""
    rows = []
    for (model, vocab), _ in frame.groupby(["model", "vocab"], sort=False):
        wide = _paired(frame, model, int(vocab), "token_accuracy")
        d = (wide[PE] - wide[VANILLA]).to_numpy(float)
        mean, lo, hi = claims.bootstrap_interval(d, n_resamples=n_resamples, seed=seed)
        rows.append(dict(model=model, vocab=int(vocab), seeds=len(d), gap=mean,
                         gap_lo=lo, gap_hi=hi, pe_ahead=int((d > 0).sum())))
    return pd.DataFrame(rows)


def run_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The raw runs for the page: a few columns, rounded; a diverged run shows the
    step at which its loss turned non-finite (``diverged_at``)."""
    out = frame[["model", "vocab", "variant", "seed", "token_accuracy",
                 "mean_distance", "diverged_at", "wall_s"]].copy()
    out["diverged_at"] = out["diverged_at"].map(lambda s: "" if pd.isna(s) else int(s))
    out["model"] = out["model"].map(model_name)
    out = out.round({"token_accuracy": 4, "mean_distance": 3, "wall_s": 1})
    return out.set_index(["model", "vocab", "variant", "seed"])


def search_table(path: Optional[Path] = None) -> pd.DataFrame:
    """The regime search that chose the ``quick`` preset (``search_log.csv`` beside
    this module, written by ``scripts/search_key_findings.py``): one row per
    configuration and vocabulary tried."""
    path = Path(path) if path is not None else SEARCH_LOG
    return pd.read_csv(path, dtype={"seeds": str}, keep_default_na=False)

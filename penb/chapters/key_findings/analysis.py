"""Morita's Fig. 2 (Sec. 4.1): vanilla vs. position-encoded GRU, LSTM and S4D on the reversal task.

``run_configs(cfg)`` lists one ``penb.train`` config per (core, vocabulary, encoding, seed) of a resolved
``key_findings`` config (``penb.chapters.key_findings.presets``); ``run(cfg)`` trains (or reuses from the
run store) every one of them and returns one row per run. ``summary(frame)`` turns those rows into one row
per (model, vocabulary, variant) with 95% bootstrap CIs over seeds x held-out sequences, as in the paper's
caption:

* token accuracy: ratio of sums, correct / scored tokens, resampling whole sequences (pooled over seeds);
* Damerau-Levenshtein distance: mean per-sequence distance, resampled the same way.

``separation(summ)`` compares the two variants at each model's largest vocabulary (the chapter's
verdict), and ``claims_table(summ, cfg)`` puts the paper's statements beside our numbers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims, metrics, runs
from penb.chapters import rnn_common
from penb.executors import Executor
from penb.names import variant_label

SEARCH_LOG = Path(__file__).with_name("search_log.csv")   # the regime search's table (see search_table)
settings = rnn_common.settings                      # the training settings of one core
provenance_extra = rnn_common.provenance_extra      # L and the per-model settings, for stamps and tables


def run_configs(cfg) -> list[dict]:
    """One ``penb.train`` config per (core, vocabulary, encoding, seed) of the resolved preset ``cfg``."""
    common = dict(task="reverse", length=cfg.length, betas=tuple(cfg.betas), held_out=cfg.held_out,
                  checkpoint_every=cfg.checkpoint_every, device=cfg.device, amp=cfg.amp)
    return [dict(common, **settings(cfg, core), core=core, vocab_size=v, encoding=e, seed=s)
            for core in cfg.cores for v in cfg[f"{core}_vocab"] for e in cfg.encodings for s in cfg.seeds]


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None, progress: bool = True) -> pd.DataFrame:
    """Train or reuse every run of the resolved config ``cfg``; one row per run.

    Columns: model, vocab, encoding, variant, seed, token_accuracy, sequence_accuracy, mean_distance,
    wall_s (training time of the run when it was made), key, path (run folder).
    """
    results, _ = runs.chapter_sweep(run_configs(cfg), cfg, "Fig. 2 runs", executor, store, progress)
    rows = []
    for r in results:
        c = r.config
        rows.append(dict(model=c["core"], vocab=c["vocab_size"], encoding=c["encoding"],
                         variant=variant_label(c["encoding"]), seed=c["seed"],
                         token_accuracy=r.metrics["token_accuracy"],
                         sequence_accuracy=r.metrics["sequence_accuracy"],
                         mean_distance=r.metrics["mean_distance"], wall_s=r.wall_s, key=r.key, path=str(r.path)))
    return pd.DataFrame(rows)


def per_sequence(path) -> dict[str, np.ndarray]:
    """{"correct", "scored", "distance"}: int [n] per held-out sequence of the run in folder ``path``
    (read through the store: ``penb.runs.RunResult``)."""
    f = runs.RunResult.from_dir(path).predictions()
    pred, target = f["predictions"], f["targets"]
    s = metrics.per_sequence(pred, target)
    return {"correct": s["correct"], "scored": s["scored"], "distance": metrics.distances(pred, target)}


def summary(frame: pd.DataFrame, n_resamples: int = 10_000, confidence: float = 0.95,
            seed: int = 0) -> pd.DataFrame:
    """One row per (model, vocab, variant): estimates and bootstrap CIs over seeds x sequences.

    ``frame`` has the columns of :func:`run` (``path`` locates each run's predictions). Output columns:
    model, vocab, encoding, variant, seeds, accuracy, accuracy_lo, accuracy_hi, distance, distance_lo,
    distance_hi, accuracy_per_seed (tuple, in seed order).
    """
    rows = []
    for (model, vocab, enc), g in frame.groupby(["model", "vocab", "encoding"], sort=False):
        g = g.sort_values("seed")
        seqs = [per_sequence(p) for p in g["path"]]
        correct = np.stack([s["correct"] for s in seqs])                      # [seeds, n]
        scored = np.stack([s["scored"] for s in seqs])
        dist = np.stack([s["distance"] for s in seqs])
        acc = metrics.bootstrap_ci(correct, scored, n_resamples=n_resamples, confidence=confidence, seed=seed)
        dl = metrics.bootstrap_ci(dist, n_resamples=n_resamples, confidence=confidence, seed=seed)
        rows.append(dict(model=model, vocab=int(vocab), encoding=enc, variant=variant_label(enc),
                         seeds=len(g), accuracy=acc[0], accuracy_lo=acc[1], accuracy_hi=acc[2],
                         distance=dl[0], distance_lo=dl[1], distance_hi=dl[2],
                         accuracy_per_seed=tuple(round(float(a), 4) for a in correct.sum(1) / scored.sum(1))))
    return pd.DataFrame(rows)


def separation(summ: pd.DataFrame, vocab: str = "largest") -> pd.DataFrame:
    """Per model at its largest (or every, ``vocab="all"``) vocabulary: vanilla vs. PE accuracy with CIs.

    ``separated`` is True when the PE interval lies wholly above the vanilla one (no overlap); ``gain``
    is the PE estimate minus the vanilla one; ``pe_ahead_seeds`` counts the seeds whose PE run beats the
    vanilla run of the same seed (seeds paired in sorted order).
    """
    if vocab not in ("largest", "all"):
        raise ValueError(f"vocab must be 'largest' or 'all', got {vocab!r}")
    rows = []
    for model, g in summ.groupby("model", sort=False):
        for v in ([g["vocab"].max()] if vocab == "largest" else sorted(g["vocab"].unique())):
            at = g[g["vocab"] == v].set_index("encoding")
            if not {"none", "sinusoidal"} <= set(at.index):
                continue
            van, pe = at.loc["none"], at.loc["sinusoidal"]
            wins = sum(p > q for p, q in zip(pe.accuracy_per_seed, van.accuracy_per_seed))
            rows.append(dict(model=model, vocab=int(v), seeds=int(min(van.seeds, pe.seeds)),
                             vanilla=van.accuracy, vanilla_lo=van.accuracy_lo, vanilla_hi=van.accuracy_hi,
                             pe=pe.accuracy, pe_lo=pe.accuracy_lo, pe_hi=pe.accuracy_hi,
                             gain=pe.accuracy - van.accuracy, separated=bool(pe.accuracy_lo > van.accuracy_hi),
                             pe_ahead_seeds=int(wins)))
    return pd.DataFrame(rows)


def claims_table(summ: pd.DataFrame, cfg) -> pd.DataFrame:
    """The paper's Fig. 2 statements beside ours: one row per model, at its largest vocabulary here.

    Columns: claim, paper (the published statement or value), vocab (ours), vanilla, pe (token
    accuracy [95% CI]), direction (PE above vanilla with disjoint CIs?).
    """
    sep = separation(summ).set_index("model")
    rows = []
    for model in cfg.cores:
        c = claims.get(f"morita.fig2.{model}")
        paper_v = c.extra.get("vocab")
        paper = (f"PE > {c.value:.0%} for V {paper_v[0]}-{paper_v[-1]}; vanilla degrades" if c.value is not None
                 else "PE helps at large V (no number printed)")
        if model not in sep.index:
            continue
        s = sep.loc[model]
        rows.append(dict(claim=c.key, paper=paper, vocab=int(s.vocab),
                         vanilla=f"{s.vanilla:.3f} [{s.vanilla_lo:.3f}, {s.vanilla_hi:.3f}]",
                         pe=f"{s.pe:.3f} [{s.pe_lo:.3f}, {s.pe_hi:.3f}]",
                         pe_above_95=("yes" if s.pe_lo > 0.95 else "no") if c.value is not None else "n/a",
                         direction="PE higher, CIs disjoint" if s.separated else
                         ("PE higher, CIs overlap" if s.gain > 0 else "PE not higher")))
    return pd.DataFrame(rows)


def verdict(summ: pd.DataFrame) -> str:
    """'reproduced' (PE above vanilla with disjoint CIs at every model's largest vocabulary and above
    95%), 'direction only' (disjoint CIs everywhere, lower accuracies), or 'not reproduced'."""
    sep = separation(summ)
    if sep.empty or not sep["separated"].all():
        return "not reproduced"
    return "reproduced" if (sep["pe_lo"] > 0.95).all() else "direction only"


def search_table(path: Optional[Path] = None) -> pd.DataFrame:
    """The regime search that chose the ``quick`` preset (``search_log.csv`` beside this module, written by
    ``scripts/search_key_findings.py``): one row per configuration and vocabulary tried."""
    path = Path(path) if path is not None else SEARCH_LOG
    return pd.read_csv(path, dtype={"seeds": str}, keep_default_na=False)

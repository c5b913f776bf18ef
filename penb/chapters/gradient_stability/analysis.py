"""Morita's Fig. 5 (Sec. 4.3): gradient stability over training, from the dual-frequency runs of Fig. 3.

The runs (:func:`run_configs`, :func:`run`) are those of the chapter "Frequency matters"
(``penb.chapters.frequency.analysis``): the same training keys give the same run keys, so nothing is
retrained. For every run and kept checkpoint, :func:`curves` scores ``pairs`` pairs of sequences
(``similarity.make_pairs``: a shared target, different disturbants, four target x disturbant cells) with
every similarity reading of ``similarity.METHODS`` at once (the Jacobians dominate the cost), and caches
the table in the run's folder (``<run>/stability/<hash of the scoring options>.csv``), so a rerun only
reads it; runs are read through the run store (``penb.runs.RunResult``).

Diverged runs (``diverged`` in the frame of :func:`run`) have no valid model and are not scored; they are
counted. The seed is the unit: each run's similarity in a cell is the mean over its pairs, and
:func:`summarize` gives the mean over seeds with a 95% bootstrap interval over seeds (the paper's caption
averages pairs x seeds; that mean is the same when every seed has the same pairs). :func:`seed_scores`
takes each run at its last checkpoint (targets pooled), with FREQUENT and with RARE disturbants; the claims
``morita.fig5.gru`` / ``.lstm`` (and ``morita.fig5.pe_stays.*``) read the same scores averaged over every
checkpoint (``grading.course_scores``), which ``grading.grade_claims`` grades through ``penb.claims``; :func:`readings` lists every reading side by side, and :func:`readings_check` shows on a
trained model's Jacobians how the readings of Eq. 3-4 differ.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
import torch

from penb import claims
from penb.device import resolve_device
from penb.store import atomic, identity
from penb import runs
from penb.chapters import frequency, rnn_common
from penb.chapters.gradient_stability import sec4_3, similarity  # noqa: F401 (sec4_3: the S4D half of Sec. 4.3)
from penb.executors import Executor, LocalExecutor, ProcessExecutor
from penb.names import model_name, variant_label

from penb.chapters.gradient_stability.grading import (CLAIMS, PE, S4D_CLAIM, STAYS, VANILLA,  # noqa: F401
                                                     course_scores, evidence, grade_claims, stays_evidence)
from penb.tasks import make_task
from penb.trainer import load_model


def run_configs(cfg) -> list[dict]:
    """One training config per (core, encoding, seed): exactly the frequency chapter's
    (``penb.chapters.frequency.analysis.run_configs``), so both chapters share their runs."""
    return frequency.analysis.run_configs(cfg)


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None,
        progress: bool = True) -> pd.DataFrame:
    """Train or reuse every run of :func:`run_configs` (``penb.chapters.frequency.analysis.run``, so the
    runs of "Frequency matters" at the same settings are reused). One row per run: model, vocab, encoding,
    variant, seed, diverged, diverged_at, token_accuracy, wall_s, key, path (run folder); the frame
    :func:`curves` scores (its valid runs)."""
    return frequency.analysis.run(cfg, executor=executor, store=store, progress=progress)


def target_position(cfg, core: str) -> int:
    """0-based target step of the pairs: 0 for GRU/LSTM; for the S4D ``cfg.s4d_target - 1`` (1-based t in
    the config), or, when that is None, the paper's t = 23 of 64 scaled to ``cfg.length``."""
    if core != "s4d":
        return 0
    if cfg.s4d_target is None:
        return similarity.default_target_position(core, cfg.length)
    return cfg.s4d_target - 1


def options(cfg, core: str) -> dict:
    """The scoring options of one core's runs (everything the cached table depends on besides the run)."""
    # pairs per Jacobian batch: the S4D's Jacobian is [H, H*N] per sequence (N = 64 state numbers per
    # channel), so at H = 512 a batch of 8 pairs already holds 1 GiB
    hidden = rnn_common.settings(cfg, core)["hidden"]
    chunk = 64 if core != "s4d" else max(1, min(64, 2**30 // (2 * 4 * 64 * hidden ** 2)))
    return dict(n_pairs=cfg.pairs, seed=cfg.pair_seed, method=list(similarity.METHODS),
                target_position=target_position(cfg, core), engine=cfg.engine, lstm_output=cfg.lstm_output,
                s4d_output=cfg.s4d_output, chunk=chunk)


def cache_path(path: Path, opts: dict) -> Path:
    """The cached score table of a run folder for scoring options ``opts``; the key holds the store
    version too (``penb.store.identity``), so scores of older code are never reused."""
    blob = json.dumps({**opts, "store_version": identity.STORE_VERSION}, sort_keys=True)
    return Path(path) / "stability" / f"{hashlib.sha256(blob.encode()).hexdigest()[:16]}.csv"


def _job(item: tuple) -> str:
    """Executor job: score one run at all its checkpoints on ``device`` (or read the cached table); return
    the CSV path. The cache key holds the scoring options, not the device."""
    path, opts, device, progress = item
    out = cache_path(path, opts)
    if not out.exists():
        result = runs.RunResult.from_dir(path)
        frame = similarity.stability_over_training(result, progress=progress, device=device, **opts)
        atomic.atomic_write(out, lambda tmp: frame.to_csv(tmp, index=False))
    return str(out)


def curves(cfg, frame: pd.DataFrame, executor: Optional[Executor] = None, progress: bool = True) -> pd.DataFrame:
    """Similarity per run x checkpoint x method x condition for every valid run of ``frame``
    (:func:`run`; diverged runs are left out).

    Columns: step, core, encoding, seed, method, target, disturbants, similarity (mean over the pairs of the
    cell), sd, n, plus variant.
    """
    device = str(resolve_device(cfg.device))
    frame = frame[~frame["diverged"].astype(bool)] if "diverged" in frame else frame
    items = [(row.path, options(cfg, row.model), device, False) for row in frame.itertuples()]
    if not items:                                               # every run diverged
        return pd.DataFrame(columns=["step", "core", "encoding", "seed", "method", "target",
                                     "disturbants", "similarity", "sd", "n", "variant"])
    cached = sum(cache_path(p, o).exists() for p, o, _, _ in items)
    print(f"{len(items)} runs to score: {cached} found scored, {len(items) - cached} to score")
    if executor is None:
        parallel = cfg.workers > 1 and device == "cpu" and len(items) - cached > 1
        executor = ProcessExecutor(cfg.workers, 1, desc="Fig. 5 scores") if parallel else LocalExecutor()
    if isinstance(executor, LocalExecutor):
        items = [(p, o, d, progress) for p, o, d, _ in items]
    out = pd.concat([pd.read_csv(p) for p in executor.map(_job, items)], ignore_index=True)
    return out.assign(variant=out["encoding"].map(variant_label))


def summarize(curves_: pd.DataFrame, method: str = "weighted_rows",
              n_resamples: int = 10_000) -> pd.DataFrame:
    """Seed-level summary of one reading (``method``): per core x variant x step x target x
    disturbants, ``similarity`` (the mean over seeds of each seed's mean over its pairs), ``lo``,
    ``hi`` (95% bootstrap interval over seeds, ``penb.claims.seed_interval``), ``seeds``, and
    ``pairs`` (pairs per seed x seeds)."""
    if method not in similarity.METHODS:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(similarity.METHODS)}")
    keys = ["core", "variant", "step", "target", "disturbants"]
    c = curves_[curves_["method"] == method]
    rows = []
    for k, g in c.groupby(keys, sort=False):
        mean, lo, hi = claims.bootstrap_interval(g["similarity"].to_numpy(float),
                                            n_resamples=n_resamples)
        rows.append(dict(zip(keys, k), method=method, similarity=mean, lo=lo, hi=hi,
                         seeds=g["seed"].nunique(), pairs=int(g["n"].sum())))
    cols = [*keys, "method", "similarity", "lo", "hi", "seeds", "pairs"]
    return pd.DataFrame(rows, columns=cols)


def readings(curves_: pd.DataFrame) -> pd.DataFrame:
    """Every reading at each run's last checkpoint, mean over seeds (each seed's mean over its
    pairs): rows core x variant x target x disturbants, one column per method."""
    last = curves_[curves_["step"] == curves_.groupby(["core", "encoding", "seed"])["step"]
                   .transform("max")]
    out = last.pivot_table(index=["core", "variant", "target", "disturbants"],
                           columns="method", values="similarity", sort=False)
    return out[[m for m in similarity.METHODS if m in out.columns]]


def seed_scores(curves_: pd.DataFrame, method: str = "weighted_rows") -> pd.DataFrame:
    """Per run (core x variant x seed) at its last checkpoint, targets pooled (pairs weighted):
    ``frequent`` and ``rare`` (the similarity with FREQUENT / RARE disturbants) and ``drop`` =
    frequent - rare. Columns: core, variant, seed, step, frequent, rare, drop."""
    if method not in similarity.METHODS:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(similarity.METHODS)}")
    c = curves_[curves_["method"] == method]
    rows = []
    for (core, variant, seed), g in c.groupby(["core", "variant", "seed"], sort=False):
        at = g[g["step"] == g["step"].max()]
        v = {}
        for d in ("frequent", "rare"):
            h = at[at["disturbants"] == d]
            v[d] = float((h["n"] * h["similarity"]).sum() / h["n"].sum())
        rows.append(dict(core=core, variant=variant, seed=seed, step=int(at["step"].iloc[0]),
                         frequent=v["frequent"], rare=v["rare"],
                         drop=v["frequent"] - v["rare"]))
    cols = ["core", "variant", "seed", "step", "frequent", "rare", "drop"]
    return pd.DataFrame(rows, columns=cols)


def score_summary(scores: pd.DataFrame, n_resamples: int = 10_000) -> pd.DataFrame:
    """Per core x variant, from :func:`seed_scores`: for ``frequent``, ``rare`` and ``drop`` the
    mean over seeds and its 95% bootstrap interval over seeds (``<name>_lo``, ``<name>_hi``)."""
    rows = []
    for (core, variant), g in scores.groupby(["core", "variant"], sort=False):
        row = dict(core=core, variant=variant, step=int(g["step"].max()), seeds=len(g))
        for name in ("frequent", "rare", "drop"):
            m, lo, hi = claims.bootstrap_interval(g[name].to_numpy(float), n_resamples=n_resamples)
            row.update({name: m, f"{name}_lo": lo, f"{name}_hi": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def score_table(summary: pd.DataFrame, names=("frequent", "rare")) -> pd.DataFrame:
    """:func:`score_summary` for the page: per model x variant, each of ``names`` as 'mean [95%
    interval over seeds]', with the step and the number of seeds."""
    rows = []
    for r in summary.itertuples():
        row = {"model": model_name(r.core), "variant": r.variant, "step": r.step, "seeds": r.seeds}
        for n in names:
            row[n] = f"{getattr(r, n):+.3f} [{getattr(r, n + '_lo'):+.3f}, {getattr(r, n + '_hi'):+.3f}]"
        rows.append(row)
    return pd.DataFrame(rows).set_index(["model", "variant"])


def readings_check(path, cfg, n: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The readings on a trained model's Jacobians (the run in folder ``path``, last checkpoint).

    Returns (identity, pairs):

    * identity: per method, the score of J against J, 2J and -J for the first sequence's Jacobian J
      (rescaled by a power of two so that its largest entry lies in [0.5, 1)), and for ``printed`` the closed
      form sum_i |g_i|^4 / (sum_k |g_k|)^2 and the printed coefficients applied to unit rows, sum_i a_i^2
      (between 1/D_out and 1);
    * pairs: for ``n`` pairs, every scale-free reading, and sum_i alpha_i beta_i (the L2 row-norm profiles' cosine),
      with weighted_rows x sum alpha beta, which equals frobenius.
    """
    result = runs.RunResult.from_dir(path)
    core = result.config["core"]
    task_cfg = result.config
    task = make_task(task_cfg["task"], task_cfg["vocab_size"], task_cfg["length"], **task_cfg["task_options"])
    pos = target_position(cfg, core)
    pairs = similarity.make_pairs(task, 4 * n, torch.Generator().manual_seed(cfg.pair_seed), pos)
    pick = torch.arange(0, 4 * n, 4)[:n]                                # spread over the four cells
    model = load_model(result, device="cpu")
    both = torch.cat([pairs.a.inputs[pick], pairs.b.inputs[pick]])
    J, _ = similarity.scaled_latent_jacobians(model, both, pos, engine=cfg.engine, lstm_output=cfg.lstm_output,
                                              s4d_output=cfg.s4d_output)
    J = J.double()
    J_a, J_b = J[:n], J[n:]
    A = J_a[0]
    A = torch.ldexp(A, -torch.frexp(A.abs().max()).exponent.to(A.dtype))     # largest entry in [0.5, 1)
    norms = torch.linalg.vector_norm(A, dim=1)
    ident = []
    for m in similarity.METHODS:
        ident.append(dict(method=m, J_vs_J=similarity.similarity(A, A, m),
                          J_vs_2J=similarity.similarity(A, 2 * A, m),
                          J_vs_minus_J=similarity.similarity(A, -A, m),
                          closed_form=float((norms ** 4).sum() / norms.sum() ** 2) if m == "printed" else np.nan,
                          unit_rows=float(((norms / norms.sum()) ** 2).sum()) if m == "printed" else np.nan))
    na, nb = torch.linalg.vector_norm(J_a, dim=-1), torch.linalg.vector_norm(J_b, dim=-1)
    alpha_beta = (na * nb).sum(-1) / (na.square().sum(-1).sqrt() * nb.square().sum(-1).sqrt())
    sims = {m: similarity.similarity_batch(J_a, J_b, m) for m in similarity.METHODS if m != "printed"}
    target, disturbants = pairs.conditions()
    rows = pd.DataFrame({"target": [target[i] for i in pick.tolist()],
                         "disturbants": [disturbants[i] for i in pick.tolist()],
                         **{m: v.numpy() for m, v in sims.items()}, "sum_alpha_beta": alpha_beta.numpy()})
    rows["weighted_rows_x_sum_alpha_beta"] = rows["weighted_rows"] * rows["sum_alpha_beta"]
    return pd.DataFrame(ident), rows

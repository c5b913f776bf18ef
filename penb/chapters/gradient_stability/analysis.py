"""Morita's Fig. 5 (Sec. 4.3): gradient stability over training, from the dual-frequency runs of Fig. 3.

The runs (:func:`run_configs`, :func:`run`) are those of the chapter "Frequency matters"
(``penb.chapters.frequency.analysis``): the same training keys give the same run keys, so nothing is
retrained. For every run and kept checkpoint, :func:`curves` scores ``pairs`` pairs of sequences
(``similarity.make_pairs``: a shared target, different disturbants, four target x disturbant cells) with
every similarity reading of ``similarity.METHODS`` at once (the Jacobians dominate the cost), and caches
the table in the run's folder (``<run>/stability/<hash of the scoring options>.csv``), so a rerun only
reads it; runs are read through the run store (``penb.runs.RunResult``).

:func:`summarize` pools the seeds (mean over pairs x seeds, as the paper's caption), :func:`drops` measures
how much RARE disturbants lower the similarity at the last checkpoint, and :func:`readings_check` shows on a
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

from penb import atomic, runs
from penb.chapters import frequency, rnn_common
from penb.chapters.gradient_stability import similarity
from penb.executors import Executor, LocalExecutor, ProcessExecutor
from penb.names import VARIANT_LABELS, model_name, variant_label

PAPER_SAYS = {          # Sec. 4.3 / Fig. 5, in our words
    "gru": "vanilla: with RARE disturbants the similarity falls gradually over training; PE: stays high in "
           "every condition",
    "lstm": "vanilla: with RARE disturbants the similarity falls rapidly; PE: stays high in every condition",
    "s4d": "target at t = 23 of 64 (where vanilla was worst); both variants' scores are in Fig. 5 (the text "
           "draws no conclusion for the S4D)",
}


def run_configs(cfg) -> list[dict]:
    """One training config per (core, encoding, seed): exactly the frequency chapter's
    (``penb.chapters.frequency.analysis.run_configs``), so both chapters share their runs."""
    return frequency.analysis.run_configs(cfg)


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None,
        progress: bool = True) -> pd.DataFrame:
    """Train or reuse every run of :func:`run_configs` (``penb.chapters.frequency.analysis.run``, so the
    runs of "Frequency matters" at the same settings are reused). One row per run: model, vocab, encoding,
    variant, seed, token_accuracy, wall_s, key, path (run folder); the frame :func:`curves` scores."""
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
    blob = json.dumps(opts, sort_keys=True)
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
    """Similarity per run x checkpoint x method x condition for every run of ``frame`` (:func:`run`).

    Columns: step, core, encoding, seed, method, target, disturbants, similarity (mean over the pairs of the
    cell), sd, n, plus variant.
    """
    from penb.device import resolve_device

    device = str(resolve_device(cfg.device))
    items = [(row.path, options(cfg, row.model), device, False) for row in frame.itertuples()]
    cached = sum(cache_path(p, o).exists() for p, o, _, _ in items)
    print(f"{len(items)} runs to score: {cached} found scored, {len(items) - cached} to score")
    if executor is None:
        parallel = cfg.workers > 1 and device == "cpu" and len(items) - cached > 1
        executor = ProcessExecutor(cfg.workers, 1, desc="Fig. 5 scores") if parallel else LocalExecutor()
    if isinstance(executor, LocalExecutor):
        items = [(p, o, d, progress) for p, o, d, _ in items]
    out = pd.concat([pd.read_csv(p) for p in executor.map(_job, items)], ignore_index=True)
    return out.assign(variant=out["encoding"].map(variant_label))


def summarize(curves_: pd.DataFrame, z: float = 1.96) -> pd.DataFrame:
    """Seeds pooled: one row per core x variant x method x step x target x disturbants.

    similarity: mean over all pairs of all seeds; ci: z x its standard error (normal approximation over the
    pairs, from the per-seed means, SDs and counts); n: pairs x seeds.
    """
    keys = ["core", "variant", "method", "step", "target", "disturbants"]
    c = curves_.assign(sd=curves_["sd"].fillna(0.0))
    rows = []
    for k, g in c.groupby(keys, sort=False):
        n = g["n"].to_numpy(float)
        m = g["similarity"].to_numpy(float)
        N, M = n.sum(), float((n * m).sum() / n.sum())
        ss = ((n - 1) * g["sd"].to_numpy(float) ** 2 + n * (m - M) ** 2).sum()
        se = np.sqrt(ss / max(N - 1, 1) / N)
        rows.append(dict(zip(keys, k), similarity=M, ci=z * se, n=int(N), seeds=len(g)))
    return pd.DataFrame(rows)


def drops(summary: pd.DataFrame, method: str = "weighted_rows", step: Optional[int] = None,
          z: float = 1.96) -> pd.DataFrame:
    """How much RARE disturbants lower the similarity, per core x variant at ``step`` (default: the last).

    Targets pooled. Columns: core, variant, step, frequent, rare (mean similarity with FREQUENT / RARE
    disturbants), drop = frequent - rare, drop_lo, drop_hi (normal approximation, z x standard error).
    """
    if method not in similarity.METHODS:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(similarity.METHODS)}")
    s = summary[summary["method"] == method]
    rows = []
    for (core, variant), g in s.groupby(["core", "variant"], sort=False):
        at = g[g["step"] == (g["step"].max() if step is None else step)]
        if at.empty:
            raise ValueError(f"{core}/{variant}: no scores at step {step}")
        means, var = {}, {}
        for d in ("frequent", "rare"):
            h = at[at["disturbants"] == d]
            n = h["n"].to_numpy(float)
            means[d] = float((n * h["similarity"]).sum() / n.sum())
            var[d] = float(((h["ci"] / z) ** 2 * n ** 2).sum() / n.sum() ** 2)        # se^2 of the pooled mean
        drop, half = means["frequent"] - means["rare"], z * np.sqrt(var["frequent"] + var["rare"])
        rows.append(dict(core=core, variant=variant, step=int(at["step"].iloc[0]), frequent=means["frequent"],
                         rare=means["rare"], drop=drop, drop_lo=drop - half, drop_hi=drop + half))
    return pd.DataFrame(rows)


def claims_table(drops_: pd.DataFrame) -> pd.DataFrame:
    """The paper's description beside ours: per model, the drop caused by RARE disturbants at the last
    checkpoint for vanilla and PE, and whether vanilla drops more with disjoint intervals."""
    rows = []
    for core, g in drops_.groupby("core", sort=False):
        at = g.set_index("variant")
        if not set(VARIANT_LABELS.values()) <= set(at.index):
            continue
        van, pe = at.loc["vanilla"], at.loc["position-encoded"]
        sep = bool(van['drop_lo'] > pe['drop_hi'])
        rows.append(dict(model=model_name(core), paper=PAPER_SAYS.get(core, ""), step=int(van.step),
                         vanilla=f"{van.frequent:.3f} -> {van.rare:.3f} (drop {van['drop']:+.3f} "
                                 f"[{van['drop_lo']:+.3f}, {van['drop_hi']:+.3f}])",
                         pe=f"{pe.frequent:.3f} -> {pe.rare:.3f} (drop {pe['drop']:+.3f} [{pe['drop_lo']:+.3f}, {pe['drop_hi']:+.3f}])",
                         direction="vanilla drops more, CIs disjoint" if sep else
                         ("vanilla drops more, CIs overlap" if van['drop'] > pe['drop'] else "vanilla does not drop more"),
                         separated=sep))
    return pd.DataFrame(rows)


def verdict(table: pd.DataFrame) -> str:
    """'direction reproduced' when vanilla drops more than PE with disjoint CIs for the GRU and the LSTM
    present, 'partly reproduced' for one of them, else 'not reproduced'."""
    rnn = table[table["model"].isin(["GRU", "LSTM"])]
    if rnn.empty or not rnn["separated"].any():
        return "not reproduced"
    return "direction reproduced" if rnn["separated"].all() else "partly reproduced"


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
    from penb.tasks import make_task

    task = make_task(task_cfg["task"], task_cfg["vocab_size"], task_cfg["length"], **task_cfg["task_options"])
    pos = target_position(cfg, core)
    pairs = similarity.make_pairs(task, 4 * n, torch.Generator().manual_seed(cfg.pair_seed), pos)
    pick = torch.arange(0, 4 * n, 4)[:n]                                # spread over the four cells
    model = result.load_model(device="cpu")
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

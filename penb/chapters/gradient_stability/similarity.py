"""Gradient stability (Morita, Sec. 4.3, Eq. 3-4, Fig. 4-5): how alike the latent-to-latent Jacobians of
two sequences that share a target token but differ in their disturbants are.

**Similarity of two Jacobians** J_A, J_B [D_out, D_in] with rows g_i, h_i (the gradient of output i) and
row cosines c_i = <g_i, h_i> / (|g_i| |h_i|). ``METHODS`` (keys of :func:`similarity`):

    weighted_rows  sum_i <g_i, h_i> / sum_i |g_i||h_i|         (default; the official code's weighted mean)
    frobenius      sum_i <g_i, h_i> / (|J_A|_F |J_B|_F)       (cosine of the flattened matrices)
    mean_rows      mean_i c_i                                  (unweighted mean; also in the official code)
    printed        sum_i a_i b_i <g_i, h_i>, a_i = |g_i| / sum_k |g_k|   (Eq. 3-4 as printed)

Algebra. With the printed coefficients a_i = |g_i| / sum_k |g_k| (b_i likewise), Eq. 3 applied to the raw
rows is  S = sum_i |g_i|^2 |h_i|^2 c_i / (sum_k |g_k| sum_k |h_k|):  it grows as s^2 when both Jacobians are
scaled by s, and for J_A = J_B it equals sum_i |g_i|^4 / (sum_k |g_k|)^2, not 1. Applied to unit rows
g_i / |g_i| it gives sum_i a_i b_i c_i, which for J_A = J_B is sum_i a_i^2 in [1/D_out, 1] (1 only with a
single non-zero row). Two repairs score a perfect alignment 1:

* weighted mean: divide by the weights' sum,  sum_i a_i b_i c_i / sum_i a_i b_i = sum_i <g_i, h_i> / sum_i |g_i||h_i|
  (``weighted_rows``; the printed a_i or any a_i proportional to |g_i| give the same value);
* L2 coefficients: alpha_i = |g_i| / sqrt(sum_k |g_k|^2) (sum_i alpha_i^2 = 1) in Eq. 3 on unit rows gives
  sum_i alpha_i beta_i c_i = sum_i <g_i, h_i> / (|J_A|_F |J_B|_F) (``frobenius``).

So  weighted_rows = frobenius / sum_i alpha_i beta_i,  and  0 < sum_i alpha_i beta_i <= 1  (Cauchy-Schwarz):
|weighted_rows| >= |frobenius|, equal when the row-norm profiles are proportional (|h_i| = s |g_i|). Both
are symmetric, 1 for a positively scaled copy and -1 for a negated one. A zero denominator scores 0 (as the
official code's masking does).

**Jacobians**: :mod:`penb.chapters.gradient_stability.jacobians` (d out_end / d z_start through the trained
weights; re-exported here).

**Pairs** (:func:`make_pairs`): the dual-frequency task's tokens; each pair shares the target token at
``target_position`` and the disturbants before it (the S4D's shared prefix, Fig. 5) and draws the later
disturbants independently, all FREQUENT or all RARE; the four target x disturbant cells in equal numbers.
The paper's target sits at t = 1 for the RNNs and at t = 23 (0-based 22) of 64 for the S4D.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence, Union

import pandas as pd
import torch
from tqdm.auto import tqdm

from penb.chapters.gradient_stability.jacobians import (  # noqa: F401 (CORES, latent_jacobians re-exported)
    CORES, ENGINES, LSTM_OUTPUTS, MODES, S4D_OUTPUTS, latent_jacobians, scaled_latent_jacobians)
from penb.tasks import Batch, Task, make_task
from penb.trainer import load_model

METHODS = ("weighted_rows", "frobenius", "mean_rows", "printed")
LABELS = ("frequent", "rare")
S4D_TARGET_POSITION = 22        # t = 23 of L = 64 (Sec. 4.3)


# -- similarity --------------------------------------------------------------------------------------
def _methods(method: Union[str, Sequence[str]]) -> tuple:
    names = (method,) if isinstance(method, str) else tuple(method)
    bad = [m for m in names if m not in METHODS]
    if bad or not names:
        raise ValueError(f"unknown similarity method(s) {bad or names!r}; valid: {', '.join(METHODS)}")
    return names


def _ratio(num: torch.Tensor, den: torch.Tensor) -> torch.Tensor:
    return torch.where(den > 0, num / den.masked_fill(den == 0, 1), torch.zeros_like(num))


def similarity_batch(J_a: torch.Tensor, J_b: torch.Tensor, method: str = "weighted_rows") -> torch.Tensor:
    """Similarity of each pair: J_a, J_b Tensor[P, D_out, D_in] -> float64 Tensor[P] (see module docstring)."""
    (method,) = _methods(method)
    if J_a.shape != J_b.shape or J_a.dim() != 3:
        raise ValueError(f"need two Jacobian batches of one shape [P, D_out, D_in], got {tuple(J_a.shape)} "
                         f"and {tuple(J_b.shape)}")
    dots = (J_a.unsqueeze(-2) @ J_b.unsqueeze(-1))[..., 0, 0].double()          # [P, D_out]
    na = torch.linalg.vector_norm(J_a, dim=-1).double()                          # [P, D_out]
    nb = torch.linalg.vector_norm(J_b, dim=-1).double()
    if method == "weighted_rows":
        return _ratio(dots.sum(-1), (na * nb).sum(-1))
    if method == "frobenius":
        return _ratio(dots.sum(-1), na.square().sum(-1).sqrt() * nb.square().sum(-1).sqrt())
    if method == "mean_rows":
        return _ratio(dots, na * nb).mean(-1)
    a = _ratio(na, na.sum(-1, keepdim=True))                                     # printed Eq. 4
    b = _ratio(nb, nb.sum(-1, keepdim=True))
    return (a * b * dots).sum(-1)


def similarity(jac_a: torch.Tensor, jac_b: torch.Tensor, method: str = "weighted_rows") -> float:
    """Similarity of two Jacobians Tensor[D_out, D_in] (``method``: a key of ``METHODS``)."""
    if jac_a.dim() != 2:
        raise ValueError(f"need Jacobians [D_out, D_in], got shape {tuple(jac_a.shape)}")
    return float(similarity_batch(jac_a[None], jac_b[None], method)[0])


# -- pairs ----------------------------------------------------------------------------------------------
@dataclass
class Pairs:
    """Two batches whose row p forms pair p; ``a.info``/``b.info`` hold ``target_rare``,
    ``disturbants_rare`` (0/1, LongTensor[P]) and ``target_position`` (LongTensor[P], 0-based)."""

    a: Batch
    b: Batch

    def __len__(self) -> int:
        return len(self.a)

    @property
    def target_position(self) -> int:
        return int(self.a.info["target_position"][0])

    def conditions(self) -> tuple[list, list]:
        """(target labels, disturbant labels), "frequent"/"rare" per pair."""
        return ([LABELS[int(v)] for v in self.a.info["target_rare"]],
                [LABELS[int(v)] for v in self.a.info["disturbants_rare"]])


def default_target_position(core: str, length: int) -> int:
    """The paper's target step: 0 for GRU/LSTM; for the S4D 22 of 64 (t = 23), scaled to ``length``."""
    return 0 if core != "s4d" else min(length - 1, round(S4D_TARGET_POSITION * length / 64))


def make_pairs(task: Task, n_pairs: int, generator: torch.Generator, target_position: int = 0) -> Pairs:
    """``n_pairs`` pairs (n_pairs/4 per target x disturbant cell, cells in the order FF, FR, RF, RR)."""
    if not (hasattr(task, "frequent") and hasattr(task, "rare")):
        raise ValueError(f"make_pairs needs the dual_frequency task, got {type(task).__name__}")
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, int) or n_pairs < 4 or n_pairs % 4:
        raise ValueError(f"n_pairs must be a positive multiple of 4 (four cells), got {n_pairs!r}")
    L = task.length
    if isinstance(target_position, bool) or not isinstance(target_position, int) or not 0 <= target_position < L - 1:
        raise ValueError(f"target_position must be an int in [0, {L - 2}] (disturbants must follow), "
                         f"got {target_position!r}")
    half, dev, m = task.vocab_size // 2, generator.device, n_pairs // 4
    cells = torch.tensor([[0, 0], [0, 1], [1, 0], [1, 1]], device=dev).repeat_interleave(m, 0)
    tr, dr = cells.unbind(1)
    target = torch.randint(half, (n_pairs,), generator=generator, device=dev) + tr * half
    raw = [torch.randint(half, (n_pairs, L), generator=generator, device=dev) + dr[:, None] * half
           for _ in range(2)]
    raw[1][:, :target_position] = raw[0][:, :target_position]              # shared prefix
    for r in raw:
        r[:, target_position] = target
    spec = torch.stack([tr, dr, torch.full_like(tr, target_position)], 1)
    return Pairs(task.render(raw[0], spec), task.render(raw[1], spec))


# -- over checkpoints -----------------------------------------------------------------------------------
_OPTIONS = {"engine": ENGINES, "mode": MODES, "lstm_output": LSTM_OUTPUTS, "s4d_output": S4D_OUTPUTS}


def _check_options(options: dict) -> None:
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise ValueError(f"unknown Jacobian option(s) {sorted(unknown)}; valid: {sorted(_OPTIONS)}")
    for k, v in options.items():
        if v not in _OPTIONS[k]:
            raise ValueError(f"unknown {k} {v!r}; valid: {', '.join(_OPTIONS[k])}")


def pair_similarities(model, pairs: Pairs, method: Union[str, Sequence[str]] = "weighted_rows",
                      chunk: int = 64, **options) -> dict:
    """{method: float64 Tensor[P]} for every pair; Jacobians are made ``chunk`` pairs at a time.

    ``options``: ``engine``, ``mode``, ``lstm_output``, ``s4d_output`` of :func:`latent_jacobians`.
    """
    methods = _methods(method)
    _check_options(options)
    start, out = pairs.target_position, {m: [] for m in methods}
    device = next(model.parameters()).device
    for i in range(0, len(pairs), chunk):
        both = torch.cat([pairs.a.inputs[i:i + chunk], pairs.b.inputs[i:i + chunk]]).to(device)
        J, e = scaled_latent_jacobians(model, both, start, chunk=2 * chunk, **options)
        (J_a, J_b), (e_a, e_b) = J.split(J.shape[0] // 2), e.double().split(J.shape[0] // 2)
        for m in methods:                  # only the printed reading is not invariant to positive scales
            sim = similarity_batch(J_a, J_b, m)
            out[m].append((sim * torch.exp2(e_a + e_b) if m == "printed" else sim).cpu())
    return {m: torch.cat(v) for m, v in out.items()}


def stability_at_checkpoint(model, pairs: Pairs, method: Union[str, Sequence[str]] = "weighted_rows",
                            chunk: int = 64, **options):
    """DataFrame: one row per method x target x disturbants with the mean similarity, sd and n."""
    sims = pair_similarities(model, pairs, method, chunk, **options)
    target, disturbants = pairs.conditions()
    frames = [pd.DataFrame({"method": m, "target": target, "disturbants": disturbants, "similarity": v.numpy()})
              for m, v in sims.items()]
    g = pd.concat(frames).groupby(["method", "target", "disturbants"], sort=False)["similarity"]
    return g.agg(similarity="mean", sd="std", n="size").reset_index()


def stability_over_training(run, n_pairs: int = 1024, seed: int = 0,
                            method: Union[str, Sequence[str]] = "weighted_rows",
                            target_position: Optional[int] = None, steps: Optional[Iterable[int]] = None,
                            device: str = "cpu", chunk: int = 64, progress: bool = True, **options):
    """Tidy DataFrame over a run's kept checkpoints (``penb.runs.RunResult``) x methods x conditions.

    Columns: step, core, encoding, seed, method, target, disturbants, similarity, sd, n. The same pairs
    (drawn from ``seed``) serve every checkpoint; ``steps`` picks checkpoints (default: all kept).
    """
    cfg = run.config
    methods = _methods(method)
    _check_options(options)
    task = make_task(cfg["task"], cfg["vocab_size"], cfg["length"], **cfg["task_options"])
    pos = default_target_position(cfg["core"], cfg["length"]) if target_position is None else target_position
    pairs = make_pairs(task, n_pairs, torch.Generator().manual_seed(seed), pos)
    kept = [s for s, _ in run.checkpoints()]
    chosen = kept if steps is None else list(steps)
    missing = sorted(set(chosen) - set(kept))
    if missing:
        raise ValueError(f"run {run.key} has no checkpoint(s) at {missing}; kept: {kept}")
    frames = []
    for step in tqdm(chosen, desc=f"stability {cfg['core']}/{cfg['encoding']}", disable=not progress):
        model = load_model(run, step, device=device)
        frame = stability_at_checkpoint(model, pairs, methods, chunk, **options)
        frames.append(frame.assign(step=step, core=cfg["core"], encoding=cfg["encoding"], seed=cfg["seed"]))
    cols = ["step", "core", "encoding", "seed", "method", "target", "disturbants", "similarity", "sd", "n"]
    return pd.concat(frames, ignore_index=True)[cols]

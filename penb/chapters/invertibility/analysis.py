"""Hansen's invertibility study: how fast can ``sigmoid(affine(e(pos)))`` recover ``pos / N``?

``run_study`` trains the inverter for every encoding and initialisation (all of them as one batched
problem, see ``penb.chapters.invertibility.batch``) and returns the mean MSE over initialisations per
step, the loss recorded before each update as in the original. ``simulate`` returns every trajectory
(for spreads). ``floors`` derives the two exact loss floors with scipy, ``load_published`` reads the
published loss file (corrected by the factor ``iterations / inits = 200``); ``sincos_best_fit``,
``constant_prediction_loss`` and ``position0`` are the references the chapter sets its curves against.
``run`` runs the study once per seed of a config; ``pooled_mean`` is the mean curve over every
seed's initialisations (problems whose loss turned non-finite left out, ``nonfinite`` counts them)
and ``run_table`` lists the seeds' studies. The blog's claims (crossing steps, settling steps,
orderings) are read off the curves and graded by ``penb.chapters.invertibility.checks``.

Initial draws, per (seed, encoding, initialisation), from one generator each: the inverter weights
(Flax ``nnx.Linear``: lecun-normal truncated at 2 sd, zero bias), then
``penb.encodings.blog.init_params``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import pandas as pd
import torch
from scipy.optimize import least_squares
from scipy.special import expit, ndtri
from tqdm.auto import tqdm

from penb.chapters.invertibility.batch import InversionBatch
from penb.device import resolve_device
from penb.encodings import blog
from penb.store.paths import shared_dir

TRUNC_STD = 0.87962566103423978   # sd of a standard normal truncated to [-2, 2] (Flax lecun_normal)
DTYPES = {"float32": torch.float32, "float64": torch.float64}
PUBLISHED_FILE = "100-inits_20000-iters_32-dims_100-len_lr1e-3.csv"
ANCHOR_FILE = "anchors_true_mean_mse.csv"
PUBLISHED_INITS, PUBLISHED_ITERATIONS, PUBLISHED_LENGTH = 100, 20_000, 100


def check_args(inits, iterations, dim, length, lr, encodings, sentinel, dtype="float32") -> tuple[str, ...]:
    """Validate a study's arguments before any work; return the encodings as a tuple."""
    encs = blog.KEYS if encodings is None else tuple(encodings)
    for k in encs:
        blog.check_key(k)
    if not encs or len(set(encs)) != len(encs):
        raise ValueError(f"encodings must be a non-empty list of distinct keys, got {encs}")
    for name, v, lo in (("inits", inits, 1), ("iterations", iterations, 1), ("dim", dim, 1), ("length", length, 2)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an int >= {lo}, got {v!r}")
    if "sincos" in encs and dim % 2:
        raise ValueError(f"sincos needs an even dim, got {dim}")
    if isinstance(lr, bool) or not (isinstance(lr, (int, float)) and np.isfinite(lr) and lr > 0):
        raise ValueError(f"lr must be a finite number > 0, got {lr!r}")
    if isinstance(sentinel, bool) or not (isinstance(sentinel, (int, float)) and np.isfinite(sentinel)):
        raise ValueError(f"sentinel must be a finite number (the original uses -9999999), got {sentinel!r}")
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; valid: {', '.join(DTYPES)}")
    return encs


def _generator(seed: int, key: str, init: int) -> torch.Generator:
    """One generator per (seed, encoding, initialisation): draws do not depend on which others run."""
    return torch.Generator().manual_seed(((seed * 1009 + blog.KEYS.index(key)) * 1_000_003 + init) % (2**63))


def initial_state(encodings: Sequence[str], inits: int, dim: int, seed: int = 0,
                  dtype: torch.dtype = torch.float32) -> dict[str, dict[str, torch.Tensor]]:
    """Initial parameters per encoding: inverter ``w [I, K]``, ``b [I]`` (zeros), plus the encoding's own
    (``mu``, ``v [I, K]`` for normal; ``enc_w [I, K]``, ``enc_b [I]`` for linear)."""
    out = {}
    for key in encodings:
        rows = []
        for i in range(inits):
            g = _generator(seed, key, i)
            w = torch.nn.init.trunc_normal_(torch.empty(dim, dtype=torch.float64), 0.0, 1.0, -2.0, 2.0, generator=g)
            p = blog.init_params(key, dim, g, dtype=torch.float64)
            rows.append({"w": w * (dim ** -0.5 / TRUNC_STD), **{("enc_" + n if n in ("w", "b") else n): v
                                                               for n, v in p.items()}})
        st = {n: torch.stack([r[n] for r in rows]).to(dtype) for n in rows[0]}
        st["b"] = torch.zeros(inits, dtype=dtype)
        out[key] = st
    return out


@dataclass
class Study:
    """A finished study. ``losses [iterations, E, inits]``: each problem's loss before update ``i``."""
    encodings: tuple[str, ...]
    losses: np.ndarray
    final: dict[str, dict[str, torch.Tensor]] = field(repr=False)
    settings: dict = field(default_factory=dict)

    def frame(self, values: np.ndarray) -> pd.DataFrame:
        df = pd.DataFrame(values, columns=list(self.encodings))
        df.index.name = "step"
        return df

    def mean(self) -> pd.DataFrame:
        """Mean MSE over initialisations: one row per step, one column per encoding."""
        return self.frame(self.losses.astype(np.float64).mean(axis=2))

    def quantile(self, q: float) -> pd.DataFrame:
        """The ``q``-quantile over initialisations, laid out like ``mean``."""
        return self.frame(np.quantile(self.losses.astype(np.float64), q, axis=2))

    def final_spread(self, qs: Sequence[float] = (0.0, 0.1, 0.5, 0.9, 1.0)) -> pd.DataFrame:
        """Quantiles (rows: encodings) of the last recorded loss over initialisations."""
        last = self.losses[-1].astype(np.float64)                       # [E, inits]
        return pd.DataFrame(np.quantile(last, qs, axis=1).T, index=list(self.encodings),
                            columns=[f"q{int(q * 100)}" for q in qs])


def simulate(inits: int = 100, iterations: int = 20_000, dim: int = 32, length: int = 100, lr: float = 1e-3,
             seed: int = 0, encodings: Optional[Sequence[str]] = None, sentinel: float = blog.SENTINEL,
             device: str = "cpu", dtype: str = "float32", progress: bool = True,
             threads: Optional[int] = 1) -> Study:
    """Run the study; return every problem's loss trajectory and final parameters (see ``Study``).

    ``threads``: torch CPU threads during the run (restored afterwards); ``None`` keeps torch's setting.
    The tensors are small, so one thread is about as fast as two and far more robust on a shared CPU.
    """
    encs = check_args(inits, iterations, dim, length, lr, encodings, sentinel, dtype)
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be None or an int >= 1, got {threads!r}")
    dev, dt = resolve_device(device), DTYPES[dtype]
    start = time.perf_counter()
    batch = InversionBatch(initial_state(encs, inits, dim, seed, dt), encs, length, dim, sentinel, dt, dev)
    order = (["sincos"] if batch.sincos else []) + batch.low
    losses = torch.empty(iterations, len(order) * inits, dtype=dt, device=dev)
    chunk, before = max(1, iterations // 100), torch.get_num_threads()
    try:
        if threads is not None:
            torch.set_num_threads(threads)
        with torch.no_grad(), tqdm(total=iterations, disable=not progress, desc="inversion", unit="step") as bar:
            for i in range(iterations):
                batch.forward_backward(losses[i])
                batch.adam(i + 1, lr)
                if (i + 1) % chunk == 0 or i + 1 == iterations:
                    bar.update(i + 1 - bar.n)
    finally:
        torch.set_num_threads(before)
    arr = losses.cpu().numpy().reshape(iterations, len(order), inits)[:, [order.index(k) for k in encs]]
    settings = dict(inits=inits, iterations=iterations, dim=dim, length=length, lr=lr, seed=seed,
                    sentinel=sentinel, device=str(dev), dtype=dtype, wall_s=time.perf_counter() - start)
    return Study(encs, arr, batch.export(encs), settings)


def run_study(inits: int = 100, iterations: int = 20_000, dim: int = 32, length: int = 100, lr: float = 1e-3,
              seed: int = 0, encodings: Optional[Sequence[str]] = None, sentinel: float = blog.SENTINEL,
              device: str = "cpu", dtype: str = "float32", progress: bool = True,
              threads: Optional[int] = 1) -> pd.DataFrame:
    """Mean MSE over initialisations, indexed by step ``0..iterations-1``, one column per encoding."""
    return simulate(inits, iterations, dim, length, lr, seed, encodings, sentinel, device, dtype, progress,
                    threads).mean()


def run(cfg, progress: bool = True, encodings: Optional[Sequence[str]] = None,
        sentinel: Optional[float] = None, seeds: Optional[Sequence[int]] = None) -> list[Study]:
    """The study of config ``cfg`` once per seed of ``cfg.seeds`` (or ``seeds``), in order."""
    return [simulate(cfg.inits, cfg.iterations, cfg.dim, cfg.length, cfg.lr, seed, encodings,
                     cfg.sentinel if sentinel is None else sentinel, cfg.device, cfg.dtype, progress)
            for seed in (cfg.seeds if seeds is None else seeds)]


def _finite(study: Study) -> np.ndarray:
    """[E, inits] bool: the problem's loss stayed finite at every step."""
    return np.isfinite(study.losses).all(axis=0)


def pooled_mean(studies: Sequence[Study]) -> pd.DataFrame:
    """Mean loss per step over the initialisations of every study (every seed) together, one
    column per encoding; a problem whose loss turned non-finite is left out of the mean."""
    first = studies[0]
    if any(s.encodings != first.encodings or s.losses.shape[0] != first.losses.shape[0] for s in studies):
        raise ValueError("pooled_mean needs studies of the same encodings and iterations")
    losses = np.concatenate([s.losses.astype(np.float64) for s in studies], axis=2)  # [I, E, n]
    keep = np.concatenate([_finite(s) for s in studies], axis=1)                     # [E, n]
    total = np.where(keep[None], losses, 0.0).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return first.frame(total / keep.sum(axis=1)[None])


def nonfinite(studies: Sequence[Study]) -> pd.DataFrame:
    """Problems whose loss turned non-finite: one row per seed, one column per encoding."""
    return pd.DataFrame({s.settings["seed"]: dict(zip(s.encodings, (~_finite(s)).sum(axis=1)))
                         for s in studies}).T.rename_axis("seed")


def run_table(studies: Sequence[Study]) -> pd.DataFrame:
    """One row per study (seed): initialisations, steps, problems whose loss turned non-finite
    (``diverged``; left out of the means), training time in seconds."""
    rows = [{"seed": s.settings["seed"], "encodings": len(s.encodings), "inits": s.settings["inits"],
             "steps": s.settings["iterations"], "diverged": int((~_finite(s)).sum()),
             "wall_s": round(s.settings["wall_s"], 1)} for s in studies]
    return pd.DataFrame(rows).set_index("seed")


# --- exact floors -----------------------------------------------------------------------------------
def _best_fit(x: np.ndarray, t: np.ndarray, n_total: int) -> float:
    """min over (a, c) of sum((sigmoid(a x + c) - t)^2) / n_total, by scipy least squares."""
    best = np.inf
    for x0 in ((1.0, 0.0), (5.0, -2.5), (1.0, -1.0)):
        fit = least_squares(lambda p: expit(p[0] * x + p[1]) - t, x0, xtol=1e-15, ftol=1e-15, gtol=1e-15)
        best = min(best, float(np.sum(fit.fun ** 2)) / n_total)
    return best


def floors(length: int = 100) -> dict[str, float]:
    """The two exact floors for ``length`` positions, independent of any random draw.

    ``affine``: best ``sigmoid(a t + c)`` fit of ``t`` over all positions (any encoding affine in t);
    ``normal``: best ``sigmoid(a ndtri(t) + c)`` fit over positions 1..N-1, position 0 predicted 0
    exactly (the sentinel row), mean still over all N positions.
    """
    t = np.arange(length) / length
    return {"affine": _best_fit(t, t, length), "normal": _best_fit(ndtri(t[1:]), t[1:], length)}


def sincos_best_fit(length: int = 100, dim: int = 32, starts: int = 3, seed: int = 0) -> dict[str, float]:
    """Best MSE of ``sigmoid(S w + b)`` over all ``dim + 1`` parameters (scipy least squares from ``starts``
    small random starts), and the largest |weight| it needs. sincos has no two-parameter floor."""
    S = blog.sincos_table(length, dim, dtype=torch.float64).numpy()
    X, t = np.hstack([S, np.ones((length, 1))]), np.arange(length) / length
    rng, best = np.random.default_rng(seed), (np.inf, np.nan)
    for _ in range(starts):
        fit = least_squares(lambda p: expit(X @ p) - t, rng.normal(size=dim + 1) * 0.1, xtol=1e-15, ftol=1e-15,
                            gtol=1e-15, max_nfev=20_000)
        mse = float(np.mean(fit.fun ** 2))
        if mse < best[0]:
            best = (mse, float(np.abs(fit.x[:-1]).max()))
    return {"mse": best[0], "max_abs_weight": best[1]}


def constant_prediction_loss(length: int = 100, value: float = 0.5) -> float:
    """MSE of predicting ``value`` at every position: ``mean((value - t)^2)`` (an untrained inverter's loss)."""
    t = np.arange(length) / length
    return float(np.mean((value - t) ** 2))


def position0(params: dict[str, torch.Tensor], sentinel: float = blog.SENTINEL) -> np.ndarray:
    """Prediction at position 0 of a normal encoding's inverter, per initialisation:
    ``sigmoid(sentinel * sum(w) + b)`` (``w [I, K]``, ``b [I]``) -> ``[I]``."""
    w, b = params["w"].double(), params["b"].double()
    return torch.sigmoid(sentinel * w.sum(-1) + b).cpu().numpy()


# --- the published loss file ------------------------------------------------------------------------
def published_factor(iterations: int = PUBLISHED_ITERATIONS, inits: int = PUBLISHED_INITS) -> float:
    """The original divides the sum over initialisations by ``iterations`` instead of ``inits``."""
    return iterations / inits


def _anchor_dir() -> Path:
    return shared_dir() / "anchors" / "pos-enc-invert"


def load_published(path: Optional[Path] = None, correct: bool = True) -> Optional[pd.DataFrame]:
    """The published per-step losses (index ``step``, our column order), times 200 when ``correct``;
    ``None`` when the file is absent."""
    path = Path(path) if path is not None else _anchor_dir() / PUBLISHED_FILE
    if not path.exists():
        return None
    df = pd.read_csv(path, index_col="iter")
    df.index.name = "step"
    df = df[[k for k in blog.KEYS if k in df.columns]]
    return df * published_factor() if correct else df


def load_anchor_table(path: Optional[Path] = None) -> Optional[pd.DataFrame]:
    """``anchors_true_mean_mse.csv``: true mean MSE at the blog's checkpoints, or ``None`` if absent."""
    path = Path(path) if path is not None else _anchor_dir() / ANCHOR_FILE
    if not path.exists():
        return None
    df = pd.read_csv(path, index_col="iter")
    df.index.name = "step"
    return df[[k for k in blog.KEYS if k in df.columns]]

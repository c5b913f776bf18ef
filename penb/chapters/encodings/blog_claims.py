"""Two statements of Hansen's blog that its own tables can check, graded through ``penb.claims`` (no training).

* ``hansen.relative`` (Requirements): a linear map carries each position's encoding to the encoding of the
  position ``k`` steps on. For each of the nine encodings, draw and offset, :func:`shift_fit` finds the
  least-squares map ``M_k`` with ``e(t+k) ~ M_k e(t)`` over ``t = 1..N-1-k`` (the optimum a trained linear map
  reaches) and asks whether each mapped vector is nearest to the right position's encoding.
* ``hansen.normal_no_covariance`` (A Normally Distributed Position Encoding): over positions, each component
  of the normal encoding is N(mu_k, sigma_k), which the blog calls a multivariate normal with no covariance.
  :func:`covariance_row` measures each component's Kolmogorov-Smirnov distance to its normal and the
  correlation between components.

Position 0 is left out of both: the normal encodings' row 0 is the code's stand-in for ndtri(0) = -inf
(``penb.encodings.blog.SENTINEL``). Tables are float64 numpy ``[N, K]``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from penb import claims
from penb.encodings import blog

RELATIVE, NO_COV = "hansen.relative", "hansen.normal_no_covariance"


def blog_table(key: str, num_positions: int, dim: int, seed: int) -> np.ndarray:
    """``[N, K]`` float64 table of blog encoding ``key`` with parameters drawn from ``seed`` (a learned
    encoding at its initial draw: training moves its parameters, not its family)."""
    g = torch.Generator().manual_seed(seed)
    params = blog.init_params(key, dim, g, dtype=torch.float64)
    return blog.table(key, params, num_positions, dim, dtype=torch.float64).numpy()


def shift_fit(table: np.ndarray, k: int, first: int = 1) -> dict:
    """The least-squares linear map M (``e(t+k) ~ M e(t)``, no bias: the blog asks for a linear map) over
    rows ``t = first..N-1-k``: ``correct`` the share of those ``t`` whose mapped vector is nearest (Euclidean)
    to row ``t+k`` among the rows ``first..N-1``; ``residual`` ||E_{+k} - E M||_F / ||E_{+k} - mean||_F;
    ``affine_correct`` the share right with a bias added to the map (reported, not graded)."""
    rows = table[first:]
    src, dst = rows[:-k], rows[k:]                                    # [P, K] each, P = N - first - k
    m, *_ = np.linalg.lstsq(src, dst, rcond=None)                     # [K, K]: dst ~ src @ m
    mapped = src @ m
    dist = ((mapped[:, None, :] - rows[None, :, :]) ** 2).sum(-1)     # [P, N - first]
    hit = dist.argmin(1) == np.arange(len(src)) + k
    spread = np.linalg.norm(dst - dst.mean(0))
    residual = np.linalg.norm(dst - mapped) / spread if spread > 0 else np.inf
    ones = np.ones((len(rows), 1))                                     # the same with a bias (not graded)
    a, *_ = np.linalg.lstsq(np.hstack([src, ones[k:]]), dst, rcond=None)
    near = ((np.hstack([src, ones[k:]]) @ a)[:, None, :] - rows[None, :, :]) ** 2
    affine = near.sum(-1).argmin(1) == np.arange(len(src)) + k
    return {"correct": float(hit.mean()), "residual": float(residual), "pairs": int(len(src)),
            "affine_correct": float(affine.mean())}


def relative_table(cfg) -> pd.DataFrame:
    """:func:`shift_fit` for every blog encoding, draw (``cfg.seed + draw``) and registered offset: one row
    each (encoding, draw, offset, correct, residual, pairs, affine_correct)."""
    p = claims.get(RELATIVE).rule.params
    rows = []
    for key in blog.KEYS:
        for d in range(p["draws"]):
            t = blog_table(key, cfg.blog_positions, cfg.blog_dim, cfg.seed + d)
            rows += [dict(encoding=key, draw=d, offset=k, **shift_fit(t, k)) for k in p["offsets"]]
    return pd.DataFrame(rows)


def relative_evidence(table: pd.DataFrame) -> dict:
    """Evidence of ``hansen.relative``'s check: passed when every row maps every position to the right one."""
    worst = table.groupby("encoding", sort=False).agg(correct=("correct", "min"), residual=("residual", "max"),
                                                      affine=("affine_correct", "min"))
    bad = worst[worst["correct"] < 1.0]
    detail = "; ".join(f"{k} {r.correct:.0%} right (residual up to {r.residual:.1e}; with a bias {r.affine:.0%})"
                       for k, r in worst.iterrows())
    return {"passed": bad.empty, "detail": f"smallest share of positions mapped to the right one, over draws and "
                                           f"offsets: {detail}",
            "why": "no linear map carries every position to the right one for " + ", ".join(bad.index)}


def covariance_row(table: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> dict:
    """Over rows 1..N-1 of a normal encoding's ``table`` [N, K] (component k ~ N(mu_k, sd_k) by design): the
    largest Kolmogorov-Smirnov distance of a component to its normal, and the smallest and largest
    correlation between two components."""
    from scipy import stats

    x = table[1:]
    ks = max(stats.kstest(x[:, j], "norm", args=(mu[j], sd[j])).statistic for j in range(x.shape[1]))
    r = np.corrcoef(x.T)
    off = r[~np.eye(len(r), dtype=bool)]
    return {"ks": float(ks), "r_min": float(off.min()), "r_max": float(off.max()),
            "max_abs_r": float(np.abs(off).max())}


def covariance_table(cfg) -> pd.DataFrame:
    """:func:`covariance_row` of the ``normal`` encoding for each registered draw (``cfg.seed + draw``)."""
    rows = []
    for d in range(claims.get(NO_COV).rule.params["draws"]):
        g = torch.Generator().manual_seed(cfg.seed + d)
        p = blog.init_params("normal", cfg.blog_dim, g, dtype=torch.float64)
        t = blog.table("normal", p, cfg.blog_positions, cfg.blog_dim).numpy()
        rows.append(dict(draw=d, **covariance_row(t, p["mu"].numpy(), p["v"].abs().sqrt().numpy())))
    return pd.DataFrame(rows)


def covariance_evidence(table: pd.DataFrame) -> dict:
    """Evidence of ``hansen.normal_no_covariance``'s check (thresholds: the rule's ``ks`` and ``max_abs_r``)."""
    p = claims.get(NO_COV).rule.params
    ks, r = float(table["ks"].max()), float(table["max_abs_r"].max())
    normal, uncorrelated = ks <= p["ks"], r <= p["max_abs_r"]
    why = [w for w, bad in ((f"a component lies {ks:.3f} from its normal (Kolmogorov-Smirnov)", not normal),
                            (f"components correlate up to |r| = {r:.3f}", not uncorrelated)) if bad]
    return {"passed": normal and uncorrelated,
            "detail": (f"over {len(table)} draws: each component within a Kolmogorov-Smirnov distance of {ks:.3f} "
                       f"of its normal; correlations between components from {table['r_min'].min():.3f} to "
                       f"{table['r_max'].max():.3f}"),
            "why": "; ".join(why)}


def grade(cfg) -> tuple[list, pd.DataFrame, pd.DataFrame]:
    """The two claims graded on the tables of ``cfg`` (``blog_positions`` x ``blog_dim``, ``seed``), with the
    tables they read: (grades, relative_table, covariance_table)."""
    rel, cov = relative_table(cfg), covariance_table(cfg)
    size = dict(positions=cfg.blog_positions, dim=cfg.blog_dim, scale={"length": cfg.blog_positions})
    grades = [claims.grade(RELATIVE, relative_evidence(rel), cfg, **size),
              claims.grade(NO_COV, covariance_evidence(cov), cfg, **size)]
    return grades, rel, cov

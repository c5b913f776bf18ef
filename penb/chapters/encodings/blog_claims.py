"""Three statements of Hansen's blog that tables can check, graded through ``penb.claims`` (no training).

* ``hansen.relative`` (Requirements): a linear map carries each position's encoding to the encoding of the
  position ``k`` steps on. For each of the nine encodings, draw and offset, :func:`shift_fit` finds the
  least-squares map ``M_k`` with ``e(t+k) ~ M_k e(t)`` over ``t = 1..N-1-k`` (the optimum a trained linear map
  reaches) and asks whether each mapped vector is nearest to the right position's encoding. The graded reading
  is the blog's "in general": every encoding; :func:`per_encoding` gives each encoding's own outcome (issue 35).
* ``hansen.sum_generalizes_concat`` (opening section): summing encoding and embedding generalises concatenating
  them (:func:`sum_concat_row`: a concatenation is a sum of zero-padded tables, exactly, and a dense sum is no
  concatenation in any basis).
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
from scipy import stats

from penb import claims
from penb.encodings import blog

RELATIVE, NO_COV, SUM_CONCAT = "hansen.relative", "hansen.normal_no_covariance", "hansen.sum_generalizes_concat"


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


HOLDS, BIAS, FAILS = "holds", "holds only with a bias", "fails"


def per_encoding(table: pd.DataFrame) -> dict:
    """Each encoding's own outcome over its draws and offsets: {encoding: {"outcome", "correct" (smallest share
    mapped right), "residual" (largest), "affine" (smallest share right with a bias)}}. ``holds``: a linear map
    shifts every position right; ``holds only with a bias``: only an affine one does (direct1 and directN by
    construction: e(t+k) = e(t) + k/N); ``fails``: neither."""
    worst = table.groupby("encoding", sort=False).agg(correct=("correct", "min"), residual=("residual", "max"),
                                                      affine=("affine_correct", "min"))
    return {k: {"outcome": HOLDS if r.correct == 1.0 else BIAS if r.affine == 1.0 else FAILS,
                "correct": float(r.correct), "residual": float(r.residual), "affine": float(r.affine)}
            for k, r in worst.iterrows()}


def relative_evidence(table: pd.DataFrame) -> dict:
    """Evidence of ``hansen.relative``'s check: passed when every row maps every position to the right one (the
    blog's "in general": every encoding); ``per_encoding`` reports each encoding's own outcome beside it."""
    each = per_encoding(table)
    bad = [k for k, r in each.items() if r["outcome"] != HOLDS]
    detail = "; ".join(f"{k}: {r['outcome']} ({r['correct']:.0%} right, residual up to {r['residual']:.1e}; with a "
                       f"bias {r['affine']:.0%})" for k, r in each.items())
    count = {o: sum(r["outcome"] == o for r in each.values()) for o in (HOLDS, BIAS, FAILS)}
    return {"passed": not bad, "per_encoding": each,
            "detail": (f"read as the blog's 'in general': every encoding, draw, offset and position. Per encoding "
                       f"(smallest share of positions mapped to the right one over draws and offsets): {detail}. "
                       f"{count[HOLDS]} of {len(each)} hold, {count[BIAS]} only with a bias, {count[FAILS]} fail"),
            "why": "no linear map carries every position to the right one for " + ", ".join(bad)}


def covariance_row(table: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> dict:
    """Over rows 1..N-1 of a normal encoding's ``table`` [N, K] (component k ~ N(mu_k, sd_k) by design): the
    largest Kolmogorov-Smirnov distance of a component to its normal, and the smallest and largest
    correlation between two components."""
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


def sum_concat_row(embedding: np.ndarray, encoding: np.ndarray, dense_embedding: np.ndarray,
                   dense_encoding: np.ndarray) -> dict:
    """The two parts of "summing generalises concatenation" on float64 tables: ``embedding`` [V, d_e] and
    ``encoding`` [N, d_p] concatenated, against the sum of the two zero-padded to width d = d_e + d_p
    (``deviation``: the largest difference over every token and position); and a sum of ``dense_embedding``
    [V, d] and ``dense_encoding`` [N, d]: ``overlap``, the dimension shared by the subspace its token part varies
    in and the one its position part varies in (rank E_c + rank P_c - rank [E_c; P_c], with centred tables).
    A concatenation, in whatever basis, keeps the two apart (overlap 0): a sum with overlap > 0 is none."""
    V, de = embedding.shape
    N, dp = encoding.shape
    concat = np.concatenate([np.repeat(embedding[:, None, :], N, 1), np.repeat(encoding[None, :, :], V, 0)], -1)
    padded = np.hstack([embedding, np.zeros((V, dp))])[:, None, :] + np.hstack([np.zeros((N, de)), encoding])[None]
    e = dense_embedding - dense_embedding.mean(0)
    p = dense_encoding - dense_encoding.mean(0)
    rank = np.linalg.matrix_rank
    return {"deviation": float(np.abs(concat - padded).max()), "width": de + dp,
            "overlap": int(rank(e) + rank(p) - rank(np.vstack([e, p]))), "token_rank": int(rank(e)),
            "position_rank": int(rank(p))}


def sum_concat_table(cfg) -> pd.DataFrame:
    """:func:`sum_concat_row` on random normal tables for each registered draw (``cfg.seed + draw``): ``blog_dim``
    (K) wide embedding and encoding, ``blog_positions`` (N) tokens and positions; the dense sum at width 2K."""
    p = claims.get(SUM_CONCAT).rule.params
    n, k = cfg.blog_positions, cfg.blog_dim
    rows = []
    for d in range(p["draws"]):
        rng = np.random.default_rng(cfg.seed + d)
        rows.append(dict(draw=d, **sum_concat_row(rng.normal(size=(n, k)), rng.normal(size=(n, k)),
                                                   rng.normal(size=(n, 2 * k)), rng.normal(size=(n, 2 * k)))))
    return pd.DataFrame(rows)


def sum_concat_evidence(table: pd.DataFrame) -> dict:
    """Evidence of ``hansen.sum_generalizes_concat``'s check: the concatenation is the padded sum (every deviation
    within the rule's ``tol``) and (the inclusion is strict) every dense sum has overlap > 0."""
    tol = claims.get(SUM_CONCAT).rule.params["tol"]
    exact, strict = bool((table["deviation"] <= tol).all()), bool((table["overlap"] > 0).all())
    detail = (f"over {len(table)} draws: concatenation against the sum of the zero-padded tables, largest "
              f"difference {table['deviation'].max():.1e}; a dense sum of width {int(table['width'].iloc[0])}: "
              f"its token and position parts share {int(table['overlap'].min())}-{int(table['overlap'].max())} "
              f"dimensions (ranks {int(table['token_rank'].min())} and {int(table['position_rank'].min())})")
    return {"passed": exact and strict, "partial": exact, "detail": detail,
            "why": ("the concatenation is a sum, but no dense sum here was shown to be more than a concatenation"
                    if exact else "the padded sum differs from the concatenation")}


def grade(cfg) -> tuple[list, pd.DataFrame, pd.DataFrame]:
    """The three claims graded on the tables of ``cfg`` (``blog_positions`` x ``blog_dim``, ``seed``), with the
    tables the first two read: (grades, relative_table, covariance_table)."""
    rel, cov = relative_table(cfg), covariance_table(cfg)
    size = dict(positions=cfg.blog_positions, dim=cfg.blog_dim, scale={"length": cfg.blog_positions})
    grades = [claims.grade(RELATIVE, relative_evidence(rel), cfg, **size),
              claims.grade(NO_COV, covariance_evidence(cov), cfg, **size),
              claims.grade(SUM_CONCAT, sum_concat_evidence(sum_concat_table(cfg)), cfg, **size)]
    return grades, rel, cov

"""The deep presets' power analyses (issue 58): what would decide a figure's cell, and its cost. This module is their
shared core; each analysis is a module beside it:

* :mod:`penb.power.fig2_v1`: Fig. 2's GRU under DEEP_RULE v1 (the text's effect as the alternative);
* :mod:`penb.power.searched`, with :mod:`~penb.power.fig2` (DEEP_RULE v2) and :mod:`~penb.power.fig3`
  (FREQ_DEEP_RULE): an alternative searched on search seeds;
* :mod:`penb.power.fig2_v3`: DEEP_RULE v3, v2's trunks to the text's 300,000 updates.

Here: a draw of a claim read by rule ``better`` through the composition that grades it (:func:`simulate`:
per seed, both sides' values at N/4, N/2 and N, a persistent per-seed offset and an evaluation noise, pooled from the
curves by :func:`pooled`: the noise from the per-seed second differences x_N - 2 x_N/2 + x_N/4, whose spread across
seeds is the noise's times sqrt 6, the offset from the seeds' spread less that noise); a figure's CPU and H100
minutes; and the rules' choice on a table (:func:`pick`) and its display. Power is the share of :data:`DRAWS` draws
(a fixed generator per cell: every table is reproducible).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import presets, sizing
from penb.chapters.key_findings import analysis
from penb.claims import composition
from penb.executors.cost import batch_seconds

HORIZON = 300_000                  # Morita's updates (Sec. 3.3): the budget the claim speaks of
ALTERNATIVE = 0.95                 # the text's level for the PE GRU (Sec. 4.1, morita.fig2.level.gru)
SESOI = 0.02                       # morita.fig2.gru's smallest effect of interest (the protocol's default)
PARAMS = {"min_agree": 0.8, "min_seeds": 3, "baseline_margin": 0.02}   # rule "better" as morita.fig2.* read it
DRAWS = 200


def pooled(curves) -> tuple[float, float]:
    """(per-seed offset sd, evaluation noise sd) pooled over ``curves`` (each [seeds, 3]: a cell's seeds at N/4, N/2,
    N; cells with fewer than 2 seeds skipped): the noise from the per-seed second differences, the offset from the
    seeds' spread at one budget less that noise."""
    second, spread = [], []
    for x in curves:
        if len(x) < 2:
            continue
        second.append(np.var(x[:, 2] - 2 * x[:, 1] + x[:, 0], ddof=1))
        spread.append(np.var(x, axis=0, ddof=1).mean())
    noise = math.sqrt(np.mean(second) / 6) if second else math.nan
    offset = math.sqrt(max(np.mean(spread) - noise ** 2, 0.0)) if spread else math.nan
    return offset, noise


def simulate(van: np.ndarray, pe: Optional[np.ndarray], seeds: int, offset: float, noise: float, n: int,
             rng: np.random.Generator, gap: Optional[float] = None,
             horizon: int = HORIZON, params: Optional[dict] = None, names: tuple = ("PE GRU", "vanilla GRU"),
             low: float = 0.0, sesoi: Optional[float] = None, extra: Optional[dict] = None) -> tuple[str, bool]:
    """One draw of ``morita.fig2.gru``'s verdict: vanilla's mean at N/4, N/2, N (``van``), PE's (``pe``; or vanilla's
    plus ``gap``), per-seed offsets (sd ``offset``) and evaluation noise (sd ``noise``), through
    ``composition.settle`` at budget ``n`` and the text's ``horizon``. Returns (the rule's verdict, settled).

    Another claim read by rule "better" (a above b) draws the same way: ``pe`` its side a, ``van`` its side b, with its
    own rule ``params``, side ``names``, the quantity's lower end ``low`` (accuracies sit in [0, 1], a difference of
    two in [-1, 1]), smallest effect ``sesoi`` and evidence fields ``extra`` (a baseline)."""
    pe = van + gap if pe is None else pe
    off = rng.normal(0.0, offset, (2, seeds))
    ev = []
    for k in range(3):
        a = np.clip(pe[k] + off[0] + rng.normal(0.0, noise, seeds), low, 1)
        b = np.clip(van[k] + off[1] + rng.normal(0.0, noise, seeds), low, 1)
        ev.append({"a": list(a), "b": list(b), "seeds": list(range(seeds)), "a_name": names[0],
                   "b_name": names[1], "resolution": 1e-4, **(extra or {})})
    return composition.settle("better", PARAMS if params is None else params, ev[2], ev[1], (n // 2, n),
                              SESOI if sesoi is None else sesoi, quarter=ev[0], horizon=horizon)


# --- cost: the CPU at the rates measured on the 2-core AVX-512 host, a GPU at the measured batched rates ----------
# One thread, a batch of K = 20 (issue 58: benchmarks/batched.py --compile never on the 2-core AMD EPYC with AVX-512):
# the V 8-32 mix at 245 run-updates/s, the V 64-256 mix at 135 (the token table and the read-out grow with V).
CPU_RATE = {32: 245.0, 256: 135.0}          # run-updates/s per core: V <= 32, and above
CORES = 2
BRANCHES = 1 + 0.2 / 2 + 0.2 / 4            # a WSD trunk to N with the decays of N/2 and N/4: 1.15 N updates


def cpu_minutes(vocabs, n: int, seeds: int, variants: int = 2, rate: Optional[dict] = None) -> float:
    """Minutes the 2-core CPU takes for the figure's runs (each vocabulary x ``variants`` x ``seeds``) at budget ``n``
    with its N/2 and N/4 branches, both cores busy, at :data:`CPU_RATE` (or ``rate``)."""
    rate = rate or CPU_RATE
    seconds = sum(variants * seeds * BRANCHES * n / (rate[32] if v <= 32 else rate[256]) for v in vocabs)
    return seconds / CORES / 60


def gpu_minutes(vocabs, n: int, seeds: int, variants: int = 2) -> float:
    """Minutes one H100 takes for the same runs as one eager batch (``penb.executors.cost.batch_seconds`` at the
    measured batched rates), the branches charged as part of the trunk's updates."""
    cfg = presets.resolve("key_findings", "quick", cores=("gru",), gru_vocab=tuple(int(v) for v in vocabs),
                          seeds=presets.confirmation(seeds), device="cpu")
    configs = analysis.run_configs(cfg)[:len(vocabs) * variants * seeds]
    return batch_seconds(configs, int(BRANCHES * n)) / 60


# --- the table and the rule -----------------------------------------------------------------------------------------


def pick(t: pd.DataFrame, col: str, budgets, cost: str = "cpu_min", limit: Optional[float] = None,
         most_seeds: Optional[int] = None) -> dict:
    """The deep rules' choice on the rows ``t`` of one cell: among ``budgets`` whose figure fits ``limit`` (column
    ``cost``; default ``sizing.DEEP_CPU_MIN`` CPU-minutes) at ``DEEP_MIN_SEEDS``-``most_seeds`` seeds (default
    ``DEEP_MAX_SEEDS``), the smallest N whose power (column ``col``) reaches ``POWER`` with the fewest seeds;
    where none does, the largest N that fits with the most seeds that fit."""
    limit = sizing.DEEP_CPU_MIN if limit is None else limit
    fits = t[(t["N"].isin(budgets)) & (t[cost] <= limit)
             & (t["seeds"] >= sizing.DEEP_MIN_SEEDS) & (t["seeds"] <= (most_seeds or sizing.DEEP_MAX_SEEDS))]
    if fits.empty:
        raise ValueError("no deep budget fits the budget at the fewest seeds")
    good = fits[fits[col] >= sizing.POWER].sort_values(["N", "seeds"])
    if len(good):
        r = good.iloc[0]
        why = f"{r[col]:.0%} power at N = {int(r['N']):,} with {int(r['seeds'])} seeds"
        return dict(N=int(r["N"]), seeds=int(r["seeds"]), power=float(r[col]), cpu_min=float(r["cpu_min"]),
                    reached=True, why=why)
    n = int(fits["N"].max())
    r = fits[fits["N"] == n].sort_values("seeds").iloc[-1]
    unit = "CPU-minutes" if cost == "cpu_min" else "H100-minutes"
    why = (f"no budget within {limit:g} {unit} reaches {sizing.POWER:.0%}: the largest "
           f"that fits, N = {n:,} with {int(r['seeds'])} seeds, has {r[col]:.0%}")
    return dict(N=n, seeds=int(r["seeds"]), power=float(r[col]), cpu_min=float(r["cpu_min"]), reached=False, why=why)


def move_texts(show: pd.DataFrame, prefix: str) -> list[str]:
    """"mean [lo, hi]" of the columns ``<prefix>_move``, ``_lo``, ``_hi`` per row of ``show`` ("" where absent)."""
    cols = [f"{prefix}_move", f"{prefix}_lo", f"{prefix}_hi"]
    return ["" if not np.isfinite(m) else f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            for m, lo, hi in zip(*(show[c] if c in show else [np.nan] * len(show) for c in cols))]


def shown(show: pd.DataFrame, cols: dict) -> pd.DataFrame:
    """The columns ``cols`` of a power table's rows ``show``, renamed, N marked where extrapolated, indexed by V, N
    and seeds: what a chapter displays."""
    out = show[[c for c in cols if c in show]].rename(columns=cols)
    out["N"] = [f"{n:,}" + (" (extrapolated)" if e else "") for n, e in zip(show["N"], show["extrapolated"])]
    return out.set_index(["V", "N", "seeds"])


def choice_text(path: Path, rule: str, choose_fn) -> str:
    """The rule's choice (``choose_fn``, a rule applied to a power table) on the committed table at ``path``, in one
    sentence."""
    if not Path(path).exists():
        return "no power analysis table yet"
    c = choose_fn(pd.read_csv(path))
    return (f"{rule} on this table: N = {c['N']:,}, {c['seeds']} seeds, "
            f"{c['cpu_min']:.0f} CPU-minutes on the 2-core AVX-512 host; {c['why']}")

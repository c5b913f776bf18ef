"""The power analysis that sizes the deep preset (issue 58): what would decide each cell of Fig. 2, and its cost.
(:mod:`penb.power.fig3`: the same for Fig. 3's GRU cell, reusing :func:`simulate`.)

It reads the model behind's curve on **search seeds** only (``scripts/search_deep.py`` writes
``penb/chapters/key_findings/deep_search.csv``: the vanilla GRU at quick's shapes, WSD budgets N/4, N/2 and N for
N = 2,000 and 32,000), never a confirmation seed, and simulates the verdict of ``morita.fig2.gru`` ("PE above
vanilla", rule ``better``) through the composition that grades it (``penb.claims.composition.settle``, the
protocol in force and the one before), at the text's budget (300,000 updates).

* **The model behind** at each vocabulary and budget: the search's mean at N/4, N/2 and N, a persistent per-seed
  offset (the seeds' spread at one budget) and an evaluation noise per budget (:func:`spread_and_noise`: from the
  per-seed second differences x_N - 2 x_N/2 + x_N/4, whose spread across seeds is the noise's times sqrt 6, the
  curve's own bend being common to the seeds), pooled over the table's cells.
* **The alternative**: the text's own effect (DESIGN.md, "How a claim is graded"), since no pilot was run at the
  deep budget: Fig. 2's position-encoded GRU above 95% at every vocabulary (``morita.fig2.level.gru``), stopped
  there (its moves are the noise alone), against vanilla on its searched curve. Its power is shown beside the
  power at the claim's smallest effect of interest (PE = vanilla + SESOI, both on vanilla's curve), the least gap
  the claim cares about.
* **N = 2N' beyond the search** (64,000 from 32,000): vanilla's next move is its last times the ratio of its last
  two (clipped to [0, 1]): an extrapolation, said where it is used.

A draw: per seed, both models' accuracies at N/4, N/2 and N; settled where the composition keeps the rule's
"reproduced". Power is the share of :data:`DRAWS` draws (a fixed generator per cell: the table is reproducible).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb.store import paths

SEARCH = paths.REPO / "penb" / "chapters" / "key_findings" / "deep_search.csv"
HORIZON = 300_000                  # Morita's updates (Sec. 3.3): the budget the claim speaks of
ALTERNATIVE = 0.95                 # the text's level for the PE GRU (Sec. 4.1, morita.fig2.level.gru)
SESOI = 0.02                       # morita.fig2.gru's smallest effect of interest (the protocol's default)
PARAMS = {"min_agree": 0.8, "min_seeds": 3, "baseline_margin": 0.02}   # rule "better" as morita.fig2.* read it
DRAWS = 200


def load(path: Path = SEARCH) -> pd.DataFrame:
    """The search table, diverged runs dropped (they are counted by :func:`diverged`)."""
    d = pd.read_csv(path)
    return d[~d["diverged"].astype(bool)].copy()


def curve(table: pd.DataFrame, vocab: int, n: int) -> np.ndarray:
    """[seeds, 3]: each search seed's accuracy at N/4, N/2 and N of trunk ``n`` (seeds with all three)."""
    d = table[(table["vocab"] == vocab) & (table["trunk"] == n)]
    w = d.pivot_table(index="seed", columns="steps", values="token_accuracy")
    cols = [n // 4, n // 2, n]
    if not set(cols) <= set(w.columns):
        raise ValueError(f"the search has no budgets {cols} at V {vocab}")
    return w[cols].dropna().to_numpy(float)


def spread_and_noise(table: pd.DataFrame) -> tuple[float, float]:
    """(per-seed offset sd, evaluation noise sd), pooled over every (vocabulary, trunk) cell of ``table``: the noise
    from the per-seed second differences (their variance is 6 noise^2 where the bend is common to the seeds), the
    offset from the seeds' spread at one budget less that noise."""
    found = []
    for (v, n), _ in table.groupby(["vocab", "trunk"]):
        try:
            found.append(curve(table, v, n))
        except ValueError:
            continue
    return pooled(found)


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


def means(table: pd.DataFrame, vocab: int, n: int) -> tuple[np.ndarray, bool]:
    """(vanilla's mean accuracy at N/4, N/2, N, extrapolated?): searched where the table has trunk ``n``; at twice a
    searched trunk, its N/2 and N and a next move of the last times the ratio of the last two (in [0, 1])."""
    try:
        return curve(table, vocab, n).mean(axis=0), False
    except ValueError:
        x = curve(table, vocab, n // 2).mean(axis=0)
    m1, m2 = x[1] - x[0], x[2] - x[1]
    ratio = min(max(m2 / m1, 0.0), 1.0) if m1 > 0 else 1.0
    return np.array([x[1], x[2], min(x[2] + ratio * m2, 1.0)]), True


def simulate(van: np.ndarray, pe: Optional[np.ndarray], seeds: int, offset: float, noise: float, n: int,
             protocol: int, rng: np.random.Generator, gap: Optional[float] = None,
             horizon: int = HORIZON, params: Optional[dict] = None, names: tuple = ("PE GRU", "vanilla GRU"),
             low: float = 0.0, sesoi: Optional[float] = None, extra: Optional[dict] = None) -> tuple[str, bool]:
    """One draw of ``morita.fig2.gru``'s verdict: vanilla's mean at N/4, N/2, N (``van``), PE's (``pe``; or vanilla's
    plus ``gap``), per-seed offsets (sd ``offset``) and evaluation noise (sd ``noise``), through
    ``composition.settle`` at budget ``n`` and the text's ``horizon``. Returns (the rule's verdict, settled).

    Another claim read by rule "better" (a above b) draws the same way: ``pe`` its side a, ``van`` its side b, with its
    own rule ``params``, side ``names``, the quantity's lower end ``low`` (accuracies sit in [0, 1], a difference of
    two in [-1, 1]), smallest effect ``sesoi`` and evidence fields ``extra`` (a baseline)."""
    from penb.claims import composition

    pe = van + gap if pe is None else pe
    off = rng.normal(0.0, offset, (2, seeds))
    ev = []
    for k in range(3):
        a = np.clip(pe[k] + off[0] + rng.normal(0.0, noise, seeds), low, 1)
        b = np.clip(van[k] + off[1] + rng.normal(0.0, noise, seeds), low, 1)
        ev.append({"a": list(a), "b": list(b), "seeds": list(range(seeds)), "a_name": names[0],
                   "b_name": names[1], "resolution": 1e-4, **(extra or {})})
    return composition.settle("better", PARAMS if params is None else params, ev[2], ev[1], (n // 2, n),
                              SESOI if sesoi is None else sesoi, protocol, quarter=ev[0], horizon=horizon)


def power(van: np.ndarray, seeds: int, offset: float, noise: float, n: int, protocol: int,
          alternative: str = "text", draws: int = DRAWS, seed: int = 0, horizon: int = HORIZON) -> float:
    """The share of ``draws`` draws in which "PE above vanilla" settles as reproduced: PE stopped at
    :data:`ALTERNATIVE` (``alternative="text"``) or vanilla plus :data:`SESOI` (``"sesoi"``)."""
    rng = np.random.default_rng([seed, seeds, n, int(1e4 * van[-1])])     # the same draws for every protocol
    pe = np.full(3, ALTERNATIVE) if alternative == "text" else None
    from penb.claims.outcomes import REPRODUCED

    hits = 0
    for _ in range(draws):
        verdict, settled = simulate(van, pe, seeds, offset, noise, n, protocol, rng,
                                    gap=SESOI if alternative == "sesoi" else None, horizon=horizon)
        hits += settled and verdict == REPRODUCED
    return hits / draws


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
    from penb import presets
    from penb.chapters.key_findings import analysis
    from penb.executors.cost import batch_seconds

    cfg = presets.resolve("key_findings", "quick", cores=("gru",), gru_vocab=tuple(int(v) for v in vocabs),
                          seeds=presets.confirmation(seeds), device="cpu")
    configs = analysis.run_configs(cfg)[:len(vocabs) * variants * seeds]
    return batch_seconds(configs, int(BRANCHES * n)) / 60


# --- the table and the rule -----------------------------------------------------------------------------------------
BUDGETS = (2_000, 32_000, 64_000)           # quick's N, the deep N searched, and one doubling beyond (extrapolated)
SEED_COUNTS = (3, 5, 8, 10)


def moves(table: pd.DataFrame, vocab: int, n: int) -> dict:
    """Vanilla's two moves (N/4 -> N/2, N/2 -> N) on the search seeds, each mean with its Student-t 95% interval."""
    from penb.claims.intervals import t_interval

    x = curve(table, vocab, n)
    out = {}
    for name, d in (("earlier", x[:, 1] - x[:, 0]), ("later", x[:, 2] - x[:, 1])):
        mean, lo, hi = t_interval(d)
        out[name] = (mean, lo, hi)
    return out


def analyse(table: pd.DataFrame, draws: int = DRAWS, protocols=(7, 6)) -> pd.DataFrame:
    """One row per (vocabulary, N, seeds): vanilla's mean at N (searched or extrapolated), its two moves on the search
    seeds (where searched), the power of ``morita.fig2.gru`` under each protocol at the text's effect and at the
    SESOI, and the cost of the whole figure at that N and seed count (CPU minutes on the 2-core AVX-512 host, H100
    minutes)."""
    offset, noise = spread_and_noise(table)
    vocabs = sorted(int(v) for v in table["vocab"].unique())
    rows = []
    for v in vocabs:
        for n in BUDGETS:
            van, extrapolated = means(table, v, n)
            mv = {} if extrapolated else moves(table, v, n)
            for k in SEED_COUNTS:
                row = dict(vocab=int(v), N=n, seeds=k, extrapolated=extrapolated, vanilla_at_n=round(van[2], 4),
                           offset_sd=round(offset, 4), noise_sd=round(noise, 4))
                for name, (mean, lo, hi) in mv.items():
                    row[f"{name}_move"], row[f"{name}_lo"], row[f"{name}_hi"] = mean, lo, hi
                for p in protocols:
                    row[f"power_p{p}"] = power(van, k, offset, noise, n, p, "text", draws)
                    row[f"power_sesoi_p{p}"] = power(van, k, offset, noise, n, p, "sesoi", draws)
                row["cpu_min"] = round(cpu_minutes(vocabs, n, k), 1)
                row["h100_min"] = round(gpu_minutes(vocabs, n, k), 1)
                rows.append(row)
    return pd.DataFrame(rows).round(4)


def choose(power_table: pd.DataFrame, protocol: Optional[int] = None) -> dict:
    """``penb.presets.DEEP_RULE`` applied to a power table (:func:`analyse`): {"N", "seeds", "power", "cpu_min",
    "reached": whether the power was reached, "why"}, read at the largest vocabulary (where morita.fig2.gru is read)
    under ``protocol`` (default: ``penb.sizing.SIZED_UNDER``, the one the rule was written under)."""
    from penb import sizing
    col = f"power_p{protocol or sizing.SIZED_UNDER}"
    t = power_table[power_table["vocab"] == power_table["vocab"].max()]
    return pick(t, col, sizing.DEEP_BUDGETS)


def pick(t: pd.DataFrame, col: str, budgets, cost: str = "cpu_min", limit: Optional[float] = None,
         most_seeds: Optional[int] = None) -> dict:
    """The deep rules' choice on the rows ``t`` of one cell: among ``budgets`` whose figure fits ``limit`` (column
    ``cost``; default ``sizing.DEEP_CPU_MIN`` CPU-minutes) at ``DEEP_MIN_SEEDS``-``most_seeds`` seeds (default
    ``DEEP_MAX_SEEDS``), the smallest N whose power (column ``col``) reaches ``POWER`` with the fewest seeds;
    where none does, the largest N that fits with the most seeds that fit."""
    from penb import sizing

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


TABLE = paths.REPO / "penb" / "chapters" / "key_findings" / "power_analysis.csv"   # analyse(load()), committed


def view(path: Path = TABLE):
    """What the chapter shows of the power analysis: per vocabulary, budget and seed count, vanilla's level and last
    move on the search seeds, the power of morita.fig2.gru under protocols 7 and 6 (the text's effect; the SESOI's
    beside) and the figure's cost; with the rule's choice as a caption line. A Markdown line where the table is not
    there."""
    from IPython.display import Markdown

    if not Path(path).exists():
        return Markdown(f"No power analysis table at `{Path(path).name}` (`scripts/power_analysis.py` writes it).")
    t = pd.read_csv(path)
    show = t[t["seeds"].isin((3, 5, 10))].copy()
    show["vanilla's last move"] = move_texts(show, "later")
    cols = {"vocab": "V", "N": "N", "seeds": "seeds", "vanilla_at_n": "vanilla at N",
            "vanilla's last move": "vanilla's last move (search seeds)", "power_p7": "power, protocol 7",
            "power_p6": "power, protocol 6", "power_sesoi_p7": "power at the SESOI (p7)",
            "cpu_min": "figure, CPU-min (2 cores)", "h100_min": "figure, H100-min"}
    return shown(show, cols)


def shown(show: pd.DataFrame, cols: dict) -> pd.DataFrame:
    """The columns ``cols`` of a power table's rows ``show``, renamed, N marked where extrapolated, indexed by V, N
    and seeds: what a chapter displays."""
    out = show[[c for c in cols if c in show]].rename(columns=cols)
    out["N"] = [f"{n:,}" + (" (extrapolated)" if e else "") for n, e in zip(show["N"], show["extrapolated"])]
    return out.set_index(["V", "N", "seeds"])


def choice_text(path: Path = TABLE, rule: str = "penb.presets.DEEP_RULE", choose_fn=None) -> str:
    """The rule's choice (:func:`choose`, or ``choose_fn``) on the committed table at ``path``, in one sentence."""
    if not Path(path).exists():
        return "no power analysis table yet"
    c = (choose_fn or choose)(pd.read_csv(path))
    return (f"{rule} on this table: N = {c['N']:,}, {c['seeds']} seeds, "
            f"{c['cpu_min']:.0f} CPU-minutes on the 2-core AVX-512 host; {c['why']}")

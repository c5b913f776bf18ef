"""DEEP_RULE v1's power analysis for Fig. 2's GRU (issue 58): the alternative is the text's effect.

It reads the model behind's curve on **search seeds** only (``scripts/search_deep.py`` writes
``penb/chapters/key_findings/deep_search.csv``: the vanilla GRU at quick's shapes, WSD budgets N/4, N/2 and N for
N = 2,000 and 32,000), never a confirmation seed, and simulates the verdict of ``morita.fig2.gru`` ("PE above
vanilla", rule ``better``) through the composition that grades it (:func:`penb.power.simulate`), at the text's budget
(300,000 updates).

* **The model behind** at each vocabulary and budget: the search's mean at N/4, N/2 and N, a persistent per-seed
  offset and an evaluation noise (:func:`spread_and_noise`, pooled by :func:`penb.power.pooled`).
* **The alternative**: the text's own effect (DESIGN.md, "How a claim is graded"), since no pilot was run at the
  deep budget: Fig. 2's position-encoded GRU above 95% at every vocabulary (``morita.fig2.level.gru``), stopped
  there, against vanilla on its searched curve; the power at the claim's smallest effect of interest beside it.
* **N = 2N' beyond the search** (64,000 from 32,000): vanilla's next move is its last times the ratio of its last
  two (clipped to [0, 1]): an extrapolation, said where it is used.

:func:`choose` is DEEP_RULE v1 (``penb.sizing``) on the committed table (``power_analysis.csv``), which sized the
``deep`` preset (``book/archived/key_findings-deep``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import power as core, sizing
from penb.claims.intervals import t_interval
from penb.claims.outcomes import REPRODUCED
from penb.claims.protocol import PROTOCOL
from penb.store import paths

SEARCH = paths.REPO / "penb" / "chapters" / "key_findings" / "deep_search.csv"


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
    return core.pooled(found)


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


def power(van: np.ndarray, seeds: int, offset: float, noise: float, n: int,
          alternative: str = "text", draws: int = core.DRAWS, seed: int = 0, horizon: int = core.HORIZON) -> float:
    """The share of ``draws`` draws in which "PE above vanilla" settles as reproduced: PE stopped at
    :data:`ALTERNATIVE` (``alternative="text"``) or vanilla plus :data:`SESOI` (``"sesoi"``)."""
    rng = np.random.default_rng([seed, seeds, n, int(1e4 * van[-1])])     # the same draws for every N
    pe = np.full(3, core.ALTERNATIVE) if alternative == "text" else None
    hits = 0
    for _ in range(draws):
        verdict, settled = core.simulate(van, pe, seeds, offset, noise, n, rng,
                                         gap=core.SESOI if alternative == "sesoi" else None, horizon=horizon)
        hits += settled and verdict == REPRODUCED
    return hits / draws


BUDGETS = (2_000, 32_000, 64_000)           # quick's N, the deep N searched, and one doubling beyond (extrapolated)


SEED_COUNTS = (3, 5, 8, 10)


def moves(table: pd.DataFrame, vocab: int, n: int) -> dict:
    """Vanilla's two moves (N/4 -> N/2, N/2 -> N) on the search seeds, each mean with its Student-t 95% interval."""
    x = curve(table, vocab, n)
    out = {}
    for name, d in (("earlier", x[:, 1] - x[:, 0]), ("later", x[:, 2] - x[:, 1])):
        mean, lo, hi = t_interval(d)
        out[name] = (mean, lo, hi)
    return out


def analyse(table: pd.DataFrame, draws: int = core.DRAWS) -> pd.DataFrame:
    """One row per (vocabulary, N, seeds): vanilla's mean at N (searched or extrapolated), its two moves on the search
    seeds (where searched), the power of ``morita.fig2.gru`` under the protocol in force at the text's effect and at the
    core.SESOI, and the cost of the whole figure at that N and seed count (CPU minutes on the 2-core AVX-512 host, H100
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
                row[f"power_p{PROTOCOL}"] = power(van, k, offset, noise, n, "text", draws)
                row[f"power_sesoi_p{PROTOCOL}"] = power(van, k, offset, noise, n, "sesoi", draws)
                row["cpu_min"] = round(core.cpu_minutes(vocabs, n, k), 1)
                row["h100_min"] = round(core.gpu_minutes(vocabs, n, k), 1)
                rows.append(row)
    return pd.DataFrame(rows).round(4)


def choose(power_table: pd.DataFrame, protocol: Optional[int] = None) -> dict:
    """``penb.sizing.DEEP_RULE`` applied to a power table (:func:`analyse`): {"N", "seeds", "power", "cpu_min",
    "reached": whether the power was reached, "why"}, read at the largest vocabulary (where morita.fig2.gru is read)
    under ``protocol`` (default: ``penb.sizing.SIZED_UNDER``, the one the rule was written under)."""
    col = f"power_p{protocol or sizing.SIZED_UNDER}"
    t = power_table[power_table["vocab"] == power_table["vocab"].max()]
    return core.pick(t, col, sizing.DEEP_BUDGETS)


TABLE = paths.REPO / "penb" / "chapters" / "key_findings" / "power_analysis.csv"   # analyse(load()), committed


def view(path: Path = TABLE):
    """What the chapter shows of the power analysis: per vocabulary, budget and seed count, vanilla's level and last
    move on the search seeds, the power of morita.fig2.gru under protocols 7 and 6 (the text's effect; the core.SESOI's
    beside) and the figure's cost; with the rule's choice as a caption line. A Markdown line where the table is not
    there."""
    from IPython.display import Markdown  # deferred: IPython is for display only (the device image has none)

    if not Path(path).exists():
        return Markdown(f"No power analysis table at `{Path(path).name}` (`scripts/power_analysis.py` writes it).")
    t = pd.read_csv(path)
    show = t[t["seeds"].isin((3, 5, 10))].copy()
    show["vanilla's last move"] = core.move_texts(show, "later")
    cols = {"vocab": "V", "N": "N", "seeds": "seeds", "vanilla_at_n": "vanilla at N",
            "vanilla's last move": "vanilla's last move (search seeds)", "power_p7": "power, protocol 7",
            "power_p6": "power, protocol 6", "power_sesoi_p7": "power at the core.SESOI (p7)",
            "cpu_min": "figure, CPU-min (2 cores)", "h100_min": "figure, H100-min"}
    return core.shown(show, cols)


def choice_text(path: Path = TABLE) -> str:
    """v1's choice on the committed table, in one sentence."""
    return core.choice_text(path, "penb.sizing.DEEP_RULE", choose)

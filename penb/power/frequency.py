"""The power analysis that sizes frequency's deep preset (issue 58): what would decide Fig. 3's GRU cell, and its cost.

It reads the search table of ``scripts/search_deep.py --chapter frequency`` (``deep_search.csv`` beside this module:
the GRU at quick's shapes on the dual-frequency task, vanilla and position-encoded, **search seeds only**, WSD budgets
from 1,000 to 32,000 updates, each run's harm: accuracy with FREQUENT minus with RARE disturbants, all targets) and
simulates the verdict of :data:`CLAIM` ("the vanilla GRU is harmed more by RARE disturbants than the PE one", rule
``better`` on the per-seed harms, baseline 0) through the composition that grades it
(``penb.claims.composition.settle``, :func:`penb.power.simulate`), under the protocol in force and the one before,
at the text's budget (300,000 updates).

* **Each side's curve** at N/4, N/2 and N: the search's mean harm of each variant at those budgets (a WSD run at a
  budget is the same run whichever trunk it branched from, so the budgets 1k-32k form one family per seed);
  a per-seed offset and an evaluation noise pooled over the table's cells (:func:`spread_and_noise`, the estimator
  of :func:`penb.power.spread_and_noise` on the harm).
* **The alternative**: the effect measured on the search seeds (both variants' curves as searched), since Fig. 2's
  deep run showed how far the text's own level could be from this project's scale (PE GRU at V 256: 0.137 against
  the text's 0.95); the power at the claim's smallest effect of interest (vanilla's harm = PE's + 0.02 along PE's
  curve) beside it. What the simulation leaves out: the rule's control (the PE GRU learned at least as well as the
  vanilla one where nothing disturbs it), which the search's runs meet (the table shows both accuracies).
* **N = 64,000** (beyond the search): each side's next move is its last times the ratio of its last two (clipped
  to [0, 1]), an extrapolation, said in the table.

The cost: the figure's runs (``DEEP_VOCAB`` x 2 variants x seeds) with N/2 and N/4 on one WSD trunk, on the 2-core
CPU at the rate the search itself measured (its batches' run-updates per second), and on an H100 at the measured
batched rates (``penb.executors.cost.batch_seconds``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from penb import power as core
from penb.store import paths

HERE = paths.REPO / "penb" / "chapters" / "frequency"    # the chapter's folder: its search and power tables
SEARCH = HERE / "deep_search.csv"                  # scripts/search_deep.py --chapter frequency (search seeds)
TABLE = HERE / "power_analysis.csv"                # analyse(load()), committed before any deep confirmation run
CLAIM = "morita.fig3.pe_robust.gru"
VALUE = "harm"                                     # the per-seed quantity the claim compares
SIDES = ("none", "sinusoidal")                     # a: vanilla's harm, b: the PE GRU's
BUDGETS = (8_000, 16_000, 32_000, 64_000)          # N read at N/4, N/2, N (64,000 extrapolated)
SEED_COUNTS = (3, 5, 8, 10)
DEEP_VOCAB = 64                                    # the paper's GRU cell of Fig. 3 (32 + 32 tokens)


def load(path: Path = SEARCH) -> pd.DataFrame:
    """The search table, diverged runs dropped."""
    d = pd.read_csv(path)
    return d[~d["diverged"].astype(bool)].copy()


def curve(table: pd.DataFrame, vocab: int, n: int, encoding: str, value: str = VALUE) -> np.ndarray:
    """[seeds, 3]: each search seed's ``value`` at N/4, N/2 and N (seeds with all three), ``encoding``'s runs."""
    d = table[(table["vocab"] == vocab) & (table["encoding"] == encoding)]
    w = d.pivot_table(index="seed", columns="steps", values=value)
    cols = [n // 4, n // 2, n]
    if not set(cols) <= set(w.columns):
        raise ValueError(f"the search has no budgets {cols} at V {vocab} ({encoding})")
    return w[cols].dropna().to_numpy(float)


def spread_and_noise(table: pd.DataFrame, value: str = VALUE) -> tuple[float, float]:
    """(per-seed offset sd, evaluation noise sd) of ``value``, pooled (:func:`penb.power.pooled`) over every
    (vocabulary, encoding, N) cell whose N/4, N/2 and N were searched (N from 4,000)."""
    found = []
    for (v, e), _ in table.groupby(["vocab", "encoding"]):
        for n in (4000,) + BUDGETS:
            try:
                found.append(curve(table, v, n, e, value))
            except ValueError:
                continue
    return core.pooled(found)


def means(table: pd.DataFrame, vocab: int, n: int, encoding: str) -> tuple[np.ndarray, bool]:
    """(the mean harm at N/4, N/2, N, extrapolated?): searched where the table has those budgets; at twice a searched
    N, its N/2 and N and a next move of the last times the ratio of the last two (in [0, 1])."""
    try:
        return curve(table, vocab, n, encoding).mean(axis=0), False
    except ValueError:
        x = curve(table, vocab, n // 2, encoding).mean(axis=0)
    m1, m2 = x[1] - x[0], x[2] - x[1]
    ratio = min(max(m2 / m1, 0.0), 1.0) if m1 * m2 > 0 else 0.0
    return np.array([x[1], x[2], x[2] + ratio * m2]), True


def power(a: np.ndarray, b: np.ndarray, seeds: int, offset: float, noise: float, n: int, protocol: int,
          alternative: str = "search", draws: int = core.DRAWS, seed: int = 0, params=None, horizon=None) -> float:
    """The share of ``draws`` draws in which "vanilla harm above PE harm" settles as reproduced: both sides on their
    searched curves (``"search"``), or vanilla's at PE's plus the SESOI (``"sesoi"``); the claim's rule parameters
    and horizon unless ``params`` / ``horizon`` are given."""
    from penb import claims
    from penb.claims.outcomes import REPRODUCED

    c = claims.get(CLAIM)
    rng = np.random.default_rng([seed, seeds, n, int(1e4 * (b[-1] + 1))])
    hits = 0
    for _ in range(draws):
        verdict, settled = core.simulate(b, None if alternative == "sesoi" else a, seeds, offset, noise, n, protocol,
                                         rng, gap=c.sesoi if alternative == "sesoi" else None,
                                         horizon=horizon or c.horizon, params=params or c.rule.params,
                                         names=("vanilla GRU harm", "PE GRU harm"), low=-1.0, sesoi=c.sesoi,
                                         extra={"baseline": 0.0})
        hits += settled and verdict == REPRODUCED
    return hits / draws


def cpu_rate(table: pd.DataFrame, vocab: int = DEEP_VOCAB) -> float:
    """Run-updates per second per core the search measured on its trunks at ``vocab`` (a branch's batch trains only
    its decay): over those batches (``batch_runs`` runs of ``steps`` updates in ``batch_wall_s`` on one thread),
    total run-updates over total seconds."""
    t = table[(table["steps"] == table["trunk"]) & (table["vocab"] == vocab)]
    b = t.drop_duplicates(["batch_wall_s", "batch_runs", "steps"])
    return float((b["batch_runs"] * b["steps"]).sum() / b["batch_wall_s"].sum())


def cpu_minutes(n: int, seeds: int, rate: float, variants: int = 2, cores: int = core.CORES) -> float:
    """Minutes the 2-core CPU takes for the figure's runs at ``DEEP_VOCAB`` with N/2 and N/4 on the trunk."""
    return variants * seeds * core.BRANCHES * n / rate / cores / 60


def gpu_minutes(n: int, seeds: int) -> float:
    """Minutes one H100 takes for the same runs as one eager batch (``penb.executors.cost.batch_seconds``)."""
    from penb import presets
    from penb.chapters.frequency import analysis
    from penb.executors.cost import batch_seconds

    cfg = presets.resolve("frequency", "quick", cores=("gru",), gru_vocab=DEEP_VOCAB,
                          seeds=presets.confirmation(seeds), device="cpu")
    return batch_seconds(analysis.run_configs(cfg), int(core.BRANCHES * n)) / 60


def analyse(table: pd.DataFrame, draws: int = core.DRAWS, protocols=(7, 6)) -> pd.DataFrame:
    """One row per (vocabulary, N, seeds): each side's mean harm at N (searched or extrapolated), vanilla's and PE's
    last move on the search seeds, the power of :data:`CLAIM` under each protocol at the searched effect and at the
    SESOI, and the cost of the deep figure at that N and seed count."""
    from penb.claims.intervals import t_interval

    offset, noise = spread_and_noise(table)
    rate = cpu_rate(table)
    rows = []
    for v in sorted(int(x) for x in table["vocab"].unique()):
        for n in BUDGETS:
            a, ext = means(table, v, n, SIDES[0])
            b, _ = means(table, v, n, SIDES[1])
            row0 = dict(vocab=v, N=n, extrapolated=ext, vanilla_harm=round(a[2], 4), pe_harm=round(b[2], 4),
                        offset_sd=round(offset, 4), noise_sd=round(noise, 4))
            if not ext:
                for side, name in zip(SIDES, ("vanilla", "pe")):
                    x = curve(table, v, n, side)
                    mean, lo, hi = t_interval(x[:, 2] - x[:, 1])
                    row0.update({f"{name}_last_move": mean, f"{name}_last_lo": lo, f"{name}_last_hi": hi})
                    acc = curve(table, v, n, side, "acc_frequent")[:, 2].mean()
                    row0[f"{name}_acc_frequent"] = round(float(acc), 4)
            for k in SEED_COUNTS:
                row = dict(row0, seeds=k)
                for p in protocols:
                    row[f"power_p{p}"] = power(a, b, k, offset, noise, n, p, "search", draws)
                    row[f"power_sesoi_p{p}"] = power(a, b, k, offset, noise, n, p, "sesoi", draws)
                row["cpu_min"] = round(cpu_minutes(n, k, rate), 1)
                row["h100_min"] = round(gpu_minutes(n, k), 1)
                rows.append(row)
    return pd.DataFrame(rows).round(4)


def choose(power_table: pd.DataFrame, protocol=None) -> dict:
    """``penb.sizing.FREQ_DEEP_RULE`` on a power table (:func:`analyse`): {"N", "seeds", "power", "cpu_min", "reached",
    "why"}, read at ``DEEP_VOCAB`` under ``protocol`` (default: the one in force)."""
    from penb import sizing
    from penb.claims.protocol import PROTOCOL

    col = f"power_p{protocol or PROTOCOL}"
    return core.pick(power_table[power_table["vocab"] == DEEP_VOCAB], col, sizing.FREQ_DEEP_BUDGETS)


def view(path: Path = TABLE):
    """What the chapter shows: per vocabulary, budget and seed count, both sides' harm at N and their last moves on
    the search seeds, the power of the claim (the searched effect; the SESOI's beside) and the figure's cost."""
    from IPython.display import Markdown

    if not Path(path).exists():
        return Markdown(f"No power analysis table at `{Path(path).name}` (`scripts/power_analysis.py --chapter "
                        f"frequency` writes it).")
    t = pd.read_csv(path)
    show = t[t["seeds"].isin((3, 5, 10))].copy()
    for name in ("vanilla", "pe"):
        show[f"{name} last move"] = core.move_texts(show, f"{name}_last")
    cols = {"vocab": "V", "N": "N", "seeds": "seeds", "vanilla_harm": "vanilla harm at N", "pe_harm": "PE harm at N",
            "vanilla last move": "vanilla harm's last move", "pe last move": "PE harm's last move",
            "power_p7": "power, protocol 7", "power_p6": "power, protocol 6",
            "power_sesoi_p7": "power at the SESOI (p7)",
            "cpu_min": "figure, CPU-min (2 cores)", "h100_min": "figure, H100-min"}
    return core.shown(show, cols)


def choice_text(path: Path = TABLE) -> str:
    """The rule's choice (:func:`choose`) on the committed table, in one sentence."""
    return core.choice_text(path, "penb.sizing.FREQ_DEEP_RULE", choose)

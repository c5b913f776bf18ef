"""DEEP_RULE v2's power analysis for Fig. 2's GRU (issue 58, ``penb.sizing``): the alternative searched, not the text's.

The deep run at 32,000 updates (``book/archived/key_findings-deep``, sized by :mod:`penb.power.fig2_v1` under DEEP_RULE v1)
left every comparison inconclusive; v1 had assumed the text's PE GRU (above 95%, stopped), and the measured one sat at
0.137 at V 256, still rising. v2 reads both variants searched on the same **search seeds** 0-2 at quick's shapes:
vanilla in ``deep_search.csv`` (v1's search), the PE GRU in ``deep_search_pe.csv`` (``scripts/search_deep.py
--encodings sinusoidal``), and simulates ``morita.fig2.gru`` (PE above vanilla at the largest V) through the
composition that grades it (:mod:`penb.power.searched`), at N from 32,000 (searched) to 128,000 (extrapolated from
each side's last two moves), at the five fresh confirmation seeds v2 keeps (``sizing.DEEP_V2_SEEDS``) and beside them
the other counts. The cost is the whole figure's (four vocabularies, two variants): minutes of one H100 at the
measured batched rates (the budget v2 reads, ``sizing.GPU_DEEP_MINUTES``) and CPU-minutes on the 2-core host.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from penb import power as core, sizing
from penb.power import searched
from penb.store import paths

HERE = paths.REPO / "penb" / "chapters" / "key_findings"
SEARCH = (HERE / "deep_search.csv", HERE / "deep_search_pe.csv")   # vanilla (v1's search), then the PE GRU
TABLE = HERE / "power_analysis_v2.csv"
VOCABS = (32, 64, 128, 256)                      # the figure's cells (Sec. 4.1's GRU range)
SPEC = searched.Spec(claim="morita.fig2.gru", value="token_accuracy", sides=("sinusoidal", "none"),
                     names=("PE GRU", "vanilla GRU"), budgets=(32_000, 64_000, 128_000), vocab=max(VOCABS),
                     noise_budgets=(2000, 32_000))
SEED_COUNTS = (3, 5, 8, 10)


def load(path=SEARCH) -> pd.DataFrame:
    """Both search tables, diverged runs dropped."""
    return searched.load(path)


def analyse(table: pd.DataFrame, draws: int = core.DRAWS) -> pd.DataFrame:
    """One row per (vocabulary, N, seeds) (:func:`penb.power.searched.rows`): each side's accuracy at N and last move,
    the power of ``morita.fig2.gru`` at the searched effect and at the SESOI, and the figure's CPU and H100 minutes."""
    def cost(n, k):
        return {"cpu_min": round(core.cpu_minutes(VOCABS, n, k), 1),
                "h100_min": round(core.gpu_minutes(VOCABS, n, k), 1)}
    return pd.DataFrame(searched.rows(SPEC, table, SEED_COUNTS, cost, draws)).round(4)


def choose(power_table: pd.DataFrame, protocol=None) -> dict:
    """DEEP_RULE v2 on a power table (:func:`analyse`), read at the largest V: the smallest N of
    ``sizing.GPU_DEEP_BUDGETS`` with ``POWER`` at the v2 seeds' count, within ``GPU_DEEP_MINUTES`` of one H100;
    else the largest that fits."""
    t = power_table[power_table["vocab"] == SPEC.vocab]
    return core.pick(t, f"power_p{protocol or sizing.SIZED_UNDER}", sizing.GPU_DEEP_BUDGETS, cost="h100_min",
                     limit=sizing.GPU_DEEP_MINUTES, most_seeds=len(sizing.DEEP_V2_SEEDS))


def view(path: Path = TABLE):
    """What the chapter shows of v2's table (:func:`penb.power.searched.view`)."""
    return searched.view(path, ("PE GRU", "vanilla GRU"), "scripts/power_analysis.py --chapter key_findings_v2")


def choice_text(path: Path = TABLE) -> str:
    """v2's choice on the committed table, in one sentence."""
    return core.choice_text(path, "DEEP_RULE v2 (penb.power.fig2)", choose)

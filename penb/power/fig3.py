"""The power analysis that sizes frequency's deep preset (issue 58): what would decide Fig. 3's GRU cell, and its cost.

It reads the search table of ``scripts/search_deep.py --chapter frequency`` (``deep_search.csv`` in the chapter's
folder: the GRU at quick's shapes on the dual-frequency task, vanilla and position-encoded, **search seeds only**, WSD
budgets from 1,000 to 32,000 updates, each run's harm: accuracy with FREQUENT minus with RARE disturbants, all
targets) and simulates the verdict of :data:`CLAIM` ("the vanilla GRU is harmed more by RARE disturbants than the PE
one", rule ``better`` on the per-seed harms, baseline 0) through the composition that grades it, under the protocol
in force and the one before, at the text's budget (300,000 updates): :mod:`penb.power.searched` with :data:`SPEC`.

* **The alternative**: the effect measured on the search seeds (both variants' curves as searched), since Fig. 2's
  deep run showed how far the text's own level could be from this project's scale (PE GRU at V 256: 0.137 against
  the text's 0.95); the power at the claim's smallest effect of interest (vanilla's harm = PE's + 0.02 along PE's
  curve) beside it. What the simulation leaves out: the rule's control (the PE GRU learned at least as well as the
  vanilla one where nothing disturbs it), which the search's runs meet (its table holds both accuracies).
* **N = 64,000** (beyond the search) is extrapolated from each side's last two moves, said in the table.

The cost: the figure's runs (``DEEP_VOCAB`` x 2 variants x seeds) with N/2 and N/4 on one WSD trunk, on the 2-core
CPU at the rate the search itself measured (its batches' run-updates per second), and on an H100 at the measured
batched rates (``penb.executors.cost.batch_seconds``).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from penb import power as core, presets, sizing
from penb.chapters.frequency import analysis
from penb.executors.cost import batch_seconds
from penb.power import searched
from penb.store import paths

HERE = paths.REPO / "penb" / "chapters" / "frequency"    # the chapter's folder: its search and power tables
SEARCH = HERE / "deep_search.csv"                  # scripts/search_deep.py --chapter frequency (search seeds)
TABLE = HERE / "power_analysis.csv"                # analyse(load()), committed before any deep confirmation run
CLAIM = "morita.fig3.pe_robust.gru"
DEEP_VOCAB = 64                                    # the paper's GRU cell of Fig. 3 (32 + 32 tokens)
SPEC = searched.Spec(claim=CLAIM, value="harm", sides=("none", "sinusoidal"),
                     names=("vanilla GRU harm", "PE GRU harm"),
                     budgets=(8_000, 16_000, 32_000, 64_000),      # N read at N/4, N/2, N (64,000 extrapolated)
                     vocab=DEEP_VOCAB, low=-1.0, baseline=0.0,
                     noise_budgets=(4000, 8_000, 16_000, 32_000))
BUDGETS = SPEC.budgets
SEED_COUNTS = (3, 5, 8, 10)


def load(path: Path = SEARCH) -> pd.DataFrame:
    """The search table, diverged runs dropped."""
    return searched.load(path)


def curve(table: pd.DataFrame, vocab: int, n: int, encoding: str, value: str = SPEC.value):
    """[seeds, 3]: each search seed's ``value`` at N/4, N/2 and N (:func:`penb.power.searched.curve`)."""
    return searched.curve(table, vocab, n, encoding, value)


def means(table: pd.DataFrame, vocab: int, n: int, encoding: str):
    """(the mean harm at N/4, N/2, N, extrapolated?) (:func:`penb.power.searched.means`)."""
    return searched.means(table, vocab, n, encoding, SPEC.value)


def spread_and_noise(table: pd.DataFrame, value: str = SPEC.value) -> tuple[float, float]:
    """(per-seed offset sd, evaluation noise sd) of ``value`` over the searched cells from N = 4,000."""
    return searched.spread_and_noise(table, value, SPEC.noise_budgets)


def power(a, b, seeds: int, offset: float, noise: float, n: int, alternative: str = "search",
          draws: int = core.DRAWS, seed: int = 0, params=None, horizon=None) -> float:
    """:func:`penb.power.searched.power` of :data:`SPEC`: vanilla's harm (``a``) above the PE GRU's (``b``)."""
    return searched.power(SPEC, a, b, seeds, offset, noise, n, alternative, draws, seed, params, horizon)


def cpu_rate(table: pd.DataFrame, vocab: int = DEEP_VOCAB) -> float:
    """Run-updates per second per core the search measured on its trunks at ``vocab`` (a branch's batch trains only
    its decay): over those batches (``batch_runs`` runs of ``steps`` updates in ``batch_wall_s`` on one thread),
    total run-updates over total seconds."""
    t = table[(table["steps"] == table["trunk"]) & (table["vocab"] == vocab)]
    b = t.drop_duplicates(["batch_wall_s", "batch_runs", "steps"])
    return float((b["batch_runs"] * b["steps"]).sum() / b["batch_wall_s"].sum())


def cpu_minutes(n: int, seeds: int, rate: float, variants: int = 2) -> float:
    """Minutes the 2-core CPU takes for the cell's runs at ``DEEP_VOCAB`` with N/2 and N/4 on the trunk
    (:func:`penb.power.cpu_minutes` at the search's own measured ``rate``, run-updates/s per core)."""
    return core.cpu_minutes((DEEP_VOCAB,), n, seeds, variants, rate={32: rate, 256: rate})


def gpu_minutes(n: int, seeds: int) -> float:
    """Minutes one H100 takes for the same runs as one eager batch (``penb.executors.cost.batch_seconds``)."""
    cfg = presets.resolve("frequency", "quick", cores=("gru",), gru_vocab=DEEP_VOCAB,
                          seeds=presets.confirmation(seeds), device="cpu")
    return batch_seconds(analysis.run_configs(cfg), int(core.BRANCHES * n)) / 60


def analyse(table: pd.DataFrame, draws: int = core.DRAWS) -> pd.DataFrame:
    """One row per (vocabulary, N, seeds) (:func:`penb.power.searched.rows`): each side's harm at N and last move,
    the power of :data:`CLAIM` at the searched effect and at the SESOI, and the cell's CPU and H100 minutes."""
    rate = cpu_rate(table)

    def cost(n, k):
        return {"cpu_min": round(cpu_minutes(n, k, rate), 1), "h100_min": round(gpu_minutes(n, k), 1)}
    return pd.DataFrame(searched.rows(SPEC, table, SEED_COUNTS, cost, draws)).round(4)


def choose(power_table: pd.DataFrame, protocol=None) -> dict:
    """``penb.sizing.FREQ_DEEP_RULE`` on a power table (:func:`analyse`): {"N", "seeds", "power", "cpu_min", "reached",
    "why"}, read at ``DEEP_VOCAB`` under ``protocol`` (default: ``penb.sizing.SIZED_UNDER``, the one the rule was
    written under)."""
    col = f"power_p{protocol or sizing.SIZED_UNDER}"
    return core.pick(power_table[power_table["vocab"] == DEEP_VOCAB], col, sizing.FREQ_DEEP_BUDGETS)


def view(path: Path = TABLE):
    """What the chapter shows: per vocabulary, budget and seed count, both sides' harm at N and their last moves on
    the search seeds, the power of the claim (the searched effect; the SESOI's beside) and the figure's cost."""
    return searched.view(path, ("vanilla harm", "PE harm"), "scripts/power_analysis.py --chapter frequency")


def choice_text(path: Path = TABLE) -> str:
    """The rule's choice (:func:`choose`) on the committed table, in one sentence."""
    return core.choice_text(path, "penb.sizing.FREQ_DEEP_RULE", choose)

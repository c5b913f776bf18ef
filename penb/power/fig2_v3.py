"""DEEP_RULE v3's power analysis (issue 65, ``penb.sizing``): Fig. 2's V 256 GRU cells at the text's 300,000 updates.

v3 fixes nothing from a verdict: its cells are DEEP_RULE v2's V 256 runs (GRU, vanilla and sinusoidal, seeds
2006-2010), continued on their own WSD trunks to the text's budget (Morita, Sec. 3.3: 300,000 updates) with its N/2
and N/4, because the issue that filed it asked for those trunks at that budget before any 128,000-update verdict
was read. What this module adds is the power that design has, written before any trunk went past what 128,000
needs (the stable trunk's 102,400 updates), so that the chapter can say beside each verdict at 300,000 whether
five seeds could have decided it.

* **The curves behind.** Each side's per-seed token accuracy at 32,000, 64,000 and 128,000 (N/4, N/2, N of v2's
  trunks) in ``book/archived/key_findings-deep_v2`` (:func:`measured`); a per-seed offset and an evaluation noise
  pooled over both sides (``penb.power.pooled``).
* **To 300,000** (1.23 doublings past 128,000; :func:`means`): 75,000 lies between two measured budgets and is read
  on the line between them in log2 N; beyond 128,000 each side moves per doubling by
  - ``held``: its last measured move (64,000 to 128,000), unchanged;
  - ``slowing``: that move times the ratio of its last two moves (in [0, 1]) each further doubling, v2's
    extrapolation (``penb.power.searched.means``), a partial last doubling charged its share;
  - ``stopped``: nothing (both sides stay at 128,000's means);
  - ``sesoi``: vanilla ``held``, the PE GRU at vanilla plus the claim's smallest effect of interest.
* **The power**: the share of draws that the composition in force settles as "reproduced" for ``morita.fig2.gru``
  at N = 300,000 with the text's horizon (no doubling left to carry), at five seeds (the design) and at eight and
  ten beside it (what more seeds would give; the confirmation pool holds no unread seed, so they are not run).
* **The cost**: the CPU-minutes left to reach 300,000 on these trunks at the rate the long run measured (its
  segments' run-updates per minute, ``book/archived/key_findings-deep_v2-trunks``), and for a seed count above five
  the fresh trunks those seeds would need.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from penb import claims, power as core
from penb.claims.intervals import t_interval
from penb.claims.protocol import PROTOCOL
from penb.power import searched
from penb.run_config import decay_start
from penb.store import paths

HERE = paths.REPO / "penb" / "chapters" / "key_findings"
ARCHIVE = paths.REPO / "book" / "archived" / "key_findings-deep_v2"
TRUNKS = paths.REPO / "book" / "archived" / "key_findings-deep_v2-trunks"
TABLE = HERE / "power_analysis_v3.csv"
MEASURED = (32_000, 64_000, 128_000)           # v2's N/4, N/2, N
N = core.HORIZON                               # the text's budget: 300,000
VOCAB = 256
DECAY = 0.2                                    # the WSD decay share of quick's GRU regime (penb.run_config)
SPEC = searched.Spec(claim="morita.fig2.gru", value="token_accuracy", sides=("sinusoidal", "none"),
                     names=("PE GRU", "vanilla GRU"), budgets=(N,), vocab=VOCAB)
SCENARIOS = ("held", "slowing", "stopped", "sesoi")
SEED_COUNTS = (5, 8, 10)
DESIGN_SEEDS = 5


def measured(archive: Path = ARCHIVE) -> dict:
    """{encoding: [seeds, 3]}: each seed's token accuracy at 32,000, 64,000 and 128,000 (V 256 GRU runs of the
    archive, finished ones only), seeds in order."""
    results = json.loads((Path(archive) / "results.json").read_text())
    rows = [dict(encoding=r["config"]["encoding"], seed=r["config"]["seed"], steps=r["config"]["steps"],
                 value=r["metrics"]["token_accuracy"]) for r in results.values()
            if r.get("status") == "done" and r["config"]["core"] == "gru" and r["config"]["vocab_size"] == VOCAB]
    if not rows:
        raise ValueError(f"{archive} holds no finished V {VOCAB} GRU run")
    d = pd.DataFrame(rows).pivot_table(index=["encoding", "seed"], columns="steps", values="value")
    return {e: d.loc[e][list(MEASURED)].dropna().to_numpy(float) for e in SPEC.sides}


def extra_doublings(move: float, ratio: float, d: float) -> float:
    """What a side gains over ``d`` doublings past its last measured budget when the first moves ``move * ratio``
    and each next one ``ratio`` times the one before; a partial last doubling is charged its share."""
    whole, part = int(math.floor(d)), d - math.floor(d)
    return move * (sum(ratio ** j for j in range(1, whole + 1)) + part * ratio ** (whole + 1))


def means(x: np.ndarray, scenario: str) -> np.ndarray:
    """[3]: one side's mean at N/4, N/2, N of 300,000 under ``scenario`` from its measured curve ``x`` ([seeds, 3]
    at 32,000, 64,000, 128,000)."""
    m = x.mean(axis=0)
    m1, m2 = m[1] - m[0], m[2] - m[1]
    ratio = {"held": 1.0, "sesoi": 1.0, "stopped": 0.0,
             "slowing": min(max(m2 / m1, 0.0), 1.0) if m1 * m2 > 0 else 0.0}[scenario]

    def at(n):
        d = math.log2(n / MEASURED[2])
        if d <= 0:                                       # inside the measured range: on the line in log2 N
            return m[1] + math.log2(n / MEASURED[1]) * m2
        return m[2] + extra_doublings(m2, ratio, d)
    return np.clip([at(N // 4), at(N // 2), at(N)], 0.0, 1.0)


def updates_left(n: int = N, saved=()) -> int:
    """Run-updates a trunk's three runs (``n``, ``n/2``, ``n/4`` on one WSD trunk) still need where the trunk's
    branch points ``saved`` (updates) are stored: the stable part from the latest saved point to the latest decay
    start, each run's decay, and for a run whose decay starts below that point, its stretch from the latest saved
    point at or before its start (``penb.trunks.latest``)."""
    def base(at):
        return max([0, *[p for p in saved if p <= at]])
    starts = {b: decay_start(b, DECAY) for b in (n, n // 2, n // 4)}
    top = max(starts.values())
    total = top - base(top)
    for b, s in starts.items():
        total += b - s + (s - base(s) if s < base(top) else 0)
    return total


V2_POINTS = tuple(decay_start(b, DECAY) for b in MEASURED)      # v2's trunks: 25,600, 51,200 and 102,400 saved


def rate(trunks: Path = TRUNKS) -> float:
    """Run-updates per minute of the long run's first segment, which trained v2's ten V 256 trunks from nothing to
    128,000 with N/2 and N/4 (each trunk's work :func:`updates_left` of 128,000; tests shared the cores at times)."""
    first = json.loads((Path(trunks) / "manifest.json").read_text())["segments"][0]
    ends = [b for a, b in first["updates"].values()]
    if any(a for a, _ in first["updates"].values()) or ends.count(MEASURED[2]) * 3 != len(ends):
        raise ValueError(f"{trunks}: the first segment is not v2's trunks trained from nothing to 128,000")
    return ends.count(MEASURED[2]) * updates_left(MEASURED[2]) / first["minutes"]


def analyse(draws: int = core.DRAWS) -> pd.DataFrame:
    """One row per (scenario, seeds): both sides' means at 300,000, the pooled offset and noise, the power of
    ``morita.fig2.gru`` there under the protocol in force and the CPU-minutes left."""
    x = measured()
    offset, noise = core.pooled(list(x.values()))
    per_run = rate()
    out = []
    for scenario in SCENARIOS:
        a, b = means(x[SPEC.sides[0]], scenario), means(x[SPEC.sides[1]], scenario)
        if scenario == "sesoi":
            a = b + claims.get(SPEC.claim).sesoi
        for k in SEED_COUNTS:
            fresh = max(k - DESIGN_SEEDS, 0) * 2 * updates_left()
            left = min(k, DESIGN_SEEDS) * 2 * updates_left(N, V2_POINTS) + fresh
            row = dict(scenario=scenario, N=N, seeds=k, a_at_n=round(a[2], 4), b_at_n=round(b[2], 4),
                       gap_at_n=round(a[2] - b[2], 4), offset_sd=round(offset, 4), noise_sd=round(noise, 4),
                       cpu_min=round(left / per_run, 1))
            for side, name in zip(SPEC.sides, ("a", "b")):
                row[f"{name}_last_move"], row[f"{name}_last_lo"], row[f"{name}_last_hi"] = (
                    t_interval(x[side][:, 2] - x[side][:, 1]))
            row[f"power_p{PROTOCOL}"] = searched.power(SPEC, a, b, k, offset, noise, N,
                                                       "sesoi" if scenario == "sesoi" else "search", draws,
                                                       horizon=N)
            out.append(row)
    return pd.DataFrame(out).round(4)


def design_power(path: Path = TABLE) -> dict:
    """{scenario: the power at the design's five seeds} on the committed table."""
    t = pd.read_csv(path)
    col = [c for c in t.columns if c.startswith("power_p")][0]
    t = t[t["seeds"] == DESIGN_SEEDS]
    return dict(zip(t["scenario"], t[col]))


def view(path: Path = TABLE):
    """What the chapter shows of v3's table: per scenario and seed count, both sides at 300,000, the gap, the power
    of morita.fig2.gru and the CPU-minutes left; a Markdown line where the table is not there."""
    from IPython.display import Markdown  # deferred: IPython is for display only (the device image has none)

    if not Path(path).exists():
        return Markdown(f"No power analysis table at `{Path(path).name}` "
                        f"(`scripts/power_analysis.py --chapter key_findings_v3` writes it).")
    t = pd.read_csv(path)
    col = [c for c in t.columns if c.startswith("power_p")][0]
    cols = {"scenario": "scenario", "seeds": "seeds", "a_at_n": "PE GRU at 300,000", "b_at_n": "vanilla at 300,000",
            "gap_at_n": "gap", col: f"power, protocol {col[len('power_p'):]}", "cpu_min": "CPU-min left (2 cores)"}
    return t[list(cols)].rename(columns=cols).set_index(["scenario", "seeds"])


def choice_text(path: Path = TABLE) -> str:
    """v3's design and its power on the committed table, in one sentence."""
    if not Path(path).exists():
        return "no power analysis table for DEEP_RULE v3 yet"
    p = design_power(path)
    return (f"DEEP_RULE v3 (penb.power.fig2_v3): V 256 at {N:,} on seeds 2006-2010, fixed by the issue; morita.fig2.gru "
            f"settles in {', '.join(f'{v:.1%} ({k})' for k, v in p.items())} of draws at five seeds: underpowered")

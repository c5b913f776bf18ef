"""The shorter budgets of the doubling test for the causal-Transformer chapters (``irie``,
``beyond_transformers``): N/2 (protocol 4) and N/4 (the doubling before it, which protocols 6-7's horizon
reads; issue 58), and what the next doubling would cost.

These chapters train on the warm-up + cosine schedule, which runs to 0 at its own end, so the run at N/2
updates is a run of its own (not a branch of the N run): :func:`half` gives each config at half its updates,
:func:`quarter` at a quarter, everything else equal (same seed, so the same initial weights, data stream and
test set). A claim about
trained models (``Claim.about == "trained"``) reads its evidence at N/2 and at N, and stands only where the
quantity that could overturn it moved by less than its smallest effect (``penb.claims.doubling``).
"""
from __future__ import annotations

from typing import Iterable, Sequence

from penb.executors.cost import step_seconds


def shorter(configs: Iterable[dict], k: int) -> list[dict]:
    """Each run config at 1/2^k of its updates (``steps >> k``), its one checkpoint at its end and its log every
    fiftieth of its updates, as the chapters set them for a full run."""
    out = []
    for c in configs:
        n = c["steps"] >> k
        out.append({**c, "steps": n, "checkpoint_every": n, "log_every": max(n // 50, 1)})
    return out


def half(configs: Iterable[dict]) -> list[dict]:
    """Each run config at half its updates (:func:`shorter`, k = 1)."""
    return shorter(configs, 1)


def quarter(configs: Iterable[dict]) -> list[dict]:
    """Each run config at a quarter of its updates (:func:`shorter`, k = 2): the doubling before the last."""
    return shorter(configs, 2)


def next_cost(configs: Sequence[dict], wall_s: Sequence[float]) -> dict:
    """What the next doubling (2N updates, a fresh cosine run per seed) of the runs ``configs`` (their full-budget
    configs, each with ``steps``) would cost: {"updates", "runs", "cpu_min" (their own wall times on one core,
    doubled), "gpu_min" (an H100, :func:`penb.executors.cost.step_seconds`)}; {} without runs."""
    if not configs:
        return {}
    n = max(int(c["steps"]) for c in configs)
    cpu = 2 * sum(float(w) for w in wall_s if w == w) / 60
    gpu = sum(step_seconds(c) * 2 * int(c["steps"]) for c in configs) / 60
    return {"updates": 2 * n, "runs": len(configs), "cpu_min": round(cpu, 1), "gpu_min": round(gpu, 2)}


def run_cost(rs: Sequence) -> dict:
    """:func:`next_cost` of finished runs ``rs`` (``penb.runs.RunResult``: their configs and wall times; {} for
    hand-built runs whose configs name no ``steps``)."""
    configs = [getattr(r, "config", {}) for r in rs]
    if not configs or any("steps" not in c for c in configs):
        return {}
    return next_cost(configs, [getattr(r, "wall_s", float("nan")) for r in rs])

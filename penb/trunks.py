"""Budgets that grow: runs on the warm-up / stable / decay schedule share one trunk (grading protocol 4).

A WSD run of ``N`` updates holds the peak rate until its decay starts at ``D(N) = N - round(decay N)``
(``penb.run_config.decay_start``), so before ``D(N)`` its state does not depend on ``N``: runs that differ only
in their budget (``steps``, and ``decay`` or ``checkpoint_every``, which change nothing before the decay) are one
*trunk*, and each budget is a short decay branch off it. Hägele et al. (2024) and MiniCPM train this way; the
doubling test of protocol 4 reads budgets ``N/2`` and ``N``, which cost about ``1.1 N`` updates together instead
of ``1.5 N`` (with ``decay`` 0.2: the trunk to ``0.8 N`` plus the ``0.1 N`` branch of ``N/2``).

The store keeps the trunk's checkpoints at the branch points, in ``<store>/_trunks/<trunk key>/``:

* a WSD run of ``N`` saves the trunk's state at ``D(N)`` and at ``D(N/2)`` and ``D(N/4)`` where those budgets
  are whole numbers of updates that decay after the warm-up (:func:`branch_points`);
* a WSD run with no checkpoint of its own starts from the latest trunk checkpoint at or before its own
  ``D`` (:func:`latest`): a budget ``N/2`` trained after ``N`` trains only its branch, and a budget ``2N``
  extends the trunk from ``D(N)`` instead of starting over (a later session, a Slurm job or a GPU step).

On the CPU a branched run equals the same run trained alone, bit for bit (the trunk's state is what its own
updates would have made; ``tests/test_trunks.py`` checks it); on CUDA it agrees statistically, as a resumed run
does. The trunk key hashes the run key's fields (``penb.runs.key_fields``) less those that do not act before the
decay: two processes that reach one branch point write the same checkpoint atomically (the last write wins),
so no lock is needed.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping, Optional

from penb.runs import key_fields
from penb.run_config import decay_start

FOLDER = "_trunks"                                   # beside the run folders of a store
SHORTER = 2              # budgets below N a run saves branch points for (N/2, N/4): what a doubling test reads
NOT_IN_TRUNK = ("steps", "decay", "checkpoint_every", "log_every")    # fields that act only at or after the decay


def shares_trunk(config: Mapping[str, Any]) -> bool:
    """True for a run on the WSD schedule (a normalised config)."""
    return config.get("schedule") == "wsd"


def trunk_fields(config: Mapping[str, Any]) -> dict:
    """What a trunk's identity hashes: the run key's fields (``penb.runs.key_fields``) less
    :data:`NOT_IN_TRUNK`."""
    return {k: v for k, v in key_fields(config).items() if k not in NOT_IN_TRUNK}


def trunk_key(config: Mapping[str, Any]) -> str:
    """sha256 (16 hex digits) of the canonical JSON of :func:`trunk_fields`."""
    blob = json.dumps(trunk_fields(config), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(("trunk:" + blob).encode()).hexdigest()[:16]


def longest(configs) -> dict:
    """{trunk key: the longest-budget run of that trunk} among the WSD runs of ``configs`` (the first of equals)."""
    out: dict = {}
    for c in configs:
        if shares_trunk(c) and c["steps"] > out.get(trunk_key(c), {"steps": 0})["steps"]:
            out[trunk_key(c)] = c
    return out


def trunk_dir(config: Mapping[str, Any], root: Path) -> Optional[Path]:
    """The trunk folder of a WSD run in store ``root`` (None for any other schedule)."""
    return Path(root) / FOLDER / trunk_key(config) if shares_trunk(config) else None


def branch_points(config: Mapping[str, Any]) -> list[int]:
    """The updates at which a WSD run of ``N`` saves its trunk: ``D(N)`` and ``D(N / 2^k)`` for the
    :data:`SHORTER` budgets ``N / 2^k`` below it that are whole numbers and decay after the warm-up, ascending."""
    n, decay, warmup = config["steps"], config["decay"], config["warmup"]
    points = set()
    for _ in range(SHORTER + 1):
        if decay_start(n, decay) < max(warmup, 1):
            break
        points.add(decay_start(n, decay))
        if n % 2:
            break
        n //= 2
    return sorted(points)


def branch_limit(config: Mapping[str, Any]) -> int:
    """The last update of a WSD run's trunk: its own decay start ``D(N)``."""
    return decay_start(config["steps"], config["decay"])


def path(folder: Path, step: int) -> Path:
    return Path(folder) / f"step-{step:09d}.pt"


def latest(folder: Optional[Path], limit: int) -> list[tuple[int, Path]]:
    """The trunk checkpoints in ``folder`` at or before update ``limit``, latest first."""
    if folder is None or not Path(folder).is_dir():
        return []
    found = [(int(p.stem.split("-")[1]), p) for p in Path(folder).glob("step-*.pt")]
    return sorted(((s, p) for s, p in found if s <= limit), reverse=True)


def to_go(config: Mapping[str, Any], branch: bool, start: int = 0) -> int:
    """The updates a run still has to make (issue 60: computed here once, read by the plan, the call's driver and
    the batched executor): from its decay start where it is a ``branch`` whose trunk reaches that point first (a
    WSD run with a longer run of its trunk in the same work), else from ``start`` (0, or the trunk checkpoint it
    resumes from)."""
    return config["steps"] - (branch_limit(config) if branch else start)


def trunk_updates(group) -> int:
    """The updates one WSD trunk costs: its longest budget in full, plus the decay branch of each shorter one."""
    top = max(c["steps"] for c in group)
    return top + sum(to_go(c, branch=True) for c in group if c["steps"] != top)


def split(configs) -> tuple[list, list[list]]:
    """(the runs of ``configs`` that share no trunk, the WSD runs grouped by trunk, in order of their first run)."""
    alone, groups = [], {}
    for c in configs:
        if shares_trunk(c):
            groups.setdefault(trunk_key(c), []).append(c)
        else:
            alone.append(c)
    return alone, list(groups.values())


def updates(configs) -> int:
    """The updates ``configs`` train: each group of WSD budgets as one trunk (:func:`trunk_updates`), any other run
    in full."""
    alone, groups = split(list(configs))
    return sum(c["steps"] for c in alone) + sum(trunk_updates(g) for g in groups)

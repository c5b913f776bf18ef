"""The training state of a comparison: have the models a verdict rests on stopped improving? (Protocol 3 gated
verdicts on it; since protocol 4 the doubling test decides, and the state is shown beside each verdict.)

The texts' claims are about trained models (Morita's PE models sit near 100% after 300,000 updates, the vanilla
ones have flattened below them). A short preset grades the same claims on models early in training, where an
effect can come from the regime rather than from the claim. So every comparison carries its models' training
state, read from the runs' own histories, and a claim about trained models is decided only by trained models.

**The criterion** (written on 2026-11-25, before protocol 3's confirmation build read any result):

* per run, from its history (training accuracy, means over ``log_every`` updates): the *rise over the second
  half*, the mean over the last tenth of training (steps in (0.9 N, N]) minus the mean over the tenth that ends
  at the midpoint ((0.4 N, 0.5 N]); for a language model (``metric="loss"``) the *fall* of the training loss in
  nats over the same windows;
* a model (one variant at one cell, over its valid seeds) is **still learning** when its mean rise exceeds
  :data:`RISE_LIMIT`, 0.02: the protocol's default smallest effect of interest, in accuracy (or nats). A model
  that still gains more than the smallest effect that matters can still close or open a gap that matters;
* a comparison is **trained** when every model it compares, at every cell it reads, is trained.

Why the second half and not the last steps: the presets train on a cosine schedule that runs to 0, so the last
quarter looks flat whatever the model's state; the second half shows how much the model was still gaining.

**A check against doubling the updates** (search seeds 0-1, ``penb/chapters/key_findings/search_trained/t1.csv``;
read after the criterion was written, so it calibrates nothing): the quick GRU at V 8 rose 0.114-0.118 (vanilla)
and 0.067-0.075 (PE) over its second half at 4,000 updates, and twice the updates then added 0.048-0.049 and
0.029-0.035 of held-out accuracy: every "still learning" there was borne out. The rise is about twice what a
doubling adds, part of it the annealing's lift, so a model that rises a little above the limit may gain under
0.02 from more updates: the criterion errs towards "still learning", that is towards inconclusive.

:func:`state` builds the record from a chapter's table of runs (a ``path`` column per run); :func:`combine` joins
the cells of a trend.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

import numpy as np


RISE_LIMIT = 0.02          # the protocol's default SESOI: a second-half gain above it means still learning
TRAINED, LEARNING, UNKNOWN = "trained", "still learning", "not recorded"
CURVE_POINTS = 24          # points kept of each model's mean learning curve (for the small plots)
CRITERION = ("rise of training accuracy over the second half of training (mean of the last tenth minus the mean "
             f"of the tenth ending at the midpoint) above {RISE_LIMIT} means still learning; for a language model, "
             f"the fall of the training loss in nats over the same windows")


def _window(steps: np.ndarray, values: np.ndarray, lo: float, hi: float) -> float:
    """Mean of ``values`` whose step lies in (lo, hi]; the nearest logged point when the window is empty."""
    inside = (steps > lo) & (steps <= hi)
    if inside.any():
        return float(values[inside].mean())
    return float(values[np.argmin(np.abs(steps - hi))])


def run_summary(history: Sequence[Mapping], updates: Optional[int] = None, metric: str = "accuracy") -> dict:
    """{"updates", "mid", "end", "rise"} of one run's ``history`` ([{"step", "loss", "accuracy"}]); for
    ``metric="loss"`` the values are losses and ``rise`` is their fall (mid - end), so that a positive rise
    always means the model was still improving."""
    pts = [(h["step"], h[metric]) for h in history if h.get(metric) is not None and math.isfinite(h[metric])]
    if not pts:
        return {"updates": updates or 0, "mid": math.nan, "end": math.nan, "rise": math.nan}
    steps, values = (np.asarray(x, float) for x in zip(*pts))
    n = float(updates or steps.max())
    mid, end = _window(steps, values, 0.4 * n, 0.5 * n), _window(steps, values, 0.9 * n, n)
    rise = (mid - end) if metric == "loss" else (end - mid)
    return {"updates": int(n), "mid": mid, "end": end, "rise": rise}


def _curve(histories: list[Sequence[Mapping]], metric: str) -> list[list[float]]:
    """The mean curve over seeds, at most :data:`CURVE_POINTS` points: [[step, value], ...]."""
    if not histories:
        return []
    steps = sorted(set.intersection(*(set(h["step"] for h in hist) for hist in histories)))
    if not steps:
        return []
    pick = sorted(set(np.linspace(0, len(steps) - 1, min(CURVE_POINTS, len(steps))).round().astype(int)))
    by = [{h["step"]: h[metric] for h in hist} for hist in histories]
    return [[int(steps[i]), float(np.mean([b[steps[i]] for b in by]))] for i in pick]


def model_state(histories: list[Sequence[Mapping]], updates: Optional[int] = None, metric: str = "accuracy",
                limit: float = RISE_LIMIT) -> dict:
    """The state of one model (one variant at one cell) over its valid seeds' ``histories``."""
    per = [run_summary(h, updates, metric) for h in histories]
    rises = [p["rise"] for p in per if math.isfinite(p["rise"])]
    rise = float(np.mean(rises)) if rises else math.nan
    state = UNKNOWN if not rises else (LEARNING if rise > limit else TRAINED)
    ends = [p["end"] for p in per if math.isfinite(p["end"])]
    return {"state": state, "rise": rise, "end": float(np.mean(ends)) if ends else math.nan,
            "n": len(rises), "updates": max((p["updates"] for p in per), default=0),
            "curve": _curve(list(histories), metric)}


def histories_of(paths: Iterable) -> list[list[dict]]:
    """The training histories of the finished runs in folders ``paths`` (their ``result.json``; [] for a path
    that holds no run)."""
    out = []
    for p in paths:
        f = Path(str(p)) / "result.json"
        out.append((json.loads(f.read_text()).get("history") or []) if str(p) and f.is_file() else [])
    return out                                  # a hand-built table's rows name no stored run: no history


def state(frame, by: str, variants: Sequence[str], names: Optional[Mapping[str, str]] = None,
          metric: str = "accuracy", limit: float = RISE_LIMIT, cell: str = "") -> dict:
    """The training state of a comparison from a chapter's table of runs ``frame`` (one row per run, with
    ``by``, ``diverged`` and ``path`` columns): each of ``variants`` over its valid runs (``names`` maps a
    variant to its display name; ``cell`` is added to each name, e.g. "V 256"). Returns {"state", "criterion",
    "limit", "metric", "updates", "models": {name: model_state}, "learning": [names still learning]}."""
    names = dict(names or {})
    models = {}
    for v in variants:
        rows = frame[(frame[by] == v) & ~frame["diverged"].astype(bool)]
        name = (names.get(v, str(v)) + (f" {cell}" if cell else "")).strip()
        found = histories_of(rows["path"]) if "path" in rows else []      # a hand-built table has no runs
        models[name] = model_state(found, metric=metric, limit=limit)
    return _record(models, metric, limit)


def of_frame(frame, by: str, variants: Sequence[str], names: Optional[Mapping[str, str]] = None, *,
             where: Optional[Mapping] = None, cells: Optional[Mapping[str, Mapping]] = None,
             metric: str = "accuracy", limit: float = RISE_LIMIT) -> dict:
    """The one place a chapter reads a comparison's training state from its table of runs (issue 35: three
    chapters had a helper of their own around :func:`state`). ``where`` ({column: value}) keeps the rows of the
    comparison (e.g. ``{"model": "gru"}``); ``cells`` ({label: {column: value}}) splits them into the cells a
    trend reads (e.g. ``{"V 256": {"vocab": 256}}``), each cell's models named with its label, joined by
    :func:`combine`. ``by``, ``variants``, ``names``, ``metric`` and ``limit`` as :func:`state`."""
    def pick(rows, conditions):
        for column, value in dict(conditions or {}).items():
            rows = rows[rows[column] == value]
        return rows

    rows = pick(frame, where)
    if not cells:
        return state(rows, by, variants, names, metric=metric, limit=limit)
    return combine(state(pick(rows, at), by, variants, names, metric=metric, limit=limit, cell=label)
                   for label, at in cells.items())


def of_results(named: Mapping[str, Sequence], metric: str = "accuracy", limit: float = RISE_LIMIT) -> dict:
    """The training state of a comparison from finished runs (``penb.runs.RunResult``, diverged ones left out
    by the caller): {model name: its runs}."""
    models = {name: model_state([r.history for r in rs], metric=metric, limit=limit) for name, rs in named.items()}
    return _record(models, metric, limit)


def _record(models: dict, metric: str, limit: float) -> dict:
    learning = [k for k, m in models.items() if m["state"] == LEARNING]
    unknown = [k for k, m in models.items() if m["state"] == UNKNOWN]
    overall = LEARNING if learning else (UNKNOWN if unknown or not models else TRAINED)
    return {"state": overall, "criterion": CRITERION, "limit": limit, "metric": metric,
            "updates": max((m["updates"] for m in models.values()), default=0), "models": models,
            "learning": learning}


def combine(states: Iterable[dict]) -> dict:
    """One record over several cells (a trend over vocabularies): still learning where any cell is."""
    states = list(states)
    models = {k: m for s in states for k, m in s["models"].items()}
    limit = states[0]["limit"] if states else RISE_LIMIT
    return _record(models, states[0]["metric"] if states else "accuracy", limit)


def words(t: Optional[dict]) -> str:
    """One line for readers: 'trained (rise over the second half: PE +0.004, vanilla +0.011; limit 0.02)'."""
    if not t:
        return UNKNOWN
    unit = " nats" if t.get("metric") == "loss" else ""
    rises = ", ".join(f"{k} {m['rise']:+.3f}" for k, m in t["models"].items() if math.isfinite(m["rise"]))
    return f"{t['state']} at {t['updates']:,} updates (second-half rise: {rises}; limit {t['limit']:g}{unit})"

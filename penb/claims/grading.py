"""How a claim is graded: the verdict vocabulary, the rules by string key, seed-level intervals.

Every rule reads *evidence* that a chapter computed from its runs, one number per seed (the seed is the
independent unit; sequences of one seed are not independent draws of the effect), and returns a
:class:`Grade`. The vocabulary is fixed (:data:`VERDICTS`):

* ``reproduced``: the claimed effect is there (seed-level 95% bootstrap interval of the paired
  difference above 0, and at least ``min_agree`` of the seeds agree in sign), at the paper's magnitude
  where the claim states one;
* ``direction only``: the effect is there, but short of the paper's magnitude (or, for a two-part
  claim, only its first part holds);
* ``not reproduced``: the effect is absent (interval not above 0, or too few seeds agree) or reversed;
* ``inconclusive``: the comparison cannot decide: the variant expected to be better sits at the trivial
  baseline (nothing was learned), a compared run diverged, fewer than ``min_seeds`` valid seeds, or a
  control failed;
* ``not tested``: no chapter tests the claim, or not at this preset.

Rules (:data:`RULES`): ``better``, ``no_gain``, ``gain_vs_reference``, ``trend``, ``close``, ``check``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np

REPRODUCED, DIRECTION, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTED = (
    "reproduced", "direction only", "not reproduced", "inconclusive", "not tested")
VERDICTS = (REPRODUCED, DIRECTION, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTED)


@dataclass(frozen=True)
class Rule:
    """A grading rule, fixed before the confirmation runs: its kind (a key of :data:`RULES`), its
    parameters and its wording for readers."""

    kind: str
    text: str
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in RULES:
            raise ValueError(f"unknown rule {self.kind!r}; valid: {', '.join(RULES)}")


@dataclass(frozen=True)
class Grade:
    """A claim's verdict with our number, the reason, and the evidence behind it."""

    claim: str
    verdict: str
    ours: str
    reason: str
    evidence: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


def seed_interval(values: Sequence[float], confidence: float = 0.95, n_resamples: int = 10_000,
                  seed: int = 0) -> tuple[float, float, float]:
    """(mean, lo, hi): the mean over seeds and its percentile bootstrap interval over seeds
    (``scipy.stats.bootstrap``). One seed gives (x, x, x); an empty input NaNs."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    if x.size == 1 or np.all(x == x[0]):
        return float(x.mean()), float(x.min()), float(x.max())
    res = stats.bootstrap((x,), np.mean, confidence_level=confidence, n_resamples=n_resamples,
                          method="percentile", random_state=np.random.default_rng(seed))
    return float(x.mean()), float(res.confidence_interval.low), float(res.confidence_interval.high)


def fmt(mean: float, lo: float, hi: float, digits: int = 3) -> str:
    """'0.412 [0.398, 0.425]'."""
    return f"{mean:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _agree_needed(n: int, fraction: float) -> int:
    return max(1, math.ceil(fraction * n - 1e-9))


def _gate(ev: dict, p: dict) -> Optional[str]:
    """The validity gate shared by the comparative rules: a reason for 'inconclusive', or None."""
    diverged = {k: v for k, v in dict(ev.get("diverged", {})).items() if v}
    if diverged:
        return "diverged runs: " + ", ".join(f"{k} {v}" for k, v in diverged.items())
    n = min(len(ev["a"]), len(ev["b"]))
    if n < p.get("min_seeds", 3):
        return f"{n} valid seeds, fewer than the {p.get('min_seeds', 3)} the rule needs"
    base = ev.get("baseline")
    if base is not None and float(np.mean(ev["a"])) <= base + p.get("baseline_margin", 0.02):
        return (f"{ev.get('a_name', 'the better variant')} sits at the trivial baseline ({base:.3g}): "
                f"nothing was learned, so the comparison decides nothing")
    return None


def _paired(ev: dict, p: dict) -> dict:
    a, b = np.asarray(ev["a"], float), np.asarray(ev["b"], float)
    if a.shape != b.shape:
        raise ValueError(f"paired evidence needs one value per seed for both variants, got {a.shape} and {b.shape}")
    d = a - b
    mean, lo, hi = seed_interval(d, seed=p.get("bootstrap_seed", 0))
    agree = int((d > 0).sum())
    return dict(diff=mean, lo=lo, hi=hi, agree=agree, n=len(d), need=_agree_needed(len(d), p.get("min_agree", 0.8)),
                a=seed_interval(a)[0], b=seed_interval(b)[0])


def better(ev: dict, p: dict) -> tuple[str, str, str]:
    """``a`` (per seed) above ``b`` (paired by seed); with ``threshold``, reproduced needs mean(a) >= it."""
    gate = _gate(ev, p)
    s = _paired(ev, p)
    ours = (f"{ev.get('a_name', 'a')} {s['a']:.3f} vs {ev.get('b_name', 'b')} {s['b']:.3f}; difference "
            f"{fmt(s['diff'], s['lo'], s['hi'])} over {s['n']} seeds, ahead in {s['agree']}/{s['n']}")
    if gate:
        return INCONCLUSIVE, ours, gate
    if s["lo"] > 0 and s["agree"] >= s["need"]:
        t = p.get("threshold")
        if t is not None and s["a"] < t:
            return DIRECTION, ours, f"the effect is there, but {ev.get('a_name', 'a')} reaches {s['a']:.3f}, short of {t}"
        return REPRODUCED, ours, "seed-level interval above 0 and enough seeds agree"
    if s["hi"] < 0:
        return NOT_REPRODUCED, ours, "the opposite holds: the seed-level interval is below 0"
    why = "the seed-level interval includes 0" if s["lo"] <= 0 else f"only {s['agree']} of {s['n']} seeds agree (needs {s['need']})"
    return NOT_REPRODUCED, ours, f"no effect shown: {why}"


def no_gain(ev: dict, p: dict) -> tuple[str, str, str]:
    """``a`` (a control, e.g. double vanilla) does not improve on ``b`` by more than ``margin``; if the
    control is clearly worse than ``b`` it failed as a control (inconclusive). With ``gate_b``, ``b`` at
    the evidence's ``baseline`` (nothing learned) is inconclusive too."""
    margin = p.get("margin", 0.02)
    gate = _gate({**ev, "baseline": None}, p)
    base = ev.get("baseline") if p.get("gate_b") else None
    if gate is None and base is not None and float(np.mean(ev["b"])) <= base + p.get("baseline_margin", 0.02):
        gate = (f"{ev.get('b_name', 'the reference')} sits at the trivial baseline ({base:.3g}): with nothing "
                "learned, 'no gain' says nothing")
    s = _paired(ev, p)
    ours = (f"{ev.get('a_name', 'a')} {s['a']:.3f} vs {ev.get('b_name', 'b')} {s['b']:.3f}; difference "
            f"{fmt(s['diff'], s['lo'], s['hi'])} over {s['n']} seeds")
    if gate:
        return INCONCLUSIVE, ours, gate
    if s["hi"] < -margin:
        return INCONCLUSIVE, ours, (f"the control is far below {ev.get('b_name', 'b')} (interval under -{margin}): "
                                    "it fails as a control, so 'no gain' says nothing")
    if s["lo"] > 0 and s["agree"] >= s["need"]:
        return NOT_REPRODUCED, ours, "the control gains: interval above 0"
    if s["hi"] <= margin:
        return REPRODUCED, ours, f"no gain: the interval stays below +{margin}"
    return INCONCLUSIVE, ours, f"too noisy to exclude a gain of {margin}"


def gain_vs_reference(ev: dict, p: dict) -> tuple[str, str, str]:
    """Two-part claim: ``a`` beats ``b`` (as :func:`better`), and that gain is ``relation`` ("smaller" or
    "larger") than ``ref_gain`` (per-seed gains of the reference comparison, paired by seed). Only the
    first part holding gives direction only."""
    first, ours, why = better(ev, p)
    if first not in (REPRODUCED, DIRECTION):
        return first, ours, why
    gain = np.asarray(ev["a"], float) - np.asarray(ev["b"], float)
    ref = np.asarray(ev["ref_gain"], float)
    m = min(len(gain), len(ref))
    larger = p.get("relation", "smaller") == "larger"
    d = (gain[:m] - ref[:m]) if larger else (ref[:m] - gain[:m])
    mean, lo, hi = seed_interval(d)
    word = "larger" if larger else "smaller"
    ours += f"; this gain {'minus' if larger else 'below'} the reference gain: {fmt(mean, lo, hi)}"
    if lo > 0:
        return first, ours, f"the first part holds, and the gain is {word} than the reference (interval above 0)"
    return DIRECTION, ours, f"the first part holds, but a {word} gain than the reference is not shown"


def trend(ev: dict, p: dict) -> tuple[str, str, str]:
    """The per-seed gap (``gaps``: seeds x x-values) grows with ``x`` (slope of a least-squares line per
    seed, against log2 x when ``log2``); interval of the mean slope above 0."""
    gaps = np.asarray(ev["gaps"], float)
    if gaps.ndim != 2 or gaps.shape[0] < p.get("min_seeds", 3) or gaps.shape[1] < 3:
        return INCONCLUSIVE, f"{gaps.shape} gaps", "a trend needs at least 3 x-values and enough seeds"
    x = np.log2(np.asarray(ev["x"], float)) if p.get("log2", True) else np.asarray(ev["x"], float)
    slopes = np.polyfit(x, gaps.T, 1)[0]
    mean, lo, hi = seed_interval(slopes)
    ours = f"slope of the gap {fmt(mean, lo, hi, 4)} per {'doubling' if p.get('log2', True) else 'unit'}"
    if ev.get("diverged"):
        return INCONCLUSIVE, ours, "diverged runs"
    if lo > 0:
        return REPRODUCED, ours, "the gap grows: interval of the slope above 0"
    return NOT_REPRODUCED, ours, "no growth of the gap shown (interval includes 0 or is below)"


def close(ev: dict, p: dict) -> tuple[str, str, str]:
    """A measured number (``value``) within ``rel`` (relative) or ``abs`` of the paper's (``expected``)."""
    v, e = float(ev["value"]), float(ev["expected"])
    tol = max(p.get("rel", 0.0) * abs(e), p.get("abs", 0.0))
    ours = f"{v:.6g} (paper {e:.6g}, tolerance {tol:.3g})"
    return (REPRODUCED, ours, "within tolerance") if abs(v - e) <= tol else \
        (NOT_REPRODUCED, ours, "outside the tolerance")


def check(ev: dict, p: dict) -> tuple[str, str, str]:
    """A property the chapter checked directly (``passed`` bool, ``detail`` text); ``partial`` -> direction only."""
    if ev.get("inconclusive"):
        return INCONCLUSIVE, ev.get("detail", ""), ev["inconclusive"]
    if ev["passed"]:
        return REPRODUCED, ev.get("detail", ""), "the property holds"
    if ev.get("partial"):
        return DIRECTION, ev.get("detail", ""), ev.get("why", "only part of the claim holds")
    return NOT_REPRODUCED, ev.get("detail", ""), ev.get("why", "the property does not hold")


RULES: dict[str, Callable[[dict, dict], tuple[str, str, str]]] = {
    "better": better, "no_gain": no_gain, "gain_vs_reference": gain_vs_reference, "trend": trend, "close": close,
    "check": check,
}


def apply(rule: Rule, evidence: dict[str, Any]) -> tuple[str, str, str]:
    """(verdict, ours, reason) of ``rule`` on ``evidence``."""
    return RULES[rule.kind](evidence, rule.params)

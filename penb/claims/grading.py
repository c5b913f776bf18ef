"""How a claim is graded: the verdict vocabulary, the rules by string key, seed-level intervals.

Every rule reads *evidence* that a chapter computed from its runs, one number per seed (the seed is the
independent unit; sequences of one seed are not independent draws of the effect), and returns a
:class:`Grade`. The vocabulary is fixed (:data:`VERDICTS`). The code grades under one protocol, the one in force
(:data:`PROTOCOL`); earlier protocols' verdicts are a committed table (:mod:`penb.claims.history`), not code:

* intervals over seeds are Student-t intervals of the mean (``scipy.stats``), which keep their level at
  3-10 seeds where the per-seed values (for a paired rule: the per-seed differences) are roughly normal;
* ``reproduced``: the claimed effect is there (interval above 0, and at least ``min_agree`` of the seeds
  agree in sign), at the paper's magnitude where the claim states one;
* ``direction only``: the effect is there, but short of the paper's magnitude (or, for a two-part
  claim, only its first part holds);
* ``not reproduced``: the interval lies below 0 (the opposite holds) or below the claim's smallest effect
  of interest (``sesoi``): an effect that matters is excluded. The reason says which;
* ``inconclusive``: the seeds cannot tell ("not shown with N seeds at this preset", with the seeds that
  80% power at the 5% level would need, :func:`seeds_needed`), or a validity gate failed: the variant
  expected to be better sits at the trivial baseline, a compared run diverged, fewer than ``min_seeds``
  valid seeds, or a control failed;
* ``not tested``: no chapter tests the claim, or not at this preset.

Rules (:data:`RULES`): ``better``, ``level``, ``no_gain``, ``gain_vs_reference``, ``trend``, ``close``, ``check``; the
equivalence test for ``no_gain``, gains over the room left and "at least as well" controls: :mod:`penb.claims.margins`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from penb.claims.intervals import (ALPHA, DEFAULT_SESOI, POWER, PRACTICAL_SEEDS, bootstrap_interval,  # noqa: F401
                                   needed_text, seed_interval, seeds_needed, t_interval)
from penb.claims.margins import at_least, equivalence, room_left
from penb.claims.outcomes import (DIRECTION, INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTED, REPRODUCED,  # noqa: F401
                                  VERDICTS, _agree_needed, _detail, _summary, fmt)
from penb.claims.protocol import PROTOCOL, PROTOCOLS  # noqa: F401


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
    detail: dict = field(default_factory=dict)        # effect, interval, SESOI, seeds needed (comparisons)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


def _gate(ev: dict, p: dict) -> Optional[str]:
    """The validity gate shared by the comparative rules: a reason for 'inconclusive', or None. Besides the
    better variant against ``baseline``, ``controls`` ({name: [value, trivial baseline(, reference)]}) names
    models that must have learned (as well as the reference, :func:`~penb.claims.margins.at_least`) for the
    comparison to mean anything (e.g. the PE model whose harm is compared)."""
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
    for name, (value, floor, *ref) in dict(ev.get("controls", {})).items():   # a model that must have learned
        why, floor = at_least(name, value, floor, ref[0], p) if ref else (None, floor)
        if why or not value > floor + p.get("baseline_margin", 0.02):
            return why or (f"{name} ({value:.3g}) sits at its trivial baseline ({floor:.3g}): a model that learned "
                           f"nothing decides nothing")
    return None


def _paired(ev: dict, p: dict) -> dict:
    a, b = np.asarray(ev["a"], float), np.asarray(ev["b"], float)
    if a.shape != b.shape:
        raise ValueError(f"paired evidence needs one value per seed for both variants, got {a.shape} and {b.shape}")
    return _summary(a - b, p, a=float(a.mean()) if a.size else math.nan, b=float(b.mean()) if b.size else math.nan)


def _absent_or_open(s: dict, p: dict, why: str) -> tuple[str, str, dict]:
    """The outcome for an effect not shown: not reproduced when the interval excludes the smallest
    effect of interest (or lies below 0), else inconclusive with the seeds that would decide it."""
    sesoi = p.get("sesoi", DEFAULT_SESOI)
    if s["hi"] < 0:
        return NOT_REPRODUCED, "the opposite holds: the seed-level interval lies below 0", _detail(s, p)
    if s["hi"] < sesoi:
        return NOT_REPRODUCED, (f"the seed-level interval lies below the smallest effect of interest ({sesoi:g}): "
                                "an effect that matters is excluded"), _detail(s, p)
    n, words = needed_text(s["n"], s["sd"], sesoi)
    return INCONCLUSIVE, f"not shown with {s['n']} seeds at this preset ({why}); {words}", _detail(s, p, n)


def better(ev: dict, p: dict) -> tuple:
    """``a`` (per seed) above ``b`` (paired by seed); with ``threshold``, reproduced needs mean(a) >= it."""
    gate = _gate(ev, p)
    s = _paired(ev, p)
    ours = (f"{ev.get('a_name', 'a')} {s['a']:.3f} vs {ev.get('b_name', 'b')} {s['b']:.3f}; difference "
            f"{fmt(s['diff'], s['lo'], s['hi'])} over {s['n']} seeds, ahead in {s['agree']}/{s['n']}")
    if gate:
        return INCONCLUSIVE, ours, gate, _detail(s, p)
    if s["lo"] > 0 and s["agree"] >= s["need"]:
        t = p.get("threshold")
        if t is not None and s["a"] < t:
            return (DIRECTION, ours, f"the effect is there, but {ev.get('a_name', 'a')} reaches {s['a']:.3f}, "
                    f"short of {t}", _detail(s, p))
        return REPRODUCED, ours, "seed-level interval above 0 and enough seeds agree", _detail(s, p)
    why = "the seed-level interval includes 0" if s["lo"] <= 0 else \
        f"only {s['agree']} of {s['n']} seeds agree (needs {s['need']})"
    verdict, reason, detail = _absent_or_open(s, p, why)
    return verdict, ours, reason, detail


def level(ev: dict, p: dict) -> tuple:
    """A level the text states for one model (``a``, per seed) against ``level`` (issue 35: "above 95%"):
    reproduced when the seed-level interval of the mean lies above it, not reproduced when it lies below it,
    otherwise inconclusive with the seeds that would decide it (at the claim's smallest effect)."""
    gate = _gate({**ev, "b": ev["a"]}, p)
    a, target = np.asarray(ev["a"], float), float(p["level"])
    s = _summary(a - target, p, a=float(a.mean()) if a.size else math.nan)
    ours = (f"{ev.get('a_name', 'a')} {s['a']:.3f}, its interval {fmt(s['a'], s['lo'] + target, s['hi'] + target)} "
            f"over {s['n']} seeds against the text's {target:g}")
    if gate:
        return INCONCLUSIVE, ours, gate, _detail(s, p)
    if s["lo"] > 0:
        return REPRODUCED, ours, f"the seed-level interval lies above {target:g}", _detail(s, p)
    if s["hi"] < 0:
        return NOT_REPRODUCED, ours, f"the seed-level interval lies below {target:g}: the level is not reached", \
            _detail(s, p)
    n, words = needed_text(s["n"], s["sd"], p.get("sesoi", DEFAULT_SESOI))
    return INCONCLUSIVE, ours, f"not shown with {s['n']} seeds at this preset (the interval straddles " \
        f"{target:g}); {words}", _detail(s, p, n)


def no_gain(ev: dict, p: dict) -> tuple:
    """``a`` (a control, e.g. double vanilla) does not improve on ``b`` by more than the claim's smallest effect of
    interest (``sesoi``, else ``margin``); if the control is clearly worse than ``b`` it failed as a control
    (inconclusive), unless ``control`` is False (a null claim such as "no advantage", which ``a`` far below ``b``
    also satisfies). With ``gate_b``, ``b`` at the evidence's ``baseline`` (nothing learned) is inconclusive too.
    Graded as an equivalence (:func:`~penb.claims.margins.equivalence`, ``two_sided`` optional)."""
    margin = p.get("sesoi", p.get("margin", DEFAULT_SESOI))
    gate = _gate({**ev, "baseline": None}, p)
    base = ev.get("baseline") if p.get("gate_b") else None
    if gate is None and base is not None and float(np.mean(ev["b"])) <= base + p.get("baseline_margin", 0.02):
        gate = (f"{ev.get('b_name', 'the reference')} sits at the trivial baseline ({base:.3g}): with nothing "
                "learned, 'no gain' says nothing")
    s = _paired(ev, p)
    detail = {**_detail(s, p), "sesoi": margin}
    ours = (f"{ev.get('a_name', 'a')} {s['a']:.3f} vs {ev.get('b_name', 'b')} {s['b']:.3f}; difference "
            f"{fmt(s['diff'], s['lo'], s['hi'])} over {s['n']} seeds")
    if gate:
        return INCONCLUSIVE, ours, gate, detail
    if p.get("control", True) and s["hi"] < -margin:
        return INCONCLUSIVE, ours, (f"the control is far below {ev.get('b_name', 'b')} (interval under -{margin}): "
                                    "it fails as a control, so 'no gain' says nothing"), detail
    return equivalence(s, p, margin, ours, detail)


def gain_vs_reference(ev: dict, p: dict) -> tuple:
    """Two-part claim: ``a`` beats ``b`` (as :func:`better`), and that gain is ``relation`` ("smaller" or
    "larger") than ``ref_gain`` (per-seed gains of the reference comparison, paired by seed). Only the
    first part holding gives direction only. The gains are compared over the room left, which can say
    "not reproduced" (:func:`~penb.claims.margins.room_left`; the evidence adds ``ref_b``)."""
    first, ours, why, detail = better(ev, p)
    if first not in (REPRODUCED, DIRECTION):
        return first, ours, why, detail
    return room_left(ev, p, first, ours, detail)


def trend(ev: dict, p: dict) -> tuple:
    """The per-seed gap (``gaps``: seeds x x-values) grows with ``x`` (slope of a least-squares line per
    seed, against log2 x when ``log2``): interval of the mean slope above 0 and at least
    ``min_agree`` of the seeds' slopes positive."""
    gaps = np.asarray(ev["gaps"], float)
    if gaps.ndim != 2 or gaps.shape[0] < p.get("min_seeds", 3) or gaps.shape[1] < 3:
        return INCONCLUSIVE, f"{gaps.shape} gaps", "a trend needs at least 3 x-values and enough seeds", {}
    x = np.log2(np.asarray(ev["x"], float)) if p.get("log2", True) else np.asarray(ev["x"], float)
    s = _summary(np.polyfit(x, gaps.T, 1)[0], p)
    ours = (f"slope of the gap {fmt(s['diff'], s['lo'], s['hi'], 4)} per {'doubling' if p.get('log2', True) else 'unit'}"
            f", positive in {s['agree']}/{s['n']} seeds")
    if ev.get("diverged"):
        return INCONCLUSIVE, ours, "diverged runs", _detail(s, p)
    if s["lo"] > 0 and s["agree"] >= s["need"]:
        control = _trend_control(ev, p, x)
        if control:
            return INCONCLUSIVE, ours + control[0], control[1], _detail(s, p)
        return REPRODUCED, ours, "the gap grows: interval of the slope above 0 and enough seeds agree", _detail(s, p)
    why = "the slope's interval includes 0" if s["lo"] <= 0 else \
        f"only {s['agree']} of {s['n']} seeds' slopes are positive (needs {s['need']})"
    verdict, reason, detail = _absent_or_open(s, p, why)
    return verdict, ours, reason, detail


def _trend_control(ev: dict, p: dict, x: np.ndarray) -> Optional[tuple[str, str]]:
    """A rising line that a control shows as much (``control_gaps``, same seeds and x; e.g. the PE
    model's decline beside the vanilla one's) is not specific to the claim's model. Returns (more words for
    ``ours``, reason) when the control rises as much, else None."""
    if ev.get("control_gaps") is None:
        return None
    own = np.polyfit(x, np.asarray(ev["gaps"], float).T, 1)[0]
    other = np.polyfit(x, np.asarray(ev["control_gaps"], float).T, 1)[0]
    mean, lo, hi = seed_interval(own - other)
    name = ev.get("control_name", "the control")
    more = f"; minus {name}'s slope: {fmt(mean, lo, hi, 4)}"
    if lo > 0:
        return None
    return more, (f"the line rises, but {name} shows it as much (the difference of slopes' interval includes 0 "
                  "or lies below): at this budget the rise is not specific to the claim's model")


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
    "better": better, "level": level, "no_gain": no_gain, "gain_vs_reference": gain_vs_reference, "trend": trend, "close": close,
    "check": check,
}


COMPARATIVE = ("better", "level", "no_gain", "gain_vs_reference", "trend")     # the rules that take a SESOI


def sesoi_of(rule: Rule, sesoi: Optional[float], evidence: dict) -> Optional[float]:
    """The smallest effect of interest a rule reads on ``evidence``: the claim's, or for a trend whose claim states
    it over the span tested (``sesoi_over_span``: a widening of ``sesoi`` across the x-values), per unit of x."""
    if sesoi is None or not rule.params.get("sesoi_over_span") or len(evidence.get("x") or ()) < 2:
        return sesoi
    x = np.asarray(evidence["x"], float)
    span = float(np.ptp(np.log2(x) if rule.params.get("log2", True) else x))
    return sesoi / span if span > 0 else sesoi


def apply(rule: Rule, evidence: dict[str, Any], sesoi: Optional[float] = None,
          resolution: Optional[float] = None) -> tuple[str, str, str, dict]:
    """(verdict, ours, reason, detail) of ``rule`` on ``evidence``, with the claim's smallest effect of interest
    ``sesoi`` (comparative rules); ``detail`` holds the effect, its interval and the seeds needed where the rule
    computed them. ``resolution``: the step of a discrete measure, which no seed-level interval is narrower than on
    either side of its mean."""
    params = {**rule.params, **({"sesoi": sesoi} if sesoi is not None else {}),
              **({"resolution": resolution} if resolution else {})}
    out = RULES[rule.kind](evidence, params)
    return (*out, {}) if len(out) == 3 else out

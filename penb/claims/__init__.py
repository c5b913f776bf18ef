"""Every claim of the three texts (and the book's own hypotheses), written once as data, with the rule
that grades it, fixed before its confirmation runs.

A :class:`Claim` carries the text's statement and number, the chapter that tests it, the measure, the
grading :class:`~penb.claims.grading.Rule` and the trivial baseline; a claim that no chapter tests says
why (``not_tested``). Chapters compute *evidence* (one number per seed) and call :func:`grade`; the
verdict comes from the one vocabulary of :mod:`penb.claims.grading`, and :func:`record` keeps it for the
scorecard. No chapter writes a verdict word itself.

Data: :mod:`penb.claims.morita` (Sec. 4.2-4.3: :mod:`penb.claims.morita_sec4`), :mod:`penb.claims.irie`,
:mod:`penb.claims.hansen`; the book's own hypotheses: :mod:`penb.claims.beyond`. :class:`Claim` is defined in
:mod:`penb.claims.claim`, the registry in :mod:`penb.claims.catalog` (neither imports this package).
"""
from __future__ import annotations

from contextvars import ContextVar
from typing import Optional

import numpy as np
import pandas as pd

from penb.claims import scorecard
from penb.claims.catalog import CLAIMS, get, graded, of_chapter  # noqa: F401 (re-exported)
from penb.claims.claim import ABOUT, NOT_DOUBLED, Claim  # noqa: F401 (re-exported)
from penb.claims.composition import _held_back, _premise, compose  # noqa: F401 (the one composition of a verdict)
from penb.claims.display import overview as _overview, verdict_table
from penb.claims.grading import (DIRECTION, INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTED, REPRODUCED,  # noqa: F401
                                 VERDICTS, Grade, Rule, bootstrap_interval, fmt, seed_interval, sesoi_of)
from penb.claims.intervals import resolution_of
from penb.claims.outcomes import DECIDED  # the verdicts that decide a claim (a test of training holds them back)
from penb.claims.scale import graded_scale
from penb.claims.sources import HANSEN, IRIE, MORITA  # noqa: F401


def grade(key: str, evidence: dict, cfg=None, training: Optional[dict] = None, half: Optional[dict] = None,
          budgets: Optional[tuple] = None, next_cost: Optional[dict] = None, quarter: Optional[dict] = None,
          **provenance) -> Grade:
    """The verdict of claim ``key`` on ``evidence`` under its registered rule and the protocol in force (one
    composition, :func:`penb.claims.composition.compose`), recorded for the scorecard (with ``cfg``'s chapter,
    preset, seeds and steps, and any ``provenance`` given). Earlier protocols' verdicts are not computed: they are
    the committed table of :mod:`penb.claims.history`.

    The doubling test (:mod:`penb.claims.doubling`): a claim about trained models (``Claim.about == "trained"``)
    is decided only where doubling the updates did not move the quantity that could overturn its verdict by its
    smallest effect of interest: ``half`` is the same evidence computed on the runs at half the budget, and
    ``budgets`` is (N/2, N). Without ``half`` such a claim reads inconclusive. ``next_cost``: what the next
    doubling would cost (``penb.chapters.rnn_common.next_cost``), said where the test does not settle it.
    ``training`` is the compared models' training state (:func:`penb.claims.training.state`), recorded beside the
    verdict for the scorecard's marks and curves. Inside :func:`graded_with_half` the half-budget evidence comes
    from its first pass. The horizon (:mod:`penb.claims.horizon`): ``quarter`` is the evidence at N/4 (or a pass
    of :func:`graded_with_half` given ``quarter``), and the claim's ``horizon`` the text's budget it is read at."""
    c = get(key)
    half_run = HALF.get()
    if half_run is not None and half_run.capture:            # a shorter budget's pass: keep the evidence only
        half_run.evidence[key] = _jsonable(evidence)
    elif half_run is not None and half is None and key in half_run.evidence:
        half = half_run.evidence[key]                         # the runs at half the updates (steps // 2)
        n = provenance.get("steps") if isinstance(provenance.get("steps"), int) else half_run.full_steps
        budgets = budgets or ((n // 2, n) if n else (0, 0))
    if half_run is not None and not half_run.capture and quarter is None:
        quarter = half_run.quarter.get(key)                   # the runs at a quarter of the updates
    if c.rule is None:
        raise ValueError(f"claim {key} has no rule: {c.not_tested or 'not graded'}")
    resolution = resolution_of(evidence.get("resolution", c.resolution), c.about != "none")
    sesoi = sesoi_of(c.rule, c.sesoi, evidence)
    at = tuple(budgets or (0, 0))
    if not at[1]:                                             # a budget claim's own updates (protocol 6)
        at = (0, graded_scale(key, cfg, provenance).get("updates") or 0)
    verdict, ours, reason, detail, rule_verdict = compose(c.rule.kind, c.rule.params, c.about, evidence, half,
                                                          at, sesoi, resolution, next_cost=next_cost,
                                                          quarter=quarter, horizon=c.horizon)
    if training is not None:
        detail = {**detail, "training": training}
    if training is not None or c.about in NOT_DOUBLED:
        detail = {**detail, "about": c.about}
    g = Grade(key, verdict, ours, reason, _jsonable(evidence), _jsonable(detail))
    if half_run is None or not half_run.capture:
        record(g, cfg, **provenance)
    return g


class HalfRun:
    """What :func:`graded_with_half` passes between its passes: each claim's evidence on the half-budget runs (and
    on the quarter-budget runs), and the full budget's updates for the grade calls that name no ``steps``."""

    def __init__(self, capture: bool, full_steps: Optional[int] = None, evidence: Optional[dict] = None,
                 quarter: Optional[dict] = None):
        self.capture, self.full_steps, self.evidence = capture, full_steps, dict(evidence or {})
        self.quarter = dict(quarter or {})


HALF: ContextVar[Optional[HalfRun]] = ContextVar("penb_half_budget", default=None)


def graded_with_half(grade_fn, frame, half, cfg, *args, steps: Optional[int] = None, quarter=None, **kwargs):
    """``grade_fn(frame, cfg, *args, **kwargs)`` (a chapter's grading of its runs ``frame``) under protocol 4:
    first ``grade_fn(half, cfg, ...)`` on the same runs at half their updates, which records nothing and keeps
    each claim's evidence, then the real grading, in which :func:`grade` reads each claim's half-budget evidence
    from that pass. The chapter's evidence code runs unchanged on both. Without ``half`` (None), only the real
    grading runs: its claims about trained models read inconclusive (no runs at half the budget). ``quarter``
    (the runs at N/4, protocol 6's horizon) adds a pass before the half-budget one."""
    if half is None or not len(half):
        return grade_fn(frame, cfg, *args, **kwargs)
    passes = {}
    for name, runs in (("quarter", quarter), ("half", half)):
        if runs is None or not len(runs):
            continue
        first = HalfRun(capture=True)
        token = HALF.set(first)
        try:
            grade_fn(runs, cfg, *args, **kwargs)
        finally:
            HALF.reset(token)
        passes[name] = first.evidence
    token = HALF.set(HalfRun(capture=False, full_steps=steps, evidence=passes["half"],
                             quarter=passes.get("quarter")))
    try:
        return grade_fn(frame, cfg, *args, **kwargs)
    finally:
        HALF.reset(token)


def not_tested(key: str, reason: str, cfg=None, **provenance) -> Grade:
    """Record that claim ``key`` is not tested here (e.g. "not at this preset: ..."), and return it."""
    get(key)
    g = Grade(key, NOT_TESTED, "", reason)
    if HALF.get() is None or not HALF.get().capture:
        record(g, cfg, **provenance)
    return g


def record(g: Grade, cfg=None, **provenance) -> None:
    scorecard.record(g, cfg, **provenance)


def table(grades):
    """A DataFrame of ``grades`` for a chapter page: claim, where, the paper's statement and number, ours,
    verdict, why. A notebook shows it compactly (:func:`penb.claims.display.verdict_html`): one line per
    claim with its badge, the rest folded."""
    rows = []
    for g in grades:
        c = get(g.claim)
        paper = c.statement if c.value is None else f"{c.statement} ({_value(c)})"
        need = (g.detail or {}).get("seeds_needed") if g.verdict == INCONCLUSIVE else None
        rows.append({"claim": c.key, "where": c.where, "paper": paper, "ours": g.ours, "verdict": g.verdict,
                     "why": g.reason, "seeds needed": "" if need is None else need})
    frame = pd.DataFrame(rows).set_index("claim") if rows else pd.DataFrame(rows)
    if rows and not frame["seeds needed"].astype(str).str.len().any():
        frame = frame.drop(columns="seeds needed")              # no open comparison: no empty column

    return verdict_table(frame, grades)                         # shown as one line per claim, details folded


def overview(keys):
    """A chapter's claims under its Overview, one line each, the registry's details folded
    (:func:`penb.claims.display.overview`)."""
    return _overview(keys)


def _value(c: Claim) -> str:
    return f"{c.value} {c.unit}".strip()


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x

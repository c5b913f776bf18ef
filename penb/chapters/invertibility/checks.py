"""Reading the blog's claims off the invertibility study, and grading them through ``penb.claims``.

Every reader takes a per-step mean frame (index ``step``, one column per encoding, as
``penb.chapters.invertibility.analysis.pooled_mean`` or ``Study.mean`` returns). :func:`measures`
reads every number the claims use off one frame; the registered rules (``hansen.*`` in
``penb.claims``) say they are read from the mean loss curve over initialisations, so the verdicts
use the frame pooled over every seed's initialisations, and each seed's own frame gives the spread
shown beside them (:func:`measure_table`). :func:`evidence` turns those measures into each rule's
evidence, :func:`grade` grades them (or records "not at this preset" where the run is not the
blog's study). The thresholds (factor 2, 10% in log, ...) are the claims' ``extra`` in the registry.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims
from penb.chapters.invertibility.curves import (compare, crossing_step, flat_step, lead_holds,  # noqa: F401
                                                overtake_step, plateau_step, ranking, rankings, settle_step)
from penb.claims import grading

CHAPTER = "invertibility"
AFFINE = ("direct1", "directN", "linear_normal", "linear_normal_learned", "linear_uniform",
          "linear_uniform_learned")
NORMAL = ("normal", "normal_learned")
DIRECT = ("direct1", "directN")
CONVERGE = ("normal", "normal_learned", "sincos")           # hansen.converge_direct
LINEAR_LEARNED = ("linear_normal_learned", "linear_uniform_learned")
# (fixed, learned, floor): hansen.learned_faster; (normal, uniform): hansen.normal_faster
LEARNED_PAIRS = (("linear_normal", "linear_normal_learned", "affine"),
                 ("linear_uniform", "linear_uniform_learned", "affine"),
                 ("normal", "normal_learned", "normal"))
NORMAL_PAIRS = (("linear_normal", "linear_uniform"),
                ("linear_normal_learned", "linear_uniform_learned"))
SETTING_KEYS = ("dim", "length", "lr", "iterations")      # what makes a run the blog's study


# --- the measures of the claims ----------------------------------------------------------------
def _nan(x: Optional[int]) -> float:
    return math.nan if x is None else float(x)


def measures(df: pd.DataFrame, floors: dict[str, float]) -> dict[str, float]:
    """Every number the claims use, read off one mean frame with all nine encodings (NaN: not
    reached in the run). Keys: ``cross`` (sincos below both normal encodings from this step),
    ``lead`` (1 when the normal pair leads up to there), ``last_beaten`` (the last step another
    encoding, the normal pair aside, is below sincos), ``plateau:<enc>``, ``reach:<enc>`` (steps to
    stay within ``threshold_over_floor`` times the exact floor), ``final:<enc>`` (last loss),
    ``logmean:<enc>`` (the mean over steps of log10 of the loss: the standing over the whole run),
    ``direct`` (mean final loss of direct1 and directN), ``final/direct:<enc>`` and
    ``final/floor:<enc>`` (the last loss over the direct encodings' and over its exact floor)."""
    best = claims.get("hansen.normal_best").extra
    plateau = claims.get("hansen.normal_plateau").extra
    log_tol = plateau["log_tol"]
    over = claims.get("hansen.learned_faster").extra["threshold_over_floor"]
    cross = [crossing_step(df, "sincos", k) for k in NORMAL]
    cross = None if any(c is None for c in cross) else max(cross)
    ov = overtake_step(df)
    out = {"cross": _nan(cross), "lead": float(lead_holds(df, best["lead_from"], cross)),
           "last_beaten": math.nan if ov is None else float(ov - 1)}
    floor_of = {k: floors["normal" if k in NORMAL else "affine"] for k in df.columns}
    for k in df.columns:
        out[f"logmean:{k}"] = float(np.log10(df[k].to_numpy(np.float64)).mean())
        out[f"plateau:{k}"] = float(plateau_step(df[k], log_tol))
        out[f"flat:{k}"] = float(flat_step(df[k], plateau["fall_frac"]))
        out[f"final:{k}"] = float(df[k].iloc[-1])
        if k != "sincos":
            out[f"reach:{k}"] = _nan(settle_step(df[k], floor_of[k], over - 1))
    out["direct"] = float(np.mean([out[f"final:{k}"] for k in DIRECT]))
    for k in df.columns:
        out[f"final/direct:{k}"] = out[f"final:{k}"] / out["direct"]
        if k != "sincos":
            out[f"final/floor:{k}"] = out[f"final:{k}"] / floor_of[k]
    return out


def measure_table(frames: dict, floors: dict[str, float]) -> pd.DataFrame:
    """:func:`measures` of each frame (``{label: frame}``, e.g. one per seed and the pooled one),
    one row per label."""
    return pd.DataFrame({label: measures(df, floors) for label, df in frames.items()}).T


def _faster(a: float, b: float) -> bool:
    """``a`` reached its threshold, and sooner than ``b`` (or ``b`` never did)."""
    return not math.isnan(a) and (math.isnan(b) or a < b)


def _step(x: float) -> str:
    return "never" if math.isnan(x) else f"{x:,.0f}"


def _spread(per_seed: Optional[pd.DataFrame], col: str, fmt=_step) -> str:
    """' (seeds: a-b)' over the per-seed values of ``col``, or '' without seeds."""
    if per_seed is None or len(per_seed) < 2:
        return ""
    v = per_seed[col].to_numpy(float)
    if np.isnan(v).any():
        return f" (seeds: {', '.join(fmt(x) for x in v)})"
    return f" (seeds: {fmt(v.min())} to {fmt(v.max())})"


def _within(x: float, target: float, factor: float) -> bool:
    return not math.isnan(x) and target / factor <= x <= target * factor


def evidence(m: dict[str, float], per_seed: Optional[pd.DataFrame] = None,
             nonfinite: int = 0) -> dict[str, dict]:
    """{claim key: evidence of its registered rule} from the pooled measures ``m``
    (:func:`measures`), with the per-seed ``measure_table`` in the details; ``nonfinite`` problems
    (loss turned NaN or infinite) make every check inconclusive."""
    ps = per_seed
    out = {}
    c = claims.get("hansen.normal_best")
    f = c.extra["factor"]
    ok_cross = _within(m["cross"], c.value, f)
    out[c.key] = {"passed": bool(m["lead"]) and ok_cross, "partial": bool(m["lead"]),
                  "detail": (f"sincos below both normal encodings from step {_step(m['cross'])}"
                             f"{_spread(ps, 'cross')}; the normal pair "
                             f"{'leads' if m['lead'] else 'does not lead'} every other encoding "
                             f"from step {c.extra['lead_from']} up to there"),
                  "why": ("the normal pair leads, but sincos crosses outside a factor "
                          f"{f} of {c.value:,}" if m["lead"] else
                          "the normal pair does not lead every other encoding up to the crossing")}
    c = claims.get("hansen.sincos_1200")
    f = c.extra["factor"]
    out[c.key] = {"passed": _within(m["last_beaten"], c.value, f),
                  "detail": (f"another encoding (the normal pair aside) is below sincos last at "
                             f"step {_step(m['last_beaten'])}{_spread(ps, 'last_beaten')}"),
                  "why": f"outside a factor {f} of {c.value:,} steps"}
    c = claims.get("hansen.normal_plateau")
    f = c.extra["factor"]
    ok = {k: _within(m[f"plateau:{k}"], v, f) for k, v in c.value.items()}
    out[c.key] = {"passed": all(ok.values()),
                  "detail": "; ".join(f"{k} within {c.extra['log_tol']:g} (log) of its final loss from step "
                                      f"{_step(m[f'plateau:{k}'])}{_spread(ps, f'plateau:{k}')} (a linear-axis "
                                      f"reading, within {c.extra['fall_frac']:.0%} of the run's fall: "
                                      f"{_step(m[f'flat:{k}'])})" for k in c.value),
                  "why": f"outside a factor {f} of the blog's: " + ", ".join(
                      k for k in ok if not ok[k])}
    c = claims.get("hansen.learned_faster")
    won = [_faster(m[f"reach:{b}"], m[f"reach:{a}"]) for a, b, _ in LEARNED_PAIRS]
    ratio = [max(m[f"final:{a}"], m[f"final:{b}"]) / min(m[f"final:{a}"], m[f"final:{b}"]) for a, b, _ in
             LEARNED_PAIRS]
    same = [r <= 1 + c.extra["rel"] for r in ratio]
    out[c.key] = {"passed": all(won) and all(same), "partial": all(won) or all(same) or sum(won) > len(won) / 2,
                  "detail": "; ".join(f"{a} {_step(m[f'reach:{a}'])} vs learned {_step(m[f'reach:{b}'])} steps, "
                                      f"final losses {r:.3f} apart (larger / smaller)"
                                      for (a, b, _), r in zip(LEARNED_PAIRS, ratio))
                            + f" (steps to stay within {c.extra['threshold_over_floor']:g} x the floor)",
                  "why": f"learned is faster in {sum(won)} of {len(won)} pairs, and ends within "
                         f"{c.extra['rel']:.0%} of its fixed encoding in {sum(same)} of {len(same)}"}
    c = claims.get("hansen.normal_faster")
    won = [_faster(m[f"reach:{a}"], m[f"reach:{b}"]) for a, b in NORMAL_PAIRS]
    out[c.key] = {"passed": all(won),
                  "detail": "; ".join(f"{a} {_step(m[f'reach:{a}'])} vs {b} "
                                      f"{_step(m[f'reach:{b}'])} steps" for a, b in NORMAL_PAIRS)
                            + f" (to stay within {c.extra['threshold_over_floor']:g} x the floor)",
                  "why": f"normal is faster in {sum(won)} of {len(won)} pairs"}
    c = claims.get("hansen.converge_direct")
    rel = c.extra["rel"]
    ratio = {k: m[f"final:{k}"] / m["direct"] for k in CONVERGE}
    out[c.key] = {"passed": all(abs(r - 1) <= rel for r in ratio.values()),
                  "detail": "final loss / the direct encodings': " + ", ".join(
                      f"{k} {r:.3g}" for k, r in ratio.items()),
                  "why": f"not within {rel:.0%} of the direct encodings: " + ", ".join(
                      k for k, r in ratio.items() if abs(r - 1) > rel)}
    c = claims.get("hansen.learned_linear_peak")
    sooner = all(m[f"plateau:{k}"] < m["plateau:sincos"] for k in LINEAR_LEARNED)
    ratio = {k: m[f"final:{k}"] / m["direct"] for k in LINEAR_LEARNED}
    same = all(abs(r - 1) <= c.extra["rel"] for r in ratio.values())
    out[c.key] = {"passed": sooner and same, "partial": sooner != same,
                  "detail": ("plateau steps " + ", ".join(
                      f"{k} {_step(m[f'plateau:{k}'])}" for k in (*LINEAR_LEARNED, "sincos"))
                      + "; final loss / the direct encodings': " + ", ".join(
                      f"{k} {r:.4f}" for k, r in ratio.items())),
                  "why": ("only the first part holds (sooner than sincos)" if sooner else
                          "only the second part holds (same final loss as the direct encodings)"
                          if same else "neither part holds")}
    c = claims.get("hansen.direct_worst")
    group = list(c.extra["encodings"])
    logmean = {k[len("logmean:"):]: v for k, v in m.items() if k.startswith("logmean:")}
    order = sorted(logmean, key=logmean.get, reverse=True)                  # worst (highest) first
    worst = set(order[:len(group)]) == set(group)
    finals = [m[f"final:{k}"] for k in group]
    spread = max(finals) / min(finals)
    same = spread <= 1 + c.extra["rel"]
    out[c.key] = {"passed": worst and same, "partial": worst != same,
                  "detail": ("highest step-averaged log10 losses: " + ", ".join(
                      f"{k} {logmean[k]:.2f}" for k in order[:len(group) + 1])
                      + f"; final losses of the four, largest over smallest {spread:.3f}"),
                  "why": ("only the first part holds (the four are the worst over the run)" if worst else
                          "only the second part holds (the four end together)" if same else
                          "neither part holds")}
    out["hansen.sincos_both"] = sincos_both(m)
    if nonfinite:
        for ev in out.values():
            if "passed" in ev:
                ev["inconclusive"] = (f"{nonfinite} problems' losses turned non-finite (left out "
                                      "of the means)")
            ev["diverged"] = nonfinite
    return out


def sincos_both(m: dict[str, float]) -> dict:
    """Evidence of ``hansen.sincos_both`` (issue 35): sincos's rank among the encodings of ``m`` (1 = best) by
    the step-averaged log10 loss (speed) and by the final loss (the long run), each against the registered
    better half (``extra["rank"]``)."""
    top = claims.get("hansen.sincos_both").extra["rank"]
    ranks = {}
    for what, prefix in (("speed", "logmean:"), ("long run", "final:")):
        values = {k[len(prefix):]: v for k, v in m.items() if k.startswith(prefix)}
        ranks[what] = 1 + sum(v < values["sincos"] for k, v in values.items() if k != "sincos")
    n = sum(k.startswith("final:") for k in m)
    good = [w for w, r in ranks.items() if r <= top]
    return {"passed": len(good) == 2, "partial": len(good) == 1,
            "detail": (f"sincos ranks {ranks['speed']} of {n} by the step-averaged log10 loss (speed) and "
                       f"{ranks['long run']} of {n} by the final loss (long run); the better half is rank {top} "
                       "or better"),
            "why": (f"in the better half only for {good[0]}" if good else "in the better half in neither")}


SANITY = ("hansen.floor_affine", "hansen.floor_normal")        # the book's own checks (settings)


def sanity(m: dict[str, float]) -> list[claims.Grade]:
    """The book's sanity checks of its engine (the exact floors, ``kind="setting"`` entries of
    ``penb.claims.hansen``, not claims of the blog): each under its registered ``close`` rule on the
    pooled measures ``m``, the encoding furthest from its floor. Not recorded for the scorecard."""
    out = []
    for key, group in zip(SANITY, (AFFINE, NORMAL)):
        c = claims.get(key)
        worst = max(group, key=lambda k: abs(m[f"final:{k}"] / c.value - 1))
        ev = {"value": m[f"final:{worst}"], "expected": c.value, "encoding": worst}
        verdict, ours, reason, _ = grading.apply(c.rule, ev)
        out.append(claims.Grade(key, verdict, f"{worst}: {ours}", reason, ev))
    return out


def setting_gap(cfg) -> str:
    """Why ``cfg`` is not the blog's study ("" when it is): the claims are about that study."""
    blog = claims.get("hansen.setup").value
    diff = [f"{k} {cfg[k]:g} (blog {blog[k]:g})" for k in SETTING_KEYS if cfg[k] != blog[k]]
    return ", ".join(diff)


def grade(pooled: pd.DataFrame, floors: dict[str, float], cfg,
          per_seed: Optional[pd.DataFrame] = None, nonfinite: int = 0) -> list[claims.Grade]:
    """Every claim of ``claims.of_chapter("invertibility")`` graded on the ``pooled`` mean frame
    (with the per-seed ``measure_table`` for the details), in registry order; where ``cfg`` is
    not the blog's study, each is recorded as not tested at this preset."""
    gap = setting_gap(cfg)
    ours = claims.of_chapter(CHAPTER)
    if gap:
        return [claims.not_tested(c.key, "not at this preset: the claims are about the blog's "
                                  f"study; this run differs in {gap}", cfg) for c in ours]
    ev = evidence(measures(pooled, floors), per_seed, nonfinite)
    if per_seed is not None and len(per_seed):
        for c in ours:
            ev[c.key] = {**ev[c.key], "agreement": agreement(c, ev[c.key], per_seed, cfg.inits)}
    return [claims.grade(c.key, ev[c.key], cfg, inits=cfg.inits) for c in ours]


def agreement(c: claims.Claim, pooled_ev: dict, per_seed: pd.DataFrame, inits: int) -> dict:
    """Protocol 6's agreement of a check (issue 49, item 3): each seed's own mean curve (``inits``
    initialisations each) read by the same rule, and the share of initialisations whose seed gives the pooled
    curve's outcome. Initialisations are counted by seed, the unit the study keeps a curve for: {"inits",
    "groups", "agree", "share"}."""
    want = grading.apply(c.rule, pooled_ev)[0]
    got = [grading.apply(c.rule, evidence(dict(row))[c.key])[0] for _, row in per_seed.iterrows()]
    agree = sum(v == want for v in got)
    return {"inits": inits * len(got), "groups": len(got), "agree": agree,
            "share": agree / len(got) if got else 0.0}

"""Grading the chapter "Gradient stability" (Morita, Fig. 5, Sec. 4.3) through ``penb.claims``, on the per-run
scores over the course of training (:func:`course_scores`: core, variant, seed, step, frequent, rare, drop, each
run's mean over its checkpoints; ``analysis.seed_scores``' last checkpoint where no curves are passed):

* ``morita.fig5.<core>``: the vanilla model's drop from FREQUENT to RARE disturbants above the PE model's
  (:func:`evidence`, a difference of differences);
* ``morita.fig5.pe_stays.<core>`` (issue 28: the sentence's "stays high"): the PE model's own drop within the
  claim's margin (:func:`stays_evidence`);
* ``morita.sec4_3.s4d_marginal`` and ``.s4d_stable`` (issue 35: the S4D half of Sec. 4.3), on every checkpoint's
  scores (:mod:`penb.chapters.gradient_stability.sec4_3`).
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from penb import claims
from penb.claims import training
from penb.chapters import frequency
from penb.chapters.gradient_stability import sec4_3
from penb.names import model_name, variant_label

VANILLA, PE = variant_label("none"), variant_label("sinusoidal")
CLAIMS = {core: f"morita.fig5.{core}" for core in ("gru", "lstm")}   # graded (penb.claims.morita)
STAYS = {core: f"morita.fig5.pe_stays.{core}" for core in ("gru", "lstm")}   # issue 28
S4D_CLAIM = "morita.fig5.s4d"                                      # no rule in the registry
S4D_HALF = {"s4d": sec4_3.KEYS}                                    # Sec. 4.3's S4D half (issue 35)


def evidence(scores: pd.DataFrame, core: str, diverged: dict, frame: Optional[pd.DataFrame] = None) -> dict:
    """Evidence of ``morita.fig5.<core>`` (rule "better", a difference of differences): per seed valid in both
    variants over the course of training (``scores``: :func:`course_scores`, or one checkpoint's), the vanilla model's drop of the score from FREQUENT to RARE disturbants
    (``a``) and the PE model's drop (``b``); both variants' diverged runs. No baseline on ``a``: a vanilla
    model that loses nothing contradicts the claim and is graded. With ``frame`` (the runs), a control: the
    vanilla model's accuracy over the test grid above chance (a model that learned nothing has no stable
    mapping to lose)."""
    at = scores[scores["core"] == core]
    wide = at.pivot_table(index="seed", columns="variant", values="drop") if len(at) else pd.DataFrame()
    ok = {VANILLA, PE} <= set(wide.columns)
    wide = wide[[VANILLA, PE]].dropna().sort_index() if ok else pd.DataFrame(columns=[VANILLA, PE])
    name = model_name(core)
    ev = dict(a=wide[VANILLA].tolist(), b=wide[PE].tolist(), baseline=None,
              diverged={v: int(diverged.get((core, v), 0)) for v in (VANILLA, PE)},
              a_name=f"vanilla {name}'s drop", b_name=f"PE {name}'s drop",
              seeds=[int(s) for s in wide.index], step=int(at["step"].max()) if len(at) else None)
    if frame is not None and "token_accuracy" in frame:
        van = frame[(frame["model"] == core) & (frame["variant"] == VANILLA) & ~frame["diverged"].astype(bool)]
        if len(van):
            ev["controls"] = {f"the vanilla {name}'s accuracy": [float(van["token_accuracy"].mean()),
                                                                1 / float(van["vocab"].iloc[0])]}
    return ev

def stays_evidence(scores: pd.DataFrame, core: str, diverged: dict) -> dict:
    """Evidence of ``morita.fig5.pe_stays.<core>`` (rule "no_gain"): per valid PE seed over the course of training,
    the score with FREQUENT disturbants (``a``) and with RARE ones (``b``), so that a - b is the PE model's
    drop; the PE runs that diverged; a control: the PE model's score with FREQUENT disturbants above 0 (a model
    whose gradients agree on nothing has no high similarity to keep)."""
    at = scores[(scores["core"] == core) & (scores["variant"] == PE)].sort_values("seed")
    name = model_name(core)
    ev = dict(a=at["frequent"].tolist(), b=at["rare"].tolist(), baseline=None,
              diverged={PE: int(diverged.get((core, PE), 0))}, a_name=f"PE {name}, FREQUENT disturbants",
              b_name="RARE disturbants", seeds=[int(s) for s in at["seed"]],
              step=int(at["step"].max()) if len(at) else None)
    if len(at):
        ev["controls"] = {f"the PE {name}'s score with FREQUENT disturbants": [float(at["frequent"].mean()), 0.0]}
    return ev


def course_scores(per_ckpt: pd.DataFrame) -> pd.DataFrame:
    """Per run (core x variant x seed), the mean over its scored checkpoints of the score with FREQUENT and with
    RARE disturbants and of their ``drop``; ``step`` its last checkpoint, ``checkpoints`` how many (issue 41: Fig. 5
    speaks of the course of training, so its claims read every checkpoint, not the last one alone)."""
    g = per_ckpt.groupby(["core", "variant", "seed"], sort=False)
    out = g[["frequent", "rare", "drop"]].mean().join(g["step"].agg(["max", "nunique"]))
    return out.rename(columns={"max": "step", "nunique": "checkpoints"}).reset_index()


def grade_claims(cfg, frame: pd.DataFrame, scores: pd.DataFrame, curves_: Optional[pd.DataFrame] = None) -> list:
    """Grade the chapter's claims (``penb.claims.of_chapter("gradient_stability")``) on :func:`seed_scores` of
    ``cfg.method`` (the S4D half of Sec. 4.3 on ``curves_``, every checkpoint's scores, :mod:`sec4_3`), and record
    the S4D claim that the registry leaves untested; returns the ``penb.claims.Grade`` list. frame: the runs
    (diverged included)."""
    diverged = frequency.grading.diverged_counts(frame)
    encodings = {variant_label(e) for e in cfg.encodings}
    per_ckpt = sec4_3.checkpoint_scores(curves_, cfg.method) if curves_ is not None else None
    # Fig. 5 reads the course: each run's mean over its checkpoints (given only `scores`, their one checkpoint)
    course = course_scores(per_ckpt) if per_ckpt is not None and len(per_ckpt) else scores
    out = []
    for c in claims.of_chapter("gradient_stability"):
        core = next((k for table in (CLAIMS, STAYS, S4D_HALF) for k, keys in table.items()
                     if c.key in (keys if isinstance(keys, tuple) else (keys,))), None)
        if core is None:
            raise ValueError(f"claim {c.key} is registered for this chapter but not graded here")
        if core not in cfg.cores:
            why = f"not at this preset: the {model_name(core)} is not among its models"
        elif not {VANILLA, PE} <= encodings:
            why = "not at this preset: it needs vanilla and position-encoded runs"
        elif c.key in sec4_3.KEYS and per_ckpt is None:
            why = "not graded here: it reads every checkpoint's scores, and none were passed (curves_)"
        else:
            why = ""
        if why:
            out.append(claims.not_tested(c.key, why, cfg))
            continue
        variants = (PE,) if c.key in STAYS.values() else (VANILLA, PE)
        names = {v: f"{v} {model_name(core)}" for v in variants}
        t = training.of_frame(frame, "variant", variants, names, where={"model": core})
        if c.key in sec4_3.KEYS:
            ev = (sec4_3.marginal_evidence if c.key == sec4_3.MARGINAL else sec4_3.stable_evidence)(
                per_ckpt, diverged, frame)
            out.append(claims.grade(c.key, ev, cfg, training=t, method=cfg.method, pairs=cfg.pairs,
                                    checkpoints=ev["checkpoints"]))
            continue
        if c.key in STAYS.values():
            ev = stays_evidence(course, core, diverged)
        else:
            ev = evidence(course, core, diverged, frame)
            ev["premise"] = frequency.grading.harm_premise_of_runs(frame, core)    # the harm Fig. 5 explains
        out.append(claims.grade(c.key, ev, cfg, training=t, method=cfg.method, pairs=cfg.pairs,
                                checkpoint=ev["step"]))
    out.append(claims.not_tested(S4D_CLAIM, claims.get(S4D_CLAIM).not_tested, cfg))
    return out

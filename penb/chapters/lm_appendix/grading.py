"""The grades of the chapter "Language modelling" (Morita, App. E) through ``penb.claims``.

    grades = grade(frame, cfg)  # Fig. 15's early gap and its close; Table 1 and "no advantage" past 30k

``frame`` is ``analysis.run(cfg)``'s. Every claim is graded on per-seed values:

* ``morita.fig15.early``: the paired early gap of the training curves (``analysis.early_late``);
* ``morita.fig15.meet``: the same gap just before 30,000 updates (:func:`meet_evidence`), only on runs that
  long;
* ``morita.table1`` and ``morita.appE.no_advantage``: the test log perplexities, only where the run's own
  training curves have met (the end of training, after Fig. 15's curves meet; :func:`not_met`); a run whose
  curves have not met is recorded by ``claims.not_tested`` with the reason.
"""
from __future__ import annotations

import math

import pandas as pd

from penb import claims
from penb.chapters.lm_appendix.analysis import curves, early_late, paired_gap, valid
from penb.claims import training
from penb.names import variant_label


def table1_evidence(frame: pd.DataFrame) -> dict:
    """Evidence of ``morita.table1`` (rule "better"): per seed, the position-encoded
    LSTM's test log perplexity (a; nats per token, the mean test loss) and the vanilla
    LSTM's (b), seeds valid in both, so that a per-seed difference is the log of the
    perplexity ratio (issue 28: Table 1's gap as a ratio); the diverged runs of each; no
    trivial baseline (a higher perplexity is worse)."""
    ok = valid(frame)
    per = {}
    for e in ("none", "sinusoidal"):
        g = ok[ok["encoding"] == e]
        per[e] = {int(s): math.log(p) for s, p in zip(g["seed"], g["perplexity"])}
    seeds = sorted(set(per["none"]) & set(per["sinusoidal"]))
    return {"a": [per["sinusoidal"][s] for s in seeds],
            "b": [per["none"][s] for s in seeds], "seeds": seeds, "baseline": None,
            "diverged": _lost(frame), "a_name": "position-encoded LSTM (test log perplexity, nats)",
            "b_name": "vanilla LSTM"}


def _lost(frame: pd.DataFrame) -> dict:
    return {variant_label(e): int(frame[frame["encoding"] == e]["diverged"].sum())
            for e in ("sinusoidal", "none")}


def early_evidence(frame: pd.DataFrame, cfg) -> dict:
    """Evidence of ``morita.fig15.early`` (rule "better"): per seed, the mean early gap
    of :func:`early_late` (vanilla minus PE training loss, the window ending at the
    registry's ``early_end``) against 0; the diverged runs of each; no baseline."""
    end = claims.get("morita.fig15.early").extra["early_end"]
    curve = curves(frame)
    by_seed = early_late(curve, cfg.steps, end)["early_by_seed"] if len(curve) else {}
    seeds = sorted(by_seed)
    return {"a": [by_seed[s] for s in seeds], "b": [0.0] * len(seeds), "b_fixed": True, "seeds": seeds,
            "baseline": None, "diverged": _lost(frame),
            "a_name": "vanilla minus PE training loss, early (nats)", "b_name": "no gap"}


MEET = "morita.fig15.meet"


def meet_evidence(frame: pd.DataFrame) -> dict:
    """Evidence of ``morita.fig15.meet`` (rule "no_gain"): per seed, PE's remaining lead, the mean of
    vanilla minus PE training loss (nats) over the logged updates in the registry's ``window``
    ((25,000, 30,000]), against 0; the diverged runs of each; no baseline."""
    lo, hi = claims.get(MEET).extra["window"]
    curve = curves(frame)
    gap = paired_gap(curve).drop(columns="mean") if len(curve) else pd.DataFrame()
    part = gap[(gap.index > lo) & (gap.index <= hi)] if len(gap) else gap
    by_seed = {int(k): float(x) for k, x in part.mean().items() if pd.notna(x)} if len(part) else {}
    seeds = sorted(by_seed)
    return {"a": [by_seed[s] for s in seeds], "b": [0.0] * len(seeds), "b_fixed": True, "seeds": seeds,
            "baseline": None, "diverged": _lost(frame), "window": [int(lo), int(hi)],
            "a_name": f"vanilla minus PE training loss, updates {lo:,}-{hi:,} (nats)", "b_name": "no gap"}


def not_met(key: str, frame: pd.DataFrame, cfg) -> str:
    """Why claim ``key`` (Table 1, "no advantage") is not tested on these runs ("" when their own training
    curves have met: PE's mean lead in training loss over the last quarter of the run, ``early_late``'s
    ``late_gap``, at most the rule's ``meet_margin``)."""
    margin = claims.get(key).rule.params["meet_margin"]
    curve = curves(frame)
    if not len(curve):
        return "not at this preset: no training curves of both models to tell whether they have met"
    late = early_late(curve, cfg.steps)
    lead, (lo, hi) = late["late_gap"], late["late_range"]
    if lead <= margin:
        return ""
    return (f"not at this preset: the runs' own training curves have not met (PE still {lead:+.3f} nats ahead "
            f"over updates {lo:,}-{hi:,}, above {margin}): the phase where Fig. 15 has PE ahead, not the end of "
            f"training the claim speaks of (morita.fig15.early grades that phase)")


def too_short(key: str, cfg) -> str:
    """Why claim ``key`` (``morita.fig15.meet``) is not tested at ``cfg`` ("" when its runs are long enough):
    the registry's rule is graded only from ``min_updates`` updates on."""
    need = claims.get(key).rule.params.get("min_updates", 0)
    if cfg.steps >= need:
        return ""
    return (f"not at this preset: its runs train {cfg.steps:,} updates, and the claim "
            f"speaks of the curves at {need:,} updates")


def grade(frame: pd.DataFrame, cfg) -> list:
    """The chapter's grades through ``penb.claims``, in registry order: Fig. 15's early
    gap per seed; Table 1 (PE worse) and "no advantage" (vanilla minus PE test
    log perplexity) per seed where the runs' own training curves have met (:func:`not_met`), else
    ``claims.not_tested`` with the reason."""
    state = training.of_frame(frame, "encoding", ("sinusoidal", "none"),      # on the training loss (nats)
                              {"sinusoidal": "PE LSTM", "none": "vanilla LSTM"}, metric="loss")
    out = [claims.grade("morita.fig15.early", early_evidence(frame, cfg), cfg, training=state)]
    why = too_short(MEET, cfg)
    out.append(claims.not_tested(MEET, why, cfg) if why else
               claims.grade(MEET, meet_evidence(frame), cfg, training=state))
    table = table1_evidence(frame)
    for key in ("morita.appE.no_advantage", "morita.table1"):
        why = not_met(key, frame, cfg)
        if why:
            out.append(claims.not_tested(key, why, cfg))
            continue
        ev = table if key == "morita.table1" else dict(
            table, a=table["b"], b=table["a"], a_name="vanilla LSTM (test log perplexity, nats)",
            b_name="position-encoded LSTM")
        out.append(claims.grade(key, ev, cfg, training=state))
    return out

"""The S4D half of Sec. 4.3 (issue 35), read from the S4D runs' checkpoints and graded through ``penb.claims`` by
``penb.chapters.gradient_stability.grading``:

* ``morita.sec4_3.s4d_marginal``: PE's effect on the S4D's gradient stability is marginal: per seed, the mean over
  the checkpoints of the vanilla S4D's drop (FREQUENT minus RARE disturbants) minus the PE S4D's, within +-0.02
  (rule "no_gain", two-sided);
* ``morita.sec4_3.s4d_stable``: the vanilla S4D is highly stable by itself: per seed, its lowest score with RARE
  disturbants over the checkpoints, against the level 0.9 (rule "level").

Both read :func:`checkpoint_scores` of the scored curves (``analysis.curves``: one row per run x checkpoint x
method x target x disturbants), every checkpoint a run kept (the text follows Fig. 5 "throughout the training").
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from penb.names import model_name, variant_label

VANILLA, PE = variant_label("none"), variant_label("sinusoidal")
MARGINAL, STABLE = "morita.sec4_3.s4d_marginal", "morita.sec4_3.s4d_stable"
KEYS = (MARGINAL, STABLE)
COLUMNS = ["core", "variant", "seed", "step", "frequent", "rare", "drop"]


def checkpoint_scores(curves_: pd.DataFrame, method: str = "weighted_rows") -> pd.DataFrame:
    """Per run (core x variant x seed) and checkpoint (step), targets pooled (pairs weighted): the score with
    FREQUENT and with RARE disturbants and ``drop`` = frequent - rare. Columns: :data:`COLUMNS`."""
    c = curves_[curves_["method"] == method]
    if c.empty:
        return pd.DataFrame(columns=COLUMNS)
    c = c.assign(weighted=c["n"] * c["similarity"])
    g = c.groupby(["core", "variant", "seed", "step", "disturbants"])[["weighted", "n"]].sum()
    wide = (g["weighted"] / g["n"]).unstack("disturbants").reset_index()
    wide.columns.name = None
    return wide.assign(drop=wide["frequent"] - wide["rare"])[COLUMNS]


def accuracy_control(frame: Optional[pd.DataFrame], core: str, variant: str) -> dict:
    """{name: [mean token accuracy of ``variant``'s valid runs, chance 1/V]}: a model that learned nothing decides
    nothing ({} when ``frame`` has no accuracies)."""
    if frame is None or "token_accuracy" not in frame:
        return {}
    at = frame[(frame["model"] == core) & (frame["variant"] == variant) & ~frame["diverged"].astype(bool)]
    if not len(at):
        return {}
    return {f"the {variant} {model_name(core)}'s accuracy": [float(at["token_accuracy"].mean()),
                                                         1 / float(at["vocab"].iloc[0])]}


def marginal_evidence(per_ckpt: pd.DataFrame, diverged: dict, frame: Optional[pd.DataFrame] = None,
                      core: str = "s4d") -> dict:
    """Evidence of ``morita.sec4_3.s4d_marginal`` (rule "no_gain", two-sided): per seed valid in both variants, the
    mean over their common checkpoints of the vanilla drop minus the PE drop (``a``) against no effect (``b``,
    0); controls: both models' accuracy above chance."""
    at = per_ckpt[per_ckpt["core"] == core]
    w = at.pivot_table(index=["seed", "step"], columns="variant", values="drop") if len(at) else pd.DataFrame()
    if not {VANILLA, PE} <= set(w.columns):
        effect = pd.Series(dtype=float)
    else:
        w = w[[VANILLA, PE]].dropna()
        effect = (w[VANILLA] - w[PE]).groupby(level="seed").mean().sort_index()
    return dict(a=effect.tolist(), b=[0.0] * len(effect), b_fixed=True, baseline=None,
                diverged={v: int(diverged.get((core, v), 0)) for v in (VANILLA, PE)},
                controls={**accuracy_control(frame, core, VANILLA), **accuracy_control(frame, core, PE)},
                a_name="PE's effect on the S4D's drop (vanilla drop minus PE drop, mean over checkpoints)",
                b_name="no effect", seeds=[int(s) for s in effect.index],
                checkpoints=int(at["step"].nunique()) if len(at) else 0)


def stable_evidence(per_ckpt: pd.DataFrame, diverged: dict, frame: Optional[pd.DataFrame] = None,
                    core: str = "s4d") -> dict:
    """Evidence of ``morita.sec4_3.s4d_stable`` (rule "level"): per valid vanilla seed, its lowest score with RARE
    disturbants over its checkpoints (``a``); control: the vanilla model's accuracy above chance."""
    at = per_ckpt[(per_ckpt["core"] == core) & (per_ckpt["variant"] == VANILLA)]
    low = at.groupby("seed")["rare"].min().sort_index() if len(at) else pd.Series(dtype=float)
    return dict(a=low.tolist(), baseline=None, diverged={VANILLA: int(diverged.get((core, VANILLA), 0))},
                controls=accuracy_control(frame, core, VANILLA),
                a_name="the vanilla S4D's lowest score with RARE disturbants over its checkpoints",
                seeds=[int(s) for s in low.index], checkpoints=int(at["step"].nunique()) if len(at) else 0)

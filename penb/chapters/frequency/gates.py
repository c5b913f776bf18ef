"""What a claim of the frequency chapter needs before its evidence means anything: its model and variants at the
preset (:func:`absent`), the paper's updates for a level claim (:func:`short`), and a model that learned
(:func:`learned`, :func:`vanilla_control`). Shared by ``grading`` and ``sec4_2``, which import it and not each other."""
from __future__ import annotations

import pandas as pd

from penb.chapters import rnn_common
from penb.chapters.frequency.grid import per_seed
from penb.chapters.frequency.harm import VANILLA
from penb.names import model_name, variant_label

PAPER_STEPS = 300_000                                        # Sec. 3.3: where the level claims are made


def of(frame: pd.DataFrame, model: str, variant: str) -> pd.DataFrame:
    return frame[(frame["model"] == model) & (frame["variant"] == variant)]


def learned(cells_: pd.DataFrame, model: str, variant: str) -> float:
    """The mean over seeds of ``variant``'s accuracy with FREQUENT disturbants (both target groups)."""
    acc = per_seed(of(cells_[cells_["disturbants"] == "frequent"], model, variant), [])["accuracy"]
    return float(acc.mean()) if len(acc) else float("nan")


def vanilla_control(cells_: pd.DataFrame, model: str, vocab: int) -> dict:
    """The vanilla model must have learned (accuracy with FREQUENT disturbants above chance) for its harm, or its
    lack of harm, to say anything."""
    return {f"the vanilla {model_name(model)}'s accuracy with FREQUENT disturbants":
            [learned(cells_, model, VANILLA), 1 / vocab]}


def absent(cfg, model: str, variants: tuple) -> str:
    """Why ``model`` cannot be graded at ``cfg`` with ``variants`` ('' when it can)."""
    if model not in cfg.cores:
        return f"not at this preset: the {model_name(model)} is not among its models"
    encodings = {variant_label(e) for e in cfg.encodings}
    lacking = [v for v in variants if v not in encodings]
    return f"not at this preset: no {' or '.join(lacking)} runs" if lacking else ""


def short(cfg, model: str, fraction: float) -> str:
    """'' when ``model`` trains at least ``fraction`` of the paper's updates at ``cfg``, else why not."""
    steps = rnn_common.settings(cfg, model)["steps"]
    if steps >= fraction * PAPER_STEPS:
        return ""
    return (f"not at this preset: a level reached after the paper's {PAPER_STEPS:,} updates; the "
            f"{model_name(model)} trains {steps:,} here (under {fraction:.0%} of them)")

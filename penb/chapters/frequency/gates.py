"""What a claim of the frequency chapter needs before its evidence means anything: its model and variants at the
preset (:func:`absent`) and a model that learned (:func:`learned`, :func:`vanilla_control`). Shared by ``grading``
and ``sec4_2``, which import it and not each other. (The level claims' gate at 10% of the paper's updates is gone,
issue 34 item 3: protocol 4's doubling test reads their levels instead.)"""
from __future__ import annotations

import pandas as pd

from penb.chapters.frequency.grid import per_seed
from penb.chapters.frequency.harm import VANILLA
from penb.names import model_name, variant_label
from penb.presets import left_out
from penb.sizing import SLICE_S4D

NOT_RUN = {("slice", "s4d"): SLICE_S4D}     # (preset, model) -> why the preset leaves the model out


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
        why = left_out(NOT_RUN, cfg, model)
        return f"not at this preset: the {model_name(model)} is not among its models" + (f" ({why})" if why else "")
    encodings = {variant_label(e) for e in cfg.encodings}
    lacking = [v for v in variants if v not in encodings]
    return f"not at this preset: no {' or '.join(lacking)} runs" if lacking else ""

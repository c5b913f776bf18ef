"""The sentinel at position 0 of the normal encodings (exploratory, never graded).

``ndtri(0) = -inf``, so the original sets row 0 of ``normal`` and ``normal_learned`` to
a constant sentinel. :func:`wrong_side` counts the initialisations whose inverter
predicts 1 there (the wrong side: the target is 0), at step 0 and after the run;
:func:`side_study` trains the two encodings again with ``cfg.alt_sentinel``, a finite
value, on the first seed's draws; :func:`settle_table` sets both side by side.

A mean frame is ``[steps, encodings]`` (index ``step``, one column per encoding), as
``analysis.Study.mean`` returns.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from penb.chapters.invertibility import analysis
from penb.chapters.invertibility.checks import NORMAL
from penb.chapters.invertibility.curves import settle_step

WHEN = ("at step 0", "after the run")


def wrong_side(studies: Sequence[analysis.Study], cfg) -> pd.DataFrame:
    """Initialisations, summed over every seed's study, whose prediction at position 0
    (``analysis.position0`` with ``cfg.sentinel``) is above 1/2: rows the two normal
    encodings, columns :data:`WHEN`; the index's name says how many were counted."""
    wrong: dict = {}
    for s in studies:
        start = analysis.initial_state(list(NORMAL), cfg.inits, cfg.dim,
                                       s.settings["seed"])
        for when, params in zip(WHEN, (start, s.final)):
            for k in NORMAL:
                p0 = analysis.position0(params[k], cfg.sentinel)        # [inits]
                wrong[(when, k)] = wrong.get((when, k), 0) + int((p0 > 0.5).sum())
    out = pd.Series(wrong).unstack(0)[list(WHEN)]
    out.index.name = (f"inits (of {len(studies) * cfg.inits}) predicting 1 "
                      "at position 0")
    return out


def side_study(studies: Sequence[analysis.Study], cfg) -> dict[str, pd.DataFrame]:
    """``{sentinel label: mean frame [steps, 2]}`` of the two normal encodings: the
    first seed's study with ``cfg.sentinel`` (labelled "(original)" at the original's
    value), then the same draws trained again with ``cfg.alt_sentinel``."""
    alt = analysis.run(cfg, progress=False, encodings=list(NORMAL),
                       sentinel=cfg.alt_sentinel, seeds=cfg.seeds[:1])[0].mean()
    main = f"{cfg.sentinel:.0f}" + (" (original)" if cfg.sentinel == -9999999 else "")
    return {main: studies[0].mean()[list(NORMAL)], f"{cfg.alt_sentinel:g}": alt}


def settle_table(frames: dict[str, pd.DataFrame], floor: float) -> pd.DataFrame:
    """One column per sentinel of ``frames`` (:func:`side_study`); three rows per
    encoding: its loss at step 0, its final loss, and the step from which it stays
    within 1.1 times ``floor`` (``curves.settle_step``; None: not within the run)."""
    return pd.DataFrame({
        label: {**{f"{k}: step 0": f[k].iloc[0] for k in f.columns},
                **{f"{k}: final": f[k].iloc[-1] for k in f.columns},
                **{f"{k}: within 1.1 x floor from": settle_step(f[k], floor)
                   for k in f.columns}}
        for label, f in frames.items()})

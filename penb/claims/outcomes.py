"""The outcomes every rule shares (``penb.claims.grading`` and ``penb.claims.margins`` import them, and not each
other): the verdict vocabulary, the numbers' format, and the summary and detail of per-seed values."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from penb.claims.intervals import DEFAULT_SESOI, no_narrower, seed_interval
from penb.claims.protocol import PROTOCOL


REPRODUCED, DIRECTION, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTED = (
    "reproduced", "direction only", "not reproduced", "inconclusive", "not tested")
VERDICTS = (REPRODUCED, DIRECTION, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTED)
DECIDED = (REPRODUCED, DIRECTION, NOT_REPRODUCED)       # the verdicts that decide a claim, either way


def fmt(mean: float, lo: float, hi: float, digits: int = 3) -> str:
    """'0.412 [0.398, 0.425]'."""
    return f"{mean:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _agree_needed(n: int, fraction: float) -> int:
    return max(1, math.ceil(fraction * n - 1e-9))


def _summary(d: np.ndarray, p: dict, **more) -> dict:
    """Mean, interval, sign agreement and SD of per-seed values ``d``."""
    mean, lo, hi = seed_interval(d)
    if len(d):                        # no narrower than the measure's resolution on either side (protocol 5 on)
        lo, hi = no_narrower(mean, lo, hi, p.get("resolution"))
    return dict(diff=mean, lo=lo, hi=hi, agree=int((d > 0).sum()), n=len(d),
                need=_agree_needed(len(d), p.get("min_agree", 0.8)),
                sd=float(np.std(d, ddof=1)) if len(d) > 1 else math.nan, **more)


def _detail(s: dict, p: dict, needed: Optional[int] = None) -> dict:
    """What the scorecard draws and says of a comparison: effect, interval, SESOI, seeds, seeds needed."""
    return dict(effect=s["diff"], lo=s["lo"], hi=s["hi"], sesoi=p.get("sesoi", DEFAULT_SESOI), n=s["n"],
                sd=s["sd"], seeds_needed=needed, protocol=PROTOCOL)

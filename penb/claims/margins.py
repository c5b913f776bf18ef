"""The outcomes of the rules that compare an effect with a margin or with another effect (issue 28, protocol 3 on);
:mod:`penb.claims.grading` calls them.

* :func:`equivalence` (rule ``no_gain``): "no gain" is a claim of equivalence, so it is graded as one
  (the logic of two one-sided tests, TOST): *reproduced* when the seed-level interval of the gain lies
  wholly inside the margin, below ``+margin`` for a one-sided claim ("does not improve by more than"),
  within ``(-margin, +margin)`` for a two-sided one (``two_sided``: "as good as, no better, no worse");
  *not reproduced* only when the interval lies wholly beyond the margin (a gain larger than the margin,
  or for a two-sided claim a loss larger than it); otherwise *inconclusive*, with the seeds that would
  decide it. (Protocol 2 called any interval above 0 "not reproduced", so a gain of +0.005 [+0.003,
  +0.007] failed a claim whose margin is 0.02, though it is exactly what "no gain beyond 0.02" allows.)
  The interval is the protocol's 95% one (each side a one-sided test at 2.5%), stricter than TOST's
  usual 90%; the seeds needed are those of a t-test at the margin, the case of a true gain of 0.
* :func:`room_left` (the second part of rule ``gain_vs_reference``): the two gains are compared as
  *gains over the room left*, ``(a - b) / (1 - b)`` per seed, with ``b`` the accuracy of the model the
  gain is measured from: the share of that model's errors the better model removes. A raw gain is
  capped by the room left, ``1 - b``: with ``b`` at 0.9 no gain can exceed 0.1, with ``b`` at 0.4 it can
  reach 0.6, so raw gains call a task "helped less" whenever its reference model is near the ceiling,
  whatever the better model does. The share of errors removed is at most 1 in every task, so the
  ceiling bounds both gains alike; it is also unchanged by taking accuracy above chance (``(acc - c) /
  (1 - c)`` for both models gives the same ratio), so tasks of different chance levels compare alike.
  (A difference of logits would do as well but is undefined at accuracy 0 or 1.) The part is shown when
  the interval of the difference lies above 0 with enough seeds agreeing, *not reproduced* when it lies
  below 0 (the opposite holds) or below ``ref_sesoi`` (a difference that matters is excluded), and
  otherwise only the first part holds: *direction only*, with the seeds that would decide it. A seed
  whose reference model sits within ``baseline_margin`` of the ceiling leaves no room to measure a gain
  in: *inconclusive*.
* :func:`at_least` (a control of the validity gate, ``controls`` entry [value, trivial baseline,
  reference]): a model that must have learned the task "at least as well as" a reference model: non-inferiority
  with a margin, value >= reference - ``noninferiority`` (default ``baseline_margin``), besides being above the
  trivial baseline. (Protocols 1-2 asked for strictly more than the reference, so at the ceiling, where both sit
  near 1, noise decided.)
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from penb.claims.intervals import needed_text
from penb.claims.outcomes import (DEFAULT_SESOI, DIRECTION, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, _detail, _summary,
                                  fmt)


def at_least(name: str, value: float, floor: float, reference: float, p: dict) -> tuple[Optional[str], float]:
    """(why the control fails or None, the trivial baseline the gate then checks ``value`` against) for a
    control that must do at least as well as ``reference``."""
    tol = p.get("noninferiority", p.get("baseline_margin", 0.02))
    if value >= reference - tol:
        return None, floor
    return (f"{name} ({value:.3g}) is more than {tol:g} below its reference ({reference:.3g}): it did not learn "
            "the task at least as well, so the comparison decides nothing"), floor


def equivalence(s: dict, p: dict, margin: float, ours: str, detail: dict) -> tuple:
    """The verdict of rule ``no_gain`` on the summary ``s`` of the per-seed gains (after the
    rule's gate and its failed-control branch)."""
    two = bool(p.get("two_sided", False))
    inside = s["hi"] < margin and (not two or s["lo"] > -margin)
    if inside:
        where = f"within (-{margin:g}, +{margin:g})" if two else f"below +{margin:g}"
        return REPRODUCED, ours, f"no gain: the seed-level interval lies {where}", detail
    if s["lo"] > margin and s["agree"] >= s["need"]:
        return NOT_REPRODUCED, ours, (f"a gain beyond the margin: the seed-level interval lies above "
                                      f"+{margin:g} and enough seeds agree"), detail
    if two and s["hi"] < -margin:
        return NOT_REPRODUCED, ours, (f"a loss beyond the margin: the seed-level interval lies below "
                                      f"-{margin:g}"), detail
    n, words = needed_text(s["n"], s["sd"], margin)
    side = f"beyond +-{margin:g}" if two else f"above +{margin:g}"
    return (INCONCLUSIVE, ours, f"not shown with {s['n']} seeds at this preset (the interval reaches {side}); "
            f"{words}", {**detail, "seeds_needed": n})


def gains_over_room(a, b, ceiling: float = 1.0) -> np.ndarray:
    """(a - b) / (ceiling - b) per seed: the share of ``b``'s errors that ``a`` removes."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return (a - b) / (ceiling - b)


def room_left(ev: dict, p: dict, first: str, ours: str, detail: dict) -> tuple:
    """The second part of rule ``gain_vs_reference``, once the first part holds (``first``):
    this gain against the reference gain (``ref_gain``, over the reference comparison's ``ref_b``), both
    over the room left, paired by seed."""
    if "ref_b" not in ev:
        raise ValueError("gains are compared over the room left: the evidence needs 'ref_b', the "
                         "reference comparison's per-seed accuracy of the model its gain is measured from")
    ceiling, margin = p.get("ceiling", 1.0), p.get("baseline_margin", 0.02)
    b, ref_b = np.asarray(ev["b"], float), np.asarray(ev["ref_b"], float)
    ref_a = ref_b + np.asarray(ev["ref_gain"], float)
    m = min(len(b), len(ref_b))
    room = np.minimum(ceiling - b[:m], ceiling - ref_b[:m])
    if m and room.min() <= margin:
        return INCONCLUSIVE, ours, (f"a reference model sits within {margin:g} of the ceiling ({ceiling:g}): no "
                                    "room left to measure a gain in, so the two gains cannot be compared"), detail
    gain = gains_over_room(np.asarray(ev["a"], float)[:m], b[:m], ceiling)
    ref = gains_over_room(ref_a[:m], ref_b[:m], ceiling)
    larger = p.get("relation", "smaller") == "larger"
    d = gain - ref if larger else ref - gain
    sesoi = p.get("ref_sesoi", DEFAULT_SESOI)
    s = _summary(d, {**p, "sesoi": sesoi})
    second = {**_detail(s, {**p, "sesoi": sesoi}), "scale": "gain over the room left, (a - b) / (1 - b)"}
    word = "larger" if larger else "smaller"
    ours += (f"; gains over the room left: this {gain.mean():.3f}, reference {ref.mean():.3f}; "
             f"{'this minus the reference' if larger else 'the reference minus this'} "
             f"{fmt(s['diff'], s['lo'], s['hi'])}, in the claim's direction in {s['agree']}/{s['n']} seeds")
    both = {"first_part": detail, "second_part": second}
    if s["lo"] > 0 and s["agree"] >= s["need"]:
        return first, ours, (f"the first part holds, and the gain over the room left is {word} than the "
                             "reference's (interval above 0, enough seeds agree)"), {**detail, **both, "part": "first"}
    if s["hi"] < 0:
        return NOT_REPRODUCED, ours, (f"the opposite of the second part holds: the gain over the room left is "
                                      f"{'smaller' if larger else 'larger'} than the reference's (interval below "
                                      "0)"), {**second, **both, "part": "second"}
    if s["hi"] < sesoi:
        return NOT_REPRODUCED, ours, (f"the second part's interval lies below its smallest effect of interest "
                                      f"({sesoi:g} of the room left): a difference that matters is excluded"), \
            {**second, **both, "part": "second"}
    n, words = needed_text(s["n"], s["sd"], sesoi)
    return DIRECTION, ours, (f"the first part holds; a {word} gain over the room left than the reference's is not "
                             f"shown with {s['n']} seeds at this preset; {words}"), \
        {**detail, **both, "part": "first", "second_part": {**second, "seeds_needed": n}}

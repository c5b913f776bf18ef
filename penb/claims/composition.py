"""The one composition of a verdict (issue 49, item 5): what :func:`penb.claims.grade` does with a claim's rule under
the current protocol, and what the doubling test's calibration (:func:`settle`) reads, in one
function, so that the two cannot drift apart.

:func:`compose`: the rule (``grading.apply``), then protocol 3's premise (a "not reproduced" needs the claim's
premise to hold in the runs), then protocol 5's zero-width guard (an interval of zero width decides nothing), then,
for a claim about trained models, the doubling test (``penb.claims.doubling.test``), which holds back a decided
verdict that more training could still overturn.
"""
from __future__ import annotations

from typing import Optional

from penb.claims import doubling
from penb.claims.grading import INCONCLUSIVE, NOT_REPRODUCED, PROTOCOL, Rule, apply
from penb.claims.intervals import resolution_of
from penb.claims.outcomes import DECIDED


def compose(kind: str, params: dict, about: str, evidence: dict, half: Optional[dict], budgets: tuple,
            sesoi: Optional[float], resolution: Optional[float], protocol: int = PROTOCOL,
            next_cost: Optional[dict] = None) -> tuple[str, str, str, dict, str]:
    """(verdict, ours, reason, detail, the rule's own verdict after the premise) of a claim with rule ``kind``
    (``params``) about ``about`` on ``evidence``; ``half``/``budgets``: the evidence at N/2 and (N/2, N)."""
    verdict, ours, reason, detail = apply(Rule(kind, "", params), evidence, protocol=protocol, sesoi=sesoi,
                                          resolution=resolution)
    verdict, reason = _premise(verdict, reason, evidence)
    rule_verdict = verdict
    verdict, reason = _zero_width(about, verdict, reason, detail, resolution)
    if about == "trained":
        rec = doubling.test(kind, params, rule_verdict, evidence, half, budgets, sesoi, protocol=protocol,
                            part=detail.get("part"), resolution=resolution)
        rec = {**rec, **({"next_cost": next_cost} if next_cost else {})}
        detail = {**detail, "doubling": rec}
        if verdict in DECIDED and not rec["decided"]:
            detail = {**detail, "rule_verdict": verdict}
            verdict, reason = _held_back(verdict, reason, rec)
    return verdict, ours, reason, detail, rule_verdict


def _held_back(verdict: str, reason: str, rec: dict) -> tuple[str, str]:
    """The verdict of a claim about trained models once the doubling test ``rec`` has read it."""
    from penb.claims import doubling

    if verdict not in DECIDED or rec["decided"]:
        return verdict, reason
    return INCONCLUSIVE, (f"not decided by the doubling test (protocol {rec.get('protocol', 4)}): {rec['why']}. "
                          f"The rule alone would say '{verdict}' ({reason}), but a claim about trained models "
                          f"stands only where more training would not change it. Deciding it needs: "
                          f"{doubling.next_step(rec)}")


def _zero_width(about: str, verdict: str, reason: str, detail: dict, resolution) -> tuple[str, str]:
    """Protocol 5: an interval of zero width decides nothing. Where every seed of a claim about training gave the
    same value and the measure states no resolution (``Claim.resolution`` or evidence ``resolution``), a decided
    verdict reads inconclusive (issue 41, item 3: ranks over a few items, accuracies pinned at 1.0)."""
    if verdict not in DECIDED or about == "none" or resolution or detail.get("sd") != 0.0:
        return verdict, reason
    return INCONCLUSIVE, (f"every one of {detail.get('n')} seeds gave the same value, so the seed-level interval has "
                          f"zero width, and the measure states no resolution to widen it: it decides nothing. The "
                          f"rule alone would say '{verdict}' ({reason})")


def _premise(verdict: str, reason: str, evidence: dict) -> tuple[str, str]:
    """Protocol 3: 'not reproduced' needs the claim's premise to hold in the runs (evidence ``premise``:
    {"holds": bool, "text": what the claim presupposes}, e.g. the vanilla harm that Fig. 5 explains)."""
    p = evidence.get("premise")
    if verdict != NOT_REPRODUCED or not p or p.get("holds", True):
        return verdict, reason
    return INCONCLUSIVE, (f"the claim's premise does not hold in these runs ({p.get('text', '')}), so they cannot "
                          f"refute it; the rule alone would say 'not reproduced' ({reason})")


def settle(kind: str, params: dict, ev: dict, half: Optional[dict], budgets: tuple, sesoi: float,
           protocol: int = PROTOCOL, resolution: Optional[float] = None) -> tuple[str, bool]:
    """(the rule's verdict at ``N``, whether it stands as a decided verdict) for a claim about trained models,
    through :func:`compose`, the composition :func:`penb.claims.grade` uses, without recording
    anything (the calibration on simulated curves, ``tests/test_doubling_calibration.py``)."""
    resolution = resolution_of(ev.get("resolution", resolution))
    verdict, _, _, _, rule_verdict = compose(kind, params, "trained", ev, half, budgets, sesoi, resolution, protocol)
    return rule_verdict, rule_verdict in DECIDED and verdict == rule_verdict

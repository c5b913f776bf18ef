"""The one composition of a verdict (issue 49, item 5): what :func:`penb.claims.grade` does with a claim's rule under
the protocol in force, and what the calibration (:func:`settle`) reads, in one function, so that the two cannot drift
apart. The code holds that protocol only (issue 66); earlier protocols' verdicts are a committed table
(``penb.claims.history``). The "protocol k" beside a step names the version that introduced it.

:func:`compose`: the rule (``grading.apply``), then the premise (protocol 3: a "not reproduced" needs the claim's
premise to hold in the runs), then the zero-width guard (protocol 5: an interval of zero width decides nothing),
then, for a claim about trained models, the doubling test (``penb.claims.doubling.test``, protocol 4), which holds
back a decided verdict that more training could still overturn, and the horizon (``penb.claims.horizon``, protocol
6), which carries what the doublings left to the text's budget could move.
"""
from __future__ import annotations

from typing import Optional

from penb.claims import doubling, doubling_claim, horizon as horizon_test
from penb.claims.grading import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTED, PROTOCOL, Rule, apply
from penb.claims.intervals import resolution_of
from penb.claims.outcomes import DECIDED


def compose(kind: str, params: dict, about: str, evidence: dict, half: Optional[dict], budgets: tuple,
            sesoi: Optional[float], resolution: Optional[float], next_cost: Optional[dict] = None,
            quarter: Optional[dict] = None, horizon: Optional[int] = None) -> tuple[str, str, str, dict, str]:
    """(verdict, ours, reason, detail, the rule's own verdict after the premise) of a claim with rule ``kind``
    (``params``) about ``about`` on ``evidence``; ``half``/``budgets``: the evidence at N/2 and (N/2, N);
    ``quarter``: at N/4; ``horizon``: the text's budget."""
    verdict, ours, reason, detail = apply(Rule(kind, "", params), evidence, sesoi=sesoi, resolution=resolution)
    verdict, reason = _premise(verdict, reason, evidence, both=about == "doubling")
    if about == "doubling":
        verdict, reason = doubling_claim.above_chance(verdict, reason, evidence, sesoi)
    if kind == "check":
        verdict, reason = _agreement(verdict, reason, evidence)
    rule_verdict = verdict
    verdict, reason = _zero_width(about, verdict, reason, detail, resolution)
    if about == "trained":
        rec = doubling.test(kind, params, rule_verdict, evidence, half, budgets, sesoi, part=detail.get("part"),
                            resolution=resolution)
        rec = {**rec, **({"next_cost": next_cost} if next_cost else {})}
        if half is not None and quarter is not None and budgets and budgets[0]:
            rec["earlier_moves"] = _earlier_moves(kind, params, rule_verdict, half, quarter, budgets, sesoi,
                                                  detail.get("part"), resolution)
        if verdict in DECIDED:
            rec = _levels_to_horizon(rec, quarter, horizon, budgets)
        detail = {**detail, "doubling": rec}
        if verdict in DECIDED and not rec["decided"]:
            detail = {**detail, "rule_verdict": verdict}
            verdict, reason = _held_back(verdict, reason, rec)
        elif verdict in DECIDED:
            hz = horizon_test.test(kind, params, rule_verdict, evidence, half, quarter, budgets, sesoi, horizon, rec,
                                   part=detail.get("part"), resolution=resolution)
            detail = {**detail, "horizon": hz}
            if not hz["decided"]:
                detail = {**detail, "rule_verdict": verdict}
                verdict, reason = _beyond_horizon(verdict, reason, hz, rec)
            elif hz.get("assumes"):
                reason = f"{reason}; it {hz['assumes']} (protocol {PROTOCOL})"
    elif about == "doubling" and verdict in DECIDED:
        verdict, reason, hz = doubling_claim.read(verdict, reason, evidence, budgets, sesoi, horizon, resolution)
        detail = {**detail, "horizon": hz}
    elif about == "budget" and verdict in DECIDED and \
            horizon_test.unknown_budget(horizon, budgets[1] if budgets else 0):
        detail = {**detail, "rule_verdict": verdict}
        verdict, reason = INCONCLUSIVE, (f"{horizon_test.unknown_budget(horizon, budgets[1] if budgets else 0)}: a "
                                         f"budget claim is read only at a known budget (protocol 7, fails closed). "
                                         f"The rule alone would say '{verdict}' ({reason})")
    elif about == "budget" and budgets and budgets[1] and horizon_test.doublings_left(horizon, budgets[1]):
        detail = {**detail, "rule_verdict": verdict}
        verdict, reason = NOT_TESTED, (f"not tested below the text's budget: the text compares models trained "
                                       f"{horizon:,} updates, these runs {budgets[1]:,} (protocol 6); the rule "
                                       f"alone would say '{verdict}' ({reason})")
    return verdict, ours, reason, detail, rule_verdict


MIN_INITS, MIN_SHARE = 10, 0.8          # protocol 6: a check over initialisations decides only with these
MIN_SEEDS = 3                            # protocol 7: and over at least this many seeds, MIN_SHARE of them agreeing


def _agreement(verdict: str, reason: str, evidence: dict) -> tuple[str, str]:
    """Protocol 6: a check read off a mean over random initialisations (evidence ``agreement``: {"inits", "share"}
    of them giving the mean's outcome; "agree" of "groups" seeds' own curves giving it) decides only with at least
    :data:`MIN_INITS` initialisations of which at least :data:`MIN_SHARE` agree. Protocol 7 counts seeds, the unit
    of every interval: at least :data:`MIN_SEEDS` of them, :data:`MIN_SHARE` agreeing, as well."""
    a = evidence.get("agreement")
    if verdict not in DECIDED or not a:
        return verdict, reason
    seeds, agree = int(a.get("groups") or 0), int(a.get("agree") or 0)
    if seeds < MIN_SEEDS or agree < MIN_SHARE * seeds:
        return INCONCLUSIVE, (f"{agree} of {seeds} seeds' own curves give the mean curve's outcome "
                              f"({a.get('share', 0.0):.0%} of {a.get('inits', 0)} initialisations); a check decides "
                              f"only over at least {MIN_SEEDS} seeds of which {MIN_SHARE:.0%} agree (protocol 7 "
                              f"counts seeds). The rule alone would say '{verdict}' ({reason})")
    if a.get("inits", 0) >= MIN_INITS and a.get("share", 0.0) >= MIN_SHARE:
        return verdict, (f"{reason}; {a['share']:.0%} of {a['inits']} initialisations ({a.get('agree')} of "
                         f"{a.get('groups')} seeds' own curves) give the same outcome")
    return INCONCLUSIVE, (f"{a.get('share', 0.0):.0%} of {a.get('inits', 0)} initialisations ({a.get('agree')} of "
                          f"{a.get('groups')} seeds' own curves) give the mean curve's outcome; a check decides "
                          f"only with at least {MIN_INITS} initialisations of which {MIN_SHARE:.0%} agree "
                          f"(protocol 6). The rule alone would say '{verdict}' ({reason})")


def _beyond_horizon(verdict: str, reason: str, hz: dict, rec: dict) -> tuple[str, str]:
    """Protocol 6: a verdict that the doubling test let stand, read at the text's budget (``penb.claims.horizon``)."""
    h = f"text's {hz['horizon']:,}" if hz.get("horizon") else "text's budget"
    return INCONCLUSIVE, (f"decided at {rec['budgets'][1]:,} updates by the doubling test, not shown to hold at the "
                          f"{h} (protocol {hz.get('protocol', 6)}'s horizon): {hz['why']}. The rule alone would say "
                          f"'{verdict}' ({reason})")


def _levels_to_horizon(rec: dict, quarter: Optional[dict], horizon: Optional[int], budgets: tuple) -> dict:
    """Protocol 8 (issue 66): a level that moved by more than the SESOI from N/2 to N is not held back by the doubling
    test where the horizon bounds its doublings left (runs at N/4, below the text's budget): whether it stays on one side
    of the text's level is what the horizon reads (``penb.claims.horizon``: the level's interval at N moved by all
    that the doublings left could add). A level is read against the text's number, not against a move: the fixed
    SESOI says nothing of which side of it the model ends on."""
    n = int(budgets[1]) if budgets else 0
    if rec["decided"] or quarter is None or not (n and horizon_test.doublings_left(horizon, n)):
        return rec                       # at the text's budget the doubling test reads the level, as Sec. 4.1 does
    held = rec["held_by"]
    if not held or any(rec["moves"][k]["kind"] != doubling.LEVEL for k in held):
        return rec
    return {**rec, "decided": True, "held_by": [], "levels_to_horizon": held,
            "why": f"{rec['why']}; the level's move is read by the horizon instead (protocol 8)"}


def _earlier_moves(kind, params, verdict, half, quarter, budgets, sesoi, part, resolution) -> dict:
    """{quantity: {"mean", "lo", "hi", "n"}}: the moves from N/4 to N/2 of the quantities the doubling test reads
    (the same test one doubling earlier, read for the verdict at N). Recorded only, for
    :mod:`penb.claims.to_decide`'s projection of what would decide an undecided verdict; it decides nothing. Runs
    at N/4 that do not give the claim's evidence in full record nothing (the horizon then says so)."""
    try:
        early = doubling.test(kind, params, verdict, half, quarter, (budgets[0] // 2, budgets[0]), sesoi, part=part,
                              resolution=resolution)
    except (KeyError, ValueError, IndexError):
        return {}
    return {k: {f: m.get(f) for f in ("mean", "lo", "hi", "n")} for k, m in early["moves"].items()}


def _held_back(verdict: str, reason: str, rec: dict) -> tuple[str, str]:
    """The verdict of a claim about trained models once the doubling test ``rec`` has read it."""
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


def _premise(verdict: str, reason: str, evidence: dict, both: bool = False) -> tuple[str, str]:
    """Protocol 3: 'not reproduced' needs the claim's premise to hold in the runs (evidence ``premise``:
    {"holds": bool, "text": what the claim presupposes}, e.g. the vanilla harm that Fig. 5 explains); ``both``
    (protocol 6, a claim that is itself a doubling test): every decided verdict needs it."""
    p = evidence.get("premise")
    gated = verdict in DECIDED if both else verdict == NOT_REPRODUCED
    if not gated or not p or p.get("holds", True):
        return verdict, reason
    if verdict != NOT_REPRODUCED:
        return INCONCLUSIVE, (f"the claim's premise does not hold in these runs ({p.get('text', '')}), so they can "
                              f"neither refute nor support it; the rule alone would say '{verdict}' ({reason})")
    return INCONCLUSIVE, (f"the claim's premise does not hold in these runs ({p.get('text', '')}), so they cannot "
                          f"refute it; the rule alone would say 'not reproduced' ({reason})")


def settle(kind: str, params: dict, ev: dict, half: Optional[dict], budgets: tuple, sesoi: float,
           resolution: Optional[float] = None, quarter: Optional[dict] = None,
           horizon: Optional[int] = None) -> tuple[str, bool]:
    """(the rule's verdict at ``N``, whether it stands as a decided verdict) for a claim about trained models,
    through :func:`compose`, the composition :func:`penb.claims.grade` uses, without recording
    anything (the calibration on simulated curves, ``tests/test_doubling_calibration.py``)."""
    resolution = resolution_of(ev.get("resolution", resolution))
    verdict, _, _, _, rule_verdict = compose(kind, params, "trained", ev, half, budgets, sesoi, resolution,
                                             quarter=quarter, horizon=horizon)
    return rule_verdict, rule_verdict in DECIDED and verdict == rule_verdict

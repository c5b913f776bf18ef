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
from penb.claims import horizon as horizon_test
from penb.claims.grading import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTED, PROTOCOL, Rule, apply
from penb.claims.intervals import resolution_of
from penb.claims.outcomes import DECIDED


def compose(kind: str, params: dict, about: str, evidence: dict, half: Optional[dict], budgets: tuple,
            sesoi: Optional[float], resolution: Optional[float], protocol: int = PROTOCOL,
            next_cost: Optional[dict] = None, quarter: Optional[dict] = None,
            horizon: Optional[int] = None) -> tuple[str, str, str, dict, str]:
    """(verdict, ours, reason, detail, the rule's own verdict after the premise) of a claim with rule ``kind``
    (``params``) about ``about`` on ``evidence``; ``half``/``budgets``: the evidence at N/2 and (N/2, N);
    ``quarter``: at N/4; ``horizon``: the text's budget (protocol 6)."""
    verdict, ours, reason, detail = apply(Rule(kind, "", params), evidence, protocol=protocol, sesoi=sesoi,
                                          resolution=resolution)
    verdict, reason = _premise(verdict, reason, evidence, both=protocol >= 6 and about == "doubling")
    if protocol >= 6 and about == "doubling":
        verdict, reason = _above_chance(verdict, reason, evidence, sesoi)
    if protocol >= 6 and kind == "check":
        verdict, reason = _agreement(verdict, reason, evidence, protocol)
    rule_verdict = verdict
    verdict, reason = _zero_width(about, verdict, reason, detail, resolution)
    if about == "trained":
        rec = doubling.test(kind, params, rule_verdict, evidence, half, budgets, sesoi, protocol=protocol,
                            part=detail.get("part"), resolution=resolution)
        rec = {**rec, **({"next_cost": next_cost} if next_cost else {})}
        if protocol >= 7 and half is not None and quarter is not None and budgets and budgets[0]:
            rec["earlier_moves"] = _earlier_moves(kind, params, rule_verdict, half, quarter, budgets, sesoi,
                                                  protocol, detail.get("part"), resolution)
        if protocol >= 8 and verdict in DECIDED:
            rec = _levels_to_horizon(rec, quarter, horizon, budgets)
        detail = {**detail, "doubling": rec}
        if verdict in DECIDED and not rec["decided"]:
            detail = {**detail, "rule_verdict": verdict}
            verdict, reason = _held_back(verdict, reason, rec)
        elif verdict in DECIDED and protocol >= 6:
            hz = horizon_test.test(kind, params, rule_verdict, evidence, half, quarter, budgets, sesoi, horizon, rec,
                                   part=detail.get("part"), resolution=resolution, protocol=protocol)
            detail = {**detail, "horizon": hz}
            if not hz["decided"]:
                detail = {**detail, "rule_verdict": verdict}
                verdict, reason = _beyond_horizon(verdict, reason, hz, rec)
            elif hz.get("assumes"):
                reason = f"{reason}; it {hz['assumes']} (protocol {protocol})"
    elif about == "doubling" and protocol >= 6 and verdict in DECIDED:
        verdict, reason, hz = _doubling_claim(verdict, reason, evidence, budgets, sesoi, horizon, resolution,
                                              protocol)
        detail = {**detail, "horizon": hz}
    elif about == "budget" and protocol >= 7 and verdict in DECIDED and \
            horizon_test.unknown_budget(horizon, budgets[1] if budgets else 0):
        detail = {**detail, "rule_verdict": verdict}
        verdict, reason = INCONCLUSIVE, (f"{horizon_test.unknown_budget(horizon, budgets[1] if budgets else 0)}: a "
                                         f"budget claim is read only at a known budget (protocol 7, fails closed). "
                                         f"The rule alone would say '{verdict}' ({reason})")
    elif about == "budget" and protocol >= 6 and budgets and budgets[1] and horizon_test.doublings_left(horizon,
                                                                                                   budgets[1]):
        detail = {**detail, "rule_verdict": verdict}
        verdict, reason = NOT_TESTED, (f"not tested below the text's budget: the text compares models trained "
                                       f"{horizon:,} updates, these runs {budgets[1]:,} (protocol 6); the rule "
                                       f"alone would say '{verdict}' ({reason})")
    return verdict, ours, reason, detail, rule_verdict


MIN_INITS, MIN_SHARE = 10, 0.8          # protocol 6: a check over initialisations decides only with these
MIN_SEEDS = 3                            # protocol 7: and over at least this many seeds, MIN_SHARE of them agreeing


def _agreement(verdict: str, reason: str, evidence: dict, protocol: int = PROTOCOL) -> tuple[str, str]:
    """Protocol 6: a check read off a mean over random initialisations (evidence ``agreement``: {"inits", "share"}
    of them giving the mean's outcome; "agree" of "groups" seeds' own curves giving it) decides only with at least
    :data:`MIN_INITS` initialisations of which at least :data:`MIN_SHARE` agree. Protocol 7 counts seeds, the unit
    of every interval: at least :data:`MIN_SEEDS` of them, :data:`MIN_SHARE` agreeing, as well."""
    a = evidence.get("agreement")
    if verdict not in DECIDED or not a:
        return verdict, reason
    if protocol >= 7:
        seeds, agree = int(a.get("groups") or 0), int(a.get("agree") or 0)
        if seeds < MIN_SEEDS or agree < MIN_SHARE * seeds:
            return INCONCLUSIVE, (f"{agree} of {seeds} seeds' own curves give the mean curve's outcome "
                                  f"({a.get('share', 0.0):.0%} of {a.get('inits', 0)} initialisations); a check "
                                  f"decides "
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


def _above_chance(verdict: str, reason: str, evidence: dict, sesoi: Optional[float]) -> tuple[str, str]:
    """Protocol 6, for a claim that is itself a doubling test (Sec. 4.1's extra updates): a model still at chance
    gains nothing from more updates because it has learnt nothing yet, so neither verdict is read until the
    model at N (evidence ``a``) has left chance (``baseline``) by more than the SESOI on its seed interval."""
    import numpy as np

    from penb.claims.intervals import seed_interval

    base = evidence.get("baseline")
    a = np.asarray(evidence.get("a", []), float)
    if verdict not in DECIDED or base is None or a.size < 2:
        return verdict, reason
    _, lo, _ = seed_interval(a - float(base))
    if lo > (sesoi or 0.0):
        return verdict, reason
    return INCONCLUSIVE, (f"{evidence.get('a_name', 'the model')} has not left chance ({float(base):.3f}) by more "
                          f"than {sesoi or 0:g} on its seed interval (lower end {lo + float(base):.3f}): a model "
                          f"that has learnt nothing yet gains nothing from more updates either way. The rule alone "
                          f"would say '{verdict}' ({reason})")


def _doubling_claim(verdict: str, reason: str, evidence: dict, budgets: tuple,
                    sesoi: Optional[float], horizon: Optional[int], resolution,
                    protocol: int = PROTOCOL) -> tuple[str, str, dict]:
    """Protocol 6, for a claim that is itself the doubling test ("extra updates do not improve", evidence ``a`` at
    N and ``b`` at N/2, ``earlier_gain`` per seed from N/4 to N/2 where the runs exist): below the text's budget a
    gain found refutes nothing (the text speaks of its own budget), and no gain stands only where the gains do not
    grow and ``D`` of them (the later one's upper bound) stay below the SESOI (``penb.claims.horizon``)."""
    import numpy as np

    from penb.claims.outcomes import REPRODUCED

    n = int(budgets[1]) if budgets else 0
    D = horizon_test.doublings_left(horizon, n)
    hz = {"horizon": horizon, "doublings": D, "decided": D == 0}
    unknown = horizon_test.unknown_budget(horizon, n) if protocol >= 7 else ""
    if unknown:
        hz.update(decided=False, why=unknown)
        return INCONCLUSIVE, (f"{unknown} (protocol 7, fails closed). The rule alone would say '{verdict}' "
                              f"({reason})"), hz
    if D == 0:
        return verdict, reason, hz
    if verdict != REPRODUCED:
        hz["why"] = f"a gain at {n:,} updates says nothing of the text's {horizon:,}"
        return INCONCLUSIVE, (f"{hz['why']} (protocol {protocol}'s horizon): more training may yet stop it. The rule alone "
                              f"would say '{verdict}' ({reason})"), hz
    earlier = evidence.get("earlier_gain")
    if earlier is None:
        hz["why"] = (f"one doubling only ({n // 2:,} -> {n:,} updates): whether the gains shrink toward "
                     f"{horizon:,} updates needs the same seeds at {n // 4:,} too")
        return INCONCLUSIVE, (f"{hz['why']} (protocol {protocol}'s horizon). The rule alone would say '{verdict}' "
                              f"({reason})"), hz
    seeds = evidence.get("seeds") or list(range(len(evidence["a"])))
    m2 = doubling.move(dict(zip(seeds, np.asarray(evidence["a"], float))),
                       dict(zip(seeds, np.asarray(evidence["b"], float))), resolution)
    e = np.asarray(earlier, float)
    m1 = {"mean": float(np.nanmean(e)) if np.isfinite(e).any() else float("nan")}
    grows = not (np.isfinite(m1["mean"]) and np.isfinite(m2["mean"])) or \
        m2["mean"] > max(m1["mean"], 0.0) + (resolution or 0.001)
    closable = D * horizon_test.bound(m2, "grow")
    if protocol >= 7:                  # the growth of the gain per doubling shown or charged, as every quantity's
        later = np.asarray(evidence["a"], float) - np.asarray(evidence["b"], float)
        base = {s: 0.0 for s in seeds}
        g = horizon_test.growth(base, dict(zip(seeds, e)), dict(zip(seeds, e + later)), "grow",
                                resolution or 0.001)
        grows, closable = not g["shown"], horizon_test.carried(horizon_test.bound(m2, "grow"), g, D)
        hz["growth"] = g
    hz.update(earlier=m1["mean"], later=m2["mean"], grows=bool(grows), closable=closable,
              decided=bool((protocol >= 7 or not grows) and closable < (sesoi or 0.02)))
    if hz["decided"]:
        if protocol >= 7:
            hz["assumes"] = horizon_test.assumption(n)
            reason = f"{reason}; it {hz['assumes']} (protocol {protocol})"
        return verdict, reason, hz
    hz["why"] = (f"the gain per doubling went {m1['mean']:+.3f} then {m2['mean']:+.3f} (growing)" if grows else
                 f"the gain per doubling went {m1['mean']:+.3f} then {m2['mean']:+.3f}; over {D} more doublings it "
                 f"could add {closable:.3f}, not below {sesoi or 0.02:g}")
    return INCONCLUSIVE, (f"{hz['why']} (protocol {protocol}'s horizon). The rule alone would say '{verdict}' "
                          f"({reason})"), hz


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


def _earlier_moves(kind, params, verdict, half, quarter, budgets, sesoi, protocol, part, resolution) -> dict:
    """{quantity: {"mean", "lo", "hi", "n"}}: the moves from N/4 to N/2 of the quantities the doubling test reads
    (the same test one doubling earlier, read for the verdict at N). Recorded only, for
    :mod:`penb.claims.to_decide`'s projection of what would decide an undecided verdict; it decides nothing."""
    early = doubling.test(kind, params, verdict, half, quarter, (budgets[0] // 2, budgets[0]), sesoi,
                          protocol=protocol, part=part, resolution=resolution)
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
           protocol: int = PROTOCOL, resolution: Optional[float] = None, quarter: Optional[dict] = None,
           horizon: Optional[int] = None) -> tuple[str, bool]:
    """(the rule's verdict at ``N``, whether it stands as a decided verdict) for a claim about trained models,
    through :func:`compose`, the composition :func:`penb.claims.grade` uses, without recording
    anything (the calibration on simulated curves, ``tests/test_doubling_calibration.py``)."""
    resolution = resolution_of(ev.get("resolution", resolution))
    verdict, _, _, _, rule_verdict = compose(kind, params, "trained", ev, half, budgets, sesoi, resolution, protocol,
                                             quarter=quarter, horizon=horizon)
    return rule_verdict, rule_verdict in DECIDED and verdict == rule_verdict

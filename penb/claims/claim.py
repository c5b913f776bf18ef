"""A claim of the three texts (or a hypothesis of the book's own), as data: :class:`Claim`, and what models it
speaks about (:data:`ABOUT`). The registry of every claim is :mod:`penb.claims.catalog`; the package
``penb.claims`` re-exports both.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from penb.claims.grading import COMPARATIVE, DEFAULT_SESOI, Rule
from penb.claims.scale import published_scale


# What models a claim speaks about (Claim.about): "trained" (protocol 4's doubling test decides whether more training
# could change the verdict), "budget" (a comparison the text makes at a fixed budget once the curves have met, as
# Table 1 and App. E: read at that budget, its rule's own gate deciding whether the curves have met), "early" (early
# training, or a named point of it: any state decides it), "course" (the course of training, as Fig. 5 monitors it at
# checkpoints: the verdict speaks of the path up to the budget it was read at, shown beside the text's; neither the
# doubling test nor a training gate applies, issue 34), "none" (no training involved)
ABOUT = ("trained", "budget", "early", "course", "none", "doubling")   # "doubling": the claim is itself the doubling
# test (Sec. 4.1's extra updates): read with the floor, the gates and the horizon (protocol 6 on)
NOT_DOUBLED = ("budget", "course", "early")  # comparisons that protocol 4's doubling test does not apply to (why: ABOUT)


@dataclass(frozen=True)
class Claim:
    key: str                 # stable identifier, e.g. "morita.fig2.lstm"
    source: str              # one of MORITA, IRIE, HANSEN, BEYOND
    where: str               # "Fig. 2", "Table 1", "Sec. 4.2", ...
    statement: str           # what is claimed, in our words
    value: Any = None        # the published number(s), where the text prints them
    unit: str = ""
    extra: dict = field(default_factory=dict)
    chapter: str = ""        # the chapter that tests it ("" when none does)
    measure: str = ""        # what the chapter measures, per seed
    rule: Optional[Rule] = None
    baseline: str = ""       # the trivial baseline, in words
    not_tested: str = ""     # why no chapter tests it (then chapter is "")
    kind: str = "claim"      # "claim" (graded), "setting" (a fact of the setup), "hypothesis" (beyond the papers)
    sesoi: Optional[float] = None   # smallest effect of interest, in the measure's unit (comparative rules)
    sesoi_why: str = ""             # where it comes from
    resolution: Optional[float] = None   # the step between the values a discrete measure can take (protocol 5)
    scale: dict = field(default_factory=dict)   # the scale the text's claim was made at (vocab, length, ...)
    about: str = ""          # what models it speaks about (ABOUT); a comparative rule's default is "trained"
    exploratory: str = ""    # why its reading, measure or SESOI counts as exploratory: changed after its verdict was
                             # seen (issue 49, item 4); shown, never in the headline counts (catalog.EXPLORATORY)
    horizon: Optional[int] = None   # the updates the text's claim speaks of (protocol 6): its published scale's,
                                    # else :func:`default_horizon`

    def __post_init__(self):
        if self.kind == "claim" and not (self.rule or self.not_tested):
            raise ValueError(f"claim {self.key}: a graded claim needs a rule or a not_tested reason")
        if self.rule is not None and self.rule.kind in COMPARATIVE and self.sesoi is None:
            object.__setattr__(self, "sesoi", DEFAULT_SESOI)
            object.__setattr__(self, "sesoi_why", "the text states no gap: the protocol's default, 0.02 in the "
                                                  "measure's unit")
        if not self.about and self.rule is not None and self.rule.kind in ("check", "close"):
            # issue 41: a check or a tolerance says nothing of training by itself, so it names what it reads: a
            # trained model's measure ("trained", "budget", "course", "early") or an exact property ("none")
            raise ValueError(f"claim {self.key}: rule {self.rule.kind!r} must declare about= "
                             f"({', '.join(ABOUT)}): what models its measure speaks of")
        if not self.about:
            object.__setattr__(self, "about", "trained" if self.rule is not None and self.rule.kind in COMPARATIVE
                               else "none")
        if self.about not in ABOUT:
            raise ValueError(f"claim {self.key}: about={self.about!r}; valid: {', '.join(ABOUT)}")
        if not self.scale:
            object.__setattr__(self, "scale", published_scale(self))
        if self.horizon is None:
            object.__setattr__(self, "horizon", default_horizon(self.key, self.scale))


# The horizon where a claim's published scale names no updates (protocol 6; decided 2026-11-27 before any
# confirmation run was read with it): Hansen's blog trains 20,000 iterations, and the book's Hansen hypotheses extend
# that study; Irie's text states no training budget, so its claims and the book's transformer hypotheses take
# Morita's 300,000 updates, the one budget the book's texts state for the models they compare; the book's other
# hypotheses extend Morita's RNN study and take its 300,000.
HORIZONS = (("hansen.", 20_000), ("beyond.hansen.", 20_000), ("", 300_000))


def default_horizon(key: str, scale: dict) -> int:
    """The updates a claim speaks of: its published scale's, else :data:`HORIZONS`' first prefix of ``key``."""
    if isinstance(scale.get("updates"), int):
        return scale["updates"]
    return next(h for prefix, h in HORIZONS if key.startswith(prefix))

"""The registry: every claim of :mod:`penb.claims.morita` (with :mod:`penb.claims.morita_sec4` and
:mod:`penb.claims.morita_appendix`), :mod:`penb.claims.irie`, :mod:`penb.claims.hansen` and the book's own
hypotheses (:mod:`penb.claims.beyond`), in the texts' order, looked up by key.
"""
from __future__ import annotations

from penb.claims import beyond, hansen, irie, morita, morita_appendix, morita_sec4
from penb.claims.claim import Claim


def _load() -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    for c in [*_morita(morita.CLAIMS, morita_sec4), *morita_appendix.CLAIMS, *irie.CLAIMS, *hansen.CLAIMS,
              *beyond.CLAIMS]:
        if c.key in out:
            raise ValueError(f"claim {c.key} is defined twice")
        out[c.key] = c
    return out


def _morita(main: list, sec4) -> list:
    """Morita's main-text claims in the text's order: Sec. 4.2's (``sec4.FIG3``) before Fig. 5's, Sec. 4.3's S4D
    half (``sec4.SEC4_3``) after them (:mod:`penb.claims.morita_sec4` keeps :mod:`penb.claims.morita` small)."""
    fig5 = [i for i, c in enumerate(main) if c.key.startswith("morita.fig5.")]
    first, last = (fig5[0], fig5[-1] + 1) if fig5 else (len(main), len(main))
    return [*main[:first], *sec4.FIG3, *main[first:last], *sec4.SEC4_3, *main[last:]]


# Claims whose reading, measure or smallest effect changed after a build had shown their verdicts (issue 49, item 4;
# the history is in git and in each claim's own text). Their verdicts are shown and counted apart, never in the
# headline counts; a fresh claim, written before the runs that grade it, would be needed to grade them again.
_FIG3 = "the target groups were split on 2026-11-26 (issue 35) after earlier verdicts had been seen"
_FIG5 = "read over the course of training since 2026-11-27 (issue 41), after its last-checkpoint verdicts were seen"
_P7_PHASE = ("protocol 7 (2026-11-28, issue 59) leaves no exemption: it reads {what}, far below the phase of training "
             "the text speaks of and without the doubling evidence, so it is counted apart until a preset reads it "
             "there")
EXPLORATORY = {
    "morita.fig3.harm.gru": _FIG3, "morita.fig3.rare_target.gru": _FIG3, "morita.fig3.rare_target.lstm": _FIG3,
    "morita.fig3.rare_target.s4d": _FIG3,
    "morita.fig5.gru": _FIG5, "morita.fig5.lstm": _FIG5, "morita.fig5.pe_stays.gru": _FIG5,
    "morita.fig5.pe_stays.lstm": _FIG5,
    "morita.fig7.trend": "its smallest effect changed twice (issues 35 and 41) after quick builds had graded it",
    "morita.fig14": "vanilla left 'the others' on 2026-11-26 (issue 35) after earlier verdicts had been seen",
    "morita.table1": "its smallest effect, 0, was set on 2026-11-26 (issue 35) after Table 1's verdicts were seen",
    "irie.q4": "its margin, 0, was set on 2026-11-26 (issue 35) after the verdicts had been seen",
    # protocol 7 (issue 59, item 4): no claim decides below the text's phase by exemption; these read a phase the
    # presets do not reach, with no doubling evidence, so they leave the headline until they are read there
    "morita.fig15.early": _P7_PHASE.format(what="the first quarter of quick's 600 updates, with a smallest effect "
                                                "of 0"),
    "morita.sec4_3.s4d_marginal": _P7_PHASE.format(what="the S4D's course to 6,000 updates at gpu (2,500 at quick)"),
    "morita.sec4_3.s4d_stable": _P7_PHASE.format(what="the S4D's course to 6,000 updates at gpu (2,500 at quick)"),
}


def _mark(claims: dict[str, Claim]) -> dict[str, Claim]:
    for key, why in EXPLORATORY.items():
        object.__setattr__(claims[key], "exploratory", why)
    return claims


CLAIMS: dict[str, Claim] = _mark(_load())


def get(key: str) -> Claim:
    """The claim ``key``; an unknown key raises ``KeyError`` listing the valid ones."""
    try:
        return CLAIMS[key]
    except KeyError:
        raise KeyError(f"unknown claim {key!r}; known: {', '.join(CLAIMS)}") from None


def graded() -> list[Claim]:
    """Every claim that receives a verdict (settings excluded), in registry order."""
    return [c for c in CLAIMS.values() if c.kind != "setting"]


def of_chapter(chapter: str) -> list[Claim]:
    """The graded claims that ``chapter`` tests, in registry order."""
    return [c for c in graded() if c.chapter == chapter]

"""The tables of the protocol's calibration and power (issues 49, 59 and 66), generated from the calibration's own
functions (``penb.claims.calibration``, ``tests/test_horizon_calibration.py``, ``tests/test_horizon_families.py``),
at the resolution ``grade()`` reads, for the README:

    .venv/bin/python scripts/horizon_calibration.py          # markdown on stdout, about ten minutes on 2 cores

``tests/test_horizon_families.py::test_the_readme_tables_are_the_scripts_output`` recomputes rows of this output and
checks that the README holds them between its ``calibration`` markers.
"""
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from penb.claims import calibration as c  # noqa: E402
from penb.claims.outcomes import NOT_REPRODUCED, REPRODUCED  # noqa: E402
from penb.claims.protocol import PROTOCOL  # noqa: E402
from tests import test_horizon_calibration as cal  # noqa: E402
from tests import test_horizon_families as fam  # noqa: E402

SEEDS = (3, 5, 10)
DRAWS = 100


def late_take_off(rng, n):
    """Vanilla flat at 0.3 through N, at PE's 0.9 from 4N on: what no test at N sees."""
    return (lambda k: np.full(n, 0.9)), (lambda k: np.where(np.asarray(k) <= cal.K_N, 0.3, 0.9) + 0 * np.zeros(n)), 0.0


SUITE = {**fam.FAMILIES, "late take-off (no test at N sees it)": late_take_off}


def suite_row(name: str, noise: float) -> str:
    now = [fam.false_settling(SUITE[name], n, noise, draws=DRAWS) for n in SEEDS]
    return f"| {name} | {noise:g} | " + " | ".join(f"{r:.0%}" for r in now) + " |"


AUDIT = [("both speeding up visibly", c.both_speeding_up, "better"),
         ("a level reached at H", c.level_reached_at_h, "level"),
         ("a level speeding up to the text's", c.level_speeding_up, "level"),
         ("no gain, models drifting apart", c.drifting_apart, "no_gain")]


def audit_row(label: str, family, kind: str, N: int, noise: float, spread: float) -> str:
    now = [c.rate(family, kind, n, N, noise, spread, draws=DRAWS) for n in SEEDS]
    return f"| {label} | {kind} | {N // 1000}k | {noise:g} / {spread:g} | " + " | ".join(f"{r:.0%}" for r in now) + " |"


POWER = [("both stopped, a gap of 0.3", c.both_stopped, "better", REPRODUCED),
         ("both still moving, a gap of 0.3 at H", c.both_moving, "better", REPRODUCED),
         ("a level far below the text's, still rising", c.level_far_below, "level", NOT_REPRODUCED),
         ("a level above the text's, stopped", c.level_above, "level", REPRODUCED),
         ("no gain, both stopped", c.equal_stopped, "no_gain", REPRODUCED)]


def power_row(label: str, family, kind: str, verdict: str, N: int) -> str:
    return (f"| {label} | {kind} | {verdict} | {N // 1000}k | "
            + " | ".join(f"{c.rate(family, kind, n, N, what=verdict, draws=DRAWS):.0%}" for n in SEEDS) + " |")


def tables() -> str:
    out = [f"False settling of protocol {PROTOCOL} on the suite's families (share of {DRAWS} draws; N = {cal.N:,} with "
           f"runs at N/4 and N/2, horizon {cal.H:,}, per-seed offset sd {cal.SPREAD}, evaluation noise sd as given, "
           f"resolution {c.RESOLUTION:g} as grade() reads it; earlier protocols' rates: this table in the git history). The take-offs are what the "
           f"rule does not see (a take-off under way whose moves sit below the noise, one that starts after N): "
           f"published, not required:", "",
           "| family | noise | " + " | ".join(f"{n} seeds" for n in SEEDS) + " |", "|---|---|" + "---|" * len(SEEDS)]
    out += [suite_row(name, noise) for name in sorted(SUITE) for noise in (cal.NOISE, 2 * cal.NOISE)]
    out += ["", f"Issue 66's audit and every rule kind's families (false settling; horizon {c.H:,}, {DRAWS} draws, "
            f"noise / offset sd as given):", "",
            "| family | rule | N | noise / offset | " + " | ".join(f"{n} seeds" for n in SEEDS) + " |",
            "|---|---|---|---|" + "---|" * len(SEEDS)]
    for label, family, kind in AUDIT:
        for N, noise, spread in ((2000, 0.005, 0.008), (16_000, 0.005, 0.008), (16_000, 0.01, 0.02)):
            out.append(audit_row(label, family, kind, N, noise, spread))
    out += ["", f"Power of protocol {PROTOCOL} (share of {DRAWS} draws settling the true verdict; horizon {c.H:,}, "
            f"noise 0.005, offset sd 0.008, spans of {math.log2(c.H / 16_000):.1f} and {math.log2(c.H / 2000):.1f} "
            f"doublings from N 16k and 2k):", "",
            "| truth | rule | verdict | N | " + " | ".join(f"{n} seeds" for n in SEEDS) + " |",
            "|---|---|---|---|" + "---|" * len(SEEDS)]
    out += [power_row(label, family, kind, verdict, N) for label, family, kind, verdict in POWER
            for N in (2000, 16_000)]
    out += ["", f"Power on the suite's trend and reference-gain families (N = {cal.N:,}; {DRAWS} draws; a trend that "
            f"stays over V 8-32, a reference gain that stays), by the doublings left to the horizon:", "",
            "| truth | rule | horizon | " + " | ".join(f"{n} seeds" for n in SEEDS) + " |",
            "|---|---|---|" + "---|" * len(SEEDS)]
    for doublings in (2, 7):
        out.append(f"| a trend that stays | trend | {cal.N * 2 ** doublings:,} | "
                   + " | ".join(f"{trend_power(n, cal.N * 2 ** doublings):.0%}" for n in SEEDS) + " |")
        out.append(f"| a reference gain that stays | gain_vs_reference | {cal.N * 2 ** doublings:,} | "
                   + " | ".join(f"{gain_power(n, cal.N * 2 ** doublings):.0%}" for n in SEEDS) + " |")
    return "\n".join(out)


def trend_power(n: int, horizon: int) -> float:
    rng = np.random.default_rng([12, n, horizon])
    return sum(d and v == REPRODUCED for v, d in (cal.trend_settles(False, n, rng, horizon=horizon)
                                                   for _ in range(DRAWS))) / DRAWS


def gain_power(n: int, horizon: int) -> float:
    rng = np.random.default_rng([14, n, horizon])
    return sum(d and v == REPRODUCED for v, d in (cal.gain_settles(False, n, rng, horizon=horizon)
                                                   for _ in range(DRAWS))) / DRAWS


def main() -> None:
    print(tables())


if __name__ == "__main__":
    main()

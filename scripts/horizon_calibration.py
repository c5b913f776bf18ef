"""The tables of the horizon's calibration (issue 49, item 2; issue 59, item 5), generated from the calibration's own
functions (``tests/test_horizon_calibration.py``, ``tests/test_horizon_p7_calibration.py``), for the README:

    .venv/bin/python scripts/horizon_calibration.py          # markdown on stdout, about two minutes

``tests/test_horizon_p7_calibration.py::test_the_readme_tables_regenerate_byte_for_byte`` checks that the README holds
exactly this output between its ``calibration`` markers.
"""
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import test_horizon_calibration as cal  # noqa: E402
from tests import test_horizon_p7_calibration as cal7  # noqa: E402

SEEDS = (3, 5, 10)
BUDGETS = (2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000)
HORIZON = 300_000
POWER_DRAWS = 100


def moving(rng, n):
    """A real gap that stays (PE ends at 0.9, vanilla at 0.6) with both models still moving at N: moves shrinking by a
    ratio drawn in [0.6, 0.8] from the first budget on (two doublings in at N)."""
    rp, rv = rng.uniform(0.6, 0.8, n), rng.uniform(0.6, 0.8, n)
    return (lambda k: cal.approach(k, 0.3, 0.9, rp)), (lambda k: cal.approach(k, 0.1, 0.6, rv)), 0.3


def power(family, n, budget, protocol=7, noise=cal.NOISE, draws=POWER_DRAWS) -> float:
    """The share of draws in which the real gap settles as "PE ahead" at ``budget`` (runs at N/4, N/2, N) with the
    text's 300,000 updates as the horizon: D = ceil(log2(300,000 / N)) doublings left."""
    from penb.claims import composition
    from penb.claims.outcomes import REPRODUCED

    rng = np.random.default_rng([17, n, budget, protocol])
    hits = 0
    for _ in range(draws):
        pe, van, _ = family(rng, n)
        offsets = (cal.SPREAD * rng.standard_normal(n), cal.SPREAD * rng.standard_normal(n))
        q, h, f = (cal._evidence(rng, pe, van, offsets, k, noise) for k in (cal.K_N - 2, cal.K_N - 1, cal.K_N))
        v, d = composition.settle("better", cal.PARAMS, f, h, (budget // 2, budget), cal.SESOI, protocol, quarter=q,
                                  horizon=HORIZON)
        hits += d and v == REPRODUCED
    return hits / draws


def tables() -> str:
    out = [f"False settling of protocol 7 (share of {cal.DRAWS} draws; N = {cal.N:,} with runs at N/4 and N/2, horizon "
           f"{cal.H:,}, per-seed offset sd {cal.SPREAD}, evaluation noise sd as given; protocol 6 beside):", "",
           "| family | noise | " + " | ".join(f"{n} seeds" for n in SEEDS) + " | protocol 6, "
           + " / ".join(str(n) for n in SEEDS) + " |",
           "|---|---|" + "---|" * (len(SEEDS) + 1)]
    for name in sorted(cal7.FAMILIES):
        for noise in (cal.NOISE, 2 * cal.NOISE):
            r7 = [cal7.false_settling(cal7.FAMILIES[name], n, noise) for n in SEEDS]
            r6 = [cal7.false_settling(cal7.FAMILIES[name], n, noise, protocol=6) for n in SEEDS]
            out.append(f"| {name} | {noise:g} | " + " | ".join(f"{r:.1%}" for r in r7) + " | "
                       + " / ".join(f"{r:.1%}" for r in r6) + " |")
    out += ["", f"Power of protocol 7 (share of {POWER_DRAWS} draws settling a real gap of 0.3 as \"PE ahead\"; runs at "
            f"N/4, N/2 and N, horizon {HORIZON:,}, evaluation noise {cal.NOISE}): *stopped*, both models near their "
            f"plateaus by N; *moving*, both still two doublings from the start at N:", "",
            "| models | seeds | " + " | ".join(f"N {n // 1000}k (D {math.ceil(math.log2(HORIZON / n) - 1e-12)})"
                                                for n in BUDGETS) + " |",
            "|---|---|" + "---|" * len(BUDGETS)]
    for label, family in (("stopped", cal.unequal_plateaus), ("moving", moving)):
        for n in SEEDS:
            out.append(f"| {label} | {n} | " + " | ".join(f"{power(family, n, b):.0%}" for b in BUDGETS) + " |")
    return "\n".join(out)


def main() -> None:
    print(tables())


if __name__ == "__main__":
    main()

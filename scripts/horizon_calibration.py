"""The table of protocol 6's calibration (issue 49, item 2), generated from the calibration's own functions
(``tests/test_horizon_calibration.py``), for the README:

    .venv/bin/python scripts/horizon_calibration.py          # markdown on stdout, about a minute
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import test_horizon_calibration as cal  # noqa: E402


def main() -> None:
    seeds = (3, 5, 10)
    print(f"False settling of protocol 6 (share of {cal.DRAWS} draws; N = {cal.N:,} with runs at N/4 and N/2, "
          f"horizon {cal.H:,}, per-seed offset sd {cal.SPREAD}, evaluation noise sd as given):\n")
    print("| family | noise | " + " | ".join(f"{n} seeds" for n in seeds) + " |")
    print("|---|---|" + "---|" * len(seeds))
    for name in sorted(cal.FAMILIES):
        for noise in (cal.NOISE, 2 * cal.NOISE):
            rates = [cal.false_settling(cal.FAMILIES[name], n, noise) for n in seeds]
            print(f"| {name} | {noise:g} | " + " | ".join(f"{r:.1%}" for r in rates) + " |")
    print("\nPower (the real gap of 0.3 settled as \"PE ahead\"): "
          + ", ".join(f"{n} seeds {cal.power(n):.0%}" for n in seeds))


if __name__ == "__main__":
    main()

"""The deep preset's power analysis (issue 58): penb.power on the search table, written beside the chapter.

Reads ``penb/chapters/key_findings/deep_search.csv`` (search seeds only; ``scripts/search_deep.py``), writes
``power_analysis.csv`` beside it and prints the table as Markdown with the rule's choice (``penb.presets.DEEP_RULE``).

    .venv/bin/python scripts/power_analysis.py            # about two minutes on one core
"""
import sys

from penb import power


def main() -> int:
    table = power.load()
    offset, noise = power.spread_and_noise(table)
    out = power.analyse(table)
    out.to_csv(power.TABLE, index=False)
    print(f"search seeds {sorted(table['seed'].unique())}; per-seed offset sd {offset:.4f}, evaluation noise sd "
          f"{noise:.4f}\n")
    print(power.view().to_markdown())
    print()
    print(power.choice_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())

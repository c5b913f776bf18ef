"""The deep presets' power analyses (issue 58), written beside each chapter from its search table.

``--chapter key_findings`` (default): ``penb.power`` on ``penb/chapters/key_findings/deep_search.csv`` (search seeds
only; ``scripts/search_deep.py``), written to ``power_analysis.csv`` beside it, with the rule's choice
(``penb.sizing.DEEP_RULE``). ``--chapter frequency``: ``penb.power.frequency`` on that chapter's search table
(``penb.sizing.FREQ_DEEP_RULE``). Each prints the table as Markdown.

    .venv/bin/python scripts/power_analysis.py                       # about two minutes on one core
    .venv/bin/python scripts/power_analysis.py --chapter frequency
"""
import argparse
import sys

from penb import power


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chapter", choices=("key_findings", "frequency"), default="key_findings")
    a = ap.parse_args(argv)
    if a.chapter == "frequency":
        from penb.power import frequency as module
    else:
        module = power
    table = module.load()
    offset, noise = module.spread_and_noise(table)
    out = module.analyse(table)
    out.to_csv(module.TABLE, index=False)
    print(f"search seeds {sorted(table['seed'].unique())}; per-seed offset sd {offset:.4f}, evaluation noise sd "
          f"{noise:.4f}\n")
    print(module.view().to_markdown())
    print()
    print(module.choice_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())

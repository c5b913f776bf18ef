"""The deep presets' power analyses (issue 58), written beside each chapter from its search table.

``--chapter key_findings`` (default): ``penb.power.fig2_v1`` on ``penb/chapters/key_findings/deep_search.csv`` (search seeds
only; ``scripts/search_deep.py``), written to ``power_analysis.csv`` beside it, with the rule's choice
(``penb.sizing.DEEP_RULE``). ``--chapter frequency``: ``penb.power.fig3`` on that chapter's search table
(``penb.sizing.FREQ_DEEP_RULE``). ``--chapter key_findings_v2``: ``penb.power.fig2``, DEEP_RULE v2 on both variants'
search tables. ``--chapter key_findings_v3``: ``penb.power.fig2_v3``, DEEP_RULE v3's power at 300,000 from v2's
archived V 256 curves (issue 65). Each prints the table as Markdown.

    .venv/bin/python scripts/power_analysis.py                       # about two minutes on one core
    .venv/bin/python scripts/power_analysis.py --chapter frequency
"""
import argparse
import sys

from penb.power import fig2_v1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chapter", choices=("key_findings", "frequency", "key_findings_v2", "key_findings_v3"), default="key_findings")
    a = ap.parse_args(argv)
    if a.chapter == "key_findings_v3":
        from penb.power import fig2_v3
        fig2_v3.analyse().to_csv(fig2_v3.TABLE, index=False)
        print(fig2_v3.view().to_markdown(), fig2_v3.choice_text(), sep="\n\n")
        return 0
    if a.chapter == "frequency":
        from penb.power import fig3 as module
    elif a.chapter == "key_findings_v2":
        from penb.power import fig2 as module
    else:
        module = fig2_v1
    table = module.load()
    out = module.analyse(table)
    out.to_csv(module.TABLE, index=False)
    print(f"search seeds {sorted(int(s) for s in table['seed'].unique())}; per-seed offset sd "
          f"{out['offset_sd'].iloc[0]:.4f}, evaluation noise sd {out['noise_sd'].iloc[0]:.4f}\n")
    print(module.view().to_markdown())
    print()
    print(module.choice_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())

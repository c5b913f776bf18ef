"""Every claim's verdict under the protocol in force, from a built book's records, beside the one before it as the
committed table holds it (``penb.claims.history``: the quick build's verdicts under each protocol):

    .venv/bin/python scripts/verdicts_by_protocol.py [EXECUTED_DIR]     # counts, then the claims that changed
    .venv/bin/python scripts/verdicts_by_protocol.py [EXECUTED_DIR] --table    # every claim, side by side (Markdown)

Reads ``penb.claims.scorecard.rows`` (the recorded grades of the executed chapters) and
``penb/claims/protocol_history.csv``; "(not recorded)" where the table holds no verdict of the claim."""
import sys
from collections import Counter
from pathlib import Path

from penb.claims import history, scorecard
from penb.claims.grading import PROTOCOL


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out_dir = Path(args[0]) if args else None
    table = scorecard.rows(out_dir)
    before = PROTOCOL - 1
    recorded = history.read()

    def was(r):
        return history.verdict(recorded, "quick", r["key"], before) or "(not recorded)"
    if "--table" in sys.argv:
        from penb.claims.catalog import get

        print(f"| claim | chapter | preset | protocol {before} | protocol {PROTOCOL} | counted |")
        print("|---|---|---|---|---|---|")
        for r in table:
            apart = get(r["key"]).exploratory
            print(f"| `{r['key']}` | {r.get('chapter') or ''} | {r.get('preset') or ''} | {was(r)} | {r['verdict']} | "
                  f"{'exploratory: ' + apart if apart else 'headline'} |")
        return
    for name, rows in (("all claims", table), ("headline (the texts, less exploratory)", scorecard.headline(table))):
        now, then = Counter(r["verdict"] for r in rows), Counter(was(r) for r in rows)
        print(f"{name}: {len(rows)} rows")
        for v in ("reproduced", "direction only", "not reproduced", "inconclusive", "not tested"):
            print(f"  {v:<16} protocol {before}: {then.get(v, 0):>3}   protocol {PROTOCOL}: {now.get(v, 0):>3}")
    print(f"\nchanged from protocol {before} to {PROTOCOL}:")
    for r in table:
        if was(r) != r["verdict"]:
            print(f"  {r['key']}: {was(r)} -> {r['verdict']} ({r['reason'][:150]})")


if __name__ == "__main__":
    main()

"""Every claim's verdict under the protocol in force and under the one before it, from a built book's records:

    .venv/bin/python scripts/verdicts_by_protocol.py [EXECUTED_DIR]     # counts, then the claims that changed
    .venv/bin/python scripts/verdicts_by_protocol.py [EXECUTED_DIR] --table    # every claim, side by side (Markdown)

Reads ``penb.claims.scorecard.rows`` (the recorded grades of the executed chapters)."""
import sys
from collections import Counter
from pathlib import Path

from penb.claims import scorecard
from penb.claims.grading import PROTOCOL


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out_dir = Path(args[0]) if args else None
    table = scorecard.rows(out_dir)
    before = str(PROTOCOL - 1)

    def was(r):
        return (r.get("previous") or {}).get(before, {}).get("verdict", r["verdict"])
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

"""The committed table of every protocol's verdicts (issue 66, ``penb.claims.history``):

    .venv/bin/python scripts/protocol_history.py                   # the archives' recorded verdicts
    .venv/bin/python scripts/protocol_history.py EXECUTED_DIR      # and a built book's (its quick verdicts)

Writes ``penb/claims/protocol_history.csv``, laid over the committed table row by (source, claim, protocol): a
verdict once recorded stays."""
import sys
from pathlib import Path

from penb.claims import history
from penb.store.identity import git_commit


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    rows = history.from_archives()
    if args:
        from penb.claims import scorecard

        rows += history.from_build(scorecard.rows(Path(args[0])), git_commit())
    table = history.merged(history.read(), rows)
    history.write(table)
    print(f"{len(table)} rows from {len({r['source'] for r in table})} sources -> {history.TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

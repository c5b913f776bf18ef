"""Write ``penb/reference_times.json`` from a finished build's status records (``book/executed/*.status.json``):
each chapter's wall time per preset, with the machine and date, the estimate a watched build (``penb.progress``)
falls back on where this machine has no status page of its own yet.

    python scripts/reference_times.py --machine "2-core AMD EPYC, fp32"
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

from penb import progress
from penb.store import atomic, paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--machine", required=True, help="what the build ran on, in a few words")
    ap.add_argument("--executed", default=None, help="default: the book's executed folder")
    args = ap.parse_args()
    executed = Path(args.executed or paths.executed_dir())
    ref = json.loads(progress.REFERENCE.read_text()) if progress.REFERENCE.exists() else {"presets": {}}
    found = {}
    for f in sorted(executed.glob("*.status.json")):
        r = json.loads(f.read_text())
        found.setdefault(r["preset"], {})[r["chapter"]] = r["wall_s"]
    if not found:
        raise SystemExit(f"no status records in {executed}")
    for preset, times in found.items():
        ref["presets"][preset] = times
    ref.update(machine=args.machine, date=dt.date.today().isoformat())
    atomic.write_text(progress.REFERENCE, json.dumps(ref, indent=1, sort_keys=True) + "\n")
    print(f"wrote {progress.REFERENCE}: {', '.join(f'{p} ({len(t)} chapters)' for p, t in found.items())}")


if __name__ == "__main__":
    main()

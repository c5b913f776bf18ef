"""Do two executed quick books compute the same? (issue 67: every verdict and every run's number, before and after)

    python scripts/compare_books.py OLD_CHECKOUT NEW_CHECKOUT [--old-executed DIR] [--new-executed DIR]

Each checkout ran ``python -m penb run-all --preset quick`` into its own store (``.penb-store``) and its own
``book/executed``, on one machine. Compared:
* every run both stores hold, by key: its result (config, status, metrics, loss history; not where or how long it
  ran) and the bytes of each array in its predictions; and the runs only one store holds;
* every other ``.npz`` file of the stores (trunks' branch points), byte for byte;
* every chapter's grades (``<chapter>.grades.json``), claim by claim: the whole record, and the verdict alone (the
  executed folders may be given apart: a tree executed again over a store whose runs it reuses, with
  ``PENB_EXECUTED_DIR``, grades those runs under its own code).
Prints one line per verdict row and a summary; exits 1 where anything differs.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import zipfile
from pathlib import Path

SKIP = {"environment", "wall_s"}                       # where and how long a run ran, not what it computed


def results(store: Path) -> dict[str, Path]:
    """{run key (folder relative to the store): folder} of every run with a result."""
    return {str(p.parent.relative_to(store)): p.parent for p in store.rglob("result.json")}


def body(folder: Path) -> dict:
    r = json.loads((folder / "result.json").read_text())
    return {k: v for k, v in r.items() if k not in SKIP}


def arrays(folder: Path) -> dict | None:
    """{array name: sha256 of its bytes} of the run's predictions (None: no predictions, a diverged run)."""
    p = folder / "predictions.npz"
    if not p.exists():
        return None
    with zipfile.ZipFile(p) as z:
        return {n: hashlib.sha256(z.read(n)).hexdigest() for n in sorted(z.namelist())}


def npz_files(store: Path) -> dict[str, str]:
    return {str(p.relative_to(store)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in store.rglob("*.npz") if p.name != "predictions.npz"}


def grades(executed: Path) -> dict[str, dict]:
    return {p.name.split(".")[0]: json.loads(p.read_text()) for p in sorted(executed.glob("*.grades.json"))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--old-executed", type=Path, help="the old book's executed chapters (default OLD/book/executed)")
    ap.add_argument("--new-executed", type=Path, help="the new book's executed chapters (default NEW/book/executed)")
    args = ap.parse_args()
    bad = 0
    ra, rb = results(args.old / ".penb-store"), results(args.new / ".penb-store")
    both = sorted(ra.keys() & rb.keys())
    only = sorted(ra.keys() ^ rb.keys())
    res = [k for k in both if body(ra[k]) != body(rb[k])]
    pred = [k for k in both if arrays(ra[k]) != arrays(rb[k])]
    na, nb = npz_files(args.old / ".penb-store"), npz_files(args.new / ".penb-store")
    other = sorted(k for k in na.keys() | nb.keys() if na.get(k) != nb.get(k))
    print(f"runs: old {len(ra)}, new {len(rb)}, in both {len(both)}, in one only {len(only)}")
    print(f"  results that differ (config, status, metrics, history): {len(res)}")
    print(f"  predictions that differ: {len(pred)}")
    print(f"  other .npz files (branch points): old {len(na)}, new {len(nb)}, differing {len(other)}")
    for k in only + res + pred + other:
        print(f"    differs: {k}")
    bad += len(only) + len(res) + len(pred) + len(other)
    ga = grades(args.old_executed or args.old / "book" / "executed")
    gb = grades(args.new_executed or args.new / "book" / "executed")
    rows = same = same_verdict = 0
    print("\nchapter | claim | old verdict | new verdict | record")
    for ch in sorted(ga.keys() | gb.keys()):
        a, b = ga.get(ch, {}), gb.get(ch, {})
        for claim in sorted(a.keys() | b.keys()):
            va, vb = a.get(claim, {}).get("verdict"), b.get(claim, {}).get("verdict")
            whole = a.get(claim) == b.get(claim)
            rows, same, same_verdict = rows + 1, same + whole, same_verdict + (va == vb)
            print(f"{ch} | {claim} | {va} | {vb} | {'same' if whole else 'differs'}")
    print(f"\n{rows} verdict rows: {same_verdict} with the same verdict, {same} with the same whole record")
    bad += rows - same_verdict
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Command line: ``python -m penb run CHAPTER -p key value ...`` and friends.

    python -m penb list                         chapters in book order
    python -m penb params invertibility         a chapter's parameters and presets
    python -m penb run invertibility -p inits 20 --preset smoke
    python -m penb run-all --preset quick       every chapter of the book
    python -m penb run-all --preset gpu         on a GPU: chapters without a gpu preset run quick
    python -m penb status                       write the status page
    python -m penb lease key_findings --budget-min 16 --step-min 8 --out lease_out
                                                one step of a GPU lease (penb.call.lease); again to resume
    python -m penb archive key_findings --from lease_out
                                                the archived execution of a finished lease
    python -m penb plan --preset gpu            runs, updates and estimated H100 hours per chapter
    python -m penb plan --preset slice          a slice's batches and its estimated H100 minutes
    python -m penb slice key_findings --minutes 8 --out slice_out
                                                one GPU call: the slice preset's runs as batches (penb.call.slice)
    python -m penb archive key_findings --from slice_out
                                                the archived execution of a slice's (or a lease's) runs
    python -m penb regrade book/archived/key_findings-deep
                                                an archive graded again under the protocol in force, from its results
    python -m penb collect key_findings --preset deep --out deep_out
                                                a preset trained here (deep), from the store into a folder to archive
    python -m penb device-pack                  here, on a clean commit: .device/ for a GPU call (penb.call.device_run)
    python -m penb device-run --out DIR         there: preflight, tree check, slice, CUDA tests in one budget
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from penb import notebook, plan, presets, progress, status


def _params(pairs: list[list[str]] | None, preset: str | None) -> dict:
    params = {k: notebook.parse_value(v) for k, v in (pairs or [])}
    if preset is not None:
        params["preset"] = preset
    return params


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m penb", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="execute one chapter with papermill")
    run.add_argument("chapter")
    run.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    run.add_argument("--preset", help="shorthand for -p preset NAME")
    run.add_argument("--out", help="folder for the executed notebook (default: book/executed)")
    run.add_argument("--log", action="store_true", help="stream cell output to the terminal")
    run.add_argument("--quiet", action="store_true", help="no progress line while the chapter runs")
    allp = sub.add_parser("run-all", help="execute every chapter in the book's toc")
    allp.add_argument("--preset", default=None)
    allp.add_argument("--out", default=None)
    allp.add_argument("--log", action="store_true")
    allp.add_argument("--quiet", action="store_true", help="no progress line while a chapter runs")
    sub.add_parser("list", help="chapters in book order")
    par = sub.add_parser("params", help="a chapter's parameters and its presets")
    par.add_argument("chapter")
    st = sub.add_parser("status", help="write the status page")
    st.add_argument("--out", default=None)
    ls = sub.add_parser("lease", help="one step of a chapter's lease preset on a GPU (penb.call.lease)")
    ls.add_argument("chapter")
    ls.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    ls.add_argument("--preset", default="lease")
    ls.add_argument("--budget-min", type=float, required=True, help="training minutes of all steps together")
    ls.add_argument("--step-min", type=float, required=True, help="training minutes of this step at most")
    ls.add_argument("--out", help="folder for the finished runs (no checkpoints), written after the step")
    ls.add_argument("--from", dest="source", help="a folder an earlier step wrote: its runs go into the store first")
    ls.add_argument("--quiet", action="store_true", help="no progress bars")
    ar = sub.add_parser("archive", help="execute a chapter against a slice's or lease's runs (penb.call.archive)")
    ar.add_argument("chapter")
    ar.add_argument("--from", dest="source", required=True, help="the folder a slice or lease steps wrote (--out)")
    ar.add_argument("--dest", help="default: book/archived/<chapter>-<preset>")
    rg = sub.add_parser("regrade", help="grade an archived execution again under the protocol in force, from its "
                                        "committed results (penb.call.regrade)")
    rg.add_argument("folder", help="e.g. book/archived/key_findings-deep")
    co = sub.add_parser("collect", help="a preset's runs trained here, from the store into a folder (penb.call.archive)")
    co.add_argument("chapter")
    co.add_argument("--preset", default="deep")
    co.add_argument("--out", required=True, help="the folder to write (then: python -m penb archive --from it)")
    co.add_argument("--minutes", type=float, help="the training's wall-clock minutes, recorded in the manifest")
    co.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                    help="the preset's parameters the runs were trained with (a part by cell: -p gru_vocab '(256,)')")
    lr = sub.add_parser("long-run", help="one segment of a fixed-target preset on the CPU, its state committed "
                                         "between segments (penb.long_run)")
    lr.add_argument("chapter")
    lr.add_argument("--preset", default="deep_v2")
    lr.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    lr.add_argument("--minutes", type=float, default=0.0, help="the segment's training minutes (then it packs)")
    lr.add_argument("--pack-only", action="store_true", help="train nothing: restore the committed state and pack it "
                                                             "again from the store (its segments kept)")
    lr.add_argument("--workers", type=int, default=2, help="one-thread processes (each takes whole trunks)")
    sl = sub.add_parser("slice", help="train chapters' slice preset as batches in one GPU call (penb.call.slice)")
    sl.add_argument("chapters", nargs="+")
    sl.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    sl.add_argument("--preset", default="slice")
    sl.add_argument("--minutes", type=float, required=True, help="the call's minutes (at most 9): the plan must fit")
    sl.add_argument("--out", required=True, help="folder for the finished runs: at most 8 files, no checkpoints")
    sl.add_argument("--from", dest="source", help="a folder an earlier slice wrote: its runs go into the store first")
    sl.add_argument("--plan", action="store_true", help="print the plan and its estimate; train nothing")
    sl.add_argument("--quiet", action="store_true", help="no progress line")
    sl.add_argument("--sized", action="store_true", help="budgets from this device's measured rates "
                                                          "(penb.call.fit), not the preset's")
    sub.add_parser("device-pack", help="write .device/ (the commit's file hashes, the corpus) for a GPU call")
    dr = sub.add_parser("device-run", help="one GPU call: preflight, tree check, slice, CUDA tests (penb.call.device_run)")
    dr.add_argument("--out", required=True, help="folder handed back: at most 8 files of 16 MiB, 64 MiB in all")
    dr.add_argument("--chapters", default="key_findings", help="comma-separated chapters with a slice preset")
    dr.add_argument("--budget", type=float, default=None,
                    help="wall-clock seconds for everything (default: penb.call.limits.CALL_BUDGET_S)")
    dr.add_argument("--device", default="cuda", choices=("cuda", "cpu"), help="cpu: the rehearsal here")
    dr.add_argument("--preset", default="slice")
    dr.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    dr.add_argument("--from", dest="source", help="an earlier call's --out: its runs go into the store first")
    dr.add_argument("--no-tests", action="store_true", help="skip the CUDA tests")
    dr.add_argument("--verify-only", action="store_true", help="the tree check alone (the call's first step)")
    dr.add_argument("--dry-run", action="store_true", help="print, with no device, what the call would train at "
                                                           "the table's rates x 0.5, 1 and 2")
    pl = sub.add_parser("plan", help="what a preset would train, per chapter, before anything trains (penb.plan)")
    pl.add_argument("chapters", nargs="*", help="default: every chapter of the book")
    pl.add_argument("--preset", default="gpu")
    args = ap.parse_args(argv)

    try:
        if args.cmd == "run":
            params = _params(args.parameter, args.preset)
            path = notebook.run_chapter(args.chapter, params, args.out, args.log, watch=not args.quiet,
                                        planned=0 if args.quiet else plan.planned_runs(args.chapter, params))
            print(progress.chapter_line(args.chapter, _status(path), path.parent), flush=True)
            print(f"executed {args.chapter} -> {path}")
        elif args.cmd == "run-all":
            run_all(args)
        elif args.cmd == "list":
            print("\n".join(notebook.book_chapters()))
        elif args.cmd == "params":
            declared = notebook.declared_parameters(args.chapter)
            for k, info in declared.items():
                print(f"{k:>14} = {info['default']:<12} # {info['help']}")
            t = presets.table(args.chapter)
            groups = [g for g in presets.GROUPS if g in declared]
            if groups:
                print("\nEach a dict of its knobs, or each knob alone (-p NAME VALUE):")
            for group in groups:
                print(f"{group:>14}: {', '.join(presets.group_knobs(group, t['paper']))}")
            print()
            print(f"{'key':>14} " + " ".join(f"{p:>14}" for p in t))
            for k in t["paper"]:
                print(f"{k:>14} " + " ".join(f"{t[p][k]!s:>14}" for p in t))
        elif args.cmd == "status":
            print(f"wrote {status.write_page(args.out)}")
        elif args.cmd == "lease":
            from penb.call import lease  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            result = lease.step(args.chapter, args.preset, _params(args.parameter, None), budget_min=args.budget_min,
                                step_min=args.step_min, out=args.out, source=args.source, progress=not args.quiet)
            print(lease.describe(result), flush=True)
            return result["code"]
        elif args.cmd == "slice":
            from penb.call import slice as slicing  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            if args.plan:
                p = slicing.contents(args.chapters, args.preset, _params(args.parameter, None))
                print(slicing.describe(p, args.minutes))
                slicing.check(p, args.minutes)
                return 0
            result = slicing.run(args.chapters, args.minutes, args.out, args.preset, _params(args.parameter, None),
                                 progress=not args.quiet, source=args.source, sized=args.sized)
            print(f"slice: {result['finished']} of {result['runs']} runs finished in {result['spent_min']:.1f} "
                  f"minutes (estimated {result['estimate_min']:.1f}) -> {result['out']}", flush=True)
            return 0 if not result["left"] else 3
        elif args.cmd == "device-pack":
            from penb.call import device_run  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            print(f"wrote {device_run.pack()}: carry it to the GPU call (carry=[\"{device_run.PACK}\"])")
        elif args.cmd == "device-run":
            from penb.call import device_run  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            budget = device_run.BUDGET_S if args.budget is None else args.budget
            if args.verify_only:
                print(f"the tree is commit {device_run.verify()}", flush=True)
                return 0
            if args.dry_run:
                rows = device_run.dry_run(args.chapters.split(","), budget, args.preset,
                                          _params(args.parameter, None), tests=not args.no_tests)
                print(device_run.dry_run_text(rows, budget / 60))
                return 0
            record = device_run.run(args.out, args.chapters.split(","), budget, args.device, args.preset,
                                    _params(args.parameter, None), args.source, tests=not args.no_tests)
            for s in record["steps"]:
                print(f"{s['seconds']:>7.1f} s  {s['status']:<22} {s['step']}", flush=True)
            return 0 if all(s["status"] == "passed" for s in record["steps"]) else 3
        elif args.cmd == "plan" and args.preset == "slice":
            from penb.call import slice as slicing  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            print(slicing.describe(slicing.contents(args.chapters or slicing.with_slice(), "slice", slicing.here())))
        elif args.cmd == "plan":
            print(plan.describe(plan.book(args.preset, args.chapters or None)))
        elif args.cmd == "collect":
            from penb import long_run  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            man = long_run.collect(args.chapter, args.preset, args.out, _params(args.parameter, None),
                                   minutes=args.minutes)
            print(f"collected {man['finished']} of {man['runs']} runs of {args.chapter}/{args.preset} -> {args.out}"
                  + ("" if man["complete"] else ": not complete, train the rest first (run the same preset again)"))
            return 0 if man["complete"] else 3
        elif args.cmd == "long-run":
            from penb import long_run  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            man = long_run.run(args.chapter, args.preset, _params(args.parameter, None), args.minutes, args.workers,
                               pack_only=args.pack_only)
            seg = (man.get("segments") or [{"minutes": 0, "host": {"cpu": "-"}}])[-1]
            what = "packed" if args.pack_only else f"segment: {seg['minutes']} min on {seg['host']['cpu']}"
            print(f"{args.chapter}/{args.preset} {what}; reached {sorted(set(man['reached'].values()))}; "
                  f"state in {len(man['parts'])} part(s)")
        elif args.cmd == "archive":
            from penb.call import archive  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            print(f"archived {args.chapter} -> {archive.archive(args.chapter, args.source, args.dest)}")
        elif args.cmd == "regrade":
            from penb.call import regrade  # deferred: imports matplotlib (penb.claims), kept out of penb.cli

            grades = regrade.regrade(args.folder)
            print(f"regraded {args.folder}: " + ", ".join(f"{sum(g['verdict'] == v for g in grades.values())} {v}"
                                                         for v in sorted({g["verdict"] for g in grades.values()})))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except Exception as err:  # noqa: BLE001 (a failing cell: papermill's error, shown in a few lines)
        print(f"error: {cell_error(err)}", file=sys.stderr)
        return 1
    return 0


def run_all(args) -> None:
    """Every chapter of the book in order, each validated before any runs; a line per chapter as it starts and
    as it ends (``penb.progress``), a progress line while it runs, and the totals at the end."""
    names = notebook.book_chapters()
    order = [run_all_plan(name, args.preset) for name in names]
    for name, params, _ in order:  # validate all before running any
        notebook.validate(name, params)
    start, statuses = time.time(), []
    for i, (name, params, note) in enumerate(order, 1):
        where = f"[{i}/{len(names)}]"
        print(f"{where} {name}" + (f" ({note})" if note else ""), flush=True)
        path = notebook.run_chapter(name, params, args.out, args.log, requested=args.preset if note else None,
                                    watch=not args.quiet, position=where,
                                    planned=0 if args.quiet else plan.planned_runs(name, params))
        statuses.append(_status(path))
        print(progress.chapter_line(name, statuses[-1], path.parent, where), flush=True)
    print("\n".join(progress.book_lines(statuses, time.time() - start, "_build/html/index.html")), flush=True)


def _status(notebook_path) -> dict:
    """The status record written beside an executed chapter."""
    return json.loads(notebook_path.with_suffix(".status.json").read_text())


def run_all_plan(name: str, preset: str | None) -> tuple[str, dict, str]:
    """(chapter, parameters, note) of one chapter of ``run-all --preset PRESET``: a chapter without an
    optional preset such as ``gpu`` runs its ``quick`` preset (``penb.presets.book_preset``) and the note
    says so; no preset given: the notebook's default."""
    if preset is None:
        return name, {}, ""
    chosen, overrides, note = presets.book_preset(name, preset, notebook.declared_parameters(name))
    return name, {**_params(None, chosen), **overrides}, note


def cell_error(err: BaseException, lines: int = 6) -> str:
    """A few readable lines for a chapter that failed while executing: for papermill's
    ``PapermillExecutionError`` the failing cell's exception name and message (no traceback);
    otherwise the exception's type and message."""
    ename, evalue = getattr(err, "ename", None), getattr(err, "evalue", None)
    if ename is not None:
        cell = getattr(err, "exec_count", None)
        text = f"cell {cell} raised {ename}: {evalue}" if cell is not None else f"{ename}: {evalue}"
    else:
        text = f"{type(err).__name__}: {err}"
    body = text.strip().splitlines()
    return "\n".join(body[:lines] + (["..."] if len(body) > lines else []))

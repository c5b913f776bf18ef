"""A build a person can watch (issue 44): while a chapter executes, what it is doing, how far it has got and how
long is left; after it, one line; at the end of the book, the totals.

The chapter runs in a Jupyter kernel, so what it does reaches this process through a file: the kernel's sweeps
and trainers append one JSON line per event to the file named by ``$PENB_PROGRESS`` (:func:`emit`; a sweep says
how many of its runs the store already holds, a trainer says its updates per second every few seconds and when
a run is done), and papermill rewrites the executed notebook after every cell. :class:`Watch` reads both and
draws one line:

    [2/13] key_findings: runs 14/40 (6 reused, 8 trained), 212 updates/s (gru/none V=32 seed=2001),
           cells 12/41, 3:10 elapsed, about 6:40 left (the last build's status page)

In a terminal that line is a tqdm bar redrawn in place; elsewhere (a CI log, ``make book > log``) it is printed
as a plain line every ``plain_every`` seconds (30 by default, so no silence lasts a minute), with no cursor
control. The estimate of the time left comes from the last build's status page for the same chapter and preset
(``<executed>/<chapter>.status.json``), else from the reference build committed beside this module
(:data:`REFERENCE`), else from the chapter's own pace once it has trained a run, and the line says which.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Optional, TextIO

from tqdm.auto import tqdm

EVENTS = "PENB_PROGRESS"            # environment variable: the file a chapter's kernel appends its events to
REFERENCE = Path(__file__).with_name("reference_times.json")   # chapter times of a reference build, per preset
HEARTBEAT_S = 5.0                   # a trainer says how fast it goes at most this often


def emit(event: dict) -> None:
    """Append ``event`` as one JSON line to ``$PENB_PROGRESS`` (nothing where it is unset). Lines are short and
    written in one call, so processes that append at once do not interleave; an error here never stops a run."""
    path = os.environ.get(EVENTS)
    if not path:
        return
    try:
        with open(path, "a") as f:
            f.write(json.dumps(event) + "\n")
    except OSError:
        pass


class Heartbeat:
    """A trainer's updates per second, emitted every :data:`HEARTBEAT_S` seconds while it trains."""

    def __init__(self, run: str, steps: int, start: int = 0, clock: Callable[[], float] = time.monotonic):
        self.run, self.steps, self.clock = run, steps, clock
        self.t0, self.s0 = clock(), start
        self.last = self.t0
        self.on = bool(os.environ.get(EVENTS))

    def update(self, step: int) -> None:
        if not self.on:
            return
        now = self.clock()
        if now - self.last >= HEARTBEAT_S:
            rate = (step - self.s0) / max(now - self.t0, 1e-9)
            emit({"event": "step", "run": self.run, "step": step, "steps": self.steps, "rate": round(rate, 1)})
            self.last = now


def clock_text(s: float) -> str:
    """'42 s', '3:07', '1:02:03'."""
    s = max(0, int(round(s)))
    if s < 60:
        return f"{s} s"
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def estimate(chapter: str, preset: str, executed: Optional[Path]) -> tuple[Optional[float], str]:
    """(seconds a chapter took before, where that number comes from), or (None, "") where nothing says."""
    f = Path(executed) / f"{chapter}.status.json" if executed else None
    if f is not None and f.exists():
        try:
            r = json.loads(f.read_text())
            if r.get("preset") == preset and r.get("wall_s"):
                return float(r["wall_s"]), "the last build's status page"
        except (OSError, ValueError):
            pass
    try:
        ref = json.loads(REFERENCE.read_text()) if REFERENCE.exists() else {}
    except (OSError, ValueError):
        ref = {}
    if ref:
        wall = ref.get("presets", {}).get(preset, {}).get(chapter)
        if wall:
            return float(wall), f"the reference build ({ref.get('machine', '?')}, {ref.get('date', '?')})"
    return None, ""


def cells(notebook: Optional[Path]) -> tuple[int, int]:
    """(code cells executed, code cells) of papermill's output notebook so far; (0, 0) before it exists."""
    try:
        nb = json.loads(Path(notebook).read_text())
    except (OSError, ValueError, TypeError):
        return 0, 0
    code = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    done = sum((c.get("metadata", {}).get("papermill", {}) or {}).get("status") == "completed" for c in code)
    return done, len(code)


class Watch:
    """What one chapter has done so far, from its events file and its output notebook, drawn as one line."""

    def __init__(self, chapter: str, events: Path, notebook: Optional[Path] = None, planned: int = 0,
                 position: str = "", preset: str = "", executed: Optional[Path] = None,
                 stream: Optional[TextIO] = None, clock: Callable[[], float] = time.monotonic,
                 plain_every: float = 30.0, tty: Optional[bool] = None):
        self.chapter, self.events, self.notebook, self.planned = chapter, Path(events), notebook, planned
        # stdout: `make book > log` puts the progress in the log, beside the chapters' own lines
        self.position, self.stream, self.clock, self.plain_every = position, stream or sys.stdout, clock, plain_every
        self.tty = self.stream.isatty() if tty is None else tty
        self.start = clock()
        self.before, self.source = estimate(chapter, preset, executed)
        self.offset, self.reused, self.trained, self.rate, self.run = 0, 0, 0, None, ""
        self.sweeps, self.last_print, self.bar = 0, None, None
        self._cells, self._cells_at = (0, 0), None

    def read(self) -> None:
        """Take in the events appended since the last read."""
        try:
            with open(self.events) as f:
                f.seek(self.offset)
                chunk = f.read()
        except OSError:
            return
        complete = chunk[:chunk.rfind("\n") + 1]             # a line still being written waits for the next read
        self.offset += len(complete.encode())
        for line in complete.splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("event") == "sweep":
                self.sweeps += 1
                self.reused += int(e.get("found", 0))
            elif e.get("event") == "run" and e.get("trained"):
                self.trained += 1
                self.rate, self.run = None, ""                 # that run is done: no stale rate
            elif e.get("event") == "step":
                self.rate, self.run = e.get("rate"), e.get("run", "")

    def left(self, elapsed: float) -> tuple[Optional[float], str]:
        """The estimate of the time left: an earlier build's time while this one is still within it, else the
        chapter's own pace over its trained runs, else none."""
        if self.before is not None and elapsed < self.before:
            return self.before - elapsed, self.source
        todo = self.planned - self.reused - self.trained
        if self.trained and todo > 0:
            return elapsed / self.trained * todo, "this chapter's pace so far"
        return None, ""

    def line(self) -> str:
        """Time first (a terminal cuts the line at its width), then runs, rate and cells."""
        self.read()
        elapsed = self.clock() - self.start
        left, source = self.left(elapsed)
        parts = [f"{clock_text(elapsed)} elapsed",
                 f"about {clock_text(left)} left ({source})" if left is not None else "no estimate yet"]
        if self.planned:
            done = min(self.reused + self.trained, self.planned)
            parts.append(f"runs {done}/{self.planned} ({self.reused} reused, {self.trained} trained)")
            if self.rate is not None:
                parts.append(f"{self.rate:,.0f} updates/s ({self.run})")
        if self._cells_at is None or self.clock() - self._cells_at >= 5.0:     # the notebook is read sparingly
            now = cells(self.notebook)
            self._cells, self._cells_at = (now if now[1] else self._cells), self.clock()   # a torn read: keep
        c_done, c_all = self._cells
        if c_all:
            parts.append(f"cells {c_done}/{c_all}")
        return f"{self.position} {self.chapter}: ".lstrip() + ", ".join(parts)

    def tick(self) -> None:
        """Redraw (terminal) or, every ``plain_every`` seconds, print (pipe) the line."""
        now = self.clock()
        if self.tty:
            if self.bar is None:
                self.bar = tqdm(total=self.planned or None, file=self.stream, leave=False, dynamic_ncols=True,
                                bar_format="{bar:20} {desc}")
            self.bar.n = min(self.reused + self.trained, self.planned or 0)
            self.bar.set_description_str(self.line(), refresh=True)
            return
        if self.last_print is None or now - self.last_print >= self.plain_every:
            self.stream.write(self.line() + "\n")                # one write: no line split by another thread
            self.stream.flush()
            self.last_print = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Ticker:
    """``watch.tick()`` every ``every`` seconds on a daemon thread, from ``start()`` to ``stop()``."""

    def __init__(self, watch: Watch, every: float = 1.0):
        self.watch, self.every, self.done = watch, every, threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.done.wait(self.every):
            try:
                self.watch.tick()
            except Exception:  # noqa: BLE001 (a drawing error must not stop the chapter)
                pass

    def __enter__(self) -> "Ticker":
        self.watch.tick()
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join(timeout=5)
        self.watch.close()


@contextlib.contextmanager
def watching(name: str, planned: int, found: int, budget_s: Optional[float] = None, source: str = "",
             on: bool = True):
    """The progress line for work done in this process (a lease step): ``planned`` runs of which ``found`` are in
    the store; ``budget_s``, the time it may take (said as ``source``), stands in for the estimate."""
    if not on:
        yield
        return
    with tempfile.TemporaryDirectory() as tmp:
        events, old = Path(tmp) / "events.jsonl", os.environ.get(EVENTS)
        os.environ[EVENTS] = str(events)
        emit({"event": "sweep", "runs": planned, "found": found, "todo": planned - found})
        w = Watch(name, events, None, planned=planned)
        if budget_s is not None:
            w.before, w.source = budget_s, source
        try:
            with Ticker(w):
                yield
        finally:
            os.environ.pop(EVENTS) if old is None else os.environ.__setitem__(EVENTS, old)


def verdict_counts(chapter: str, executed: Optional[Path]) -> Counter:
    """How many of a chapter's claims got each verdict in the grades it recorded (``<chapter>.grades.json``)."""
    f = Path(executed) / f"{chapter}.grades.json" if executed else None
    if f is None or not f.exists():
        return Counter()
    return Counter(g.get("verdict", "?") for g in json.loads(f.read_text()).values())


def chapter_line(chapter: str, status: dict, executed: Optional[Path], position: str = "") -> str:
    """'[2/13] key_findings done in 11:32: 40 runs (6 reused, 34 trained); verdicts: 3 reproduced, ...'."""
    used = status.get("runs") or {}
    n, trained = used.get("used", 0), used.get("trained", 0)
    runs = f"{n} runs ({n - trained} reused, {trained} trained)" if n else "no runs"
    counts = verdict_counts(chapter, executed)
    verdicts = ", ".join(f"{v} {k}" for v, k in sorted(((v, k) for k, v in counts.items()), reverse=True))
    return (f"{position} {chapter} done in {clock_text(status.get('wall_s', 0))}: {runs}".lstrip()
            + (f"; verdicts: {verdicts}" if verdicts else "; no verdicts"))


def book_lines(statuses: list[dict], wall_s: float, open_path: str) -> list[str]:
    """The end of a build: total time, the chapters by time (longest first), and where to look."""
    out = [f"book executed in {clock_text(wall_s)}; chapters by time:"]
    for s in sorted(statuses, key=lambda s: -s.get("wall_s", 0)):
        out.append(f"  {clock_text(s.get('wall_s', 0)):>8}  {s['chapter']} ({s.get('preset', '?')})")
    out.append(f"next: build the HTML (make book does), then open {open_path}")
    return out

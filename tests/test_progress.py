"""A build a person can watch (issue 44): the progress line of a running chapter, in a terminal and in a pipe, on
a fake clock; the line after a chapter and at the end of the book; and a real smoke chapter through the command
line, whose output is a pipe."""
import io
import json
import subprocess
import sys

import pytest

from penb import progress
from penb.store import paths


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class Tty(io.StringIO):
    def isatty(self):
        return True


def _events(path, *events):
    with open(path, "a") as f:
        for e in events:
            f.write(json.dumps(e) + "\n")


def _notebook(path, done, total):
    cells = [{"cell_type": "code", "metadata": {"papermill": {"status": "completed" if i < done else "pending"}}}
             for i in range(total)] + [{"cell_type": "markdown", "metadata": {}}]
    path.write_text(json.dumps({"cells": cells}))


def test_in_a_pipe_a_plain_line_comes_at_least_every_30_seconds(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "REFERENCE", tmp_path / "none.json")
    clock, out = Clock(), io.StringIO()
    ev, nb = tmp_path / "events.jsonl", tmp_path / "out.ipynb"
    w = progress.Watch("key_findings", ev, nb, planned=10, position="[2/13]", preset="quick",
                       executed=tmp_path, stream=out, clock=clock)
    w.tick()                                                   # the first line at once
    _events(ev, {"event": "sweep", "runs": 10, "found": 4, "todo": 6}, {"event": "run", "trained": True},
            {"event": "step", "run": "gru/none V=32 seed=2001", "step": 500, "steps": 2200, "rate": 212.4})
    _notebook(nb, 7, 20)
    seen = []
    for _ in range(120):                                       # two minutes of ticks, one a second
        clock.t += 1.0
        before = out.getvalue().count("\n")
        w.tick()
        if out.getvalue().count("\n") > before:
            seen.append(clock.t)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()        # no cursor tricks in a pipe
    gaps = [b - a for a, b in zip([1000.0] + seen, seen)]
    assert len(lines) == 5 and max(gaps) <= 30.0                             # 0, 30, 60, 90, 120 s
    last = lines[-1]
    # time first (a terminal cuts a long line at its width): with one of six runs trained in 120 s, five more
    # take about 600 s, the chapter's own pace, said as such
    assert last.startswith("[2/13] key_findings: 2:00 elapsed, about 10:00 left (this chapter's pace so far), "
                           "runs 5/10 (4 reused, 1 trained)")
    assert "212 updates/s (gru/none V=32 seed=2001)" in last and "cells 7/20" in last


def test_the_estimate_comes_from_the_last_build_and_says_so(tmp_path):
    (tmp_path / "frequency.status.json").write_text(json.dumps({"preset": "quick", "wall_s": 300.0}))
    clock = Clock()
    w = progress.Watch("frequency", tmp_path / "e.jsonl", None, planned=0, preset="quick", executed=tmp_path,
                       stream=io.StringIO(), clock=clock)
    clock.t += 65
    assert w.line() == "frequency: 1:05 elapsed, about 3:55 left (the last build's status page)"
    # another preset's record is no estimate for this one; the committed reference build then is, where it has one
    other = progress.Watch("frequency", tmp_path / "e.jsonl", None, preset="smoke", executed=tmp_path,
                           stream=io.StringIO(), clock=clock)
    assert "last build" not in other.line()
    # past the last build's time the estimate falls back on the chapter's own pace (none before a run is done)
    clock.t += 300
    assert w.line() == "frequency: 6:05 elapsed, no estimate yet"


def test_in_a_terminal_the_line_is_a_bar_redrawn_in_place(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "REFERENCE", tmp_path / "none.json")
    monkeypatch.setenv("COLUMNS", "200")                     # tqdm's width for a stream without a terminal size
    clock, out = Clock(), Tty()
    ev = tmp_path / "events.jsonl"
    w = progress.Watch("appendix_a", ev, None, planned=4, stream=out, clock=clock)
    assert w.tty
    w.tick()
    _events(ev, {"event": "sweep", "runs": 4, "found": 0, "todo": 4}, {"event": "run", "trained": True},
            {"event": "run", "trained": True})
    clock.t += 3
    w.tick()
    w.close()
    text = out.getvalue()
    assert "\r" in text and "runs 2/4 (0 reused, 2 trained)" in text
    assert text.count("\n") <= 2                               # redrawn, not a new line per tick


def test_a_half_written_event_waits_for_its_line(tmp_path):
    ev = tmp_path / "events.jsonl"
    w = progress.Watch("x", ev, None, planned=3, stream=io.StringIO(), clock=Clock())
    ev.write_text(json.dumps({"event": "run", "trained": True}) + "\n" + '{"event": "ru')
    w.read()
    assert w.trained == 1
    with open(ev, "a") as f:
        f.write('n", "trained": true}\n')
    w.read()
    assert w.trained == 2


def test_a_trainer_beats_only_where_a_build_listens(tmp_path, monkeypatch):
    clock = Clock()
    monkeypatch.delenv(progress.EVENTS, raising=False)
    silent = progress.Heartbeat("r", 100, clock=clock)
    clock.t += 10
    silent.update(50)                                          # nothing to write to: nothing written, no error
    ev = tmp_path / "e.jsonl"
    monkeypatch.setenv(progress.EVENTS, str(ev))
    beat = progress.Heartbeat("gru", 1000, start=100, clock=clock)
    clock.t += 2
    beat.update(300)                                           # under 5 s since the start: quiet
    clock.t += 3
    beat.update(600)
    (e,) = [json.loads(x) for x in ev.read_text().splitlines()]
    assert e == {"event": "step", "run": "gru", "step": 600, "steps": 1000, "rate": 100.0}


def test_after_a_chapter_and_at_the_end(tmp_path):
    (tmp_path / "encodings.grades.json").write_text(json.dumps(
        {"a": {"verdict": "reproduced"}, "b": {"verdict": "reproduced"}, "c": {"verdict": "inconclusive"}}))
    line = progress.chapter_line("encodings", {"wall_s": 75.2, "runs": {"used": 10, "trained": 4}}, tmp_path,
                                 "[1/13]")
    assert line == ("[1/13] encodings done in 1:15: 10 runs (6 reused, 4 trained); verdicts: 2 reproduced, "
                    "1 inconclusive")
    end = progress.book_lines([{"chapter": "a", "wall_s": 30, "preset": "quick"},
                               {"chapter": "b", "wall_s": 700, "preset": "quick"}], 730, "_build/html/index.html")
    assert end[0] == "book executed in 12:10; chapters by time:"
    assert end[1].split() == ["11:40", "b", "(quick)"] and end[2].split() == ["30", "s", "a", "(quick)"]
    assert "_build/html/index.html" in end[-1]


def test_a_smoke_chapter_run_from_the_command_line_reports_its_progress(tmp_path):
    out = subprocess.run([sys.executable, "-m", "penb", "run", "encodings", "--preset", "smoke", "--out",
                          str(tmp_path)], capture_output=True, text=True, cwd=paths.REPO, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "encodings: " in out.stdout and "elapsed" in out.stdout          # the progress line, on stdout
    assert "\r" not in out.stdout                                            # a pipe: plain lines
    assert "encodings done in" in out.stdout and "verdicts:" in out.stdout


@pytest.mark.parametrize("seconds, text", [(5, "5 s"), (65, "1:05"), (3725, "1:02:05")])
def test_clock_text(seconds, text):
    assert progress.clock_text(seconds) == text


def test_a_lease_step_watches_its_own_runs(capsys, monkeypatch):
    """penb.progress.watching (the lease): the runs planned and found, the events of the runs trained inside it,
    and the step's minutes as the estimate."""
    monkeypatch.delenv(progress.EVENTS, raising=False)
    with progress.watching("key_findings", planned=4, found=1, budget_s=600.0, source="the step's minutes"):
        progress.emit({"event": "run", "trained": True})
        assert progress.os.environ[progress.EVENTS]
    out = capsys.readouterr().out
    assert "key_findings: 0 s elapsed, about 10:00 left (the step's minutes), runs 1/4 (1 reused, 0 trained)" in out
    assert progress.EVENTS not in progress.os.environ          # set for the step only

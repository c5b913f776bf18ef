"""The command line refuses bad input before any kernel starts and reports a failing cell in a few lines."""
import subprocess
import sys

import pytest
from papermill.exceptions import PapermillExecutionError

from penb import cli
from penb.store import paths


def _penb(*args):
    return subprocess.run([sys.executable, "-m", "penb", *args], capture_output=True, text=True, cwd=paths.REPO,
                          timeout=300)


@pytest.mark.parametrize("args, message", [
    (("run", "key_findings", "-p", "lr", "nan"), "lr must be a finite number"),
    (("run", "key_findings", "-p", "amp", "'bf16'"), "needs a CUDA device or a CPU with AMX"),
    (("run", "key_findings", "-p", "warmup", "100000"), "must not exceed steps"),
    (("run", "key_findings", "-p", "device", "'cuda:7'"), "CUDA is not available"),
    (("run", "key_findings", "--preset", "quik"), "did you mean 'quick'"),
    (("plan", "--preset", "nope"), "unknown preset 'nope'"),                      # issue 43, item 4
    (("plan", "key_findings", "--preset", "quik"), "did you mean 'quick'"),
    (("archive", "key_findings", "--from", "/nonexistent/lease"), "holds no GPU runs (no manifest.json)"),
])
def test_bad_input_is_refused_before_the_kernel(args, message, tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    monkeypatch.setenv("PENB_CPU_BF16", "0")          # a CPU without AMX: bf16 must be refused there
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")    # and no GPU, also on a machine that has one
    proc = _penb(*args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr[-2000:]
    assert len(proc.stderr.strip().splitlines()) == 1                        # one clear line
    assert "Traceback" not in proc.stderr and not list(tmp_path.iterdir())      # nothing executed


def test_a_failing_cell_is_reported_in_a_few_lines():
    err = PapermillExecutionError(3, 7, "x = 1 / 0", "ZeroDivisionError", "division by zero",
                                  ["Traceback (most recent call last):", "  File ...", "ZeroDivisionError"])
    text = cli.cell_error(err)
    assert text == "cell 7 raised ZeroDivisionError: division by zero"
    assert len(cli.cell_error(RuntimeError("\n".join(map(str, range(40))))).splitlines()) <= 7

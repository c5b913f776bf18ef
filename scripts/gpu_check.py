"""Everything a short GPU slice should check, in one command of at most 8 minutes (``make gpu-check``; issue 42).

    python3 scripts/gpu_check.py --out DIR                 # on a bare GPU machine (CUDA), .device carried
    python3 scripts/gpu_check.py --out DIR --device cpu    # here, first: the same steps on the CPU, so that no
                                                           # GPU minute goes to a typo

Steps, each with its own time limit (cut to what is left of ``--budget``, default ``penb.call.limits.CALL_BUDGET_S``), each logged to DIR/gpu_check.log with its exit status and seconds:
1. the CUDA tests (tests/test_trainer.py, tests/test_bf16_cuda.py, tests/test_stacked.py);
2. the batched benchmark at the quick sizes and hidden 256 (benchmarks/batched.py), into DIR;
3. every chapter of the book at ``smoke`` on the device (``-p device cuda`` where the chapter has a device);
4. a slice at smoke on the device (``python -m penb slice``), into DIR/slice-smoke.
The summary (DIR/gpu_check.json: step, status, seconds) is written after every step, so a call cut off keeps what
ran; DIR holds at most 5 files (a GPU machine hands back 8), the executed notebooks stay in a temporary folder.
Exit status: 0 when every step passed. The wheels a bare GPU image lacks come from ``make gpu-wheels`` (``.whl/``:
installed with ``--target`` before this runs, see the Makefile's ``gpu-check``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CUDA_TESTS = ["tests/test_trainer.py", "tests/test_bf16_cuda.py", "tests/test_stacked.py"]


def steps(device: str, out: Path) -> list[tuple[str, list[str], int]]:
    """(name, command, seconds allowed) of every step, in order."""
    py = sys.executable
    sys.path.insert(0, str(REPO))
    from penb import notebook

    chapters, executed = [], tempfile.mkdtemp(prefix="penb-gpu-check-")   # notebooks: not handed back (8 files)
    for ch in notebook.book_chapters():
        has_device = "device" in notebook.declared_parameters(ch)
        chapters.append((f"chapter {ch}", [py, "-m", "penb", "run", ch, "--preset", "smoke", "--quiet", "--out",
                                           executed] + (["-p", "device", device] if has_device else []),
                         120))
    bench = [py, "benchmarks/batched.py", "--device", device, "--sizes", "quick,quick_lstm,h256",
             "--k", "1,16,64", "--steps", "30"]
    if device == "cpu":
        bench = [py, "benchmarks/batched.py", "--tiny"]
    return ([("cuda tests", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", *CUDA_TESTS], 150),
             ("benchmark", bench, 120)] + chapters +
            [("slice at smoke", [py, "-m", "penb", "slice", "key_findings", "frequency", "--preset", "smoke",
                                 "-p", "device", device, "--minutes", "8", "--out", str(out / "slice-smoke"),
                                 "--quiet"], 120)])


def run_steps(steps: list, out: Path, budget: float, env: dict, clock=time.monotonic, runner=subprocess.run) -> list:
    """Run ``steps`` in order inside ``budget`` wall-clock seconds: each step gets its own limit or what is left of
    the budget (less :data:`CLOSE_S` to write the summary), whichever is less; a step with under :data:`MIN_STEP_S`
    left is not started. The summary (``out/gpu_check.json``) is rewritten after every step."""
    start, done = clock(), []
    with open(out / "gpu_check.log", "a") as log:
        for name, cmd, own in steps:
            left = budget - CLOSE_S - (clock() - start)
            if left < MIN_STEP_S:
                done.append({"step": name, "status": "not run (out of budget)", "seconds": 0})
                continue
            limit = int(min(own, left))
            t = clock()
            log.write(f"\n$ {' '.join(cmd)}\n")
            log.flush()
            try:
                rc = runner(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=limit).returncode
                status = "passed" if rc == 0 else f"failed (exit {rc})"
            except subprocess.TimeoutExpired:
                status = f"failed (over {limit} s)"
            done.append({"step": name, "status": status, "seconds": round(clock() - t, 1), "limit": limit})
            print(f"{done[-1]['seconds']:>7.1f} s  {status:<22} {name}", flush=True)
            (out / "gpu_check.json").write_text(json.dumps(done, indent=1))
    return done


CLOSE_S = 5            # kept at the end of the budget for the summary
MIN_STEP_S = 10        # a step with less than this left is not started


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--budget", type=float, default=None,
                    help="wall-clock seconds for every step together (default penb.call.limits.CALL_BUDGET_S)")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(REPO))
    from penb.call import device_run
    from penb.call.limits import CALL_BUDGET_S

    a.budget = CALL_BUDGET_S if a.budget is None else a.budget

    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PENB_STORE": os.environ.get("PENB_STORE", "/tmp/penb-gpu-check")}
    if (REPO / device_run.PACK / "tree.json").is_file():
        env["PENB_COMMIT"] = device_run.verify(REPO)              # the slice's archive names the checked commit
    if (REPO / device_run.PACK / "data").is_dir():
        env.setdefault("PENB_WIKITEXT_DIR", str(REPO / device_run.PACK / "data"))
    done = run_steps(steps(a.device, a.out), a.out, a.budget, env)
    return 0 if all(d["status"] == "passed" for d in done) else 1


if __name__ == "__main__":
    sys.exit(main())

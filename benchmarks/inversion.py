"""Wall time of Hansen's full invertibility study: 9 encodings x 100 initialisations x 20,000 Adam steps.

    .venv/bin/python benchmarks/inversion.py                  # the full study, one CPU thread
    .venv/bin/python benchmarks/inversion.py --threads 2      # both cores (faster only on an idle machine)
    .venv/bin/python benchmarks/inversion.py --iterations 2000

Goal: <= 60 s on the project's 2-core CPU (the original JAX script runs the 900 problems one after
another: about 5 hours). Prints wall and process CPU seconds; run it alone.
"""
from __future__ import annotations

import argparse
import os
import time

from penb.chapters.invertibility import analysis


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inits", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=20_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtype", default="float32", choices=sorted(analysis.DTYPES))
    args = ap.parse_args()
    analysis.check_args(args.inits, args.iterations, 32, 100, 1e-3, None, -9999999.0, args.dtype)
    wall, cpu = time.perf_counter(), time.process_time()
    df = analysis.run_study(inits=args.inits, iterations=args.iterations, dtype=args.dtype, progress=False,
                            threads=args.threads)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"inversion study: 9 x {args.inits} x {args.iterations} steps, {args.dtype}, {args.threads} thread(s): "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU ({args.iterations / wall:,.0f} steps/s; load average {load:.1f})")
    print("final mean MSE: " + ", ".join(f"{k} {v:.3e}" for k, v in df.iloc[-1].items()))


if __name__ == "__main__":
    main()

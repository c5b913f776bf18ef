"""Seconds per checkpoint of the gradient-stability analysis (Fig. 5): Jacobians and similarities of
``--pairs`` dual-frequency pairs (2 x pairs sequences) for GRU, LSTM and S4D.

    .venv/bin/python benchmarks/stability.py                          # 1,024 pairs, hidden 128, L 64, 1 thread
    .venv/bin/python benchmarks/stability.py --cores lstm --engine func --pairs 128

The weights are the initial ones (the cost does not depend on training). Vocabulary sizes are the
paper's dual-frequency ones (GRU 64, LSTM 1,024, S4D 2,048); the S4D's target sits at t = 23.
Goal: <= 60 s per checkpoint at 1,024 pairs on one CPU thread.
"""
from __future__ import annotations

import argparse
import time

import torch

from penb import models
from penb.chapters.gradient_stability import similarity
from penb.tasks import make_task

VOCAB = {"gru": 64, "lstm": 1024, "s4d": 2048}


def seconds_per_checkpoint(core: str, pairs: int, hidden: int, length: int, engine: str, chunk: int,
                           device: str = "cpu") -> tuple[float, float]:
    """(wall, process CPU) seconds of one ``stability_at_checkpoint`` call (pairs drawn and model built
    beforehand). On a shared machine the CPU seconds of a one-thread run are the steadier number."""
    task = make_task("dual_frequency", VOCAB[core], length)
    model = models.build(VOCAB[core], task.num_steps, core=core, hidden=hidden, device=device,
                         generator=torch.Generator().manual_seed(0)).eval()
    sample = similarity.make_pairs(task, pairs, torch.Generator().manual_seed(1),
                                   similarity.default_target_position(core, length))
    sample.a, sample.b = sample.a.to(device), sample.b.to(device)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    start, cpu = time.perf_counter(), time.process_time()
    similarity.stability_at_checkpoint(model, sample, engine=engine, chunk=chunk)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=1024, help="pairs per checkpoint (multiple of 4)")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--length", type=int, default=64, help="input length L (T = 2L)")
    ap.add_argument("--cores", default="gru,lstm,s4d")
    ap.add_argument("--engine", default="chain", choices=similarity.ENGINES, help="GRU/LSTM Jacobian engine")
    ap.add_argument("--chunk", type=int, default=64, help="pairs per Jacobian call")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} thread(s), device {args.device}; {args.pairs} pairs, "
          f"hidden {args.hidden}, L {args.length}, engine {args.engine}")
    for core in args.cores.split(","):
        wall, cpu = seconds_per_checkpoint(core, args.pairs, args.hidden, args.length, args.engine, args.chunk,
                                           args.device)
        scale = 1024 / args.pairs
        print(f"  {core:5s} wall {wall:7.1f} s, CPU {cpu:7.1f} s per checkpoint  "
              f"(per 1,024 pairs: wall {wall * scale:6.1f} s, CPU {cpu * scale:6.1f} s)", flush=True)


if __name__ == "__main__":
    main()

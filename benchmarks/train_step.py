"""Training steps per second of GRU, LSTM and S4D (one full update: sample, forward, backward, clip, Adam).

    .venv/bin/python benchmarks/train_step.py                 # CPU (small size), then GPU if present
    .venv/bin/python benchmarks/train_step.py --threads 2 --steps 30

CPU: hidden 128, batch 128, L 16, V 1024, sinusoidal encoding.
GPU: the paper's size (hidden 512, batch 512, L 64) at the largest vocabulary of Fig. 2 per core
(GRU 256, LSTM 16,384, S4D 16,384), fp32 and with bf16 autocast.
"""
from __future__ import annotations

import argparse
import time

import torch

from penb import train

SMALL = dict(hidden=128, batch_size=128, length=16, vocab_size=1024)
PAPER_VOCAB = {"gru": 256, "lstm": 16384, "s4d": 16384}


def steps_per_second(config: dict, steps: int, warmup: int = 3) -> float:
    """Mean updates per second over ``steps`` updates after ``warmup`` untimed ones."""
    t = train.Trainer({**config, "steps": steps + warmup, "warmup": 10, "held_out": 64})
    cuda = t.device.type == "cuda"
    for _ in range(warmup):
        t.train_step()
    if cuda:
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        t.train_step()
    if cuda:
        torch.cuda.synchronize()
    return steps / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=20, help="timed updates per model")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--skip-cpu", action="store_true")
    ap.add_argument("--skip-gpu", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} CPU thread(s)")
    if not args.skip_cpu:
        print(f"CPU  {SMALL}")
        for core in ("gru", "lstm", "s4d"):
            sps = steps_per_second({**SMALL, "core": core, "device": "cpu"}, args.steps)
            print(f"  {core:5s} {sps:8.2f} steps/s")
    if not args.skip_gpu and torch.cuda.is_available():
        print(f"GPU  {torch.cuda.get_device_name()}  hidden 512, batch 512, L 64")
        for core in ("gru", "lstm", "s4d"):
            for amp in ("none", "bf16"):
                cfg = dict(core=core, hidden=512, batch_size=512, length=64, vocab_size=PAPER_VOCAB[core],
                           device="cuda", amp=amp)
                sps = steps_per_second(cfg, args.steps)
                print(f"  {core:5s} V={PAPER_VOCAB[core]:<6d} amp={amp:5s} {sps:8.2f} steps/s "
                      f"({300_000 / sps / 3600:.1f} h for 300,000 steps)")
    elif not args.skip_gpu:
        print("GPU  none present: paper-size timings skipped")


if __name__ == "__main__":
    main()

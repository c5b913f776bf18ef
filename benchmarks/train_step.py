"""Training steps per second of GRU, LSTM and S4D (one full update: sample, forward, backward, clip, Adam).

    .venv/bin/python benchmarks/train_step.py                 # CPU (small size), then GPU if present
    .venv/bin/python benchmarks/train_step.py --threads 2 --steps 30

CPU: hidden 128, batch 128, L 16, V 1024, sinusoidal encoding.

Each GRU/LSTM line also gives the step's ratio to the matmul bound: the step's time divided by
(its FLOPs / a plain torch matmul's FLOP/s on the same device, measured in the same run). FLOPs count
the gate matmuls over 2L steps (input = embedding + encoding, concatenated) and the readout over the L
output steps, forward x 3 for forward + backward. A ratio near 1 means the step runs at the speed of its
matrix products; the rest (the sequential recurrence, elementwise gates, Adam) is overhead.
GPU: the paper's size (hidden 512, batch 512, L 64) at the largest vocabulary of Fig. 2 per core
(GRU 256, LSTM 16,384, S4D 16,384), fp32 and with bf16 autocast.
"""
from __future__ import annotations

import argparse
import time

import torch

from penb.trainer import Trainer
from penb.executors.cost import timed_updates

SMALL = dict(hidden=128, batch_size=128, length=16, vocab_size=1024)
PAPER_VOCAB = {"gru": 256, "lstm": 16384, "s4d": 16384}


def steps_per_second(config: dict, steps: int, warmup: int = 3) -> float:
    """Mean updates per second over ``steps`` updates after ``warmup`` untimed ones."""
    t = Trainer({**config, "steps": steps + warmup, "warmup": 10, "held_out": 64})
    return steps / timed_updates(t, steps, warmup)


GATES = {"lstm": 4, "gru": 3}


def step_flops(core: str, hidden: int, batch_size: int, length: int, vocab_size: int) -> float:
    """FLOPs of one training update of a GRU/LSTM (see the module docstring); NaN for other cores."""
    if core not in GATES:
        return float("nan")
    d_in = 2 * hidden                                   # embedding and encoding, concatenated
    recurrence = 2 * batch_size * (d_in + hidden) * GATES[core] * hidden * (2 * length)
    readout = 2 * batch_size * length * hidden * vocab_size
    return 3.0 * (recurrence + readout)


def matmul_flops_per_s(device: str, hidden: int, batch_size: int, reps: int = 20) -> float:
    """FLOP/s of a plain matmul of the gate shape [B, 3h] x [3h, 4h] on ``device``."""
    a = torch.randn(batch_size * 16, 3 * hidden, device=device)
    b = torch.randn(3 * hidden, 4 * hidden, device=device)
    for _ in range(3):
        a @ b
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(reps):
        a @ b
    if device == "cuda":
        torch.cuda.synchronize()
    return 2 * a.shape[0] * a.shape[1] * b.shape[1] * reps / (time.perf_counter() - start)


def bound_ratio(core: str, sps: float, cfg: dict, device: str) -> str:
    flops = step_flops(core, cfg["hidden"], cfg["batch_size"], cfg["length"], cfg["vocab_size"])
    if flops != flops:
        return "matmul bound: n/a"
    bound_s = flops / matmul_flops_per_s(device, cfg["hidden"], cfg["batch_size"])
    return f"{(1 / sps) / bound_s:5.2f}x the matmul bound ({1000 / sps:.1f} ms vs {1000 * bound_s:.1f} ms)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=20, help="timed updates per model")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--skip-cpu", action="store_true")
    ap.add_argument("--skip-gpu", action="store_true")
    ap.add_argument("--no-onednn", action="store_true",
                    help="turn oneDNN (mkldnn) off: the CPU LSTM then runs the same generic cell loop as the GRU "
                         "(see benchmarks/README.md)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.no_onednn:
        torch.backends.mkldnn.enabled = False
    print(f"torch {torch.__version__}, {args.threads} CPU thread(s), oneDNN {'off' if args.no_onednn else 'on'}")
    if not args.skip_cpu:
        print(f"CPU  {SMALL}")
        for core in ("gru", "lstm", "s4d"):
            sps = steps_per_second({**SMALL, "core": core, "device": "cpu"}, args.steps)
            print(f"  {core:5s} {sps:8.2f} steps/s  {bound_ratio(core, sps, SMALL, 'cpu')}")
    if not args.skip_gpu and torch.cuda.is_available():
        print(f"GPU  {torch.cuda.get_device_name()}  hidden 512, batch 512, L 64")
        for core in ("gru", "lstm", "s4d"):
            for amp in ("none", "bf16"):
                cfg = dict(core=core, hidden=512, batch_size=512, length=64, vocab_size=PAPER_VOCAB[core],
                           device="cuda", amp=amp)
                sps = steps_per_second(cfg, args.steps)
                print(f"  {core:5s} V={PAPER_VOCAB[core]:<6d} amp={amp:5s} {sps:8.2f} steps/s "
                      f"({300_000 / sps / 3600:.1f} h for 300,000 steps)  "
                      f"{bound_ratio(core, sps, cfg, 'cuda')}")
    elif not args.skip_gpu:
        print("GPU  none present: paper-size timings skipped")


if __name__ == "__main__":
    main()

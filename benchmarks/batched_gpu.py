"""Runs per device-minute: one run at a time, K processes sharing the device, one process training K runs as one
batched model (``penb.batched``; issue 36).

    .venv/bin/python benchmarks/batched_gpu.py --device cuda                  # the table of benchmarks/README.md
    .venv/bin/python benchmarks/batched_gpu.py --device cuda --sizes quick --k 8,16,32,64
    .venv/bin/python benchmarks/batched_gpu.py --tiny                         # seconds on a CPU: checks it works

Sizes (reverse task, sinusoidal encoding, fp32): ``quick`` is key_findings' quick GRU (hidden 64, L 16, V 32,
batch 64), ``quick_lstm`` its quick LSTM (hidden 128, L 16, V 256, batch 64), ``medium`` a GRU of hidden 256 at
L 32 (V 32, batch 64). Each measurement times ``--steps`` full updates (sample, forward, backward, clip, Adam,
the logging sync every 100) after ``--warmup`` untimed ones; the K processes start their timed updates together
(a barrier) and their throughput is K x steps over the span from the first start to the last end. A run is
``--run-updates`` updates (2,000: the quick GRU's budget), so runs per device-minute = 60 x updates/s / that.
Batches whose packed hidden K x H would exceed ``--max-packed`` are skipped (the packed core does K^2 the
recurrent work of one run). Without CUDA and without ``--tiny`` it runs ``--tiny`` (``make benchmarks`` runs every
script on the CPU).
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import torch

from penb import train
from penb.batched import BatchedTrainer

BASE = dict(task="reverse", encoding="sinusoidal", steps=10**6, warmup=100, lr=1e-3, held_out=64,
            log_every=100, checkpoint_every=10**6, dtype="float32")
SIZES = {
    "quick": dict(core="gru", hidden=64, length=16, vocab_size=32, batch_size=64),
    "quick_lstm": dict(core="lstm", hidden=128, length=16, vocab_size=256, batch_size=64),
    "medium": dict(core="gru", hidden=256, length=32, vocab_size=32, batch_size=64),
    "tiny": dict(core="gru", hidden=16, length=4, vocab_size=6, batch_size=16),
}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _timed(step, device, steps: int, warmup: int) -> tuple[float, float]:
    """(updates/s, peak device MiB) of ``steps`` calls of ``step()`` after ``warmup`` untimed ones."""
    for _ in range(warmup):
        step()
    _sync(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    start = time.perf_counter()
    for _ in range(steps):
        step()
    _sync(device)
    return steps / (time.perf_counter() - start), _peak_mib(device)


def single(config: dict, steps: int, warmup: int) -> tuple[float, float]:
    """(updates/s, peak device MiB) of one run trained alone."""
    t = train.Trainer(config)
    return _timed(t.train_step, t.device, steps, warmup)


def batched(config: dict, k: int, steps: int, warmup: int, kernel: str = "packed") -> tuple[float, float]:
    """(updates/s of all K runs together, peak device MiB) of K seeds trained as one batch (``kernel``: the
    block-diagonal cuDNN call, or per-run stacked weights, ``penb.stacked``)."""
    b = BatchedTrainer([train.Trainer({**config, "seed": s}) for s in range(k)], kernel=kernel)

    def step():
        b.train_step()
        b._log()                                     # the logging sync every log_every, as a run alone
    rate, mib = _timed(step, b.device, steps, warmup)
    return k * rate, mib


def _peak_mib(device: torch.device) -> float:
    return torch.cuda.max_memory_allocated(device) / 2**20 if device.type == "cuda" else float("nan")


def _worker(config: dict, steps: int, warmup: int, threads: int, barrier, queue) -> None:
    torch.set_num_threads(threads)
    t = train.Trainer(config)
    for _ in range(warmup):
        t.train_step()
    _sync(t.device)
    barrier.wait()
    start = time.monotonic()                         # system-wide on Linux: comparable across processes
    for _ in range(steps):
        t.train_step()
    _sync(t.device)
    queue.put((start, time.monotonic()))


def processes(config: dict, k: int, steps: int, warmup: int, threads: int) -> tuple[float, float]:
    """(updates/s of all K processes together, NaN) of K spawned processes, one run each, sharing the device."""
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(k), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=({**config, "seed": s}, steps, warmup, threads, barrier, queue))
             for s in range(k)]
    for p in procs:
        p.start()
    spans = [queue.get(timeout=900) for _ in procs]
    for p in procs:
        p.join()
    return k * steps / (max(e for _, e in spans) - min(s for s, _ in spans)), float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, cuda or cuda:N")
    ap.add_argument("--tiny", action="store_true", help="hidden 16, L 4, K 2-3, a few updates: seconds on a CPU")
    ap.add_argument("--sizes", default="quick,quick_lstm,medium", help=f"comma list of {', '.join(SIZES)}")
    ap.add_argument("--k", default="4,8,16,32", help="batch sizes K of the batched process (comma list)")
    ap.add_argument("--proc-k", default="4,8", help="numbers of processes sharing the device (comma list)")
    ap.add_argument("--steps", type=int, default=40, help="timed updates per measurement")
    ap.add_argument("--warmup", type=int, default=5, help="untimed updates first")
    ap.add_argument("--run-updates", type=int, default=2000, help="updates of one run (runs per minute)")
    ap.add_argument("--max-packed", type=int, default=4096, help="largest packed hidden K x H measured")
    ap.add_argument("--threads", type=int, default=1, help="torch threads per process")
    ap.add_argument("--kernels", default="packed,stacked", help="batched kernels to measure (comma list)")
    a = ap.parse_args()
    cuda = torch.cuda.is_available() and a.device != "cpu"
    if a.tiny or (not cuda and a.device != "cpu"):        # --device cpu: the CPU at the sizes asked for
        if not a.tiny:
            print("no CUDA device: running --tiny")
        a.sizes, a.k, a.proc_k, a.steps, a.warmup = "tiny", "2,3", "2", min(a.steps, 8), min(a.warmup, 2)
    torch.set_num_threads(a.threads)
    device = a.device if a.device != "auto" else ("cuda" if cuda else "cpu")
    name = torch.cuda.get_device_name(torch.device(device)) if device.startswith("cuda") else "CPU"
    print(f"device: {name}; torch {torch.__version__}; {a.steps} timed updates after {a.warmup}; "
          f"a run = {a.run_updates} updates\n")
    print("| size | way | K | updates/s (all runs) | runs per device-minute | x one at a time | peak MiB |")
    print("|---|---|---|---|---|---|---|")
    for size in a.sizes.split(","):
        config = {**BASE, **SIZES[size], "device": device}
        rows = [("one at a time", 1, *single(config, a.steps, a.warmup))]
        for k in (int(x) for x in a.proc_k.split(",")):
            rows.append(("K processes", k, *processes(config, k, a.steps, a.warmup, a.threads)))
        for kernel in a.kernels.split(","):
            for k in (int(x) for x in a.k.split(",")):
                if kernel == "packed" and k * config["hidden"] > a.max_packed:
                    rows.append((f"batched {kernel}", k, None, f"packed hidden {k * config['hidden']} > --max-packed"))
                    continue
                rows.append((f"batched {kernel}", k, *batched(config, k, a.steps, a.warmup, kernel)))
        base = rows[0][2]
        for way, k, rate, peak in rows:
            if rate is None:
                print(f"| {size} | {way} | {k} | skipped: {peak} | | | |")
                continue
            print(f"| {size} | {way} | {k} | {rate:.1f} | {60 * rate / a.run_updates:.2f} | {rate / base:.2f} "
                  f"| {peak:.0f} |", flush=True)


if __name__ == "__main__":
    main()

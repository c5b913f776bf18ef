"""Why the CPU GRU step sits further above its matmul bound than the LSTM's (benchmarks/README.md).

    .venv/bin/python benchmarks/gru_cpu.py              # a few seconds per line, 1 thread
    .venv/bin/python benchmarks/gru_cpu.py --compile    # also torch.compile of the hand-written loop (~1.5 min)

One forward + backward of the recurrent core alone at the CPU benchmark's size (hidden 128, batch 128, 2L = 32
steps, input 256 = embedding + encoding), the minimum over repeats (the machine may be shared):

* ``nn.GRU`` and ``nn.LSTM`` as penb trains them, and both with oneDNN off: torch sends the CPU LSTM to
  oneDNN's fused RNN primitive, while the GRU (no oneDNN path in torch) runs ATen's generic cell loop;
* a hand-written GRU with the input projection of all steps in one matmul (the same formula as ``nn.GRU``,
  checked to 1e-5), eager and, with ``--compile``, through ``torch.compile`` (inductor, needs a C compiler).

Benchmark only: penb's training keeps ``nn.GRU`` (stored runs depend on it).
"""
from __future__ import annotations

import argparse
import time

import torch
import torch.nn as nn

B, T, I, H = 128, 32, 256, 128


def hand_gru(x, w_ih, w_hh, b_ih, b_hh):
    """``nn.GRU``'s formula, the input projection of every step done in one matmul."""
    hid = w_hh.shape[1]
    gi = torch.addmm(b_ih, x.reshape(-1, x.shape[-1]), w_ih.t()).view(x.shape[0], x.shape[1], 3 * hid)
    h = x.new_zeros(x.shape[0], hid)
    outs = []
    for t in range(x.shape[1]):
        gh = torch.addmm(b_hh, h, w_hh.t())
        i_r, i_z, i_n = gi[:, t].chunk(3, 1)
        h_r, h_z, h_n = gh.chunk(3, 1)
        r = torch.sigmoid(i_r + h_r)
        z = torch.sigmoid(i_z + h_z)
        n = torch.tanh(i_n + r * h_n)
        h = n + z * (h - n)
        outs.append(h)
    return torch.stack(outs, 1)


def ms(fn, repeats: int = 5, inner: int = 5) -> float:
    """Minimum over ``repeats`` of the mean time of ``inner`` forward + backward passes, in ms."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn().sum().backward()
        best = min(best, (time.perf_counter() - start) / inner)
    return 1000 * best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compile", action="store_true", help="also time torch.compile of the hand-written loop")
    ap.add_argument("--rounds", type=int, default=2, help="rounds over all cases (take the minimum)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x = torch.randn(B, T, I)
    gru, lstm = nn.GRU(I, H, batch_first=True), nn.LSTM(I, H, batch_first=True)
    p = (gru.weight_ih_l0, gru.weight_hh_l0, gru.bias_ih_l0, gru.bias_hh_l0)
    with torch.no_grad():
        assert torch.allclose(hand_gru(x, *p), gru(x)[0], atol=1e-5)
    cases = {"nn.GRU": lambda: gru(x)[0], "nn.LSTM": lambda: lstm(x)[0],
             "hand-written GRU": lambda: hand_gru(x, *p)}
    if args.compile:
        compiled = torch.compile(hand_gru, dynamic=False)
        start = time.perf_counter()
        compiled(x, *p).sum().backward()
        print(f"torch.compile: {time.perf_counter() - start:.0f} s to compile")
        cases["hand-written GRU, compiled"] = lambda: compiled(x, *p)
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, fn in cases.items():
            best[name] = min(best.get(name, float("inf")), ms(fn))
        with torch.backends.mkldnn.flags(enabled=False):
            for name in ("nn.GRU", "nn.LSTM"):
                key = f"{name}, oneDNN off"
                best[key] = min(best.get(key, float("inf")), ms(cases[name]))
    print(f"torch {torch.__version__}, 1 thread: hidden {H}, batch {B}, {T} steps, input {I}; forward + backward")
    for name, t in best.items():
        print(f"  {name:28s} {t:7.1f} ms")
    print(f"  LSTM / GRU FLOPs: 4/3; measured LSTM / GRU: {best['nn.LSTM'] / best['nn.GRU']:.2f} with oneDNN, "
          f"{best['nn.LSTM, oneDNN off'] / best['nn.GRU, oneDNN off']:.2f} without")


if __name__ == "__main__":
    main()

"""A position-encoded GRU/LSTM update with the encoding's input projection done once per position (the default,
``penb.models.RNNCore.forward_positional``) against the concatenated ``[embedding; encoding]`` input
(``SequenceModel.fold_encoding = False``), with the vanilla model's update beside them as the floor.

    .venv/bin/python benchmarks/pe_input.py                       # LSTM and GRU, 1 thread
    .venv/bin/python benchmarks/pe_input.py --cores lstm --threads 2 --rounds 9

Size: key_findings' quick LSTM (hidden 128, batch 64, L 16 so 2L = 32 steps, V 256, sinusoidal, fp32); ``--hidden``
etc. change it. One update = sample, forward, backward, clip, Adam (``penb.trainer.Trainer.train_step``). The three
variants are timed in interleaved rounds of ``--steps`` updates and each keeps its fastest round, so that the
noise of a shared machine hits them alike.
"""
from __future__ import annotations

import argparse
import time

import torch

from penb.trainer import Trainer


def trainer(core: str, encoding: str, fold: bool, a) -> Trainer:
    t = Trainer(dict(core=core, encoding=encoding, hidden=a.hidden, batch_size=a.batch, length=a.length,
                           vocab_size=a.vocab, device="cpu", amp=a.amp, steps=10**6, warmup=10, held_out=64))
    t.model.fold_encoding = fold
    return t


def round_ms(t: Trainer, steps: int) -> float:
    """Mean milliseconds per update over ``steps`` updates."""
    start = time.perf_counter()
    for _ in range(steps):
        t.train_step()
    return 1000 * (time.perf_counter() - start) / steps


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cores", nargs="+", default=["lstm", "gru"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=20, help="updates per round")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--length", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--amp", default="none", choices=("none", "bf16"))
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    print(f"torch {torch.__version__}, {a.threads} thread(s), hidden {a.hidden}, batch {a.batch}, "
          f"L {a.length} ({2 * a.length} steps), V {a.vocab}, amp {a.amp}; fastest of {a.rounds} rounds "
          f"of {a.steps} updates")
    for core in a.cores:
        variants = {"PE, concatenated": trainer(core, "sinusoidal", False, a),
                    "PE, per position": trainer(core, "sinusoidal", True, a),
                    "vanilla": trainer(core, "none", True, a)}
        x = torch.zeros(1, 2 * a.length, dtype=torch.long)
        assert variants["PE, per position"].model.folds_encoding(x)
        best = dict.fromkeys(variants, float("inf"))
        for t in variants.values():
            round_ms(t, 3)                                              # warm-up
        for _ in range(a.rounds):
            for name, t in variants.items():
                best[name] = min(best[name], round_ms(t, a.steps))
        base = best["PE, concatenated"]
        for name, ms in best.items():
            print(f"  {core:4} {name:17} {ms:7.2f} ms/update  ({base / ms:.2f}x the concatenated PE update's speed)")


if __name__ == "__main__":
    main()

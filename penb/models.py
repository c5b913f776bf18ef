"""The models of the main paper (Morita, Sec. 3.2, App. C-D): embedding | encoding | core | readout.

    inputs LongTensor[B, T]
      -> embedding with V+1 rows (row V: the learnable "command" vector, N(0, 1) like the others)
      -> input vector per step, by ``input_mode``:
           concat  [embedding, encoding(position)]   (the paper; width embed + D_pos, D_pos = embed)
           add     embedding + encoding(position)    (an option of the original code)
           double  [embedding, embedding]            ("double vanilla", App. C; encoding must be none)
      -> core, by key: gru | lstm (torch.nn.GRU / nn.LSTM: cuDNN on GPU) | s4d (linear to hidden, S4D)
      -> linear readout to V logits.

Positions are 0..T-1 through the input and output phases (no shared timestamps). Every parameter is
drawn from the ``torch.Generator`` given to :func:`build` (on the CPU, so that the initial weights do
not depend on the device), with PyTorch's default distributions; the model is then moved to the
requested device and dtype.
"""
from __future__ import annotations

import math
from typing import Optional

import torch
from torch import nn

from penb import encodings
from penb.s4d import S4D

CORES = ("gru", "lstm", "s4d")
INPUT_MODES = ("concat", "add", "double")
DTYPES = {"float32": torch.float32, "float64": torch.float64}


def _uniform_(t: torch.Tensor, bound: float, g: torch.Generator) -> None:
    with torch.no_grad():
        t.uniform_(-bound, bound, generator=g)


def _linear(n_in: int, n_out: int, g: torch.Generator) -> nn.Linear:
    """nn.Linear with PyTorch's default U(-1/sqrt(n_in), 1/sqrt(n_in)) weights and bias, drawn from ``g``."""
    layer = nn.Linear(n_in, n_out)
    _uniform_(layer.weight, 1 / math.sqrt(n_in), g)
    _uniform_(layer.bias, 1 / math.sqrt(n_in), g)
    return layer


class RNNCore(nn.Module):
    """Single-layer GRU or LSTM: ``forward(x: Tensor[B, T, D_in]) -> Tensor[B, T, hidden]``."""

    def __init__(self, kind: str, n_in: int, hidden: int, g: torch.Generator):
        super().__init__()
        self.kind = kind
        self.rnn = (nn.GRU if kind == "gru" else nn.LSTM)(n_in, hidden, batch_first=True)
        for p in self.rnn.parameters():                  # PyTorch's default: U(-1/sqrt(h), 1/sqrt(h))
            _uniform_(p, 1 / math.sqrt(hidden), g)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.rnn(x)[0]


class S4DCore(nn.Module):
    """Linear D_in -> hidden, then one S4D layer: ``Tensor[B, T, D_in] -> Tensor[B, T, hidden]``."""

    def __init__(self, n_in: int, hidden: int, state_size: int, g: torch.Generator):
        super().__init__()
        self.kind = "s4d"
        self.in_proj = _linear(n_in, hidden, g)
        self.ssm = S4D(hidden, state_size, generator=g)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ssm(self.in_proj(x))


class SequenceModel(nn.Module):
    """``forward(inputs: LongTensor[B, T]) -> logits Tensor[B, T, V]``; see the module docstring."""

    def __init__(self, vocab_size: int, num_positions: int, core: str, encoding: str, input_mode: str,
                 hidden: int, embed: int, s4d_state: int, g: torch.Generator):
        super().__init__()
        self.vocab_size, self.num_positions, self.input_mode = vocab_size, num_positions, input_mode
        self.embedding = nn.Embedding(vocab_size + 1, embed)
        with torch.no_grad():
            self.embedding.weight.normal_(generator=g)
        self.encoding = encodings.get(encoding).build(num_positions, embed, g)
        width = {"concat": embed + self.encoding.width, "add": embed, "double": 2 * embed}[input_mode]
        self.core = S4DCore(width, hidden, s4d_state, g) if core == "s4d" else RNNCore(core, width, hidden, g)
        self.readout = _linear(hidden, vocab_size, g)

    def input_vectors(self, inputs: torch.Tensor) -> torch.Tensor:
        """LongTensor[B, T] -> the core's input Tensor[B, T, D_in]."""
        emb = self.embedding(inputs)                                          # [B, T, E]
        if self.input_mode == "double":
            return torch.cat([emb, emb], -1)
        T = inputs.shape[1]
        if T > self.num_positions:
            raise ValueError(f"sequence of {T} steps, but the encoding covers positions 0..{self.num_positions - 1}")
        enc = self.encoding.table()[:T].to(emb.dtype).expand(*inputs.shape, -1)  # [B, T, D_pos]
        return emb + enc if self.input_mode == "add" else torch.cat([emb, enc], -1)

    def features(self, inputs: torch.Tensor) -> torch.Tensor:
        """LongTensor[B, T] -> the core's output Tensor[B, T, hidden]."""
        return self.core(self.input_vectors(inputs))

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.readout(self.features(inputs))


def check(vocab_size: int, num_positions: int, core: str = "lstm", encoding: str = "sinusoidal",
          input_mode: str = "concat", hidden: int = 512, embed: Optional[int] = None, s4d_state: int = 64,
          dtype: str = "float32") -> None:
    """Raise ``ValueError`` for any impossible model setting (cheap; no allocation)."""
    if core not in CORES:
        raise ValueError(f"unknown core {core!r}; valid: {', '.join(CORES)}")
    encodings.get(encoding)                                               # unknown key -> ValueError
    if input_mode not in INPUT_MODES:
        raise ValueError(f"unknown input_mode {input_mode!r}; valid: {', '.join(INPUT_MODES)}")
    if input_mode == "double" and encoding != "none":
        raise ValueError(f"input_mode 'double' ([emb, emb], App. C) takes encoding 'none', got {encoding!r}")
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; valid: {', '.join(DTYPES)}")
    for name, v, lo in (("vocab_size", vocab_size, 2), ("num_positions", num_positions, 1),
                        ("hidden", hidden, 1), ("embed", hidden if embed is None else embed, 1),
                        ("s4d_state", s4d_state, 2)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an int >= {lo}, got {v!r}")
    if s4d_state % 2:
        raise ValueError(f"s4d_state must be even (complex modes come in pairs), got {s4d_state}")


def build(vocab_size: int, num_positions: int, core: str = "lstm", encoding: str = "sinusoidal",
          input_mode: str = "concat", hidden: int = 512, embed: Optional[int] = None, s4d_state: int = 64,
          generator: Optional[torch.Generator] = None, device: str = "cpu",
          dtype: str = "float32") -> SequenceModel:
    """A :class:`SequenceModel` for tokens 0..V-1 plus the command V, positions 0..num_positions-1.

    ``embed`` defaults to ``hidden`` (512 = 512 in the paper); ``generator`` is a CPU ``torch.Generator``
    (``None``: a fresh one seeded 0); ``device`` is a name for :func:`penb.device.resolve_device`.
    """
    from penb.device import resolve_device

    check(vocab_size, num_positions, core, encoding, input_mode, hidden, embed, s4d_state, dtype)
    dev = resolve_device(device)
    g = generator if generator is not None else torch.Generator().manual_seed(0)
    model = SequenceModel(vocab_size, num_positions, core, encoding, input_mode, hidden,
                          hidden if embed is None else embed, s4d_state, g)
    return model.to(device=dev, dtype=DTYPES[dtype])


def count_parameters(model: nn.Module) -> int:
    """Number of trainable scalars (a complex parameter counts as its real view)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)

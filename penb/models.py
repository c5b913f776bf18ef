"""The models of the main paper (Morita, Sec. 3.2, App. C-D): embedding | encoding | core | readout.

    inputs LongTensor[B, T]
      -> embedding with V+1 rows (row V: the learnable "command" vector, N(0, 1) like the others)
      -> input vector per step, by ``input_mode``:
           concat  [embedding, encoding(position)]   (the paper; width embed + D_pos, D_pos = embed)
           add     embedding + encoding(position)    (an option of the original code)
           double  [embedding, embedding]            ("double vanilla", App. C; encoding must be none)
      -> core, by key: gru | lstm (torch.nn.GRU / nn.LSTM: cuDNN on GPU) | s4d (linear to hidden, S4D)
         | transformer (causal pre-norm layers of ``penb.transformer``; Irie's Question 4)
         (a concatenated encoding's share of a GRU/LSTM input projection: once per position on the CPU,
         ``RNNCore.forward_positional``)
      -> linear readout to V logits.

Positions are 0..T-1 through the input and output phases (no shared timestamps). Every parameter is
drawn from the ``torch.Generator`` given to :func:`build` (on the CPU, so that the initial weights do
not depend on the device), with PyTorch's default distributions; the model is then moved to the
requested device and dtype.

The ``transformer`` core takes options of its own (:data:`CORE_OPTIONS`: ``layers``, ``heads``,
``ffn``, ``norm``); the other cores take none. Its encoding is always ADDED to the embedding
(``input_mode="add"``, ``embed == hidden``; ``none`` adds nothing), and its embedding rows are drawn
N(0, 1/hidden) instead of N(0, 1), so that a token vector and a (unit-norm) encoding row have about
the same length: otherwise the encoding would be a 1/sqrt(hidden)-sized ripple on the token vector.
Its attention is causal: position t attends to positions s <= t.
"""
from __future__ import annotations

import math
from typing import Optional

import torch
from torch import nn

from penb import encodings
from penb.device import resolve_device
from penb.s4d import S4D
from penb.transformer import NORMS, Block, attention_mask

CORES = ("gru", "lstm", "s4d", "transformer")
INPUT_MODES = ("concat", "add", "double")
DTYPES = {"float32": torch.float32, "float64": torch.float64}
CORE_OPTIONS = {"transformer": {"layers": 2, "heads": 4, "ffn": None, "norm": "pre"}}  # ffn None: 4 x hidden
OPTION_NAMES = tuple(sorted({k for opts in CORE_OPTIONS.values() for k in opts}))


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

    def forward_positional(self, emb: torch.Tensor, pe: torch.Tensor) -> torch.Tensor:
        """``forward(cat([emb, pe broadcast over B], -1))``, with the encoding's input projection done once per
        position: ``emb: Tensor[B, T, E]``, ``pe: Tensor[T, D]`` (positions 0..T-1) -> ``Tensor[B, T, hidden]``.

        The gates' input term ``W_ih [emb_t; pe_t] = W_e emb_t + W_p pe_t``; ``W_p pe_t`` depends on t alone.
        It is computed once as ``P = W_p pe^T`` (``[G*hidden, T]``, G = 4 for the LSTM, 3 for the GRU) and fed
        back through a one-hot of the position: the core runs on ``[emb_t; onehot(t)]`` (width E + T) with
        input weights ``[W_e, P]``, so ``[W_e, P] [emb_t; onehot(t)] = W_e emb_t + P[:, t]``. The same
        parameters (``weight_ih_l0`` keeps its E + D columns) and the same maths, in the fused op that
        ``nn.LSTM``/``nn.GRU`` call themselves (oneDNN's LSTM on the CPU); cheaper when T < D
        (``benchmarks/pe_input.py``). ``P`` is computed in the weights' dtype, outside autocast.
        """
        rnn = self.rnn
        B, T, E = emb.shape
        w_ih = rnn.weight_ih_l0                                               # [G*hidden, E + D]
        with torch.autocast(emb.device.type, enabled=False):
            per_position = w_ih[:, E:] @ pe.to(w_ih.dtype).T                  # [G*hidden, T]
        weights = [torch.cat([w_ih[:, :E], per_position], 1), rnn.weight_hh_l0, rnn.bias_ih_l0, rnn.bias_hh_l0]
        onehot = torch.eye(T, dtype=emb.dtype, device=emb.device).expand(B, T, T)  # [B, T, T]
        x = torch.cat([emb, onehot], -1)                                       # [B, T, E + T]
        h0 = torch.zeros(1, B, rnn.hidden_size, dtype=x.dtype, device=x.device)
        args = (rnn.bias, 1, 0.0, self.training, False, True)      # bias, layers, dropout, train, bidir, batch_first
        if self.kind == "lstm":
            return torch._VF.lstm(x, (h0, h0), weights, *args)[0]
        return torch._VF.gru(x, h0, weights, *args)[0]


class S4DCore(nn.Module):
    """Linear D_in -> hidden, then one S4D layer: ``Tensor[B, T, D_in] -> Tensor[B, T, hidden]``."""

    def __init__(self, n_in: int, hidden: int, state_size: int, g: torch.Generator):
        super().__init__()
        self.kind = "s4d"
        self.in_proj = _linear(n_in, hidden, g)
        self.ssm = S4D(hidden, state_size, generator=g)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ssm(self.in_proj(x))


class TransformerCore(nn.Module):
    """``layers`` causal :class:`penb.transformer.Block` s (softmax attention, ``heads`` heads, feed-forward
    width ``ffn``, layer norm ``norm``), then a final LayerNorm for ``norm="pre"``:
    ``Tensor[B, T, hidden] -> Tensor[B, T, hidden]``. Linear layers get PyTorch's default
    U(-1/sqrt(n_in), 1/sqrt(n_in)) drawn from ``g``; LayerNorms start at weight 1, bias 0.
    """

    def __init__(self, hidden: int, layers: int, heads: int, ffn: int, norm: str, g: torch.Generator):
        super().__init__()
        self.kind = "transformer"
        self.blocks = nn.ModuleList(Block(hidden, heads, ffn, True, norm) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden) if norm == "pre" else nn.Identity()
        for module in self.blocks.modules():
            if isinstance(module, nn.Linear):
                for p in module.parameters():
                    _uniform_(p, 1 / math.sqrt(module.in_features), g)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mask = attention_mask("causal", x.shape[1], x.device)                  # [T, T], True = may attend
        for block in self.blocks:
            x = block(x, mask)
        return self.ln_f(x)


class SequenceModel(nn.Module):
    """``forward(inputs: LongTensor[B, T]) -> logits Tensor[B, T, V]``; see the module docstring.

    ``fold_encoding`` (class default True): a GRU/LSTM computes its concatenated encoding's input projection once
    per position (:meth:`folds_encoding`); False feeds ``[embedding, encoding]`` to ``nn.GRU``/``nn.LSTM`` as such
    (the reference of ``tests/test_models.py`` and the "before" of ``benchmarks/pe_input.py``).
    """

    fold_encoding = True

    def __init__(self, vocab_size: int, num_positions: int, core: str, encoding: str, input_mode: str,
                 hidden: int, embed: int, s4d_state: int, g: torch.Generator, **core_options):
        super().__init__()
        self.vocab_size, self.num_positions, self.input_mode = vocab_size, num_positions, input_mode
        self.embedding = nn.Embedding(vocab_size + 1, embed)
        with torch.no_grad():
            if core == "transformer":                  # token vector about as long as a unit-norm PE row
                self.embedding.weight.normal_(0.0, 1 / math.sqrt(embed), generator=g)
            else:
                self.embedding.weight.normal_(generator=g)
        self.encoding = encodings.get(encoding).build(num_positions, embed, g)
        width = {"concat": embed + self.encoding.width, "add": embed, "double": 2 * embed}[input_mode]
        if core == "s4d":
            self.core = S4DCore(width, hidden, s4d_state, g)
        elif core == "transformer":
            self.core = TransformerCore(hidden, g=g, **core_options)
        else:
            self.core = RNNCore(core, width, hidden, g)
        self.readout = _linear(hidden, vocab_size, g)

    def encoding_rows(self, T: int, dtype: torch.dtype) -> torch.Tensor:
        """The encoding of positions 0..T-1, ``Tensor[T, D_pos]``; ``ValueError`` beyond ``num_positions``."""
        if T > self.num_positions:
            raise ValueError(f"sequence of {T} steps, but the encoding covers positions 0..{self.num_positions - 1}")
        return self.encoding.table()[:T].to(dtype)

    def input_vectors(self, inputs: torch.Tensor) -> torch.Tensor:
        """LongTensor[B, T] -> the core's input Tensor[B, T, D_in]."""
        emb = self.embedding(inputs)                                          # [B, T, E]
        if self.input_mode == "double":
            return torch.cat([emb, emb], -1)
        enc = self.encoding_rows(inputs.shape[1], emb.dtype).expand(*inputs.shape, -1)  # [B, T, D_pos]
        if self.input_mode == "add":
            return emb + enc if self.encoding.width else emb                   # "none": nothing to add
        return torch.cat([emb, enc], -1)

    def folds_encoding(self, inputs: torch.Tensor) -> bool:
        """Whether :meth:`features` takes :meth:`RNNCore.forward_positional` (same result, less work): a GRU or
        LSTM with a concatenated encoding of width D > T, on the CPU (cuDNN takes the module's own weights)."""
        return (self.fold_encoding and isinstance(self.core, RNNCore) and self.input_mode == "concat"
                and inputs.device.type == "cpu" and inputs.shape[1] < self.encoding.width)

    def features(self, inputs: torch.Tensor) -> torch.Tensor:
        """LongTensor[B, T] -> the core's output Tensor[B, T, hidden]."""
        if self.folds_encoding(inputs):
            emb = self.embedding(inputs)                                      # [B, T, E]
            return self.core.forward_positional(emb, self.encoding_rows(inputs.shape[1], emb.dtype))
        return self.core(self.input_vectors(inputs))

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.readout(self.features(inputs))


def core_options(core: str, options: dict, hidden: int) -> dict:
    """The full option dict of ``core`` (defaults filled, ``ffn`` None -> 4 x hidden), checked.

    Raises ``ValueError`` for an option that ``core`` does not take or an impossible value.
    """
    allowed = CORE_OPTIONS.get(core, {})
    given = {k: v for k, v in options.items() if v is not None}
    wrong = set(given) - set(allowed)
    if wrong:
        raise ValueError(f"core {core!r} takes no option(s) {sorted(wrong)}; "
                         f"its options: {sorted(allowed) or 'none'}")
    out = {**allowed, **given}
    if core == "transformer":
        if out["ffn"] is None:
            out["ffn"] = 4 * hidden
        for name in ("layers", "heads", "ffn"):
            v = out[name]
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"transformer option {name!r} must be an int >= 1, got {v!r}")
        if out["norm"] not in NORMS:
            raise ValueError(f"unknown norm {out['norm']!r}; valid: {', '.join(NORMS)}")
        if isinstance(hidden, int) and hidden % out["heads"]:
            raise ValueError(f"transformer: hidden ({hidden}) must be divisible by heads ({out['heads']})")
    return out


def default_input_mode(core: str) -> str:
    """``add`` for the transformer core (its encoding is added), ``concat`` (the paper's) for the others."""
    return "add" if core == "transformer" else "concat"


def check(vocab_size: int, num_positions: int, core: str = "lstm", encoding: str = "sinusoidal",
          input_mode: Optional[str] = None, hidden: int = 512, embed: Optional[int] = None, s4d_state: int = 64,
          dtype: str = "float32", **options) -> None:
    """Raise ``ValueError`` for any impossible model setting (cheap; no allocation).

    ``options``: the core's own options (:data:`CORE_OPTIONS`), e.g. ``layers=1`` for ``transformer``;
    ``input_mode`` None means :func:`default_input_mode`.
    """
    if core not in CORES:
        raise ValueError(f"unknown core {core!r}; valid: {', '.join(CORES)}")
    input_mode = default_input_mode(core) if input_mode is None else input_mode
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
    encodings.get(encoding).check(num_positions, hidden if embed is None else embed)  # e.g. onehot: embed >= T
    if s4d_state % 2:
        raise ValueError(f"s4d_state must be even (complex modes come in pairs), got {s4d_state}")
    if core == "transformer":
        if input_mode != "add":
            raise ValueError(f"the transformer core adds its encoding to the embedding: input_mode must be "
                             f"'add', got {input_mode!r}")
        if embed is not None and embed != hidden:
            raise ValueError(f"the transformer core needs embed == hidden (or None), got embed={embed}, "
                             f"hidden={hidden}")
    core_options(core, options, hidden)


def build(vocab_size: int, num_positions: int, core: str = "lstm", encoding: str = "sinusoidal",
          input_mode: Optional[str] = None, hidden: int = 512, embed: Optional[int] = None, s4d_state: int = 64,
          generator: Optional[torch.Generator] = None, device: str = "cpu",
          dtype: str = "float32", **options) -> SequenceModel:
    """A :class:`SequenceModel` for tokens 0..V-1 plus the command V, positions 0..num_positions-1.

    ``input_mode`` None: ``concat`` (``add`` for the transformer); ``embed`` defaults to ``hidden``
    (512 = 512 in the paper); ``generator`` is a CPU ``torch.Generator`` (``None``: a fresh one seeded 0);
    ``device`` is a name for :func:`penb.device.resolve_device`;
    ``options`` are the core's own (``layers``, ``heads``, ``ffn``, ``norm`` for ``transformer``).
    """
    input_mode = default_input_mode(core) if input_mode is None else input_mode
    check(vocab_size, num_positions, core, encoding, input_mode, hidden, embed, s4d_state, dtype, **options)
    dev = resolve_device(device)
    g = generator if generator is not None else torch.Generator().manual_seed(0)
    extra = core_options(core, options, hidden) if core in CORE_OPTIONS else {}
    model = SequenceModel(vocab_size, num_positions, core, encoding, input_mode, hidden,
                          hidden if embed is None else embed, s4d_state, g, **extra)
    return model.to(device=dev, dtype=DTYPES[dtype])


def count_parameters(model: nn.Module) -> int:
    """Number of trainable scalars (a complex parameter counts as its real view)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)

"""A small Transformer sequence model: Irie's demonstrations use it, the training engine can too.

Shapes: B batch, T positions, D model width, H heads, E = D / H head width, V vocabulary.

Every design choice is a constructor argument:

* ``mask``: ``"causal"`` (query t sees keys s <= t; Irie Eq. 6 with the triangular M), ``"full"``
  (no mask: non-autoregressive self-attention, M = 1), or any (T, T) bool tensor, True = may attend.
  ``forward``/``states`` also take a mask, which overrides the model's own for that call.
* ``softmax``: True gives scaled dot-product attention, softmax(q.k / sqrt(E)) over the allowed keys.
  False gives *linear* attention as in Irie Sec. 4: no softmax, no normalisation and no scale, so
  y_t = sum_{s allowed} (q_t . k_s) v_s, which is the fast-weight form y_t = W_t q_t.
* ``norm``: ``"pre"`` (x + f(LN(x)) in each sub-layer and one LN before the head, as in GPT-2; the
  default), ``"post"`` (LN(x + f(x)), as in Vaswani et al.), or ``"none"`` (x + f(x), no LN).
  Residual connections surround both sub-layers in all three cases. LN acts per position, so the
  choice never changes which positions an output depends on.
* ``encoding``: a key of ``penb.encodings``; its (max_len, D) table is ADDED to the token
  embeddings (``generator`` draws random/learnable tables). ``"none"`` (width 0) adds nothing, and
  then sequences of any length are accepted.
* the feed-forward block is Linear(D, F) -> GELU -> Linear(F, D), applied to each position alone.

q, k, v and the attention's output projection have no bias (Irie Eq. 1). No dropout.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from penb import encodings

MASKS = ("causal", "full")
NORMS = ("pre", "post", "none")


def attention_mask(kind, T: int, device=None) -> torch.Tensor:
    """(T, T) bool, row = query position, column = key position, True = may attend."""
    if isinstance(kind, torch.Tensor):
        if kind.shape != (T, T) or kind.dtype != torch.bool:
            raise ValueError(f"a mask tensor must be bool of shape ({T}, {T}), got {kind.dtype} {tuple(kind.shape)}")
        mask = kind.to(device)
    elif kind == "causal":
        mask = torch.ones(T, T, dtype=torch.bool, device=device).tril()
    elif kind == "full":
        mask = torch.ones(T, T, dtype=torch.bool, device=device)
    else:
        raise ValueError(f"unknown mask {kind!r}; valid: {', '.join(MASKS)} or a (T, T) bool tensor")
    if not bool(mask.any(-1).all()):
        raise ValueError("every query position must be allowed to attend to at least one key")
    return mask


def build_encoding(key: str, num_positions: int, dim: int, generator: torch.Generator | None = None):
    """``penb.encodings.get(key).build(num_positions, dim, generator)``: a module whose ``table()`` is
    (num_positions, width) with width ``dim``, or 0 for ``"none"``."""
    enc = encodings.get(key).build(num_positions, dim, generator)
    if enc.width not in (0, dim):
        raise ValueError(f"encoding {key!r} has width {enc.width}; adding it to the embedding needs {dim}")
    return enc


class SelfAttention(nn.Module):
    """Multi-head self-attention: x (B, T, D), mask (T, T) bool -> (B, T, D)."""

    def __init__(self, dim: int, heads: int, softmax: bool = True):
        super().__init__()
        if dim % heads:
            raise ValueError(f"dim {dim} must be divisible by heads {heads}")
        self.heads, self.softmax = heads, softmax
        self.q, self.k, self.v, self.out = (nn.Linear(dim, dim, bias=False) for _ in range(4))

    def weights(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Attention weights (B, H, T_query, T_key); masked entries are exactly 0."""
        q, k = self._split(self.q(x)), self._split(self.k(x))
        scores = q @ k.transpose(-1, -2)                     # (B, H, T, T)
        if not self.softmax:
            return scores * mask                             # linear attention: no scale, no normalisation
        scores = scores / math.sqrt(q.shape[-1])
        return scores.masked_fill(~mask, float("-inf")).softmax(-1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        y = self.weights(x, mask) @ self._split(self.v(x))   # (B, H, T, E)
        return self.out(y.transpose(1, 2).reshape(B, T, D))

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        """(B, T, D) -> (B, H, T, E)."""
        B, T, D = x.shape
        return x.view(B, T, self.heads, D // self.heads).transpose(1, 2)


class Block(nn.Module):
    """One layer: self-attention, then feed-forward, each with a residual: (B, T, D) -> (B, T, D)."""

    def __init__(self, dim: int, heads: int, ffn: int, softmax: bool, norm: str):
        super().__init__()
        self.norm = norm
        self.attn = SelfAttention(dim, heads, softmax)
        self.ff = nn.Sequential(nn.Linear(dim, ffn), nn.GELU(), nn.Linear(ffn, dim))
        self.ln1, self.ln2 = ((nn.LayerNorm(dim), nn.LayerNorm(dim)) if norm != "none"
                              else (nn.Identity(), nn.Identity()))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if self.norm == "post":
            x = self.ln1(x + self.attn(x, mask))
            return self.ln2(x + self.ff(x))
        x = x + self.attn(self.ln1(x), mask)                 # "pre" ("none": the LNs are identities)
        return x + self.ff(self.ln2(x))


class Transformer(nn.Module):
    """tokens (B, T) long -> logits (B, T, V): embedding (+ encoding) -> layers -> (LN) -> linear head."""

    def __init__(self, vocab: int, dim: int = 64, heads: int = 4, layers: int = 2, ffn: int | None = None,
                 softmax: bool = True, norm: str = "pre", mask="causal", encoding: str = "none",
                 max_len: int = 512, generator: torch.Generator | None = None):
        super().__init__()
        if norm not in NORMS:
            raise ValueError(f"unknown norm {norm!r}; valid: {', '.join(NORMS)}")
        if vocab < 1 or layers < 1 or dim < 1 or heads < 1 or max_len < 1:
            raise ValueError(f"vocab, dim, heads, layers and max_len must be >= 1, got {vocab}, {dim}, {heads}, "
                             f"{layers}, {max_len}")
        if not isinstance(mask, torch.Tensor):
            attention_mask(mask, 1)                          # validates the key now
        self.mask, self.encoding, self.max_len = mask, encoding, max_len
        self.embed = nn.Embedding(vocab, dim)
        self.pe = build_encoding(encoding, max_len, dim, generator)  # fixed: a buffer; learnable: a parameter
        self.blocks = nn.ModuleList(Block(dim, heads, ffn or 4 * dim, softmax, norm) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim) if norm == "pre" else nn.Identity()
        self.head = nn.Linear(dim, vocab)

    def inputs(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, T) -> layer-0 inputs (B, T, D): embedding, plus the encoding's first T rows."""
        x = self.embed(tokens)
        if self.pe.width:
            if tokens.shape[1] > self.max_len:
                raise ValueError(f"sequence length {tokens.shape[1]} exceeds the encoding's max_len {self.max_len}")
            x = x + self.pe.table()[: tokens.shape[1]]
        return x

    def states(self, tokens: torch.Tensor | None = None, mask=None, x: torch.Tensor | None = None) -> list:
        """[layer-0 inputs, output of layer 1, ..., output of layer L], each (B, T, D).

        Give ``tokens`` (B, T), or ``x`` (B, T, D) to feed vectors directly (no encoding is added then).
        ``mask`` overrides the model's own mask ("causal", "full" or a (T, T) bool tensor).
        """
        x = self.inputs(tokens) if x is None else x
        m = attention_mask(self.mask if mask is None else mask, x.shape[1], x.device)
        out = [x]
        for block in self.blocks:
            out.append(block(out[-1], m))
        return out

    def forward(self, tokens: torch.Tensor, mask=None) -> torch.Tensor:
        """tokens (B, T) -> next-token logits (B, T, V)."""
        return self.head(self.ln_f(self.states(tokens, mask)[-1]))

"""What every positional encoding builds on: the base class, the empty encoding, a table (fixed or
learnable), a blog formula, and Eq. 1-2's sinusoidal table. The registry (``penb.encodings``) and the encodings
beyond the texts (``penb.encodings.variants``) both import them from here, so ``variants`` never imports the
registry (the registry imports ``variants``).
"""
from __future__ import annotations

import math
from typing import Optional

import torch
from torch import nn

from penb.encodings import blog


def sinusoidal(num_positions: int, dim: int, layout: str = "interleaved") -> torch.Tensor:
    """Eq. 1-2 of the main paper: ``Tensor[num_positions, dim]`` with unit-norm rows.

    Row ``p`` (position ``p = t - 1``), 0-based ``i = 0 .. dim/2 - 1``, ``w_i = 10000^(-2i/dim)``:
    ``layout="interleaved"`` (the paper's equations): ``[sin(p w_0), cos(p w_0), sin(p w_1), ...]``;
    ``layout="concat"`` (the official code): ``[sin(p w_0), ..., sin(p w_{d/2-1}), cos(p w_0), ...]``.
    Both are divided by ``sqrt(dim/2)``.
    """
    _check_sizes(num_positions, dim)
    if dim % 2:
        raise ValueError(f"sinusoidal encoding needs an even dim (sin/cos pairs), got {dim}")
    if layout not in ("interleaved", "concat"):
        raise ValueError(f"unknown layout {layout!r}; valid: interleaved, concat")
    pos = torch.arange(num_positions, dtype=torch.float64)[:, None]               # [P, 1]
    freq = 10000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)      # [dim/2]
    angle = pos * freq                                                            # [P, dim/2]
    if layout == "interleaved":
        out = torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(num_positions, dim)
    else:
        out = torch.cat([angle.sin(), angle.cos()], dim=-1)
    return (out / math.sqrt(dim / 2)).to(torch.float32)


def _check_sizes(num_positions: int, dim: int) -> None:
    for name, v in (("num_positions", num_positions), ("dim", dim)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")


class PositionalEncoding(nn.Module):
    """Base module: ``forward(positions: LongTensor[...]) -> Tensor[..., width]``.

    ``width`` is ``dim`` (0 for ``none``); ``table()`` is ``Tensor[num_positions, width]``.
    """

    def __init__(self, key: str, num_positions: int, width: int):
        super().__init__()
        self.key, self.num_positions, self.width = key, num_positions, width

    def table(self) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def check_positions(self, positions: torch.Tensor) -> None:
        """Raise ``ValueError`` unless ``positions`` is an integer tensor in ``[0, num_positions)``."""
        if positions.dtype.is_floating_point or positions.dtype == torch.bool:
            raise ValueError(f"positions must be an integer tensor, got {positions.dtype}")
        if positions.numel():
            lo, hi = int(positions.min()), int(positions.max())
            if lo < 0 or hi >= self.num_positions:
                raise ValueError(f"encoding {self.key!r} was built for positions 0..{self.num_positions - 1}; "
                                 f"got positions in [{lo}, {hi}]")

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        self.check_positions(positions)
        return self.table()[positions]

    def extra_repr(self) -> str:
        return f"key={self.key!r}, num_positions={self.num_positions}, width={self.width}"


class NoEncoding(PositionalEncoding):
    """``none``: width 0, so ``torch.cat([emb, enc(pos)], -1)`` is just ``emb``."""

    def __init__(self, num_positions: int):
        super().__init__("none", num_positions, 0)
        self.register_buffer("_empty", torch.zeros(num_positions, 0), persistent=False)

    def table(self) -> torch.Tensor:
        return self._empty


class TableEncoding(PositionalEncoding):
    """A stored table ``[num_positions, dim]``: a buffer if fixed, an ``nn.Parameter`` if learnable."""

    def __init__(self, key: str, values: torch.Tensor, learnable: bool):
        super().__init__(key, values.shape[0], values.shape[1])
        if learnable:
            self.weight = nn.Parameter(values.clone())
        else:
            self.register_buffer("weight", values.clone())

    def table(self) -> torch.Tensor:
        return self.weight


class BlogEncoding(PositionalEncoding):
    """One of the blog's nine: parameters from ``blog.init_params``, table recomputed on use.

    ``formula`` is the blog key whose formula is used (default: ``key``; a subclass may register another key).
    """

    def __init__(self, key: str, num_positions: int, dim: int, learnable: bool,
                 generator: Optional[torch.Generator] = None, formula: Optional[str] = None):
        super().__init__(key, num_positions, dim)
        self.dim, self.formula = dim, key if formula is None else formula
        self._names = []
        for name, value in blog.init_params(self.formula, dim, generator=generator).items():
            value = torch.as_tensor(value, dtype=torch.float32)
            if learnable:
                setattr(self, name, nn.Parameter(value.clone()))
            else:
                self.register_buffer(name, value.clone())
            self._names.append(name)

    def params(self) -> dict:
        """The encoding's parameters by name (``w``, ``b``, ``mu``, ``v``; empty for fixed formulas)."""
        return {n: getattr(self, n) for n in self._names}

    def table(self, sentinel: Optional[float] = None) -> torch.Tensor:
        """``[num_positions, dim]``; ``sentinel`` replaces the blog's -9999999 at position 0 of ``normal*``."""
        extra = {} if sentinel is None else {"sentinel": sentinel}
        return blog.table(self.formula, self.params(), self.num_positions, self.dim, **extra)

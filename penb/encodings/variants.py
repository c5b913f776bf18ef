"""Encodings beyond the two texts (source "penb"), registered in ``penb.encodings`` (``BEYOND_KEYS``).

* ``sinusoidal_high`` / ``_low`` / ``_spread``: Eq. 1-2 keeping only some sin/cos pairs
  (:func:`band_pairs`), every other dimension 0, rows still of unit norm (:func:`sinusoidal_pairs`).
* ``sinusoidal_phase``: all pairs, pair ``i`` shifted by a fixed phase ``phi_i ~ U(0, 2 pi)``.
* ``unit_<k>`` for the blog's nine ``k``: ``c * (blog table)``, the scalar ``c`` fixed at build so that
  the mean row norm of the initial table is 1; row 0 of ``normal*`` is finite (:class:`UnitBlogEncoding`).
* ``onehot``: row ``p`` is ``e_p`` (needs ``dim >= num_positions``).
"""
from __future__ import annotations

import math
import operator
from typing import Optional, Sequence

import numpy as np
import torch

from penb.encodings import blog
from penb.encodings.tables import BlogEncoding, PositionalEncoding, TableEncoding, _check_sizes

BANDS = ("high", "low", "spread", "full")


def _check_pairs(pairs: Sequence[int], dim: int) -> list[int]:
    """The pair indices as a list of ints; ``ValueError`` unless distinct, in ``0..dim/2-1``, non-empty."""
    try:
        items = list(pairs)
        idx = [operator.index(i) for i in items]
    except TypeError:
        raise ValueError(f"pairs must be a sequence of ints, got {pairs!r}") from None
    if any(isinstance(i, bool) for i in items):
        raise ValueError(f"pairs must be ints, not bools, got {pairs!r}")
    if not idx:
        raise ValueError("pairs must be non-empty")
    if len(set(idx)) != len(idx):
        raise ValueError(f"pairs must be distinct, got {idx}")
    bad = [i for i in idx if not 0 <= i < dim // 2]
    if bad:
        raise ValueError(f"pair indices must lie in 0..{dim // 2 - 1} for dim={dim}, got {bad}")
    return idx


def sinusoidal_pairs(num_positions: int, dim: int, pairs: Sequence[int],
                     phases: Optional[Sequence[float]] = None) -> torch.Tensor:
    """Eq. 1-2 restricted to the sin/cos pairs ``pairs``: ``Tensor[num_positions, dim]`` (float32).

    For ``i`` in ``pairs`` (``k = len(pairs)``), ``w_i = 10000^(-2i/dim)``, positions ``p = 0..num_positions-1``:
    ``out[p, 2i] = sin(p w_i + phi_i) / sqrt(k)`` and ``out[p, 2i+1] = cos(p w_i + phi_i) / sqrt(k)``; every
    other dimension is exactly 0, so each row has unit L2 norm. ``phases``: ``phi`` aligned with ``pairs``
    (``[k]``; None: all 0). Computed in float64. ``ValueError`` for an odd dim or bad pairs/phases.
    """
    _check_sizes(num_positions, dim)
    if dim % 2:
        raise ValueError(f"sinusoidal encodings need an even dim (sin/cos pairs), got {dim}")
    idx = _check_pairs(pairs, dim)
    if phases is None:
        phi = torch.zeros(len(idx), dtype=torch.float64)
    else:
        phi = torch.as_tensor(phases, dtype=torch.float64).reshape(-1)                  # [k]
        if phi.numel() != len(idx) or not torch.isfinite(phi).all():
            raise ValueError(f"phases must be {len(idx)} finite numbers (one per pair), got {phases!r}")
    cols = torch.tensor(idx)                                                             # [k]
    freq = 10000.0 ** (-2 * cols.to(torch.float64) / dim)                                # [k]
    angle = torch.arange(num_positions, dtype=torch.float64)[:, None] * freq + phi       # [P, k]
    out = torch.zeros(num_positions, dim, dtype=torch.float64)
    out[:, 2 * cols] = angle.sin()
    out[:, 2 * cols + 1] = angle.cos()
    return (out / math.sqrt(len(idx))).to(torch.float32)


def band_pairs(band: str, dim: int) -> tuple[int, ...]:
    """The pair indices ``i`` (of ``0 .. dim/2-1``, highest frequency first) kept by ``band``.

    ``high``: the first ``ceil(dim/4)`` pairs; ``low``: the rest (empty for dim 2); ``spread``: 4 pairs
    spread evenly from 0 to ``dim/2-1`` (all pairs when ``dim/2 < 4``); ``full``: all.
    """
    if band not in BANDS:
        raise ValueError(f"unknown band {band!r}; valid: {', '.join(BANDS)}")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2 or dim % 2:
        raise ValueError(f"dim must be an even int >= 2, got {dim!r}")
    n = dim // 2
    half = (n + 1) // 2
    if band == "high":
        return tuple(range(half))
    if band == "low":
        return tuple(range(half, n))
    if band == "spread" and n >= 4:
        return tuple(sorted({round(float(x)) for x in np.linspace(0, n - 1, 4)}))
    return tuple(range(n))


class UnitBlogEncoding(BlogEncoding):
    """``unit_<formula>``: ``scale * (blog table of formula)``, ``Tensor[num_positions, dim]``.

    ``scale`` (a buffer, never trained) makes the mean row L2 norm of the initial table 1. For ``normal*``
    row 0 is ``mu + sqrt(|v|) * ndtri(1/(2N))`` (position 0 taken half a step in) instead of the sentinel.
    Parameters are trained for the ``*_learned`` formulas, as in :class:`BlogEncoding`.
    """

    def __init__(self, formula: str, num_positions: int, dim: int, learnable: bool,
                 generator: Optional[torch.Generator] = None):
        super().__init__("unit_" + formula, num_positions, dim, learnable, generator, formula=formula)
        self.register_buffer("scale", torch.ones(()))
        with torch.no_grad():
            mean = float(self.table().double().norm(dim=-1).mean())
        if not (math.isfinite(mean) and mean > 0):
            raise ValueError(f"{self.key}: the table's mean row norm is {mean} at num_positions={num_positions}, "
                             f"dim={dim}; it cannot be scaled to 1")
        self.scale.fill_(1.0 / mean)

    def table(self, sentinel: Optional[float] = None) -> torch.Tensor:
        """``[num_positions, dim]``, finite; ``sentinel`` is ignored (kept for BlogEncoding's signature)."""
        raw = super().table()                                                    # [N, dim], sentinel row 0
        if self.formula.startswith("normal"):
            q0 = float(torch.special.ndtri(torch.tensor(0.5 / self.num_positions, dtype=torch.float64)))
            p = self.params()
            row0 = p["mu"] + p["v"].abs().sqrt() * q0                             # [dim]
            raw = torch.cat([row0[None].to(raw.dtype), raw[1:]], dim=0)
        return self.scale * raw


def check(key: str, num_positions: int, dim: int) -> None:
    """``ValueError`` if ``key`` (a beyond key) cannot be built for these sizes (which are valid ints)."""
    if key.startswith("sinusoidal_"):
        if dim % 2:
            raise ValueError(f"encoding {key!r} needs an even dim (sin/cos pairs), got {dim}")
        band = key.removeprefix("sinusoidal_")
        if band in BANDS and not band_pairs(band, dim):
            raise ValueError(f"encoding {key!r} keeps no sin/cos pair at dim={dim}; it needs dim >= 4")
    elif key == "onehot" and dim < num_positions:
        raise ValueError(f"encoding 'onehot' needs dim >= num_positions; got dim={dim} < "
                         f"num_positions={num_positions}")
    elif key in ("unit_direct1", "unit_directN") and num_positions < 2:
        raise ValueError(f"encoding {key!r} is all zeros at num_positions={num_positions}; it needs >= 2")
    elif key == "unit_sincos" and dim % 2:
        raise ValueError(f"encoding {key!r} needs an even dim, got {dim}")


def build(key: str, num_positions: int, dim: int, learnable: bool,
          generator: Optional[torch.Generator] = None) -> PositionalEncoding:
    """The module of beyond key ``key`` (sizes already checked by :func:`check`)."""
    if key == "onehot":
        return TableEncoding(key, torch.eye(num_positions, dim), learnable=False)
    if key.startswith("unit_"):
        return UnitBlogEncoding(blog.check_key(key.removeprefix("unit_")), num_positions, dim, learnable, generator)
    if key == "sinusoidal_phase":
        phases = torch.rand(dim // 2, generator=generator, dtype=torch.float64) * (2 * math.pi)   # [dim/2]
        enc = TableEncoding(key, sinusoidal_pairs(num_positions, dim, range(dim // 2), phases), learnable=False)
        enc.register_buffer("phases", phases)
        return enc
    pairs = band_pairs(key.removeprefix("sinusoidal_"), dim)
    return TableEncoding(key, sinusoidal_pairs(num_positions, dim, pairs), learnable=False)

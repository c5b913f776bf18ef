"""Positional encodings, registered by string key.

``get(key)`` returns an :class:`EncodingSpec`; ``spec.build(num_positions, dim, generator)``
returns a :class:`PositionalEncoding` module that maps ``positions: LongTensor[...]`` to
``Tensor[..., dim]`` and whose ``table()`` is the whole ``Tensor[num_positions, dim]``.
Fixed tables are buffers, learnable ones ``nn.Parameter``.

Keys
----
Main paper (Morita, Sec. 3.2 and App. D):

* ``none``: output width 0, so a model can always concatenate ``[embedding, encoding]``.
* ``sinusoidal``: Eq. 1-2, interleaved (sin at dims 2i, cos at dims 2i+1, 0-based), positions
  0, 1, ..., frequencies ``10000^(-2i/dim)``, every row divided by ``sqrt(dim/2)`` (unit L2 norm).
  The official code concatenates ``[sin(all freqs), cos(all freqs)]`` instead: the same
  vectors up to a fixed permutation of dimensions (see :func:`sinusoidal`, ``layout``).
* ``random``: fixed standard-normal vectors, L2-normalised per position (uniform on the sphere).
* ``learnable``: a standard-normal parameter per position, not normalised (``nn.Embedding`` init).

Blog (Hansen, "A Normally Distributed Position Encoding"): the nine keys of
``penb.encodings.blog`` (``sincos``, ``direct1``, ``directN``, ``linear_normal[_learned]``,
``linear_uniform[_learned]``, ``normal[_learned]``). Their parameters (``w``, ``b``, ``mu``, ``v``)
are trained for the ``*_learned`` keys. ``normal`` puts the blog's sentinel (-9999999) at
position 0, faithful to the blog, so it is meant for the blog's study, not for feeding an RNN.

Beyond the texts (source ``penb``, :mod:`penb.encodings.variants`):

* ``sinusoidal_high``, ``sinusoidal_low``, ``sinusoidal_spread``: Eq. 1-2 keeping only the highest-frequency
  half of the sin/cos pairs, the lowest half, or 4 pairs spread over the range; other dims 0, unit rows.
* ``sinusoidal_phase``: Eq. 1-2 with a fixed random phase ``phi_i ~ U(0, 2 pi)`` added to pair ``i``.
* ``unit_<k>`` for each blog key ``k``: the blog's table times a scalar fixed at build so that the mean row
  norm at initialisation is 1; ``normal``'s row 0 is ``mu + sqrt(|v|) ndtri(1/(2N))``, finite (for an RNN).
* ``onehot``: row ``p`` is the unit vector ``e_p``; needs ``dim >= num_positions``.

``spec.check(num_positions, dim)`` refuses impossible sizes (``ValueError``) before anything is built.

This package's ``__init__`` is the registry; its module ``blog`` holds the blog's nine formulas as
plain differentiable functions (used by the registry and by ``penb.chapters.invertibility``); its module
``variants`` holds the encodings beyond the texts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from penb.encodings import variants
from penb.encodings.tables import (BlogEncoding, NoEncoding, PositionalEncoding, TableEncoding,  # noqa: F401
                                   _check_sizes, sinusoidal)

PAPER_KEYS = ("none", "sinusoidal", "random", "learnable")
BLOG_KEYS = ("sincos", "direct1", "directN", "linear_normal", "linear_normal_learned",
             "linear_uniform", "linear_uniform_learned", "normal", "normal_learned")
BEYOND_KEYS = ("sinusoidal_high", "sinusoidal_low", "sinusoidal_spread", "sinusoidal_phase") + tuple(
    "unit_" + k for k in BLOG_KEYS) + ("onehot",)
KEYS = PAPER_KEYS + BLOG_KEYS + BEYOND_KEYS


@dataclass(frozen=True)
class EncodingSpec:
    """A registered encoding: ``build(num_positions, dim, generator)`` makes its module."""

    key: str
    learnable: bool
    source: str        # "Morita", "Hansen" or "penb" (beyond the texts)
    description: str

    def check(self, num_positions: int, dim: int) -> None:
        """``ValueError`` if this encoding cannot be built for ``num_positions`` positions and width ``dim``."""
        _check_sizes(num_positions, dim)
        if self.key in ("sinusoidal", "sincos") and dim % 2:
            raise ValueError(f"encoding {self.key!r} needs an even dim (sin/cos pairs), got {dim}")
        if self.key in BEYOND_KEYS:
            variants.check(self.key, num_positions, dim)

    def build(self, num_positions: int, dim: int,
              generator: Optional[torch.Generator] = None) -> PositionalEncoding:
        """A module for positions ``0 .. num_positions-1`` and width ``dim`` (0 for ``none``).

        ``generator`` (a ``torch.Generator``) draws the random/learnable values; ``None`` uses
        torch's global generator.
        """
        self.check(num_positions, dim)
        if self.key in BEYOND_KEYS:
            return variants.build(self.key, num_positions, dim, self.learnable, generator)
        if self.key == "none":
            return NoEncoding(num_positions)
        if self.key == "sinusoidal":
            return TableEncoding(self.key, sinusoidal(num_positions, dim), learnable=False)
        if self.key == "random":
            x = torch.randn(num_positions, dim, generator=generator)
            return TableEncoding(self.key, x / x.norm(dim=-1, keepdim=True), learnable=False)
        if self.key == "learnable":
            return TableEncoding(self.key, torch.randn(num_positions, dim, generator=generator), learnable=True)
        return BlogEncoding(self.key, num_positions, dim, self.learnable, generator)


_SPECS = {s.key: s for s in (
    EncodingSpec("none", False, "Morita", "no encoding (width 0): the vanilla model"),
    EncodingSpec("sinusoidal", False, "Morita", "Eq. 1-2: sin/cos at 10000^(-2i/D), rows of unit norm"),
    EncodingSpec("random", False, "Morita", "App. D: fixed standard-normal vectors, unit norm"),
    EncodingSpec("learnable", True, "Morita", "App. D: nn.Embedding-like N(0,1) parameters, not normalised"),
    EncodingSpec("sincos", False, "Hansen", "sin/cos of raw positions (sines, then cosines), 10000^(-2k/K), not normalised"),
    EncodingSpec("direct1", False, "Hansen", "dim 0 = pos/N, other dims 0"),
    EncodingSpec("directN", False, "Hansen", "every dim = pos/N"),
    EncodingSpec("linear_normal", False, "Hansen", "(pos/N) w + b, w ~ N(0,1)^K, b ~ N(0,1)"),
    EncodingSpec("linear_normal_learned", True, "Hansen", "linear_normal with w, b trained"),
    EncodingSpec("linear_uniform", False, "Hansen", "(pos/N) w + b, w ~ U(-1,1)^K, b ~ U(-1,1)"),
    EncodingSpec("linear_uniform_learned", True, "Hansen", "linear_uniform with w, b trained"),
    EncodingSpec("normal", False, "Hansen", "mu_k + sqrt(v_k) ndtri(pos/N): normal quantiles"),
    EncodingSpec("normal_learned", True, "Hansen", "normal with mu, v trained"),
    EncodingSpec("sinusoidal_high", False, "penb", "Eq. 1-2, only the highest-frequency half of the pairs, unit rows"),
    EncodingSpec("sinusoidal_low", False, "penb", "Eq. 1-2, only the lowest-frequency half of the pairs, unit rows"),
    EncodingSpec("sinusoidal_spread", False, "penb", "Eq. 1-2, only 4 pairs spread from 0 to D/2-1, unit rows"),
    EncodingSpec("sinusoidal_phase", False, "penb", "Eq. 1-2 with a fixed phase phi_i ~ U(0, 2 pi) per pair"),
    *(EncodingSpec("unit_" + k, k.endswith("_learned"), "penb",
                   f"{k} scaled to mean row norm 1 at init" + (", row 0 finite" if k.startswith("normal") else ""))
      for k in BLOG_KEYS),
    EncodingSpec("onehot", False, "penb", "row p = e_p, the p-th unit vector (needs D >= positions)"),
)}
assert tuple(_SPECS) == KEYS


def get(key: str) -> EncodingSpec:
    """The spec registered under ``key``; ``ValueError`` listing valid keys otherwise."""
    if not isinstance(key, str) or key not in _SPECS:
        raise ValueError(f"unknown positional encoding {key!r}; valid keys: {', '.join(KEYS)}")
    return _SPECS[key]


def build(key: str, num_positions: int, dim: int,
          generator: Optional[torch.Generator] = None) -> PositionalEncoding:
    """Shorthand for ``get(key).build(num_positions, dim, generator)``."""
    return get(key).build(num_positions, dim, generator)

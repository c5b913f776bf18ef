"""The nine position encodings of Hansen's blog ("A Normally Distributed Position Encoding").

Pure, differentiable torch functions; every table covers positions ``0..N-1`` with ``t = pos / N``.

======================== =====================================================================
key                      table row for position ``pos`` (``K = dim``, ``t = pos / N``)
======================== =====================================================================
sincos                   ``[sin(pos*r_0..r_{K/2-1}), cos(pos*r_0..r_{K/2-1})]``, ``r_i = 10000^(-i/(K/2))``
                         (raw integer positions; sines first, then cosines, as the original code)
direct1                  ``[t, 0, ..., 0]``
directN                  ``[t, t, ..., t]``
linear_normal            ``t * w + b``; ``w ~ N(0,1)^K``, one scalar ``b ~ N(0,1)`` (fixed)
linear_normal_learned    the same, ``w`` and ``b`` trained
linear_uniform           ``t * w + b``; ``w ~ U(-1,1)^K``, scalar ``b ~ U(-1,1)`` (fixed)
linear_uniform_learned   the same, ``w`` and ``b`` trained
normal                   ``mu + sqrt(|v|) * ndtri(t)`` for ``pos >= 1``; ``mu ~ N(0,1)^K``, ``v ~ |N(0,1)|^K``
                         (a variance). Position 0 (``ndtri(0) = -inf``) is the constant ``sentinel`` in
                         every dimension, independent of ``mu`` and ``v`` (original: -9999999).
normal_learned           the same, ``mu`` and ``v`` trained
======================== =====================================================================

API: ``init_params(key, dim, generator, batch)`` draws the random parameters (``{}`` for the
parameter-free encodings) and ``table(key, params, num_positions, dim, sentinel)`` builds the
``[*batch, num_positions, dim]`` table, differentiable with respect to the parameters.
"""
from __future__ import annotations

from typing import Optional

import torch

KEYS: tuple[str, ...] = (
    "sincos", "direct1", "directN", "linear_normal", "linear_normal_learned", "linear_uniform",
    "linear_uniform_learned", "normal", "normal_learned",
)
LEARNED: frozenset[str] = frozenset(k for k in KEYS if k.endswith("_learned"))
SENTINEL = -9999999.0  # the original code's stand-in for ndtri(0) = -inf at position 0

_PARAM_NAMES = {
    "sincos": (), "direct1": (), "directN": (),
    "linear_normal": ("w", "b"), "linear_normal_learned": ("w", "b"),
    "linear_uniform": ("w", "b"), "linear_uniform_learned": ("w", "b"),
    "normal": ("mu", "v"), "normal_learned": ("mu", "v"),
}


def check_key(key: str) -> str:
    """Return ``key`` or raise ``ValueError`` listing the valid keys."""
    if key not in _PARAM_NAMES:
        raise ValueError(f"unknown blog encoding {key!r}; valid keys: {', '.join(KEYS)}")
    return key


def param_names(key: str) -> tuple[str, ...]:
    """Names of the parameters of ``key``: ("w", "b"), ("mu", "v") or ()."""
    return _PARAM_NAMES[check_key(key)]


def _check_sizes(key: str, num_positions: int, dim: int) -> None:
    if not isinstance(dim, int) or dim < 1:
        raise ValueError(f"dim must be a positive int, got {dim!r}")
    if not isinstance(num_positions, int) or num_positions < 1:
        raise ValueError(f"num_positions must be a positive int, got {num_positions!r}")
    if key == "sincos" and dim % 2:
        raise ValueError(f"sincos needs an even dim, got {dim}")


def init_params(key: str, dim: int, generator: Optional[torch.Generator] = None, batch: tuple = (),
                *, dtype: Optional[torch.dtype] = None, device=None) -> dict[str, torch.Tensor]:
    """Random parameters of encoding ``key`` (fresh leaf tensors, ``requires_grad`` off).

    Linear encodings: ``w [*batch, dim]``, ``b [*batch]``; normal encodings: ``mu [*batch, dim]``,
    ``v [*batch, dim]`` (``v >= 0`` is a variance). Parameter-free encodings: ``{}``.
    Draw order per key: the first name, then the second (both from ``generator``).
    """
    check_key(key)
    _check_sizes(key, 1, dim)
    batch = tuple(int(s) for s in batch)
    if any(s < 0 for s in batch):
        raise ValueError(f"batch sizes must be >= 0, got {batch}")
    dtype = dtype or torch.get_default_dtype()
    kw = dict(generator=generator, dtype=dtype, device=device)
    if key.startswith("linear_normal"):
        return {"w": torch.randn(*batch, dim, **kw), "b": torch.randn(batch, **kw)}
    if key.startswith("linear_uniform"):
        return {"w": torch.rand(*batch, dim, **kw) * 2 - 1, "b": torch.rand(batch, **kw) * 2 - 1}
    if key.startswith("normal"):
        return {"mu": torch.randn(*batch, dim, **kw), "v": torch.randn(*batch, dim, **kw).abs()}
    return {}


def sincos_table(num_positions: int, dim: int, dtype=None, device=None) -> torch.Tensor:
    """``[N, dim]``: sines of ``pos * r_i`` in the first half, cosines in the second (float64 maths)."""
    half = dim // 2
    rates = 10000.0 ** (-torch.arange(half, dtype=torch.float64) / half)          # [K/2]
    ang = torch.arange(num_positions, dtype=torch.float64)[:, None] * rates[None]  # [N, K/2]
    out = torch.cat([ang.sin(), ang.cos()], dim=-1)
    return out.to(dtype=dtype or torch.get_default_dtype(), device=device)


def positions(num_positions: int, dtype=None, device=None) -> torch.Tensor:
    """``t = pos / N`` for ``pos = 0..N-1``: ``[N]``."""
    return (torch.arange(num_positions, dtype=torch.float64) / num_positions).to(
        dtype=dtype or torch.get_default_dtype(), device=device)


def normal_quantiles(num_positions: int, dtype=None, device=None) -> torch.Tensor:
    """``ndtri(pos / N)`` for ``pos = 1..N-1`` (position 0 excluded): ``[N-1]``, float64 maths."""
    t = torch.arange(1, num_positions, dtype=torch.float64) / num_positions
    return torch.special.ndtri(t).to(dtype=dtype or torch.get_default_dtype(), device=device)


def table(key: str, params: dict[str, torch.Tensor], num_positions: int, dim: int,
          sentinel: float = SENTINEL, *, dtype: Optional[torch.dtype] = None, device=None) -> torch.Tensor:
    """The encoding table ``[*batch, num_positions, dim]`` of ``key`` with ``params``.

    ``batch`` is the leading shape of the parameters (none for parameter-free keys). dtype and
    device follow the parameters when there are any, else the ``dtype``/``device`` arguments.
    ``sentinel`` fills row 0 of the normal encodings (and does not depend on ``mu``/``v``).
    """
    check_key(key)
    _check_sizes(key, num_positions, dim)
    names = _PARAM_NAMES[key]
    missing = [n for n in names if n not in params]
    if missing:
        raise ValueError(f"{key}: missing parameter(s) {missing}; expected {list(names)}")
    if names:
        ref = params[names[0]]
        dtype, device = ref.dtype, ref.device
        if ref.shape[-1] != dim:
            raise ValueError(f"{key}: parameter {names[0]!r} has last size {ref.shape[-1]}, expected dim={dim}")
    dtype = dtype or torch.get_default_dtype()
    if key == "sincos":
        return sincos_table(num_positions, dim, dtype, device)
    t = positions(num_positions, dtype, device)                                   # [N]
    if key == "direct1":
        out = torch.zeros(num_positions, dim, dtype=dtype, device=device)
        out[:, 0] = t
        return out
    if key == "directN":
        return t[:, None].expand(num_positions, dim).clone()
    if key.startswith("linear"):
        w, b = params["w"], params["b"]                                           # [*B, K], [*B]
        return t[:, None] * w[..., None, :] + b[..., None, None]
    mu, v = params["mu"], params["v"]                                             # [*B, K]
    q = normal_quantiles(num_positions, dtype, device)                            # [N-1]
    body = mu[..., None, :] + v.abs().sqrt()[..., None, :] * q[:, None]           # [*B, N-1, K]
    head = torch.full((*mu.shape[:-1], 1, dim), float(sentinel), dtype=dtype, device=device)
    return torch.cat([head, body], dim=-2)


def is_affine_in_t(key: str) -> bool:
    """True for encodings whose rows are affine in ``t`` (they share the floor of a sigmoid-of-affine fit)."""
    return check_key(key) in ("direct1", "directN") or key.startswith("linear")


__all__ = ["KEYS", "LEARNED", "SENTINEL", "init_params", "table", "param_names", "check_key",
           "sincos_table", "positions", "normal_quantiles", "is_affine_in_t"]

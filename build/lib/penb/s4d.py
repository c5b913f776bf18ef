"""A minimal S4D layer (S4 with a diagonal state matrix; Gu et al., 2022), as used by Morita (Sec. 3.2-3.3).

Per channel h = 1..H there are N/2 complex modes n (state size N = 64 by default), with

    A_n = -0.5 + i*pi*n   (S4D-Lin),   B_n = 1,   C_hn ~ complex normal (E|C|^2 = 1),
    dt_h log-uniform in [dt_min, dt_max] = [1e-3, 1e-1],

discretised by zero-order hold: x_k = exp(dt A) x_{k-1} + (exp(dt A) - 1)/A * u_k, y_k = 2 Re(C x_k).
The same map as a convolution has the kernel K_l = 2 Re(sum_n C_n (exp(dt A_n) - 1)/A_n exp(dt A_n)^l),
a Vandermonde product, applied by FFT of length 2L (no wrap-around). The layer adds the skip term D u,
then GELU, a 1x1 convolution to 2H channels and a GLU back to H. ``log_dt``, ``C``, ``log_A_real``,
``A_imag`` and ``D`` are all trained (one optimiser, as in the original code).

``S4D.forward`` uses the FFT; ``S4D.recurrence`` runs the same layer step by step (for tests and for
gradients with respect to the complex latent state).
"""
from __future__ import annotations

import math
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn


class S4DKernel(nn.Module):
    """Parameters of H diagonal SSMs with ``state_size // 2`` complex modes each."""

    def __init__(self, channels: int, state_size: int = 64, dt_min: float = 1e-3, dt_max: float = 1e-1,
                 generator: Optional[torch.Generator] = None):
        super().__init__()
        if state_size < 2 or state_size % 2:
            raise ValueError(f"state_size must be an even int >= 2, got {state_size}")
        if not 0 < dt_min <= dt_max:
            raise ValueError(f"need 0 < dt_min <= dt_max, got {dt_min}, {dt_max}")
        H, n = channels, state_size // 2
        u = torch.rand(H, generator=generator)
        self.log_dt = nn.Parameter(u * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min))   # [H]
        self.C = nn.Parameter(torch.randn(H, n, 2, generator=generator) * math.sqrt(0.5))          # [H, n, re/im]
        self.log_A_real = nn.Parameter(torch.full((H, n), math.log(0.5)))                          # [H, n]
        self.A_imag = nn.Parameter(math.pi * torch.arange(n, dtype=torch.float32).repeat(H, 1))     # [H, n]

    def _dtA(self) -> tuple[torch.Tensor, torch.Tensor]:
        A = torch.complex(-torch.exp(self.log_A_real), self.A_imag)     # [H, n]
        return A, A * torch.exp(self.log_dt)[:, None]

    def discrete(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(dA, dB, C): complex Tensors [H, n] with x_k = dA x_{k-1} + dB u_k and y_k = 2 Re(sum_n C x_k)."""
        A, dtA = self._dtA()
        dA = torch.exp(dtA)
        return dA, (dA - 1) / A, torch.view_as_complex(self.C)

    def forward(self, length: int) -> torch.Tensor:
        """The convolution kernel K: Tensor[H, length]."""
        A, dtA = self._dtA()
        steps = torch.arange(length, device=dtA.device, dtype=self.log_dt.dtype)
        vandermonde = torch.exp(dtA[:, :, None] * steps)                 # [H, n, length]
        coef = torch.view_as_complex(self.C) * (torch.exp(dtA) - 1) / A
        return 2 * torch.einsum("hn,hnl->hl", coef, vandermonde).real


class S4D(nn.Module):
    """S4D layer on channels-last input: ``forward(u: Tensor[B, L, H]) -> Tensor[B, L, H]``."""

    def __init__(self, channels: int, state_size: int = 64, dt_min: float = 1e-3, dt_max: float = 1e-1,
                 generator: Optional[torch.Generator] = None):
        super().__init__()
        self.channels = channels
        self.kernel = S4DKernel(channels, state_size, dt_min, dt_max, generator)
        self.D = nn.Parameter(torch.randn(channels, generator=generator))                         # [H]
        self.output = nn.Conv1d(channels, 2 * channels, kernel_size=1)                            # 1x1 conv
        bound = 1 / math.sqrt(channels)                                  # PyTorch's default Conv1d bounds
        with torch.no_grad():
            self.output.weight.uniform_(-bound, bound, generator=generator)
            self.output.bias.uniform_(-bound, bound, generator=generator)

    def convolve(self, u: torch.Tensor) -> torch.Tensor:
        """SSM output before the nonlinearity, by FFT: Tensor[B, L, H] -> Tensor[B, L, H] (includes D u)."""
        L = u.shape[1]
        dtype = self.D.dtype
        with torch.autocast(u.device.type, enabled=False):               # FFTs in the parameters' precision
            x = u.to(dtype).transpose(1, 2)                               # [B, H, L]
            k = self.kernel(L)                                            # [H, L]
            y = torch.fft.irfft(torch.fft.rfft(x, n=2 * L) * torch.fft.rfft(k, n=2 * L), n=2 * L)[..., :L]
            return (y + x * self.D[:, None]).transpose(1, 2)

    def recurrence(self, u: torch.Tensor, state: Optional[torch.Tensor] = None
                   ) -> tuple[torch.Tensor, torch.Tensor]:
        """The same pre-activation output step by step.

        u: Tensor[B, L, H]; state: complex Tensor[B, H, n] (zeros if None).
        Returns (y: Tensor[B, L, H], states: complex Tensor[B, L, H, n], the state after each step).
        """
        dA, dB, C = self.kernel.discrete()
        x = u.to(self.D.dtype)
        s = torch.zeros(x.shape[0], *dA.shape, dtype=dA.dtype, device=x.device) if state is None else state
        ys, states = [], []
        for k in range(x.shape[1]):
            s = dA * s + dB * x[:, k, :, None]                            # [B, H, n]
            states.append(s)
            ys.append(2 * (C * s).sum(-1).real + self.D * x[:, k])
        return torch.stack(ys, 1), torch.stack(states, 1)

    def head(self, y: torch.Tensor) -> torch.Tensor:
        """GELU, 1x1 convolution to 2H channels, GLU: Tensor[B, L, H] -> Tensor[B, L, H]."""
        z = self.output(F.gelu(y).transpose(1, 2))                        # [B, 2H, L]
        return F.glu(z, dim=1).transpose(1, 2)

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        return self.head(self.convolve(u))

"""Small helpers shared by the tests."""
import torch


def gen(seed: int = 0) -> torch.Generator:
    """A fresh CPU generator seeded with ``seed``."""
    return torch.Generator().manual_seed(seed)

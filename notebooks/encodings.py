# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python (penb)
#     language: python
#     name: penb
# ---

# %% [markdown]
# # Positional encodings
#
# ## Overview
#
# Placeholder while the chapter is written.

# %% tags=["parameters"]
from typing import Optional  # None below means "the preset's value"

preset: str = "quick"  # smoke, quick or paper
dim: Optional[int] = None  # encoding dimension D_pos

# %%
from penb import presets

cfg = presets.resolve("encodings", preset, dim=dim)
cfg

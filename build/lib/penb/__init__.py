"""penb: executable analyses of positional encoding (Morita; Irie; Hansen).

All logic lives in this package; the notebooks in ``notebooks/`` hold narrative,
parameters, calls into ``penb`` and figures.
"""
__version__ = "0.1.0"

"""Figures, one module per kind of figure (``penb.plots.<topic>``), shared by chapters.

Every function takes plain data (DataFrames, arrays) and returns a matplotlib Figure;
chapters stamp provenance onto it with ``penb.report.stamp``.
"""

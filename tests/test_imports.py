"""The import graph of ``penb`` has no circle (issue 35): every import of a ``penb`` module, at module level or
inside a function, read from the source with ``ast``, and the strongly connected components of that graph
(``scipy.sparse.csgraph``) are single modules. An import of a package's submodule counts as an edge to the
submodule only (``from penb.claims import grading`` reads ``penb/claims/grading.py``)."""
import ast

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from penb.store import paths


def _modules() -> dict:
    out = {}
    for p in (paths.REPO / "penb").rglob("*.py"):
        rel = p.relative_to(paths.REPO).with_suffix("")
        out[".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)] = p
    return out


def _edges(mods: dict) -> set:
    edges = set()
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "penb":
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.split(".")[0] == "penb"]
            edges |= {(name, t) for t in targets if t in mods and t != name}
    return edges


def circles(mods: dict, edges: set) -> list:
    names = sorted(mods)
    at = {n: i for i, n in enumerate(names)}
    rows, cols = zip(*[(at[a], at[b]) for a, b in edges]) if edges else ((), ())
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(names), len(names)))
    n, label = connected_components(graph, directed=True, connection="strong")
    return [sorted(names[i] for i in np.flatnonzero(label == k)) for k in range(n) if (label == k).sum() > 1]


def test_the_checker_finds_a_circle():
    mods = {"penb.a": None, "penb.b": None, "penb.c": None}
    assert circles(mods, {("penb.a", "penb.b"), ("penb.b", "penb.c")}) == []
    assert circles(mods, {("penb.a", "penb.b"), ("penb.b", "penb.a"), ("penb.b", "penb.c")}) == [["penb.a",
                                                                                                  "penb.b"]]


def test_no_circle_in_the_import_graph():
    mods = _modules()
    edges = _edges(mods)
    assert ("penb.claims.catalog", "penb.claims.morita") in edges          # the reader sees the imports
    assert circles(mods, edges) == []


def test_the_store_imports_no_executor_sweep_or_progress_line():
    """Issue 42: the store only stores; the sweep that picks an executor and reports progress is penb.sweeps."""
    edges = _edges(_modules())
    up = sorted((a, b) for a, b in edges if a.startswith("penb.store") and
                b.split(".")[1] in ("executors", "sweeps", "progress", "lease", "slice", "archive", "notebook"))
    assert up == []

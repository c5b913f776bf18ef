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


# The layering (issue 51), bottom first: a module may import its own layer and those below, never one above. A
# unit is penb's top-level module or package (penb.store.identity: "store"; penb.chapters.x.y: "chapters").
LAYERS = [
    ["store"],                                                   # paths, atomic writes, the hash, a run folder
    ["device", "names", "registry", "sizing", "config_checks", "preflight", "progress", "plotting",
     "encodings", "s4d", "transformer", "tokenizer", "corpus", "recurrence", "stacked"],   # leaves: devices, words, data
    ["tasks", "models", "metrics", "presets"],                   # what a run trains and is scored by; the presets
    ["run_config"],                                              # a configuration settled once
    ["runs"],                                                    # a configuration's key, folder and result
    ["trunks"],                                                  # budgets that share a trunk
    ["trainer"],                                                 # the one training loop
    ["runner"],                                                  # lock, skip, resume, train, finish
    ["executors", "sweeps"],                                     # where and how many groups run at once
    ["claims"],                                                  # the verdicts
    ["chapters", "report", "notebook"],                          # the chapters and their execution
    ["plan", "status", "power"],                                 # what a preset would train; the status page; what
                                                                 # would decide a figure (the deep preset's sizing)
    ["call", "long_run"],                                        # GPU work in short calls, one package (issue 60):
                                                                 # limits, fit, driver, slice, lease, device run,
                                                                 # archive; a CPU long run in segments (issue 65)
    ["cli", "__main__", "penb"],                                 # the command line
]
LEVEL = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def upward(edges: set) -> list:
    """The edges from a lower layer to a higher one."""
    return sorted((a, b) for a, b in edges if LEVEL[unit(a)] < LEVEL[unit(b)])


def test_the_checker_finds_an_arrow_up():
    assert upward({("penb.store.runs", "penb.trainer.run"), ("penb.trainer.run", "penb.store.paths")}) == \
        [("penb.store.runs", "penb.trainer.run")]


def test_every_module_has_a_layer_and_no_import_climbs():
    """Issue 51: the store at the bottom, one runner above the trainer, executors that only schedule; every unit
    of penb placed in :data:`LAYERS` (a new module must be given one), and no import from a lower layer to a
    higher one, at module level or inside a function."""
    mods = _modules()
    assert sorted({unit(m) for m in mods} - set(LEVEL)) == []
    assert upward(_edges(mods)) == []


def test_lock_resume_train_finish_is_written_once():
    """Issue 51: one runner (penb.runner.train_group) locks a group's run folders, skips what is done, resumes,
    trains through the one trainer and finishes each run; no other module of penb calls ``finish`` or resumes a
    run from its folder, and the single-run path (penb.runner.train_one) goes through train_group."""
    calls: dict = {}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                calls.setdefault(called, set()).add(name)
    assert calls["finish"] == {"penb.runner"}
    assert calls["train_group"] >= {"penb.runner"}
    source = (paths.REPO / "penb" / "runner.py").read_text()
    one = source[source.index("def train_one"):source.index("def run(")]
    assert "train_group(" in one and "Trainer(" not in one


def test_contributing_lists_every_module():
    """Issue 51: CONTRIBUTING's layout names every module of penb (a chapter's own folder follows the template it
    describes)."""
    text = (paths.REPO / "CONTRIBUTING.md").read_text()
    start = text.index("## Layout")
    block = text[start:text.index("```", text.index("```", start) + 3)]
    missing = [str(p.relative_to(paths.REPO)) for p in sorted((paths.REPO / "penb").rglob("*.py"))
               if p.name != "__init__.py" and p.name not in block
               and not ("chapters" in p.parts and p.parent.name not in ("chapters", "appendix"))]
    assert missing == []


def test_no_two_modules_outside_the_chapters_share_a_file_name():
    """Issue 67: one name per idea. (``penb.call.sizing`` became ``penb.call.fit``, beside ``penb.sizing``'s
    preset rules; the ``base.py`` of the executors, the tasks and the encodings became ``interface.py`` and
    ``local.py``, ``task.py`` and ``tables.py``.)"""
    from collections import Counter

    names = Counter(p.name for p in (paths.REPO / "penb").rglob("*.py")
                    if "chapters" not in p.relative_to(paths.REPO / "penb").parts)
    twins = {n for n, k in names.items() if k > 1} - {"__init__.py", "__main__.py"}
    assert twins == set(), twins


def test_each_preset_rule_is_named_by_its_one_home():
    """Issue 67: the preset rules live in ``penb.sizing`` (``penb.presets`` re-exports them). A rule's text names
    itself there, and nothing in the code, the notebooks or the docs calls one ``penb.presets.<RULE>``."""
    import re

    from penb import presets, sizing

    rules = {n: v for n, v in vars(sizing).items() if n.endswith("_RULE") and isinstance(v, str)}
    assert {"QUICK_RULE", "SLICE_RULE", "DEEP_RULE", "FREQ_DEEP_RULE"} <= set(rules)
    for name, text in rules.items():
        assert getattr(presets, name) is text
        named = re.findall(r"penb\.(\w+)\.[A-Z_]*RULE\b", text)
        assert set(named) <= {"sizing"}, (name, named)
    files = [*(paths.REPO / "penb").rglob("*.py"), *(paths.REPO / "notebooks").glob("*.py"),
             paths.REPO / "README.md", paths.REPO / "CONTRIBUTING.md"]
    other = [str(f.relative_to(paths.REPO)) for f in files if re.search(r"penb\.presets\.[A-Z_]*RULE\b", f.read_text())]
    assert other == []


def test_no_module_only_renames_another():
    """Issue 67: a run had seven homes, one of them ``penb/train.py``, nine lines of re-exports from the trainer.
    Every module of penb outside its packages' ``__init__.py`` defines something of its own: a function, a class or
    a value, not only imports."""
    bare = []
    for p in sorted((paths.REPO / "penb").rglob("*.py")):
        if p.name in ("__init__.py", "__main__.py"):
            continue
        body = [n for n in ast.parse(p.read_text()).body
                if not (isinstance(n, ast.Expr) and isinstance(getattr(n, "value", None), ast.Constant))]
        if body and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body):
            bare.append(str(p.relative_to(paths.REPO)))
    assert bare == []
    assert not (paths.REPO / "penb" / "train.py").exists()


def test_each_idea_the_issue_found_twice_has_one_home():
    """Issue 67's twins, read off the tree (every top-level function, class and name of penb): ``plan`` is the
    module ``penb.plan`` and no function (the batched executor's is ``in_batches``, a slice's ``contents``, a
    lease's ``ordered_runs``); the bootstraps live in ``penb.metrics``; ``gpu_hours`` in ``penb.executors.cost``;
    the power target and the fixed-target presets in ``penb.sizing``."""
    homes: dict[str, set] = {}
    for p in sorted((paths.REPO / "penb").rglob("*.py")):
        for node in ast.parse(p.read_text()).body:
            names = ([node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else
                     [t.id for t in node.targets if isinstance(t, ast.Name)] if isinstance(node, ast.Assign) else
                     [node.target.id] if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                     else [])
            for name in names:
                homes.setdefault(name, set()).add(str(p.relative_to(paths.REPO)))
    assert "plan" not in homes and (paths.REPO / "penb" / "plan.py").exists()
    assert {f for n, fs in homes.items() if n.startswith("bootstrap") for f in fs} == {"penb/metrics.py"}
    assert homes["gpu_hours"] == {"penb/executors/cost.py"}
    assert homes["POWER"] == {"penb/sizing.py"} and homes["FIXED_TARGETS"] == {"penb/sizing.py"}
    assert "TARGET" not in homes and "DEEP_POWER" not in homes


def test_modules_and_notebooks_fit_on_a_few_screens():
    """Issue 67: no module of penb over 300 lines, no notebook over 350 (split where the ideas part; a notebook
    keeps its prose, parameters and calls)."""
    long = {str(p.relative_to(paths.REPO)): n for p in sorted((paths.REPO / "penb").rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > 300}
    long |= {str(p.relative_to(paths.REPO)): n for p in sorted((paths.REPO / "notebooks").glob("*.py"))
             if (n := len(p.read_text().splitlines())) > 350}
    assert long == {}, long


# Issue 67: imports at the top. An import inside a function stays only to defer a heavy or optional package
# (matplotlib kept out of ``import penb.cli``, what the device image lacks: papermill, jupytext, jupyter_client,
# IPython, myst_nb; submitit; the hub's datasets) or to break an import cycle the layering cannot avoid, and says
# which in a comment holding ``deferred:`` on its line or the line before. Every module of penb is checked.
UNCHECKED = ()
MOST_DEFERRED = 40                  # imports inside functions in the checked modules, at most


def deferred_imports(source: str) -> tuple[int, list[int]]:
    """The number of imports inside functions (nested ones counted once) in ``source``, and the lines of those that
    no comment holding ``deferred:`` explains, on their own line(s) or the line before."""
    lines = source.splitlines()
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.update({(sub.lineno, sub.col_offset): sub for sub in ast.walk(node)
                          if isinstance(sub, (ast.Import, ast.ImportFrom))})

    def says_why(node) -> bool:
        own = [line.partition("#")[2] for line in lines[node.lineno - 1:node.end_lineno]]
        before = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
        return any("deferred:" in c for c in own) or (before.startswith("#") and "deferred:" in before)

    return len(found), sorted(line for (line, _), node in found.items() if not says_why(node))


def test_the_checker_finds_an_import_that_does_not_say_why():
    source = ("import os\n\n\ndef f():\n    import json  # deferred: why\n    # deferred: why\n    import re\n"
              "    import sys\n\n    def g():\n        from penb import cli  # the CLI\n")
    assert deferred_imports(source) == (4, [8, 11])


def test_imports_inside_functions_say_why():
    total, bare = 0, []
    for p in sorted((paths.REPO / "penb").rglob("*.py")):
        rel = p.relative_to(paths.REPO).as_posix()
        if rel.startswith(UNCHECKED):
            continue
        n, lines = deferred_imports(p.read_text())
        total += n
        bare += [f"{rel}:{line}" for line in lines]
    assert bare == [], "an import inside a function without a '# deferred: why' (move it to the top?)"
    assert total <= MOST_DEFERRED, total

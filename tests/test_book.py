"""Every chapter executes at the smoke preset through papermill, and the book builds strictly from them.

This is the path `make book` takes (Jupytext text file -> .ipynb -> papermill -> book/executed ->
jupyter-book build -W -n --keep-going), pointed at temporary folders.
"""
import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from penb import notebook, presets, status
from penb.store import paths

CHAPTERS = notebook.book_chapters()
DRAFTS = notebook.draft_chapters()
_done: dict[str, Path] = {}


def run_smoke(name: str) -> Path:
    """Execute chapter ``name`` at smoke once per session (memoised)."""
    if name not in _done:
        out = paths.executed_dir() if name in CHAPTERS else paths.executed_dir().parent / "drafts"
        try:
            _done[name] = notebook.run_chapter(name, {"preset": "smoke"}, out_dir=out)
        except Exception as err:  # a kernel that stops answering (lost ZeroMQ reply) times out: try once more
            if "Timeout" not in type(err).__name__ and "DeadKernel" not in type(err).__name__:
                raise
            _done[name] = notebook.run_chapter(name, {"preset": "smoke"}, out_dir=out)
    return _done[name]


def test_toc_lists_every_notebook():
    stems = sorted(p.stem for p in paths.NOTEBOOKS.glob("*.py"))
    assert sorted(CHAPTERS) == stems, "a notebook missing from _toc.yml, or a toc entry without a notebook"


@pytest.mark.parametrize("name", CHAPTERS + DRAFTS)
def test_parameters_cell_convention(name):
    cells = notebook.parameters_cells(name)
    assert len(cells) == 1, "exactly one cell tagged 'parameters'"
    declared = notebook.declared_parameters(name)
    written = {t.id for node in ast.parse(cells[0]).body for t in
               ([node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", []))
               if isinstance(t, ast.Name)}
    assert set(declared) == written, f"papermill could not read {sorted(written - set(declared))} (an '=' in a comment?)"
    assert "preset" in declared and ast.literal_eval(declared["preset"]["default"]) == "quick"
    keys = set(presets.table(name)["paper"])
    for k, info in declared.items():
        assert info["help"].strip(), f"parameter {k!r} has no comment"
        if k != "preset":
            assert k in keys | set(presets.GROUPS), f"parameter {k!r} is not a key of the chapter's config"
            assert info["default"] == "None", f"{k!r} should default to None (the preset's value)"
    # issue 67: the knobs of how runs execute (``execution``) and of the shared training recipe (``recipe``) are one
    # parameter each, never listed one by one
    for group in presets.GROUPS:
        knobs = set(presets.group_knobs(group, keys))
        assert not knobs & set(declared), f"{group} knobs listed one by one: {sorted(knobs & set(declared))}"
        assert (group in declared) == bool(knobs), group
    assert "hide-input" in notebook.parameters_tags(name)          # folded in the rendered book


@pytest.mark.parametrize("name", CHAPTERS + DRAFTS)
def test_a_parameters_paper_value_is_the_paper_presets(name):
    """A knob's comment that quotes the text's setting, '(paper: 16,384)', quotes the value the
    chapter's paper preset trains with: the comment cannot drift from the preset."""
    paper = presets.table(name)["paper"]
    for k, info in notebook.declared_parameters(name).items():
        quoted = re.search(r"\(paper: ([^)]*)\)\s*$", info["help"])
        assert quoted or "paper:" not in info["help"], f"{name}: {k}'s quote must end its comment, '(paper: N)'"
        if quoted:
            value = ast.literal_eval(quoted.group(1).replace(",", ""))
            assert value == paper[k], f"{name}: {k} says the paper used {value}, the paper preset has {paper[k]}"


@pytest.mark.parametrize("name", CHAPTERS + DRAFTS)
def test_imports_sit_in_the_first_cell_and_the_config_settles_in_one_line(name):
    """Issue 67: every import of a notebook is in its first code cell (the parameters cell holds only
    ``typing``), and the cell after the parameters cell opens with the one settle line."""
    import jupytext

    code = [c for c in jupytext.read(notebook.notebook_path(name)).cells if c.cell_type == "code"]
    at = next(i for i, c in enumerate(code) if "parameters" in c.metadata.get("tags", []))
    for i, cell in enumerate(code):
        found = [node for node in ast.walk(ast.parse(cell.source)) if isinstance(node, (ast.Import, ast.ImportFrom))]
        if i == at:
            assert [ast.unparse(n) for n in found] == ["from typing import Optional"]
        elif i > 0:
            assert not found, f"an import outside the first cell: {[ast.unparse(n) for n in found]}"
    settle = f'cfg = pages.show_config(presets.from_parameters("{name}", globals()))'
    assert code[at + 1].source.splitlines()[0] == settle


def test_notebooks_and_their_page_modules_fit_88_columns():
    """Issue 67: the notebooks and the page modules written for them; a cell header (it carries a
    figure's caption) and a markdown table's row stay on one line."""
    files = [*sorted(paths.NOTEBOOKS.glob("*.py")), paths.REPO / "penb/chapters/pages.py",
             *sorted((paths.REPO / "penb/chapters").glob("[!a]*/page*.py")),
             paths.REPO / "penb/chapters/invertibility/sentinel.py"]
    assert len(files) > 18
    for f in files:
        for i, line in enumerate(f.read_text().splitlines(), 1):
            if not line.startswith(("# %%", "# |")):
                assert len(line) <= 88, f"{f.name}:{i} has {len(line)} characters"


def _bound_names(source: str) -> set:
    """Names that ``source`` binds at top level or anywhere below (assignments, imports, defs)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


@pytest.mark.parametrize("name", CHAPTERS + DRAFTS)
def test_config_comes_from_the_parameters_cell(name):
    """``presets.from_parameters`` reads the notebook's globals: no other cell before the call may bind a
    name that is a key of the chapter's config (it would be taken for a parameter)."""
    import jupytext

    call = f'presets.from_parameters("{name}", globals())'
    keys = set(presets.table(name)["paper"]) | set(presets.GROUPS)               # the grouped parameters too
    bound = set()
    for cell in jupytext.read(notebook.notebook_path(name)).cells:
        if cell.cell_type != "code" or "parameters" in cell.metadata.get("tags", []):
            continue
        if call in cell.source:
            before = cell.source.split(call)[0]
            bound |= _bound_names(before[:before.rfind("\n") + 1])             # the lines above the call's own
            break
        bound |= _bound_names(cell.source)
    else:
        pytest.fail(f"the notebook never calls {call}")
    assert not keys & bound, f"cells before the call bind config keys {sorted(keys & bound)}"


def test_a_grouped_knob_works_alone_on_the_command_line():
    """``-p warmup 3`` where the cell declares ``recipe`` (issue 67): the same config as ``recipe={"warmup": 3}``; a
    near miss of a grouped knob is refused with its name."""
    alone = notebook.validate("appendix_b", {"preset": "smoke", "warmup": 3})
    assert alone == notebook.validate("appendix_b", {"preset": "smoke", "recipe": {"warmup": 3}}) and alone.warmup == 3
    with pytest.raises(ValueError, match="did you mean 'warmup'"):
        notebook.validate("appendix_b", {"preset": "smoke", "warmpu": 3})


@pytest.mark.parametrize("name", CHAPTERS + DRAFTS)
def test_bad_input_is_refused_before_execution(name, tmp_path):
    for bad, match in [({"nonsense_parameter": 1}, "unknown parameter"),
                       ({"preset": "fastest"}, "unknown preset")]:
        with pytest.raises(ValueError, match=match):
            notebook.run_chapter(name, bad, out_dir=tmp_path)
    assert not list(tmp_path.iterdir()), "nothing may be written for refused input"


@pytest.mark.slow
@pytest.mark.parametrize("name", CHAPTERS + DRAFTS)
def test_chapter_executes_at_smoke(name):
    out = run_smoke(name)
    import nbformat

    nb = nbformat.read(out, as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    assert any(c.cell_type == "code" and c.get("outputs") for c in nb.cells), "the chapter produced no output"


@pytest.mark.slow
def test_book_builds_strictly_from_smoke_outputs(isolated_outputs):
    for name in CHAPTERS:
        run_smoke(name)
    root = isolated_outputs  # book/executed already lives here (PENB_EXECUTED_DIR)
    status.write_page()
    for f in ("_config.yml", "_toc.yml"):
        shutil.copy(paths.REPO / f, root / f)
    for f in (paths.REPO / "book").glob("*.md"):
        shutil.copy(f, root / "book" / f.name)
    vendor = paths.REPO / "book" / "vendor"
    assert (vendor / "embed-amd.js").exists(), "offline JavaScript missing: run `make setup`"
    shutil.copytree(vendor, root / "book" / "vendor", dirs_exist_ok=True)
    jb = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run([str(jb), "build", str(root), "-W", "-n", "--keep-going"],
                          capture_output=True, text=True, env={**os.environ})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    html = root / "_build" / "html"
    for name in CHAPTERS + ["status"]:
        assert (html / "book" / "executed" / f"{name}.html").exists()
    assert (html / "_static" / "mathjax" / "tex-chtml.js").exists()
    page = (html / "book" / "executed" / "status.html").read_text()
    assert all(name in page for name in CHAPTERS)
    # protocol 3: every comparison graded in the book carries its models' training state, read from runs
    from penb.claims import get, scorecard

    recorded = scorecard.collect(root / "book" / "executed")
    compared = {k: g for k, g in recorded.items() if (g.get("detail") or {}).get("effect") is not None}
    assert compared, "no comparison was graded at smoke"
    lacking = [k for k, g in compared.items() if get(k).about == "trained" and not g["detail"].get("training")]
    assert not lacking, f"comparisons without a training state: {lacking}"
    states = {g["detail"]["training"]["state"] for g in compared.values() if g["detail"].get("training")}
    assert states <= {"trained", "still learning"}, states       # read from the runs' histories, never missing


def test_status_page_lists_runs_and_their_training_time():
    base = dict(preset="quick", device="cpu", parameters={}, date="2026-11-22T18:00:00", versions={"penb": "0"})
    text = status.render([dict(base, chapter="key_findings", wall_s=9.0,
                               runs={"used": 36, "trained": 0, "training_s": 1494.0}),
                          dict(base, chapter="encodings", wall_s=20.0)])
    assert "| 9 s | 36 (0) | 24.9 min |" in text
    assert "| 20 s | none |  |" in text

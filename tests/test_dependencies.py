"""pyproject's dependencies cover every third-party import of penb, and requirements.txt pins each exactly; the
`lab` extra (JupyterLab for the students' path) is pinned exactly too."""
import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def imported_modules() -> set[str]:
    """Top-level names of every module that a file under penb/ or a chapter notebook imports (lazy
    imports included)."""
    found = set()
    for path in [*(ROOT / "penb").rglob("*.py"), *(ROOT / "notebooks").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"penb", "__future__", "IPython"}   # IPython: ipykernel's


def test_pyproject_declares_every_third_party_import():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = [d for group in project.get("optional-dependencies", {}).values() for d in group]
    declared = {_name(d) for d in project["dependencies"] + extras}
    providers = metadata.packages_distributions()
    missing = {}
    for module in sorted(imported_modules()):
        dists = {_name(d) for d in providers.get(module, [module])}
        if not dists & declared:
            missing[module] = sorted(dists)
    assert not missing, f"imported by penb but not in pyproject's dependencies: {missing}"


def test_requirements_pin_every_package_exactly():
    lines = [x.split("#")[0].strip() for x in (ROOT / "requirements.txt").read_text().splitlines()]
    reqs = [x for x in lines if x]
    loose = [r for r in reqs if "==" not in r]
    assert not loose, f"unpinned in requirements.txt: {loose}"
    pinned = {_name(r) for r in reqs}
    declared = {_name(d) for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    assert declared <= pinned, f"in pyproject but not pinned in requirements.txt: {sorted(declared - pinned)}"


def test_the_lab_extra_pins_jupyterlab_exactly_as_requirements_does():
    """``make lab`` installs the ``lab`` extra: JupyterLab and Jupytext (whose JupyterLab extension opens the
    chapters as notebooks) at exact versions, and a package pinned in requirements.txt too at the same one."""
    lab = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["lab"]
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][A-Za-z0-9.]*", r) for r in lab), lab
    pins = dict(r.split("==") for r in lab)
    assert {"jupyterlab", "jupytext"} <= {_name(n) for n in pins}
    lines = [x.split("#")[0].strip() for x in (ROOT / "requirements.txt").read_text().splitlines()]
    required = {_name(r.split("==")[0]): r.split("==")[1] for r in lines if "==" in r}
    assert {n: v for n, v in pins.items() if required.get(_name(n), v) != v} == {}

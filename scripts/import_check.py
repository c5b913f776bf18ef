"""Would every chapter import on the bare GPU image with the wheel set of ``make gpu-wheels``? (issue 50)

    python3.12 scripts/import_check.py .whl            # exit 1 and the missing modules when something is missing

The GPU image (Python 3.12) has torch, numpy, scipy, pandas, matplotlib and a few more (:data:`IMAGE`: the import names in
``scripts/gpu_image.txt``, the packages ``scripts/gpu_wheels.sh`` leaves out) and nothing of the notebook stack. A chapter runs
there only if every module that executing it imports is in Python's standard library, on the image or in a wheel of
the set. This walks the imports statically, with no torch needed here:

* from every module of ``penb`` and every notebook, all imports, at any depth (a function's import runs when it is
  called), and from the kernel's own entry points (:data:`KERNEL`: papermill, ipykernel, the inline backend);
* into the wheels' own modules, the imports at module level outside ``try`` blocks (an import guarded by ``try`` is
  optional), transitively.

A name counts as found when Python 3.12's ``sys.stdlib_module_names`` has it, :data:`IMAGE` does, or a wheel of the
set ships it as a top-level package or module.
"""
from __future__ import annotations

import ast
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IMAGE = [name for line in (REPO / "scripts" / "gpu_image.txt").read_text().splitlines()
         for name in line.split("#")[0].split()]
OPTIONAL = {"datasets"}      # penb.corpus's last source of a corpus, tried only when installed and online
KERNEL = ["papermill", "ipykernel.kernelapp", "ipykernel.ipkernel", "matplotlib_inline.backend_inline",
          "nbclient", "jupytext", "myst_nb"]


def imports(tree: ast.AST, deep: bool, package: str = "") -> set[str]:
    """Absolute module names imported in ``tree``: everywhere (``deep``), or at module level outside ``try``."""
    found: set[str] = set()

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                if deep or top:
                    found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if deep or top:
                    if child.level:
                        base = package.rsplit(".", child.level - 1)[0] if child.level > 1 else package
                        mod = f"{base}.{child.module}" if child.module else base
                    else:
                        mod = child.module or ""
                    found.add(mod)
                    found.update(f"{mod}.{a.name}" for a in child.names)   # "from pkg import submodule"
            elif not deep and (isinstance(child, (ast.Try, ast.If, ast.FunctionDef, ast.AsyncFunctionDef))
                               or isinstance(child, ast.With) and "suppress" in ast.dump(child.items[0])):
                continue                          # in a wheel: optional, conditional or lazy imports
            else:
                visit(child, top)
    visit(tree, True)
    return {m for m in found if m}


class Wheels:
    """The modules of a folder of wheels: top-level names, and each module's source by dotted name."""

    def __init__(self, folder: Path):
        self.files: dict[str, tuple[Path, str]] = {}
        self.top: set[str] = set()
        for whl in sorted(Path(folder).glob("*.whl")):
            with zipfile.ZipFile(whl) as z:
                for name in z.namelist():
                    first = name.split("/")[0]
                    if first.endswith((".dist-info", ".data")):
                        continue
                    self.top.add(first.removesuffix(".py").split(".")[0])
                    if name.endswith(".py"):
                        mod = name[:-3].replace("/", ".").removesuffix(".__init__")
                        self.files[mod] = (whl, name)

    def source(self, module: str):
        """(dotted name of the package the module sits in, its source) or None."""
        if module not in self.files:
            return None
        whl, name = self.files[module]
        with zipfile.ZipFile(whl) as z:
            text = z.read(name).decode("utf-8", "replace")
        package = module if name.endswith("__init__.py") else module.rsplit(".", 1)[0]
        return package, text


def check(wheel_dir: Path) -> list[str]:
    """The top-level module names that executing a chapter would import and nothing provides, sorted."""
    wheels = Wheels(wheel_dir)
    have = set(sys.stdlib_module_names) | set(IMAGE) | wheels.top | OPTIONAL | {"penb", "__future__"}
    wanted: set[str] = set()
    for path in list((REPO / "penb").rglob("*.py")) + list((REPO / "notebooks").glob("*.py")):
        rel = path.relative_to(REPO).with_suffix("")
        package = ".".join(rel.parts[:-1]) if rel.name != "__init__" else ".".join(rel.parts[:-1])
        wanted |= imports(ast.parse(path.read_text()), deep=True, package=package)
    wanted |= set(KERNEL)
    missing: set[str] = set()
    seen: set[str] = set()
    todo = sorted(wanted)
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        top = mod.split(".")[0]
        if top not in have:
            missing.add(top)
            continue
        found = wheels.source(mod)
        if found is None:
            continue                                       # the stdlib's, the image's, or a name inside a module
        package, text = found
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        todo.extend(sorted(imports(tree, deep=False, package=package) - seen))
    return sorted(missing)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0] if argv else REPO / ".whl")
    if not any(folder.glob("*.whl")):
        print(f"no wheels in {folder}: run `make gpu-wheels` first", file=sys.stderr)
        return 2
    missing = check(folder)
    print(f"Python {sys.version.split()[0]}, {len(list(folder.glob('*.whl')))} wheels in {folder}: "
          + ("every import found" if not missing else f"missing: {', '.join(missing)}"))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

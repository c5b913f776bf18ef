"""Execute a chapter: Jupytext text file -> .ipynb -> papermill -> the book's executed folder.

``run_chapter`` refuses bad input before the kernel starts: an unknown chapter, a parameter
that the notebook's ``parameters`` cell does not declare (papermill itself only warns), or a
configuration that ``penb.presets.resolve`` rejects (unknown preset, impossible value).
Each executed chapter gets a status file (preset, device, wall time, versions, date) that
``penb.status`` turns into the book's status page.
"""
from __future__ import annotations

import ast
import contextlib
import datetime as _dt
import json
import os
import platform
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from penb import preflight, presets, progress
from penb.device import resolve_device
from penb.store import atomic, paths
from penb.sweeps import USAGE_LOG

KERNEL = "penb"
SMOKE_CELL_TIMEOUT = 300  # seconds: a smoke cell that runs longer is a hang (e.g. a lost kernel reply), not work
VERSIONED = ("penb", "torch", "numpy", "scipy", "pandas", "matplotlib", "scikit-learn",
             "jupyter-book", "myst-nb", "papermill", "jupytext", "ipywidgets")


def ipc_kernel_manager(folder: Path) -> type:
    """A kernel manager whose kernel talks over Unix sockets in ``folder`` instead of TCP ports.

    Kernels started at the same moment (tests, helpers, ``run-all``) cannot race for a port, and no
    port is opened at all (which also silences ipykernel's "running over TCP" warning).
    """
    # deferred: not on the device image, which imports this module (through penb.cli)
    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(transport="ipc", ip=str(folder / "kernel"), **kwargs)

    return IPCKernelManager


def notebook_path(name: str) -> Path:
    """The Jupytext source of chapter ``name``."""
    for folder in (paths.NOTEBOOKS, paths.DRAFTS):
        path = folder / f"{name}.py"
        if path.exists():
            return path
    valid = ", ".join(sorted(p.stem for p in paths.NOTEBOOKS.glob("*.py")))
    drafts = ", ".join(sorted(p.stem for p in paths.DRAFTS.glob("*.py")))
    raise ValueError(f"unknown chapter {name!r}; chapters: {valid}" + (f"; drafts: {drafts}" if drafts else ""))


def draft_chapters() -> list[str]:
    """Chapters in ``notebooks/drafts/`` (not in the book yet)."""
    return sorted(p.stem for p in paths.DRAFTS.glob("*.py"))


GENERATED = ("status", "scorecard")     # toc pages written by ``python -m penb status``, not notebooks


def book_chapters() -> list[str]:
    """Chapters listed in ``_toc.yml`` (as ``book/executed/<name>``; the status page excluded), in book order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("book/executed/"):
                stem = f.split("/")[-1]
                if stem not in GENERATED:
                    found.append(stem)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load(paths.TOC.read_text()))
    return found


def to_ipynb(name: str, dest: Path) -> Path:
    """Convert ``notebooks/<name>.py`` to an .ipynb at ``dest`` (with the penb kernel)."""
    import jupytext  # deferred: not on the device image, which imports this module (through penb.cli)

    nb = jupytext.read(notebook_path(name))
    nb.metadata["kernelspec"] = {"name": kernel_name(), "display_name": "Python (penb)", "language": "python"}
    jupytext.write(nb, dest, fmt="ipynb")
    return dest


def parameters_cells(name: str) -> list[str]:
    """Source of every cell tagged ``parameters`` (a chapter must have exactly one)."""
    import jupytext  # deferred: not on the device image, which imports this module (through penb.cli)

    nb = jupytext.read(notebook_path(name))
    return [c.source for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]


def parameters_tags(name: str) -> list[str]:
    """The tags of the chapter's ``parameters`` cell (``hide-input`` folds its source in the rendered book)."""
    import jupytext  # deferred: not on the device image, which imports this module (through penb.cli)

    nb = jupytext.read(notebook_path(name))
    return next(c.metadata.get("tags", []) for c in nb.cells if "parameters" in c.metadata.get("tags", []))


def declared_parameters(name: str) -> dict[str, dict]:
    """The names in the chapter's ``parameters`` cell, as papermill sees them."""
    import papermill  # deferred: not on the device image, which imports this module (through penb.cli)

    cells = parameters_cells(name)
    if len(cells) != 1:
        raise ValueError(f"{name}: expected exactly one cell tagged 'parameters', found {len(cells)}")
    with tempfile.TemporaryDirectory() as tmp:
        ipynb = to_ipynb(name, Path(tmp) / f"{name}.ipynb")
        return dict(papermill.inspect_notebook(str(ipynb)))


def parse_value(text: str) -> Any:
    """A command-line value: a Python literal when it parses as one (20, 1e-3, (0, 1), None), the float
    of "nan"/"inf" (so that the config check can refuse it by name), else a string."""
    if text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return float(text)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def validate(name: str, params: dict[str, Any]) -> presets.Config:
    """Check ``params`` against the notebook's declared set and the chapter's presets.

    Returns the resolved config; raises ``ValueError`` with the valid choices otherwise.
    """
    declared = declared_parameters(name)
    keys = presets.table(name)["paper"]
    takes = [*declared, *(k for g in presets.GROUPS if g in declared for k in presets.group_knobs(g, keys))]
    unknown = set(params) - set(takes)                                      # a grouped knob also works alone
    if unknown:
        raise ValueError(f"{name}: unknown parameter(s) {sorted(unknown)}{presets.suggest(unknown, takes)}; "
                         f"this chapter takes: {', '.join(declared)}")
    preset = params.get("preset", ast.literal_eval(declared["preset"]["default"]))
    overrides = {k: v for k, v in params.items() if k != "preset"}
    cfg = presets.resolve(name, preset, **overrides)
    preflight.check_memory(name, cfg)
    preflight.check_store(paths.store_dir())
    return cfg


def kernel_name() -> str:
    """The venv's own ``penb`` kernel when installed (``make setup`` does), else ``python3``."""
    # deferred: not on the device image, which imports this module (through penb.cli)
    from jupyter_client.kernelspec import find_kernel_specs

    return KERNEL if KERNEL in find_kernel_specs() else "python3"


def versions() -> dict[str, str]:
    """Versions of Python and the packages that shape results and the book."""
    out = {"python": platform.python_version()}
    for pkg in VERSIONED:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def run_chapter(name: str, params: dict[str, Any] | None = None, out_dir: Path | None = None,
                log_output: bool = False, requested: str | None = None, watch: bool = False,
                position: str = "", planned: int = 0) -> Path:
    """Execute chapter ``name`` with papermill; return the executed notebook's path.

    The notebook is written atomically to ``out_dir/<name>.ipynb`` (default: the book's executed
    folder), with ``<name>.status.json`` beside it. A cell that raises raises here. ``requested``: the
    preset the book was asked for where this chapter runs another (``penb.presets.book_preset``); the
    chapter's output and its status record say so. ``watch``: draw its progress on stderr while it runs
    (``penb.progress``: runs, updates per second, cells, time left), ``position`` ("[2/13]") before its name,
    ``planned`` the runs it lists (``penb.plan.planned_runs``; 0: cells only).
    """
    import papermill  # deferred: not on the device image, which imports this module (through penb.cli)

    params = dict(params or {})
    cfg = validate(name, params)
    out_dir = Path(out_dir or paths.executed_dir())
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.time()
    # deferred: penb.claims imports matplotlib, which penb.cli (importing this module) must not
    from penb.claims import scorecard

    scorecard.clear(name, out_dir)                  # a page never shows a verdict of an earlier build
    with tempfile.TemporaryDirectory() as tmp, _env(USAGE_LOG, str(Path(tmp) / "runs.jsonl")), \
            _env("PENB_EXECUTED_DIR", str(out_dir)), _env(presets.REQUESTED, requested), \
            _env(progress.EVENTS, str(Path(tmp) / "events.jsonl")):
        src = to_ipynb(name, Path(tmp) / f"{name}.ipynb")
        done = Path(tmp) / f"{name}.out.ipynb"
        ticker = progress.Ticker(progress.Watch(name, Path(tmp) / "events.jsonl", done, planned, position,
                                                cfg.preset, out_dir)) if watch else contextlib.nullcontext()
        with ticker:
            _execute(papermill, src, done, params, cfg, tmp, log_output)
        target = atomic.atomic_write(out_dir / f"{name}.ipynb", lambda t: Path(t).write_bytes(done.read_bytes()))
        used = run_usage(Path(tmp) / "runs.jsonl")
    device = str(resolve_device(cfg["device"])) if "device" in cfg else "cpu"
    atomic.write_json(out_dir / f"{name}.status.json", {
        "chapter": name, "preset": cfg.preset, "requested_preset": requested or cfg.preset,
        "parameters": params, "device": device,
        "wall_s": round(time.time() - start, 1), "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "versions": versions(), "runs": used,
    })
    return target


def _execute(papermill, src: Path, done: Path, params: dict, cfg, tmp: str, log_output: bool) -> None:
    """Papermill on ``src``, written to ``done`` after each cell."""
    papermill.execute_notebook(
        str(src), str(done), parameters={k: list(v) if isinstance(v, tuple) else v for k, v in params.items()},
        kernel_name=kernel_name(), cwd=str(paths.NOTEBOOKS), progress_bar=False, log_output=log_output,
        report_mode=False, execution_timeout=SMOKE_CELL_TIMEOUT if cfg.preset == "smoke" else None,
        kernel_manager_class=ipc_kernel_manager(Path(tmp)),
    )


@contextlib.contextmanager
def _env(name: str, value: str | None):
    """Set environment variable ``name`` (inherited by the kernel) for the duration of the block; None:
    make sure it is unset."""
    old = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def run_usage(log: Path) -> dict:
    """What a chapter's sweeps returned (``penb.runs`` usage log): distinct runs ``used``, how many it
    ``trained`` itself, and ``training_s``, the training time of all of them where they were made."""
    rows = {}
    if log.exists():
        for line in log.read_text().splitlines():
            r = json.loads(line)
            prev = rows.get(r["key"])
            rows[r["key"]] = {**r, "trained": r["trained"] or bool(prev and prev["trained"])}
    return {"used": len(rows), "trained": sum(r["trained"] for r in rows.values()),
            "training_s": round(sum(r["wall_s"] or 0.0 for r in rows.values()), 1)}

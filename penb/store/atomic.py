"""Atomic file writes: a temporary file in the same folder, fsync'd, then ``os.replace`` and an fsync of
the folder.

A reader never sees a half-written result, and a killed process (or a crash of the machine) leaves either
the old file or the new one, never an empty one under the final name. A kill can leave the temporary file
(``.<name>.*.tmp``) behind; ``penb.runs`` sweeps those before a run resumes.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np


def atomic_write(path: str | os.PathLike, write: Callable[[str], None]) -> Path:
    """Call ``write(tmp_path)`` and move the result onto ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        _fsync(tmp)
        os.replace(tmp, path)
        _fsync(path.parent)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def _fsync(path: str | os.PathLike) -> None:
    """Flush ``path`` (a file or a folder) to disk; folders that cannot be opened (some systems) are skipped."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` atomically."""
    return atomic_write(path, lambda tmp: Path(tmp).write_text(text))


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Atomically write ``data`` to ``path``, making its folder first (a member extracted from a tar)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, lambda tmp: Path(tmp).write_bytes(data))


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write ``obj`` as indented JSON to ``path`` atomically."""
    return write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def write_npz(path: str | os.PathLike, arrays: dict) -> Path:
    """Write ``arrays`` to ``path`` as a compressed ``.npz``, atomically."""
    def save(tmp: str) -> None:
        with open(tmp, "wb") as f:              # a file object: np.savez would append ".npz" to a name
            np.savez_compressed(f, **arrays)

    return atomic_write(path, save)

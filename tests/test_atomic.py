"""Atomic writes leave either the old file or the new one, never a half-written file."""
import pytest

from penb.store import atomic


def test_failed_write_keeps_old_content_and_leaves_no_temp(tmp_path):
    target = tmp_path / "result.json"
    atomic.write_json(target, {"a": 1})

    def broken(tmp):
        with open(tmp, "w") as f:
            f.write('{"a": 2, "half')
        raise KeyboardInterrupt  # killed mid-write

    with pytest.raises(KeyboardInterrupt):
        atomic.atomic_write(target, broken)
    assert target.read_text().strip().startswith('{\n  "a": 1')
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]

"""The built book shows widgets and formulas with no network, checked in headless Chromium.

Chromium loads a built page from file:// with networking disabled, runs its JavaScript, and
dumps the DOM: the ipywidgets HTML manager must have rendered the saved sliders, and MathJax
must have typeset the formulas. Skipped where Chromium is not installed (.ci/run installs it).
"""
import shutil
import subprocess

import pytest


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--proxy-server=127.0.0.1:9", "--virtual-time-budget=15000", "--allow-file-access-from-files"]


def render(page, tmp_path, screenshot=None):
    args = [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    if screenshot:
        args += [f"--screenshot={screenshot}", "--window-size=1280,2400", page.as_uri()]
    else:
        args += ["--dump-dom", page.as_uri()]
    return subprocess.run(args, capture_output=True, text=True, timeout=120).stdout


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_widgets_and_math_render_offline(isolated_outputs, tmp_path):
    from tests.test_book import test_book_builds_strictly_from_smoke_outputs as build

    html = isolated_outputs / "_build" / "html"
    if not (html / "book" / "executed" / "encodings.html").exists():
        build(isolated_outputs)
    page = html / "book" / "executed" / "encodings.html"
    dom = render(page, tmp_path)
    assert "mjx-container" in dom, "MathJax did not typeset the formulas"
    assert "widget-slider" in dom or "widget-hslider" in dom, "the ipywidgets sliders were not rendered"
    render(page, tmp_path, screenshot=tmp_path / "encodings.png")
    assert (tmp_path / "encodings.png").stat().st_size > 10_000

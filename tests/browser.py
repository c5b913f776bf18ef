"""Headless Chromium for the browser tests, in one place: ``tests/test_rendering.py`` loads the built book from
file:// (the readers' path) and ``tests/test_lab.py`` drives a live JupyterLab through chromedriver (the students').

Both are skipped where Chromium is not installed; .ci/run installs it (and chromedriver) as root.
"""
import shutil
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

# Headless and quiet. Every request beyond this machine goes to a closed port (Chromium never sends loopback through
# a proxy), so a page that reaches for the network fails here as it would offline.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--proxy-server=127.0.0.1:9"]


def webdriver(profile: Path, width: int = 1400, height: int = 1000):
    """A selenium ``WebDriver`` on the system's Chromium and chromedriver (nothing downloaded), with a fresh
    profile in ``profile`` and a window of ``width`` x ``height`` CSS pixels."""
    from selenium import webdriver as wd
    from selenium.webdriver.chrome.service import Service

    options = wd.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"]:
        options.add_argument(flag)
    return wd.Chrome(service=Service(CHROMEDRIVER), options=options)

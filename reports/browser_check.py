"""Open report pages in headless Chromium: console errors, broken images, screenshots.

Talks the Chrome DevTools protocol over ``--remote-debugging-pipe`` (JSON messages ending in
NUL on file descriptors 3 and 4), so it needs only the ``chromium`` binary, no Python package.

    python -m reports.browser_check SITE_DIR --screenshots DIR [--browser chromium]
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import fcntl
import functools
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")
BROKEN_IMAGES = (
    "JSON.stringify(Array.from(document.images)"
    ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')))"
)
VIEWPORT = (1280, 900)
MAX_SCREENSHOT_HEIGHT = 8000


@dataclass
class PageCheck:
    """What one page showed: console errors (incl. failed loads), broken images, screenshot."""

    page: Path
    errors: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    screenshot: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.errors and not self.broken_images


def find_browser(name: str | None = None) -> str | None:
    """The Chromium executable: ``name`` if given, else the first of CANDIDATES on PATH."""
    for candidate in (name,) if name else CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def console_problem(message: dict[str, Any]) -> str | None:
    """The error a DevTools event reports, or None for anything that is not an error."""
    method, params = message.get("method"), message.get("params", {})
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        description = details.get("exception", {}).get("description") or details.get("text")
        return f"exception: {description}"
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        texts = [str(a.get("value", a.get("description", ""))) for a in params.get("args", [])]
        return f"console.{params['type']}: {' '.join(texts)}"
    if method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        entry = params["entry"]
        return (
            f"{entry.get('source', 'log')}: {entry.get('text', '')} {entry.get('url', '')}".strip()
        )
    return None


def _on_fds_3_and_4(read_end: int, write_end: int) -> None:
    """In the child: the pipe ends on descriptors 3 and 4, where Chromium expects them."""
    read_copy = fcntl.fcntl(read_end, fcntl.F_DUPFD_CLOEXEC, 10)  # out of the way of 3, 4
    write_copy = fcntl.fcntl(write_end, fcntl.F_DUPFD_CLOEXEC, 10)
    os.dup2(read_copy, 3)
    os.dup2(write_copy, 4)


class DevTools:
    """A Chromium process and its DevTools pipe (commands on fd 3, replies on fd 4)."""

    def __init__(self, browser: str, profile_dir: Path, timeout: float = 30.0):
        self.timeout = timeout
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        self.process = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={profile_dir}", "about:blank"],
            preexec_fn=functools.partial(_on_fds_3_and_4, to_browser_r, from_browser_w),
            close_fds=False,  # Python's own descriptors are close-on-exec; 3 and 4 are not
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_browser], [], [], max(left, 0))
            if not ready:
                raise TimeoutError(f"no reply from Chromium within {self.timeout:.0f} s")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe (did it start?)")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send a command and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> None:
        """Read events until ``method`` arrives (kept with the others)."""
        deadline = time.monotonic() + self.timeout
        while not any(event.get("method") == method for event in self.events):
            self.events.append(self._read_message(deadline))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):  # already gone
            self.send("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def _check_one(tools: DevTools, session: str, page: Path, screenshot: Path | None) -> PageCheck:
    tools.events.clear()
    tools.send("Page.navigate", {"url": page.resolve().as_uri()}, session)
    tools.wait_for("Page.loadEventFired")
    check = PageCheck(page)
    result = tools.send(
        "Runtime.evaluate", {"expression": BROKEN_IMAGES, "returnByValue": True}, session
    )
    check.broken_images = json.loads(result["result"]["value"])
    check.errors = [p for p in map(console_problem, tools.events) if p]
    if screenshot is not None:
        metrics = tools.send("Page.getLayoutMetrics", session=session)
        height = int(metrics.get("cssContentSize", {}).get("height", VIEWPORT[1]))
        size = {"width": VIEWPORT[0], "height": min(max(height, 1), MAX_SCREENSHOT_HEIGHT)}
        override = {**size, "deviceScaleFactor": 1, "mobile": False}
        tools.send("Emulation.setDeviceMetricsOverride", override, session)
        shot = tools.send("Page.captureScreenshot", {"format": "png"}, session)
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
        viewport = {"width": VIEWPORT[0], "height": VIEWPORT[1]}
        tools.send(
            "Emulation.setDeviceMetricsOverride",
            {**viewport, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        check.screenshot = screenshot
    return check


def check_pages(
    pages: list[Path], browser: str, screenshots: Path | None = None, timeout: float = 30.0
) -> list[PageCheck]:
    """Load every page in one headless Chromium; screenshots named after the page paths."""
    with tempfile.TemporaryDirectory(prefix="sanbench-chromium-") as profile:
        tools = DevTools(browser, Path(profile), timeout)
        try:
            target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            attached = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})
            session = attached["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                tools.send(f"{domain}.enable", session=session)
            viewport = {"width": VIEWPORT[0], "height": VIEWPORT[1]}
            tools.send(
                "Emulation.setDeviceMetricsOverride",
                {**viewport, "deviceScaleFactor": 1, "mobile": False},
                session,
            )
            common = Path(os.path.commonpath([p.resolve().parent for p in pages]))
            checks = []
            for page in pages:
                name = "_".join(page.resolve().relative_to(common).with_suffix("").parts)
                shot = screenshots / f"{name}.png" if screenshots else None
                checks.append(_check_one(tools, session, page, shot))
            return checks
        finally:
            tools.close()


def site_pages(site: Path) -> list[Path]:
    """``index.html`` first, then every other page of the site, sorted."""
    pages = sorted(Path(site).rglob("*.html"))
    index = Path(site) / "index.html"
    return [index, *(p for p in pages if p != index)] if index in pages else pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.browser_check", description=__doc__)
    parser.add_argument("site", type=Path, help="folder written by `sanbench report --out`")
    parser.add_argument("--screenshots", type=Path, help="folder for one PNG per page")
    parser.add_argument("--browser", help="Chromium executable (default: found on PATH)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per page load")
    args = parser.parse_args(argv)
    browser = find_browser(args.browser)
    if browser is None:
        print("browser check: no Chromium found (apt-get install -y chromium)", file=sys.stderr)
        return 2
    pages = site_pages(args.site)
    if not pages:
        print(f"browser check: no .html page under {args.site}", file=sys.stderr)
        return 2
    checks = check_pages(pages, browser, args.screenshots, args.timeout)
    for check in checks:
        status = "ok" if check.ok else "FAIL"
        print(f"{status:4} {check.page}" + (f" -> {check.screenshot}" if check.screenshot else ""))
        for problem in check.errors:
            print(f"     console error: {problem}")
        for image in check.broken_images:
            print(f"     broken image: {image}")
    failed = sum(not c.ok for c in checks)
    print(f"{len(checks) - failed} of {len(checks)} pages without console errors or broken images")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The HTML viewer in a real headless Chromium: it draws, a click opens a scope, search finds.

Chromium is driven over `--remote-debugging-pipe` (the DevTools protocol on file
descriptors 3 and 4), so the test needs nothing but the browser. It is skipped
when no Chromium is installed (Debian: `apt-get install -y chromium`).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tfx.core.graph import Graph
from tfx.core.graph_io import load_graph
from tfx.core.viz import render

CONFORMANCE = Path(__file__).parents[2] / "data" / "conformance"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Just enough of the DevTools protocol: a page, script, mouse, keys, screenshots."""

    def __init__(self, executable: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="tfx-chromium-")
        child_in, self._write = os.pipe()
        self._read, child_out = os.pipe()

        def pipes_on_3_and_4() -> None:
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        self.process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "--no-first-run",
             "--no-default-browser-check", "about:blank"],
            pass_fds=(3, 4), preexec_fn=pipes_on_3_and_4,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(child_in)
        os.close(child_out)
        self._buffer = b""
        self._id = 0
        self.session: str | None = None

    def send(self, method: str, params: dict | None = None, *, browser: bool = False) -> dict:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if self.session and not browser:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium exited")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def open(self, url: str, width: int = 1280, height: int = 800) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, browser=True)
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 browser=True)["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.eval(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expression}")

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def click_on(self, selector: str) -> None:
        rect = self.eval(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                         ".getBoundingClientRect(); return [r.x + r.width / 2, "
                         "r.y + r.height / 2]; })()")
        self.click(*rect)

    def type(self, text: str) -> None:
        self.send("Input.insertText", {"text": text})

    def press_enter(self) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": "Enter", "code": "Enter",
                                                 "windowsVirtualKeyCode": 13})

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self) -> None:
        try:
            self.send("Browser.close", browser=True)
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self._read)
        os.close(self._write)
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture
def browser():
    executable = find_browser()
    if executable is None:
        pytest.skip("no Chromium to test the HTML viewer in (Debian: apt-get install -y "
                    "chromium)")
    driver = Browser(executable)
    try:
        yield driver
    finally:
        driver.close()


def test_viewer_draws_opens_scopes_and_searches(browser: Browser, tmp_path: Path) -> None:
    graph = Graph.from_graph_def(load_graph(CONFORMANCE / "mobilenet_v2_frozen.pb"))
    picture = render(graph, "html")
    page = tmp_path / "mobilenet.html"
    page.write_bytes(picture.data)
    browser.open(page.as_uri())
    browser.wait_for("window.tfxViz && window.tfxViz.ready")

    # What Python drew is what the page drew.
    assert browser.eval("tfxViz.visible") == picture.visible
    assert browser.eval("document.querySelectorAll('#viewport .box.node').length") >= 3
    assert browser.eval("document.querySelectorAll('#viewport .box.scope').length") >= 20
    assert browser.eval("document.querySelectorAll('#viewport path.edge').length") >= 30

    # A real click: fit the picture, then click the block_3 series to open it.
    browser.click_on("#fit")
    scope = '#viewport .box.scope[data-name="mobilenetv2_0.35_96_1/block_3*"]'
    browser.click_on(scope + " rect")
    browser.wait_for("tfxViz.expanded().includes('mobilenetv2_0.35_96_1/block_3*')")
    assert browser.eval("tfxViz.visible") > picture.visible
    assert browser.eval("!!document.querySelector("
                        "'#viewport .frame[data-name=\"mobilenetv2_0.35_96_1/block_3*\"]')")
    assert "block_3*" in browser.eval("document.querySelector('#panel h2').textContent")

    # Search finds a node inside a closed scope, opens it and shows its details.
    browser.click_on("#search")
    browser.type("predictions_1/Softmax")
    browser.wait_for("document.querySelectorAll('#matches div').length > 0")
    browser.press_enter()
    browser.wait_for("document.querySelector('#panel h2').textContent.endsWith('Softmax')")
    panel = browser.eval("document.getElementById('panel').textContent")
    assert "float32 [2,10]" in panel and "BiasAdd" in panel

    shot = browser.screenshot()
    (tmp_path / "viewer.png").write_bytes(shot)
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 10_000

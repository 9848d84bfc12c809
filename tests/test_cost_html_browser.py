"""The HTML cost report in a real headless Chromium (Debian's `chromium` package).

The browser is driven over the Chrome DevTools Protocol on ``--remote-debugging-pipe`` (file
descriptors 3 and 4, NUL-separated JSON), so the test needs nothing beyond the standard
library. For each page it checks:

- the page loads from ``file://`` and requests nothing else (the report is self-contained);
- no console message of level warning or error, no uncaught exception, no log entry of level
  warning or error;
- the chart's SVG is displayed, in the first screen, with a non-zero size, one bar per
  request, every bar and legend swatch with a non-zero box, and an axis with tick labels;
- a screenshot PNG is produced, decoded here, not blank, and shows the chart's colours.

Skipped, with the reason, when no Chromium is installed. CI: `apt-get install -y chromium`.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

import pytest

from ctxlint.report import cost_html

from test_cost import FILES, _hand_made_report  # the same fixture as the format tests


def _find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


CHROMIUM = _find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or sys.platform == "win32",
    reason="Chromium is not installed (Debian/Ubuntu: apt-get install -y chromium); the HTML report "
           "is checked in a real browser only where one is available",
)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--window-size=1280,1000",
         "--remote-debugging-pipe"]
TIMEOUT = 30.0


class Browser:
    """A headless Chromium and one DevTools session over the pipe transport."""

    def __init__(self, profile: Path, log: Path):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire():  # in the child: the pipe transport reads fd 3 and writes fd 4
            read, write = os.dup(to_chrome_r), os.dup(from_chrome_w)  # out of the way of 3 and 4
            os.dup2(read, 3)
            os.dup2(write, 4)

        self._log = open(log, "wb")
        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                     preexec_fn=wire, pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session: str | None = None

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium closed the DevTools pipe (exit {self.proc.poll()})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, *, browser: bool = False) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if not browser and self.session:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_chrome, data):]
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict:
        deadline = time.monotonic() + TIMEOUT
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def open(self) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, browser=True)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 browser=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": False})

    def resize(self, width: int, height: int = 1000) -> None:
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def load(self, url: str) -> None:
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise AssertionError(f"evaluating the probe failed: {result['exceptionDetails']}")
        return result["result"]["value"]

    def close(self) -> None:
        try:
            self.send("Browser.close", browser=True)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        self._log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    root = tmp_path_factory.mktemp("chromium")
    started = Browser(root / "profile", root / "chromium.log")
    try:
        started.open()
        yield started
    finally:
        started.close()


# What the page looks like to a reader, measured by the browser's layout engine.
PROBE = """(() => {
  const svg = document.querySelector('svg#cost-chart');
  const box = (el) => { const r = el.getBoundingClientRect();
                        return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  if (!svg) return {svg: null};
  const style = getComputedStyle(svg);
  return {
    readyState: document.readyState,
    title: document.title,
    svg: box(svg),
    display: style.display, visibility: style.visibility,
    viewport: {width: innerWidth, height: innerHeight},
    bars: [...svg.querySelectorAll('g.bar')].map(g => ({
      request: g.dataset.request, box: box(g),
      segments: [...g.querySelectorAll('rect.seg')].map(r => ({cls: r.getAttribute('class'), box: box(r)})),
      label: g.querySelector('text.label').textContent,
      value: g.querySelector('text.value').textContent})),
    swatches: [...svg.querySelectorAll('.legend rect')].map(box),
    ticks: [...svg.querySelectorAll('.axis text')].map(t => t.textContent),
    tables: document.querySelectorAll('table').length,
  };
})()"""


def _problems(events: list[dict]) -> list[str]:
    """Console errors and warnings, uncaught exceptions, error log entries."""
    out = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
            out.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Runtime.exceptionThrown":
            out.append(f"exception: {params.get('exceptionDetails')}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            out.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
    return out


def _requests(events: list[dict]) -> list[str]:
    return [e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"]


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB or RGBA PNG (what Chromium writes): width, height, rows of pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line) if bpp == 3 else bytes(b for j, b in enumerate(line) if j % 4 != 3))
        previous = line
    return width, height, rows


def _colours(rows: list[bytes]) -> Counter:
    """How many pixels of each colour (3-byte RGB)."""
    counts: Counter = Counter()
    for row in rows:
        counts.update(row[i:i + 3] for i in range(0, len(row), 3))
    return counts


def _colour_pixels(colours: Counter, hex_colour: str, tolerance: int = 12) -> int:
    target = bytes.fromhex(hex_colour.lstrip("#"))
    return sum(n for colour, n in colours.items() if all(abs(colour[k] - target[k]) <= tolerance for k in range(3)))


def _check_page(browser: Browser, page: Path, requests: int, shot: Path) -> dict:
    url = page.resolve().as_uri()
    browser.load(url)
    found = browser.evaluate(PROBE)
    time.sleep(0.2)  # let late console messages arrive
    browser.send("Runtime.evaluate", {"expression": "1"})  # drains pending events into the list
    assert _problems(browser.events) == []
    assert _requests(browser.events) == [url]  # the page itself, and nothing else

    assert found["svg"] is not None, "no chart"
    assert found["readyState"] == "complete" and found["title"].startswith("ctxlint cost: ")
    assert (found["display"], found["visibility"]) == ("block", "visible")
    svg = found["svg"]
    assert svg["width"] > 400 and svg["height"] > 100
    assert 0 <= svg["y"] < found["viewport"]["height"], "the chart is not in the first screen"
    assert len(found["bars"]) == requests  # one bar per request
    for bar in found["bars"]:
        assert bar["box"]["width"] > 0 and bar["box"]["height"] > 0, bar
        assert bar["segments"] and all(s["box"]["width"] > 0 and s["box"]["height"] > 0 for s in bar["segments"])
        assert svg["x"] <= bar["box"]["x"] and bar["box"]["x"] + bar["box"]["width"] <= svg["x"] + svg["width"] + 1
        assert bar["label"] and bar["value"]
    assert len(found["swatches"]) >= 5 and all(s["width"] > 0 for s in found["swatches"])
    assert found["ticks"][0] == "0" and len(found["ticks"]) >= 3 and found["ticks"][-1] == "tokens per call"
    assert found["tables"] >= 1

    png = base64.b64decode(browser.send("Page.captureScreenshot", {"format": "png"})["data"])
    shot.write_bytes(png)
    width, height, rows = _png_pixels(png)
    assert (width, height) == (1280, 1000)
    colours = _colours(rows)
    assert len(colours) > 20, "the screenshot is blank"
    assert colours.most_common(1)[0][1] < 0.97 * width * height, "the screenshot is nearly one colour"
    # The chart is visible in the picture: tools (blue) and system (orange) bars were painted.
    assert _colour_pixels(colours, cost_html.PARTS[0][2]) > 200
    assert _colour_pixels(colours, cost_html.PARTS[1][2]) > 100
    return found


def test_report_renders_in_chromium(browser, project, tmp_path):
    project.write(FILES)
    run = project.run("cost", "--format", "html", "--output", "cost.html")
    assert run.code == 0, run.stderr
    found = _check_page(browser, project.root / "cost.html", 3, tmp_path / "cost.png")
    assert sorted(b["request"].split(":")[0] for b in found["bars"]) == [
        "prompts/support.j2", "requests/billing.json", "tools/weather.json"]
    assert (tmp_path / "cost.png").stat().st_size > 10_000


def test_comparison_report_renders_in_chromium(browser, tmp_path):
    page = tmp_path / "compare.html"
    page.write_text(cost_html.render(_hand_made_report()), encoding="utf-8")
    found = _check_page(browser, page, 2, tmp_path / "compare.png")
    assert any(b["value"].endswith("(+200)") for b in found["bars"])
    gate = browser.evaluate("document.querySelector('#gate').textContent")
    assert gate.startswith("✘ Over the limits (max increase 10%)")


# How the page fits the window: the page itself never scrolls sideways; the requests table shows
# every column inside its box, or scrolls inside it (never the page) when the window is narrow.
FIT = """(() => {
  const table = document.querySelector('table.requests');
  const box = table.parentElement;
  const chart = document.querySelector('svg#cost-chart').getBoundingClientRect();
  const unbounded = [...document.querySelectorAll('rect.seg-unbounded')].map(r => r.getBoundingClientRect());
  const axis = document.querySelector('.axis line').getBoundingClientRect();
  return {
    page: document.documentElement.scrollWidth, window: innerWidth,
    table: table.scrollWidth, tableBox: box.clientWidth,
    columns: table.querySelectorAll('thead th').length,
    chartRight: chart.right,
    unbounded: unbounded.map(r => ({width: r.width, right: r.right})), axisRight: axis.right,
    captions: [...document.querySelectorAll('g.bar text.value')].map(t => t.textContent),
  };
})()"""


@pytest.mark.parametrize("width", [1400, 800])
def test_the_page_fits_1400_and_800_pixels_with_every_column_at_1400(browser, project, tmp_path, width):
    """Issue 25: at 1,400 px the requests table shows all its columns without scrolling; at 800 px
    the page still never scrolls sideways. Dollars and unbounded output are drawn."""
    project.write({**FILES, "prompts/open.j2": "You are the support assistant.\nQuestion: {{ question }}\n"})
    run = project.run("cost", "--output-format", "html", "-o", "cost.html")
    assert run.code == 0, run.stderr
    browser.resize(width)
    try:
        browser.load((project.root / "cost.html").resolve().as_uri())
        fit = browser.evaluate(FIT)
        png = base64.b64decode(browser.send("Page.captureScreenshot", {"format": "png"})["data"])
    finally:
        browser.resize(1280)
    (tmp_path / f"cost-{width}.png").write_bytes(png)
    assert fit["window"] == width and fit["page"] <= width, fit  # no sideways scroll of the page
    assert fit["chartRight"] <= width
    assert fit["columns"] == 13  # request, model, 4 token counts, reserve, window, cache (2), prices (3)
    if width == 1400:
        assert fit["table"] <= fit["tableBox"], fit  # every column shown, nothing to scroll
    # A request with no output limit runs to the end of the axis; every caption has dollars.
    assert fit["unbounded"] and all(u["width"] > 0 and abs(u["right"] - fit["axisRight"]) < 2
                                    for u in fit["unbounded"]), fit
    assert all("$" in caption for caption in fit["captions"]), fit["captions"]
    assert any(caption.endswith("+ no output limit") for caption in fit["captions"])

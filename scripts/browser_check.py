"""Open every page of the built book in headless Chromium and check what a reader would see.

Each page of `_build/html` is served from this machine (an HTTP server on 127.0.0.1 in a
thread) and opened at a desktop width (1280 px) and a phone width (390 px). On every page:

- math is typeset: MathJax has finished, every `.math` element holds MathJax's output, and
  no raw `$$`, `\\(` or `\\[` is left in the prose;
- every image (graphs are SVG files shown with `<img>`) has loaded: `naturalWidth > 0`;
- nothing is wider than the viewport: the page does not scroll sideways
  (`document.documentElement.scrollWidth <= innerWidth`), and no element of the article
  sticks out past the right edge unless a block around it scrolls (long code and outputs
  scroll inside themselves);
- exercise solutions are collapsed;
- the page asks no host but its own for anything (Chrome's performance log);
- the browser console has no error (level SEVERE).

A full-page screenshot of each page at each width goes to `_build/screenshots/<page>-<width>.png`.

    python -m scripts.browser_check                 # all pages, both widths
    python -m scripts.browser_check --page 04_autograd_graph --width 390

It needs Debian's `chromium` and `chromium-driver` and the `selenium` package; the test
`tests/browser/test_pages.py` runs the same checks and is skipped when they are missing.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
HTML_DIR = ROOT / "_build" / "html"
SHOT_DIR = ROOT / "_build" / "screenshots"
WIDTHS = (1280, 390)
HEIGHT = 900
# Chromium's own background traffic (updates, sync, field trials) is switched off: on a
# closed network its refused connections would otherwise show up as noise.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
    "--hide-scrollbars",
)
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver",)
# From this width on, every line of code should fit its block without scrolling.
DESKTOP = 1000
# The tallest screenshot saved; longer pages are cut there.
MAX_SHOT_HEIGHT = 60000


def find_browser() -> tuple[str | None, str | None, str]:
    """Return (chromium, chromedriver, reason): the paths, or None and why not."""
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = next((p for p in map(shutil.which, DRIVERS) if p), None)
    if browser is None:
        return None, None, "no Chromium found (apt-get install chromium chromium-driver)"
    if driver is None:
        return None, None, "no chromedriver found (apt-get install chromium-driver)"
    return browser, driver, ""


def list_pages(html_dir: Path = HTML_DIR) -> list[str]:
    """Every built HTML page, relative to `html_dir`, except redirect stubs and assets."""
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir).as_posix()
        if rel.split("/")[0] in {"_static", "_sources", "_images"}:
            continue
        head = path.read_text(encoding="utf-8", errors="replace")[:2000].lower()
        if 'http-equiv="refresh"' in head and "<article" not in head:
            continue  # the root index.html only redirects to the first page
        pages.append(rel)
    return pages


def page_name(rel: str) -> str:
    """The name a page's screenshots carry: book/04_autograd_graph.html -> 04_autograd_graph."""
    return Path(rel).stem


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


class _Httpd(ThreadingHTTPServer):
    # The standard library's backlog of 5 connections is too short for a browser that
    # opens many at once on a busy machine; a refused connection is a missing script.
    request_queue_size = 128


class Server:
    """Serve a folder on 127.0.0.1 (a free port) from a thread, as a context manager."""

    def __init__(self, folder: Path):
        handler = functools.partial(_QuietHandler, directory=str(folder))
        self.httpd = _Httpd(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def make_driver(browser: str, chromedriver: str, width: int, profile_dir: str):
    """A headless Chromium showing pages `width` CSS pixels wide (a phone below 600)."""
    os.environ.setdefault("SE_AVOID_STATS", "true")  # selenium: send no usage statistics
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    options.add_argument(f"--window-size={width},{HEIGHT}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(MATHJAX_WAIT + 20)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    return driver


@dataclass
class PageResult:
    """What one page at one width showed: `problems` is empty when every check passed."""

    page: str
    width: int
    problems: dict[str, list[str]] = field(default_factory=dict)
    # Not failures (yet): code lines too long for the column at desktop width.
    warnings: dict[str, list[str]] = field(default_factory=dict)
    facts: dict[str, object] = field(default_factory=dict)
    screenshot: str = ""

    def fail(self, check: str, detail: str) -> None:
        self.problems.setdefault(check, []).append(detail)

    @property
    def ok(self) -> bool:
        return not self.problems


# Runs in the page; returns what the checks need. arguments[0] is the intended width.
_INSPECT_JS = r"""
const width = arguments[0];
const de = document.documentElement;
const out = {scrollWidth: de.scrollWidth, innerWidth: window.innerWidth,
             clientWidth: de.clientWidth};

function describe(el) {
  let s = el.tagName.toLowerCase();
  if (el.id) s += '#' + el.id;
  if (el.classList.length) s += '.' + [...el.classList].slice(0, 3).join('.');
  const text = (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 50);
  return s + (text ? ' "' + text + '"' : '');
}

// Math: every .math element typeset, no raw delimiters left in the prose.
const maths = [...document.querySelectorAll('.math')];
out.mathTotal = maths.length;
out.mathUntypeset = maths.filter(m => !m.querySelector('mjx-container'))
                         .slice(0, 5).map(m => m.textContent.trim().slice(0, 60));
out.mathUntypesetCount = maths.filter(m => !m.querySelector('mjx-container')).length;
const article = document.querySelector('article') || document.body;
const raw = [];
const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const p = n.parentElement;
  if (!p || p.closest('pre, code, .highlight, .cell_output, .output, script, style')) continue;
  const m = n.textContent.match(/\$\$|\\\(|\\\[/);
  if (m) raw.push(n.textContent.trim().slice(0, 60));
}
out.rawMath = raw.slice(0, 5);

// Images: all loaded (graphs are SVG files in <img>), inline SVG in outputs drawn.
out.images = document.images.length;
out.brokenImages = [...document.images]
  .filter(i => !i.complete || i.naturalWidth === 0)
  .map(i => (i.getAttribute('src') || '').slice(0, 100));
out.brokenSvgs = [...article.querySelectorAll('.cell_output svg, .output svg')]
  .filter(s => s.getClientRects().length && s.getBoundingClientRect().width === 0)
  .map(describe);

// Width: the page must not scroll sideways; an article element past the right edge is
// a problem unless a block around it scrolls (overflow-x auto/scroll).
const limit = Math.min(window.innerWidth, width);
function scrolledInside(el) {
  for (let a = el.parentElement; a && a !== de; a = a.parentElement) {
    const ox = getComputedStyle(a).overflowX;
    if (ox === 'auto' || ox === 'scroll') return true;
  }
  return false;
}
const wide = new Set();
for (const el of article.querySelectorAll('*')) {
  if (el.closest('mjx-assistive-mml, .visually-hidden, .sr-only')) continue;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;
  if (getComputedStyle(el).visibility === 'hidden') continue;
  if (r.right > limit + 1 && !scrolledInside(el)) wide.add(el);
}
const outermost = [...wide].filter(el => {
  for (let a = el.parentElement; a; a = a.parentElement) if (wide.has(a)) return false;
  return true;
});
out.wideElements = outermost.slice(0, 8).map(el =>
  describe(el) + ' (' + Math.round(el.getBoundingClientRect().width) + ' px wide, right edge '
  + Math.round(el.getBoundingClientRect().right) + ')');
out.wideCount = outermost.length;

// Code (not outputs) whose longest line does not fit its block: it scrolls, which is
// allowed, but at desktop width the chapters' code should fit (about 88 columns).
out.wideCode = [...article.querySelectorAll('div.highlight pre')]
  .filter(p => !p.closest('.cell_output, .output') && p.scrollWidth > p.clientWidth + 1)
  .map(p => {
    const lines = p.textContent.split('\n');
    const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
    return longest.length + ' columns: ' + longest.trim().slice(0, 70);
  });

// Solutions: collapsed, i.e. nothing but their title shows.
const sols = [...document.querySelectorAll('.solution')];
out.solutions = sols.length;
out.openSolutions = sols.filter(s => {
  if (s.tagName === 'DETAILS') return s.open;
  return [...s.children].some(c => !c.classList.contains('admonition-title')
      && !c.matches('button') && c.getClientRects().length > 0
      && c.getBoundingClientRect().height > 0);
}).map(s => s.id || describe(s));
return out;
"""

# MathJax's loader may still be fetching its components when the page's load event has
# fired (more often on a busy machine), so on a page that loads MathJax its startup object
# is waited for, up to MATHJAX_WAIT seconds; a page without the script is 'absent' at once.
# A page whose MathJax never started is loaded once more before it counts as a failure
# (CI saw it once in about 100 page views on a loaded machine).
MATHJAX_WAIT = 40
_WAIT_MATHJAX_JS = r"""
const done = arguments[arguments.length - 1];
const waitMs = arguments[0];
const started = Date.now();
const loads = [...document.scripts].some(s => /mathjax/i.test(s.src || '')
                                          || /MathJax/.test(s.textContent || ''));
if (!loads) { done('absent'); return; }
(function poll() {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(() => done('typeset'), e => done('error: ' + e));
  } else if (Date.now() - started > waitMs) {
    done('not started after ' + Math.round(waitMs / 1000) + ' s');
  } else {
    setTimeout(poll, 100);
  }
})();
"""

_WAIT_IMAGES_JS = r"""
const done = arguments[arguments.length - 1];
const pending = [...document.images].filter(i => !i.complete);
if (!pending.length) { done(0); return; }
let left = pending.length;
const one = () => { if (--left === 0) done(0); };
pending.forEach(i => { i.addEventListener('load', one); i.addEventListener('error', one); });
setTimeout(() => done(left), 15000);
"""


def _scroll_through(driver) -> None:
    """Scroll the page from top to bottom so lazily loaded images load, then back up."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    for y in range(0, int(height) + HEIGHT, HEIGHT):
        driver.execute_script("window.scrollTo(0, arguments[0])", y)
    driver.execute_script("window.scrollTo(0, 0)")


def _foreign_requests(driver, origin: str) -> list[str]:
    """URLs the page asked for from any host but `origin` (Chrome's performance log)."""
    own = urlsplit(origin).netloc
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") != "Network.requestWillBeSent":
            continue
        url = message["params"]["request"]["url"]
        parts = urlsplit(url)
        if parts.scheme in {"data", "blob", "about", "chrome", "chrome-untrusted", "devtools"}:
            continue
        if parts.netloc != own:
            urls.append(url)
    return urls


def _wait_for_mathjax(driver) -> str:
    """'typeset', 'absent' (the page has no MathJax), 'not started after N s' or 'error: ..'."""
    return driver.execute_async_script(_WAIT_MATHJAX_JS, MATHJAX_WAIT * 1000)


def _failed_requests(driver) -> list[str]:
    """Requests of the page that failed so far (Chrome's performance log), for the report."""
    urls, failed = {}, []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message.get("method") == "Network.requestWillBeSent":
            urls[params.get("requestId")] = params["request"]["url"]
        elif message.get("method") == "Network.loadingFailed":
            url = urls.get(params.get("requestId"), "?")
            failed.append(f"{url} ({params.get('errorText', '')})")
    return failed


def _screenshot(driver, path: Path, width: int) -> None:
    """Save the whole page (down to MAX_SHOT_HEIGHT) as a PNG.

    The viewport is stretched to the page's height for the shot and put back after, which
    renders a long page the way a reader scrolling through it would see it.
    """
    import base64

    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    height = max(HEIGHT, min(int(size["height"]), MAX_SHOT_HEIGHT))
    mobile = width < 600
    override = {"width": width, "deviceScaleFactor": 1, "mobile": mobile}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**override, "height": height})
    try:
        time.sleep(0.2)
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
    finally:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {**override, "height": HEIGHT}
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))


def check_page(driver, origin: str, rel: str, width: int, shot_dir: Path | None) -> PageResult:
    """Open one page and run every check on it."""
    result = PageResult(rel, width)
    driver.get_log("performance")  # drop what earlier pages left in the logs
    driver.get_log("browser")
    driver.get(f"{origin}/{rel}")
    mathjax = _wait_for_mathjax(driver)
    if mathjax.startswith("not started"):
        failed = _failed_requests(driver)
        driver.get_log("browser")  # the first load's errors: reported below if it fails again
        driver.refresh()
        mathjax = _wait_for_mathjax(driver)
        if mathjax != "typeset":
            mathjax += " (loaded twice" + (f"; failed requests: {failed}" if failed else "") + ")"
    _scroll_through(driver)
    unloaded = driver.execute_async_script(_WAIT_IMAGES_JS)
    time.sleep(0.3)  # let late scripts (toggle buttons, copy buttons) settle
    facts = driver.execute_script(_INSPECT_JS, width)
    facts["mathjax"] = mathjax
    facts["imagesStillLoading"] = unloaded
    result.facts = facts

    if facts["mathTotal"] and mathjax != "typeset":
        result.fail("math", f"MathJax did not finish ({mathjax})")
    for text in facts["mathUntypeset"]:
        result.fail("math", f"not typeset: {text!r}")
    for text in facts["rawMath"]:
        result.fail("math", f"raw TeX delimiters in the text: {text!r}")
    for src in facts["brokenImages"]:
        result.fail("images", f"image not loaded: {src}")
    for svg in facts["brokenSvgs"]:
        result.fail("images", f"SVG not drawn: {svg}")
    limit = min(facts["innerWidth"], width)
    if facts["scrollWidth"] > limit + 1:
        result.fail("width", f"page scrolls sideways: {facts['scrollWidth']} px wide in a "
                             f"{limit} px viewport")
    for element in facts["wideElements"]:
        result.fail("width", f"wider than the viewport: {element}")
    if width >= DESKTOP:
        for line in facts["wideCode"]:
            result.warnings.setdefault("code-width", []).append(f"code line too long: {line}")
    for sol in facts["openSolutions"]:
        result.fail("solutions", f"solution shown open: {sol}")
    for url in _foreign_requests(driver, origin):
        result.fail("requests", f"request to another host: {url}")
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE":
            result.fail("console", entry.get("message", "")[:300])
    if shot_dir is not None:
        path = shot_dir / f"{page_name(rel)}-{width}.png"
        _screenshot(driver, path, width)
        result.screenshot = str(path)
    return result


def run(
    html_dir: Path = HTML_DIR,
    shot_dir: Path | None = SHOT_DIR,
    widths: tuple[int, ...] = WIDTHS,
    pages: list[str] | None = None,
) -> list[PageResult]:
    """Check `pages` (default: all) at each width; one browser per width."""
    browser, chromedriver, reason = find_browser()
    if browser is None:
        raise RuntimeError(reason)
    pages = list_pages(html_dir) if pages is None else pages
    results = []
    with Server(html_dir) as server, tempfile.TemporaryDirectory() as tmp:
        for width in widths:
            profile = tempfile.mkdtemp(prefix=f"chromium-{width}-", dir=tmp)
            driver = make_driver(browser, chromedriver, width, profile)
            try:
                for rel in pages:
                    results.append(check_page(driver, server.origin, rel, width, shot_dir))
            finally:
                driver.quit()
    return results


def report(results: list[PageResult]) -> str:
    """A plain-text summary: one line per page and width, then each problem."""
    lines = []
    for r in results:
        status = "ok" if r.ok else "FAIL " + ", ".join(sorted(r.problems))
        lines.append(f"{r.page:40} {r.width:5} px  {status}")
        for kind, found in (("", r.problems), ("warning: ", r.warnings)):
            for check, details in sorted(found.items()):
                for detail in details[:10]:
                    lines.append(f"    {kind}[{check}] {detail}")
                if len(details) > 10:
                    lines.append(f"    {kind}[{check}] ... and {len(details) - 10} more")
    failed = sum(not r.ok for r in results)
    warned = sum(bool(r.warnings) for r in results)
    if warned:
        lines.append(f"{warned} page views with warnings (code lines too long at desktop width)")
    lines.append(f"{len(results) - failed} passed, {failed} failed")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=HTML_DIR, help="the built book")
    parser.add_argument("--out", type=Path, default=SHOT_DIR, help="screenshot folder")
    parser.add_argument("--width", type=int, action="append", help="1280 and 390 by default")
    parser.add_argument("--page", action="append", help="a page name, e.g. 04_autograd_graph")
    args = parser.parse_args(argv)
    if not (args.html / "book").is_dir():
        print(f"No built book in {args.html}: run `make book` first.", file=sys.stderr)
        return 2
    pages = list_pages(args.html)
    if args.page:
        pages = [p for p in pages if page_name(p) in args.page or p in args.page]
    results = run(args.html, args.out, tuple(args.width or WIDTHS), pages)
    print(report(results))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

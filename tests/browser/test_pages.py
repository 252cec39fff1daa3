"""The built book in a real browser: every page of `_build/html` opened in headless
Chromium at 1280 px and at 390 px wide, with the checks of scripts/browser_check.py (math
typeset, pictures loaded, nothing wider than the screen, solutions collapsed, no request
to another host, no console error). Screenshots go to `_build/screenshots/`.

Skipped, with the reason, when selenium, Debian's `chromium` and `chromium-driver`, or a
built book (`make book`) are missing. `.ci/run` installs the browser and builds the book
first, so CI runs it.
"""

import pytest

from scripts import browser_check as bc

pytestmark = pytest.mark.browser

BROWSER, DRIVER, WHY_NO_BROWSER = bc.find_browser()
BUILT = (bc.HTML_DIR / "book" / "intro.html").is_file()
PAGES = bc.list_pages() if BUILT else []


def _no_browser():
    """Why no browser can be driven here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "browser test skipped: selenium is not installed (pip install -r requirements.txt)"
    if BROWSER is None:
        return f"browser test skipped: {WHY_NO_BROWSER}"
    return None


NO_BROWSER = _no_browser()
SKIP = NO_BROWSER or (
    None if BUILT else "browser test skipped: the book is not built (run `make book` first)"
)
CASES = [
    pytest.param(page, width, id=f"{bc.page_name(page)}-{width}")
    for width in bc.WIDTHS for page in PAGES
] or [pytest.param(None, None, id="no-pages", marks=pytest.mark.skip(reason=SKIP or "no pages"))]


@pytest.fixture(scope="module")
def results():
    """Every page at both widths, checked once (one browser per width)."""
    if SKIP:
        pytest.skip(SKIP)
    return {(r.page, r.width): r for r in bc.run(pages=PAGES)}


@pytest.mark.parametrize("page, width", CASES)
def test_page(results, page, width):
    result = results[(page, width)]
    assert result.ok, "\n" + bc.report([result])


def test_code_fits_at_desktop_width(results):
    wide = [r for r in results.values() if r.warnings]
    assert not wide, "\n" + bc.report(wide)


# ----- the checks can fail: a made-up page with one of each problem --------------------

BAD_PAGE = """<!DOCTYPE html>
<html><head><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<script>console.error("something broke");</script></head>
<body><article class="bd-article">
<p>Raw math that nothing typeset: $$x^2$$</p>
<img src="missing.png" alt="a picture that is not there">
<img src="http://127.0.0.2:9/elsewhere.png" alt="a picture from another host">
<div style="width: 2000px">a block wider than any screen</div>
<div class="solution dropdown admonition" id="sol-1">
  <p class="admonition-title">Solution</p><p>shown to everyone</p></div>
</article></body></html>
"""

GOOD_PAGE = """<!DOCTYPE html>
<html><head><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"></head>
<body><article class="bd-article"><p>Nothing to see.</p>
<pre style="overflow-x: auto">a long line that scrolls inside its own block:
""" + "x" * 400 + """</pre></article></body></html>
"""


def test_the_checks_catch_each_problem(tmp_path):
    if NO_BROWSER:
        pytest.skip(NO_BROWSER)
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "bad.html").write_text(BAD_PAGE, encoding="utf-8")
    (tmp_path / "book" / "good.html").write_text(GOOD_PAGE, encoding="utf-8")
    found = {(r.page, r.width): r for r in bc.run(tmp_path, None, (390,))}
    bad, good = found[("book/bad.html", 390)], found[("book/good.html", 390)]
    assert good.ok, bc.report([good])
    assert set(bad.problems) == {"math", "images", "width", "solutions", "requests", "console"}, \
        bc.report([bad])
    assert any("127.0.0.2" in p for p in bad.problems["requests"])
    assert any("something broke" in p for p in bad.problems["console"])

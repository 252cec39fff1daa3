"""Small fixes to the book's HTML, loaded as a Sphinx extension (_config.yml,
sphinx.local_extensions).

- Each script is linked once per page. With Jupyter Book 1.0.4, sphinx-thebe and
  sphinx-togglebutton add their inline configuration scripts once with the file name None
  and once with "", which Sphinx does not recognise as the same script; the second copy
  of thebe's stops with "Identifier 'THEBE_JS_URL' has already been declared" in the
  browser console (tests/browser/test_pages.py checks that the console stays clean).
"""


def _script_key(script):
    filename = getattr(script, "filename", script) or ""
    attributes = getattr(script, "attributes", {}) or {}
    return str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items()))


def _link_each_script_once(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen = set()
    kept = []
    for script in scripts:
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    scripts[:] = kept  # in place: scripts added for this page later land in the same list


def setup(app):
    # Early: the event stops at the first handler that returns a template name, and the
    # duplicates are there from the start (handlers that add a page's own scripts later,
    # such as MathJax's, add to the same list and are deduplicated by Sphinx itself).
    app.connect("html-page-context", _link_each_script_once, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

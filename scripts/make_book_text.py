"""Write ``minitorch/book/book_prose.txt``: the prose of the book's chapters, the text that
chapter 17's small GPT learns to imitate (run by hand: ``python scripts/make_book_text.py``).

The text is the Markdown cells of the chapter notebooks of Parts I to V, in the order of
``_toc.yml``, reduced to plain paragraphs: code blocks, display math, MyST directives,
tables and headings' markup are left out, inline markup (``**``, backticks, links) is
kept as written, and characters outside printable ASCII become their nearest ASCII
(or are dropped), so that the vocabulary stays small. The file is frozen: chapter 17
trains on this snapshot, so that editing a chapter does not change its results.
"""

import json
import pathlib
import re
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "minitorch" / "book" / "book_prose.txt"
SKIP = ("book/17_gpt",)          # the chapter that trains on the text is not in it
REPLACE = {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
           "\u2014": "-", "\u2026": "...", "\u2192": "->", "\u00d7": "x", "\u2248": "~",
           "\u2264": "<=", "\u2265": ">=", "\u00a0": " ", "\u2212": "-"}


def chapter_files():
    """The notebooks of the numbered parts of ``_toc.yml``, in reading order."""
    files = re.findall(r"file:\s*(book/\S+)", (ROOT / "_toc.yml").read_text())
    return [ROOT / f"{name}.ipynb" for name in files
            if name not in SKIP and (ROOT / f"{name}.ipynb").is_file()]


def paragraphs(markdown):
    """Plain paragraphs of one Markdown cell."""
    text = re.sub(r"^(`{3,}|~{3,}).*?^\1\s*$", "", markdown, flags=re.S | re.M)
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)
    kept = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines()
                 if not line.lstrip().startswith(("|", ":", "<", "```", "(", "!["))]
        block = re.sub(r"\n(?![-*] |\d+\. )", " ", "\n".join(line.strip() for line in lines))
        block = re.sub(r"^#+\s*", "", block.strip())
        block = re.sub(r"\{\w+\}`([^`<]*?)\s*(<[^`]*>)?`", r"\1", block)   # {term}`x <y>`: x
        if len(block) > 1:
            kept.append(block)
    return kept


def ascii_only(text):
    """Printable ASCII: known symbols replaced, accents removed, anything else dropped."""
    for old, new in REPLACE.items():
        text = text.replace(old, new)
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if c == "\n" or " " <= c <= "~")


def main():
    pieces = []
    for path in chapter_files():
        cells = json.loads(path.read_text())["cells"]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                pieces.extend(paragraphs("".join(cell["source"])))
    text = ascii_only("\n\n".join(pieces)) + "\n"
    OUT.write_text(text)
    print(f"{OUT.relative_to(ROOT)}: {len(text):,} characters, "
          f"{len(set(text))} distinct")


if __name__ == "__main__":
    main()

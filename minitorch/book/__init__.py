"""Files the book's pages use that are not part of minitorch's API (chapter 17 and the
benchmarks appendix).

``gpt.py`` is a small GPT written for PyTorch (it imports ``torch``, nothing of
minitorch), and ``book_prose.txt`` is the text it learns, the prose of the book's
chapters; ``README.md`` gives the text's source and licence.  ``benchmarks.json`` and
``benchmarks.png`` are the results of the last full ``make bench`` (a copy of
``bench/results`` that the run writes), which the benchmarks appendix shows.  They ship
inside the package, rather than beside the notebooks, so that a page runs alone from its
launch button: on Colab the installed package is all a notebook has.

    from minitorch.book import FOLDER
    sys.path.insert(0, str(FOLDER))                  # `import gpt` finds gpt.py
    text = (FOLDER / "book_prose.txt").read_text(encoding="utf-8")
"""

import pathlib

FOLDER = pathlib.Path(__file__).resolve().parent

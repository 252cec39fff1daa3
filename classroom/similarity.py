"""Copied code under other names: how ``release`` and ``selfcheck`` find a task's solution
in a student's copy.

A person who copies code renames its variables, re-indents it, joins or splits lines
and drops its comments; what stays is the shape of the code and the names it cannot
change (the methods and attributes it calls, the keyword arguments it passes, the
keywords, the builtins, the numbers).  So code is compared as a stream of *normalised
tokens*:

* every text is cut into Python tokens by a forgiving tokenizer (it reads code,
  printed code in a notebook's output, code quoted in prose, and never fails on a
  fragment); REPL prompts, comments and whitespace, line breaks included, are dropped;
  an HTML output loses its tags first;
* a name is kept when it is a Python keyword or builtin (``return``, ``None``,
  ``len``), follows a dot (an attribute or method: ``.mm``, ``.saved_tensors``) or
  names a keyword argument (``keepdim=``); any other name becomes ``_``, and remembers
  how far back the same name was last used, so that two runs of tokens match only when
  their names repeat the same way (a consistent renaming: Baker's parameterised
  matching).  ``grad_q = (d @ k) * ctx.scale`` and ``gq = (ds @ key) * ctx.scale`` are
  the same; ``for u in range(k): for v in range(k)`` and ``for i in range(h): for j in
  range(w)`` are not;
* a string literal becomes one ``STR`` token (messages get rephrased); numbers and
  operators stay as they are.

A *shared run* is at least ``RUN_TOKENS`` tokens that a solution and a text both have, in
a row; runs less than ``GAP_TOKENS`` apart in the text are one place.  A text *shows* a
solution when one place covers all of a short solution, half of a longer one and
``LEAK_TOKENS`` of a long one, never fewer than ``SHORT_LEAK_TOKENS`` (unless that is the
whole solution): short common code (``return x``, ``if b is not None else None``) never
counts.  A run that the course's own code outside the regions uses ``IDIOM_PLACES`` times
or more is an idiom (the way the package's Functions read), not a solution.
``tests/classroom/test_similarity.py`` pins these thresholds down: renamed copies are
caught, short common lines and same-shaped code with other names are not.
"""

from __future__ import annotations

import builtins
import dataclasses
import html
import keyword
import math
import re

RUN_TOKENS = 12        # the shortest shared run of tokens that counts
SHORT_LEAK_TOKENS = 20  # a text shows at least this many tokens of a solution to leak it
LEAK_TOKENS = 30       # ... and never needs to show more than this many
GAP_TOKENS = 30        # shared runs further apart than this in a text are two places
IDIOM_PLACES = 3       # a run found this often in the course's own code is an idiom

NAME = "_"
STRING = "STR"
_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(getattr(keyword, "softkwlist", ())) \
    | frozenset(dir(builtins))
_TOKEN = re.compile(r"""
      (?P<comment>\#[^\n]*)
    | (?P<string>[rRbBuUfF]{0,2}(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''
                              |"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
    | (?P<number>(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?)
    | (?P<name>[^\W\d]\w*)
    | (?P<op>\*\*=|//=|>>=|<<=|->|:=|==|!=|<=|>=|\*\*|//|<<|>>|[-+*/%@&|^~<>]=?
            |[()\[\]{},:;.=])
    | (?P<newline>\n)
    """, re.VERBOSE)
_PROMPT = re.compile(r"^[ \t]*(?:>>>|\.\.\.)[ \t]", re.M)     # doctest and REPL prompts
_TAG = re.compile(r"<[^<>\n]{0,400}>")


@dataclasses.dataclass(frozen=True)
class Tokens:
    """A text's normalised tokens: ``words`` (a renamable name is ``_``), for each name
    the distance back to the same name's previous use (``previous``, 0 for none or for
    any other token), and the 1-based line of each token."""
    words: tuple
    previous: tuple
    lines: tuple

    def __len__(self):
        return len(self.words)

    def names(self, start, size):
        """How the names of ``words[start:start + size]`` repeat inside that run: the
        run's identity under consistent renaming (Baker's parameterised strings)."""
        previous = self.previous
        return tuple(d if d and d <= i - start else 0
                     for i, d in zip(range(start, start + size), previous[start:start + size]))


def normalise(text, markup=False):
    """``Tokens`` of ``text`` (``markup``: HTML, whose tags are dropped first)."""
    if markup:
        text = html.unescape(_TAG.sub("", text))
    text = _PROMPT.sub("", text)
    matches = [m for m in _TOKEN.finditer(text) if m.lastgroup != "comment"]
    words, previous, lines, last_seen = [], [], [], {}
    line, depth = 1, 0
    for index, match in enumerate(matches):
        kind, value = match.lastgroup, match.group()
        if kind == "newline":
            line += 1
            continue
        distance = 0
        if kind == "string":
            word = STRING
        elif kind == "name":
            following = _next_word(matches, index)
            kept = (value in _KEPT_NAMES or (words and words[-1] == ".")
                    or (depth > 0 and following == "="))      # a keyword argument
            if kept:
                word = value
            else:
                word = NAME
                here = len(words)
                distance = here - last_seen[value] if value in last_seen else 0
                last_seen[value] = here
        else:
            word = value
            depth += value in "([{" and len(value) == 1
            depth -= value in ")]}" and len(value) == 1 and depth > 0
        words.append(word)
        previous.append(distance)
        lines.append(line)
        line += value.count("\n")
    return Tokens(tuple(words), tuple(previous), tuple(lines))


def _next_word(matches, index):
    for match in matches[index + 1:index + 3]:
        if match.lastgroup != "newline":
            return match.group()
    return None


@dataclasses.dataclass
class Solution:
    """A task's solution (one region's body) to look for."""
    task: str
    where: str                       # the region, for messages
    tokens: Tokens

    @property
    def needed(self):
        """How many of its tokens a text must show to leak it: all of a short one,
        half of a longer one, and ``LEAK_TOKENS`` of a long one."""
        size = len(self.tokens)
        return min(size, max(SHORT_LEAK_TOKENS, min(LEAK_TOKENS, math.ceil(size / 2))))


@dataclasses.dataclass
class Match:
    solution: Solution
    covered: int                     # tokens of the solution the text shows
    lines: tuple                     # (first, last) line of the text that shows them

    def describe(self):
        first, last = self.lines
        at = f"line {first}" if first == last else f"lines {first}-{last}"
        return (f"{at} show {self.covered} of the {len(self.solution.tokens)} tokens of task "
                f"{self.solution.task}'s solution ({self.solution.where})")


class Finder:
    """Looks for any of ``solutions`` in texts.  ``idioms``: ``Tokens`` of the course's
    own code outside the regions (one per file); a run found ``IDIOM_PLACES`` times
    in them never counts."""

    def __init__(self, solutions, idioms=()):
        self.solutions = [s for s in solutions if len(s.tokens) >= RUN_TOKENS]
        self.index = {}
        for number, solution in enumerate(self.solutions):
            tokens = solution.tokens
            for start in range(len(tokens) - RUN_TOKENS + 1):
                self.index.setdefault(tokens.words[start:start + RUN_TOKENS], []).append(
                    (number, start, tokens.names(start, RUN_TOKENS)))
        counts = {}
        for tokens in idioms:
            for key in {(start, key) for start, _, key in self._hits(tokens)}:
                counts[key[1]] = counts.get(key[1], 0) + 1
        self.idioms = {key for key, count in counts.items() if count >= IDIOM_PLACES}

    def _hits(self, tokens):
        """``(text start, (solution, its start), run key)`` of every shared run."""
        words, index = tokens.words, self.index
        for start in range(len(words) - RUN_TOKENS + 1):
            candidates = index.get(words[start:start + RUN_TOKENS])
            if not candidates:
                continue
            names = tokens.names(start, RUN_TOKENS)
            for number, position, wanted in candidates:
                if names == wanted:
                    yield start, (number, position), (words[start:start + RUN_TOKENS], names)

    def matches(self, tokens):
        """``[Match]``: the solutions ``tokens`` shows.  Shared runs count together when
        they are close in the text (at most ``GAP_TOKENS`` apart): a copy is one place."""
        clusters = {}               # solution -> [[covered positions, first, last, end]]
        for start, (number, position), key in self._hits(tokens):
            if key in self.idioms:
                continue
            groups = clusters.setdefault(number, [])
            if not groups or start > groups[-1][3] + GAP_TOKENS:
                groups.append([set(), start, start, start])
            group = groups[-1]
            group[0].update(range(position, position + RUN_TOKENS))
            group[2], group[3] = start + RUN_TOKENS - 1, start + RUN_TOKENS - 1
        found = []
        for number, groups in clusters.items():
            solution = self.solutions[number]
            best = max(groups, key=lambda g: len(g[0]))
            if len(best[0]) >= solution.needed:
                found.append(Match(solution, len(best[0]),
                                   (tokens.lines[best[1]], tokens.lines[best[2]])))
        return found

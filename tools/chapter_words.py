#!/usr/bin/env python3
"""Words of prose per chapter: all of it, and the main path a lecture covers.

    python tools/chapter_words.py [FILES...]       (default: chapters/*.md)

The main path is the prose a lecture covers: outside code cells, outside the exercises
(statements, counted apart, and solutions), outside the chapter's collapsed "Reproducibility
notes" block and outside sections marked optional (a heading that ends in "(optional)"; its
subsections go with it, up to the next heading of the same or a higher level). Exercises are
homework, done after the lecture. Directive fences, their options, labels and comments are
not words; an inline role counts as one word. A "Check your understanding" question is on
the main path (a lecture stops there); its answer, the collapsed "Answer" box inside it, is
counted with the solutions. The style guide asks for about 4000 words of main path per
chapter at most (`MAIN_PATH_LIMIT`).
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAIN_PATH_LIMIT = 4000
REPRO_TITLE = "Reproducibility notes"
CHECK_TITLE = "Check your understanding"
ANSWER_TITLE = "Answer"

_FENCE = re.compile(r"^(`{3,}|:{3,}|~{3,})")
_CELL = re.compile(r"^(`{3,}|~{3,})\{code-cell\}")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_ROLE = re.compile(r"\{[a-z:-]+\}`[^`]*`")


def count_words(text: str) -> int:
    """Words of a stretch of MyST prose: an inline role or a math span counts as one."""
    text = _ROLE.sub("X", text)
    return len(re.findall(r"[A-Za-z0-9$\\][^\s]*", text))


def _skippable(line: str) -> bool:
    s = line.strip()
    return bool(_FENCE.match(s) or re.match(r"^:[a-z-]+:", s) or re.match(r"^\(.*\)=$", s)
                or s.startswith("<!--") or s.startswith("+++"))


def split_prose(text: str) -> dict:
    """The prose lines of a chapter, sorted into main path, solutions, reproducibility notes
    and optional sections (code cells dropped)."""
    lines = text.split("\n")
    i = 0
    if lines and lines[0].strip() == "---":           # front matter
        i = lines.index("---", 1) + 1
    parts = {"main": [], "exercise": [], "solution": [], "repro": [], "optional": []}
    in_solution = False
    exercise_fence = None     # the fence that closes an exercise statement
    repro_fence = None        # the fence that closes the reproducibility block
    check_fence = None        # the fence that closes a "Check your understanding" box
    answer_fence = None       # the fence that closes its answer
    optional_level = None     # heading level of the optional section we are in
    while i < len(lines):
        line = lines[i]
        m = _CELL.match(line)
        if m:                                          # skip the whole code cell
            fence = m.group(1)
            i += 1
            while i < len(lines) and lines[i].strip() != fence:
                i += 1
            i += 1
            continue
        m = re.match(r"^(`{3,}|:{3,})\{exercise\}", line)
        if m and exercise_fence is None:
            exercise_fence = m.group(1)
        elif exercise_fence is not None and line.strip() == exercise_fence:
            exercise_fence = None
        if re.match(r"^`{3,}\{solution-start\}", line):
            in_solution = True
        elif re.match(r"^`{3,}\{solution-end\}", line):
            in_solution = False
        m = re.match(r"^(:{3,}|`{3,})\{admonition\}\s*(.*)$", line)
        if m and repro_fence is None and m.group(2).strip().startswith(REPRO_TITLE):
            repro_fence = m.group(1)
        elif repro_fence is not None and line.strip() == repro_fence:
            repro_fence = None
            i += 1
            continue
        m = re.match(r"^(:{3,}|`{3,})\{admonition\}\s*(.*)$", line)
        if m and check_fence is None and m.group(2).strip().startswith(CHECK_TITLE):
            check_fence = m.group(1)
        elif m and check_fence is not None and m.group(2).strip() == ANSWER_TITLE:
            answer_fence = m.group(1)
        elif answer_fence is not None and line.strip() == answer_fence:
            answer_fence = None
        elif check_fence is not None and line.strip() == check_fence:
            check_fence = None
        h = _HEADING.match(line)
        if h and repro_fence is None and not in_solution:
            level = len(h.group(1))
            if optional_level is not None and level <= optional_level:
                optional_level = None
            if optional_level is None and h.group(2).lower().endswith("(optional)"):
                optional_level = level
        if not _skippable(line):
            if repro_fence is not None:
                parts["repro"].append(line)
            elif in_solution or answer_fence is not None:
                parts["solution"].append(line)
            elif exercise_fence is not None:
                parts["exercise"].append(line)
            elif optional_level is not None:
                parts["optional"].append(line)
            else:
                parts["main"].append(line)
        i += 1
    return parts


def chapter_words(path) -> dict:
    """Words of each kind of prose in one MyST page, and the total."""
    parts = split_prose(Path(path).read_text())
    words = {k: count_words("\n".join(v)) for k, v in parts.items()}
    words["total"] = sum(words.values())
    return words


def main(argv) -> int:
    files = [Path(a) for a in argv] or sorted((ROOT / "chapters").glob("*.md"))
    print(f"{'page':34s} {'main path':>9s} {'optional':>8s} {'exercises':>9s} "
          f"{'solutions':>9s} {'repro':>6s} {'total':>6s}")
    for f in files:
        w = chapter_words(f)
        flag = "  over" if w["main"] > MAIN_PATH_LIMIT else ""
        name = f.relative_to(ROOT) if f.is_absolute() and ROOT in f.parents else f
        print(f"{str(name):34s} {w['main']:9d} {w['optional']:8d} {w['exercise']:9d} "
              f"{w['solution']:9d} "
              f"{w['repro']:6d} {w['total']:6d}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Homework a course can adopt (issue 36): every chapter and the appendix have 5 to 7
exercises, each tagged with its difficulty (one to three stars) and its kind, each with a
solution; at least two analytical ones per page; each part of the book has a coding-from-scratch
exercise and a mini-project."""

import re

import pytest
from _tools import ROOT

PAGES = sorted((ROOT / "chapters").glob("*.md"))
PARTS = {"Part I": ["01", "02", "03", "04"], "Part II": ["05", "06", "07"]}
KINDS = ("analytical", "computational", "coding from scratch", "mini-project")
EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}(.*)\n:label: (\S+)", re.M)
TAG = re.compile(r"\((★{1,3}), (" + "|".join(KINDS) + r")\)\s*$")


def exercises(page):
    """(label, stars, kind) of each exercise on a page; kind None if the title has no tag."""
    out = []
    for m in EXERCISE.finditer(page.read_text()):
        tag = TAG.search(m.group(2))
        out.append((m.group(3), len(tag.group(1)) if tag else 0, tag.group(2) if tag else None))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_five_to_seven_tagged_exercises_with_solutions(page):
    found = exercises(page)
    assert 5 <= len(found) <= 7, (page.name, len(found))
    untagged = [label for label, _, kind in found if kind is None]
    assert not untagged, (page.name, untagged)
    text = page.read_text()
    for label, _, _ in found:
        assert re.search(rf"^`{{3,}}\{{solution-start\}} {re.escape(label)}\s*$", text, re.M), label
    analytical = [label for label, _, kind in found if kind == "analytical"]
    assert len(analytical) >= 2, (page.name, analytical)


@pytest.mark.parametrize("part", sorted(PARTS))
def test_each_part_has_a_from_scratch_exercise_and_a_mini_project(part):
    kinds = {kind for page in PAGES if page.name[:2] in PARTS[part]
             for _, _, kind in exercises(page)}
    assert {"coding from scratch", "mini-project"} <= kinds, (part, kinds)

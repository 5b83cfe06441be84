"""The book teaches (issue 35): two parts, the paper's part standing alone, the tools taught in
the appendix and linked from the chapters, the machinery shown once, audit material in one
collapsed block per chapter, and lecture-sized chapters (words counted by
tools/chapter_words.py)."""

import re

import pytest
import yaml
from _tools import ROOT, load_tool

words = load_tool("chapter_words")

CHAPTERS = sorted((ROOT / "chapters").glob("0*.md"))
PAPER_PART = [p for p in CHAPTERS if p.name[:2] in ("01", "02", "03", "04")]
APPENDIX = ROOT / "chapters" / "appendix_maths.md"
APPENDIX_LABELS = ["appendix-hermite", "appendix-stein", "appendix-mp", "appendix-woodbury",
                   "appendix-bbp", "appendix-wedin", "appendix-ridge-de"]
# Which chapter uses which tool: it must link the appendix section.
TOOLS_USED = {
    "01_setting.md": ["appendix-hermite", "appendix-stein"],
    "02_spike.md": ["appendix-mp", "appendix-bbp", "appendix-wedin"],
    "03_small_step.md": ["appendix-mp", "appendix-woodbury", "appendix-ridge-de"],
}
REPRO = re.compile(r"^(:{3,}|`{3,})\{admonition\}\s*Reproducibility notes\s*$", re.M)


def code_cells(text):
    """The bodies of a MyST page's code cells."""
    return re.findall(r"^(`{3,})\{code-cell\}[^\n]*\n(.*?)^\1\s*$", text, re.M | re.S)


def test_table_of_contents_has_the_paper_and_beyond_it_as_two_parts():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    parts = {p["caption"]: [c["file"] for c in p["chapters"]] for p in toc["parts"]}
    first, second = list(parts)[:2]
    assert "paper" in first.lower() and "beyond" in second.lower(), list(parts)
    assert [f.split("/")[-1][:2] for f in parts[first]] == ["01", "02", "03", "04"]
    assert [f.split("/")[-1][:2] for f in parts[second]] == ["05", "06", "07"]


def test_the_papers_part_uses_no_result_of_the_part_beyond_it():
    """No figure, table or check of chapters 1-4 calls the large-step theory of chapter 5 or
    reads a data file chapter 5 reads (a forward pointer in prose is fine)."""
    ch5 = (ROOT / "chapters" / "05_exact_large_step.md").read_text()
    # chapter 3's own finite-size scan is read again by chapter 5 (against Result 5.3): it
    # belongs to chapter 3
    ch5_data = set(re.findall(r'"([A-Za-z0-9_]+\.(?:csv|json))"', ch5))
    ch5_data -= {"small_step_gain_d.csv"}
    for page in PAPER_PART:
        for _, body in code_cells(page.read_text()):
            assert "large_step_risk" not in body and "large_step_" not in body, page.name
            for name in ch5_data:
                assert name not in body, (page.name, name)


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda p: p.stem)
def test_each_chapter_ends_with_one_collapsed_reproducibility_block(page):
    text = page.read_text()
    blocks = REPRO.findall(text)
    assert len(blocks) == 1, (page.name, len(blocks))
    start = REPRO.search(text)
    after = text[start.end():]
    assert after.lstrip("\n").startswith(":class: dropdown"), page.name
    closing = re.search(rf"^{re.escape(start.group(1))}\s*$", after, re.M)
    assert closing, f"{page.name}: the block is not closed"
    assert not after[closing.end():].strip(), f"{page.name}: something follows the block"


@pytest.mark.parametrize("page", CHAPTERS + [APPENDIX], ids=lambda p: p.stem)
def test_each_chapter_is_a_lecture_long(page):
    """At most about 4000 words of main path (outside code, the exercises, the
    reproducibility block and sections marked optional)."""
    main = words.chapter_words(page)["main"]
    assert main <= words.MAIN_PATH_LIMIT, (page.name, main)


@pytest.mark.parametrize("page", CHAPTERS + [APPENDIX], ids=lambda p: p.stem)
def test_no_audit_or_authoring_notes_in_the_reading_path(page):
    main = "\n".join(words.split_prose(page.read_text())["main"])
    for phrase in ["plan for this chapter", "departs from its plan", "read only the abstract",
                   "benchmarks/", "BOOK_SEED", "seed sweep"]:
        assert phrase.lower() not in main.lower(), (page.name, phrase)


@pytest.mark.parametrize("page", CHAPTERS + [APPENDIX], ids=lambda p: p.stem)
def test_an_optional_section_says_what_skipping_it_loses(page):
    lines = page.read_text().split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^#{2,6} .*\(optional\)\s*$", line):
            following = next(x for x in lines[i + 1:] if x.strip() and not x.startswith("("))
            assert following.startswith("*Optional"), (page.name, line, following)


def test_the_appendix_teaches_every_tool_and_the_chapters_link_it():
    appendix = APPENDIX.read_text()
    for label in APPENDIX_LABELS:
        assert re.search(rf"^\({label}\)=\s*\n#", appendix, re.M), label
    for name, labels in TOOLS_USED.items():
        text = (ROOT / "chapters" / name).read_text()
        for label in labels:
            assert f"<{label}>`" in text or f"`{label}`" in text, (name, label)


def test_the_machinery_is_shown_once_and_named_later():
    """Chapter 1's plain-NumPy cell (at most 40 lines, checked against the helpers by a hidden
    cell) is labelled, and later chapters link it where they use the helpers that do it.  The
    cell takes from the helpers only the run's seed and the activations (their derivative and
    centring); the streams, the step, the ridge and the risk are written out."""
    text = (ROOT / "chapters" / "01_setting.md").read_text()
    start = text.index("(setting-from-scratch)=")
    body = code_cells(text[start:])[0][1].strip("\n")
    assert len(body.split("\n")) <= 40
    assert "first_step_gradient" not in body
    assert set(re.findall(r"helpers\.(\w+)", body)) <= {"named_seed", "get_activation"}, body
    assert "risk_numpy / run.risk" in text
    for page in CHAPTERS[1:]:
        assert "setting-from-scratch" in page.read_text(), page.name


def test_the_word_counter_sorts_the_prose():
    page = "\n".join([
        "# Title", "one two three", "```{code-cell} ipython3", "x = 1 2 3 4 5", "```",
        "## Side (optional)", "*Optional: four words here.*", "### Sub", "five six",
        "## Back", "seven", "```{exercise}", ":label: ex1", "", "do this", "```",
        "```{solution-start} ex1", "```", "sol words", "```{solution-end}",
        "```", "::::{admonition} Reproducibility notes", ":class: dropdown", "", "a b c",
        "::::"])
    parts = words.split_prose(page)
    counts = {k: words.count_words("\n".join(v)) for k, v in parts.items()}
    # every word counts, the markers "(optional)" and "*Optional:" included
    assert counts == {"main": 1 + 3 + 1 + 1, "optional": 2 + 4 + 1 + 2, "exercise": 2,
                      "solution": 2, "repro": 3}, counts


@pytest.mark.parametrize("page", CHAPTERS + [APPENDIX], ids=lambda p: p.stem)
def test_no_prose_line_starts_a_list_or_a_quote_inside_maths(page):
    """A line of a paragraph that starts with "+ " or "> " (a term of a formula wrapped onto a
    new line) becomes a list item or a quote, and breaks the inline maths around it."""
    fence, display = None, False
    for number, line in enumerate(page.read_text().split("\n"), 1):
        opening = re.match(r"^(`{3,}|:{3,})", line)
        if fence is None and opening:
            fence = opening.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None and line.startswith("$$"):
            display = not display
        elif fence is None and not display:
            assert not re.match(r"^(\+|>) ", line), (page.name, number, line)


CHECK = re.compile(r"^(:{3,})\{admonition\}\s*Check your understanding\s*$", re.M)


@pytest.mark.parametrize("page", CHAPTERS + [APPENDIX], ids=lambda p: p.stem)
def test_each_page_stops_to_check_understanding(page):
    """Two to four "Check your understanding" boxes in the text (issue 48, item 4), each a
    short question with its answer in a collapsed "Answer" box inside it; none among the
    exercises or the reproducibility notes (they are on the reading path)."""
    text = page.read_text()
    boxes = list(CHECK.finditer(text))
    assert 2 <= len(boxes) <= 4, (page.name, len(boxes))
    main = set(words.split_prose(text)["main"])
    for box in boxes:
        fence = box.group(1)
        body = text[box.end():]
        end = re.search(rf"^{fence}\s*$", body, re.M)
        assert end, f"{page.name}: a box is not closed"
        body = body[:end.start()]
        answer = re.search(r"^(:{3,})\{admonition\}\s*Answer\s*\n:class: dropdown\s*$", body,
                           re.M)
        assert answer and len(answer.group(1)) < len(fence), (
            f"{page.name}: each box holds its answer in a nested ':class: dropdown' Answer box")
        question = body[:answer.start()]
        assert "?" in question, f"{page.name}: a box without a question"
        prose = [ln for ln in question.split("\n") if ln.strip() and not ln.startswith(":")]
        assert prose and prose[0] in main, f"{page.name}: a box off the reading path"
        assert words.count_words(question) <= 80, f"{page.name}: a question over 80 words"

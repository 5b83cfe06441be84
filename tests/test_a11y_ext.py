"""_ext/book_a11y.py: the reference list's entries as list items, no Font Awesome script."""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]


def _ext():
    spec = importlib.util.spec_from_file_location("book_a11y", ROOT / "_ext" / "book_a11y.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_citation_entries_become_list_items():
    ext = _ext()
    context = {"body": '<div role="list"><div class="citation" role="doc-biblioentry">x</div>'}
    ext.fix_body(None, "references", "page.html", context, None)
    assert context["body"] == '<div role="list"><div class="citation" role="listitem">x</div>'
    untouched = {"body": "<p>no citations</p>"}
    ext.fix_body(None, "intro", "page.html", untouched, None)
    assert untouched["body"] == "<p>no citations</p>"


def test_the_finished_build_drops_font_awesomes_script(tmp_path):
    ext = _ext()
    scripts = tmp_path / "_static" / "scripts"
    scripts.mkdir(parents=True)
    for name in ("fontawesome.js", "fontawesome.js.map", "bootstrap.js"):
        (scripts / name).write_text("//")
    page = tmp_path / "chapters" / "a.html"
    page.parent.mkdir()
    page.write_text('<head>\n  <script defer src="../_static/scripts/fontawesome.js?digest=1">'
                    '</script>\n  <link rel="preload" href="../_static/scripts/bootstrap.js" />'
                    '\n</head>')
    app = SimpleNamespace(outdir=str(tmp_path), builder=SimpleNamespace(format="html"))
    ext.drop_fontawesome_js(app, None)
    assert "fontawesome" not in page.read_text()
    assert "bootstrap.js" in page.read_text()
    assert sorted(p.name for p in scripts.iterdir()) == ["bootstrap.js"]
    # a failed build, or another builder, is left alone
    (scripts / "fontawesome.js").write_text("//")
    ext.drop_fontawesome_js(app, RuntimeError("failed"))
    ext.drop_fontawesome_js(SimpleNamespace(outdir=str(tmp_path),
                                            builder=SimpleNamespace(format="latex")), None)
    assert (scripts / "fontawesome.js").exists()

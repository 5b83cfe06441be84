/* The book's small scripts, run after MathJax has typeset the page and again on resize.
 *
 * 1. Phone width: an inline formula wider than its line cannot wrap (MathJax 3 does not break
 *    lines), so every inline formula wider than its block gets the class `book-wide-math`,
 *    which lets it scroll sideways inside itself (assets/book.css).  Narrow formulas are left
 *    alone: a scrolling box would move their baseline.
 * 2. Scroll cues: every box that scrolls sideways (display maths, tables, outputs, code) and
 *    is wider than its column gets the class `book-scrolls`: a visible scroll bar, and the
 *    side where more is hidden fades out (assets/book.css), so nothing is cut without a sign.
 * 3. Figures: a tap or click on a figure opens the image at full size (a link to the image),
 *    so a multi-panel figure shrunk to a phone's width can be read. */
(function () {
  var SCROLLERS = [
    "div.math", 'mjx-container[jax="CHTML"][display="true"]', "mjx-container.book-wide-math",
    ".pst-scrollable-table-container", ".table-wrapper", "div.cell_output .output",
    "div.cell_output .output_html", "div.cell_output .text_html", "div.highlight pre"
  ].join(", ");

  function markWideMath() {
    var formulas = document.querySelectorAll('mjx-container[jax="CHTML"]:not([display="true"])');
    formulas.forEach(function (c) {
      c.classList.remove("book-wide-math");
      var block = c.parentElement && c.parentElement.closest("p, li, dd, td, th, div, figcaption");
      if (block && c.getBoundingClientRect().width > block.clientWidth + 1) {
        c.classList.add("book-wide-math");
      }
    });
  }

  function edges(box) {
    var left = box.scrollLeft > 1;
    var right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    box.classList.toggle("book-more-left", left);
    box.classList.toggle("book-more-right", right);
  }

  function markScrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      box.classList.toggle("book-scrolls", scrolls);
      if (scrolls) {
        edges(box);
        if (!box.dataset.bookScrollCue) {
          box.dataset.bookScrollCue = "1";
          box.addEventListener("scroll", function () { edges(box); }, { passive: true });
        }
      } else {
        box.classList.remove("book-more-left", "book-more-right");
      }
    });
  }

  function linkFigures() {
    document.querySelectorAll("article figure img, article div.cell_output img").forEach(
      function (img) {
        if (img.closest("a") || !img.getAttribute("src")) { return; }
        var link = document.createElement("a");
        link.href = img.getAttribute("src");
        link.className = "book-figure-link";
        link.title = "Open the figure at full size";
        img.parentNode.insertBefore(link, img);
        link.appendChild(img);
      });
  }

  function mark() {
    markWideMath();
    markScrollers();
  }

  function start() {
    linkFigures();
    var mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    (mj || Promise.resolve()).then(mark);
    window.addEventListener("load", mark);
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(mark, 150);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

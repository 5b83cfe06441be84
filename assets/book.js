/* The book's small scripts, run after MathJax has typeset the page and again on resize.
 *
 * 1. Phone width: an inline formula wider than its line cannot wrap (MathJax 3 does not break
 *    lines), so every inline formula wider than its block gets the class `book-wide-math`,
 *    which lets it scroll sideways inside itself (assets/book.css).  Narrow formulas are left
 *    alone: a scrolling box would move their baseline.
 * 2. Scroll cues: every box that scrolls sideways (display maths, tables, outputs) and is
 *    wider than its column gets the class `book-scrolls`: a visible scroll bar, and the
 *    side where more is hidden fades out (assets/book.css), so nothing is cut without a sign;
 *    and it is a tab stop, so the keyboard can scroll it.  (Code wraps instead: book.css.)
 * 3. Figures: a tap or click on a figure opens it in a full-screen view, at least at the
 *    size it was drawn for (its 1x width: the `width` the notebook output gives a figure drawn
 *    at twice its pixels) and up to the screen's width where the image has the pixels, so a
 *    figure shrunk to a phone's width can be read (its smallest text at >= 11 px, still two
 *    image pixels per CSS pixel) by scrolling inside the view, with the figure's caption
 *    under it.  Escape, the close button or a tap outside the image closes it.  Without the
 *    script the figure is a link to its image.
 * 4. Formulas are not tab stops (_config.yml: MathJax's inTabOrder is off), except the first
 *    of the article: from it the keyboard reaches MathJax's menu (Shift+F10 or the menu key),
 *    whose "Include in Tab Order" brings the others back. */
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

  // A box that scrolls must be reachable from the keyboard to be scrolled (WCAG 2.1.1; axe's
  // scrollable-region-focusable): it becomes a tab stop while it scrolls, unless something
  // inside it already is one.  (Formulas are not tab stops otherwise, see 4.)
  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]:not([tabindex='-1'])";

  function keyboardReach(box, scrolls) {
    if (scrolls && box.tabIndex < 0 && !box.querySelector(FOCUSABLE)) {
      box.tabIndex = 0;
      box.dataset.bookScrollStop = "1";
    } else if (!scrolls && box.dataset.bookScrollStop) {
      box.tabIndex = -1;
      delete box.dataset.bookScrollStop;
    }
  }

  function markScrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      box.classList.toggle("book-scrolls", scrolls);
      keyboardReach(box, scrolls);
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

  function figureView() {
    var view = document.getElementById("book-figure-view");
    if (view) { return view; }
    view = document.createElement("dialog");
    view.id = "book-figure-view";
    view.className = "book-figure-view";
    view.setAttribute("aria-label", "Figure at full size");
    var close = document.createElement("button");
    close.type = "button";
    close.className = "book-figure-close";
    close.setAttribute("aria-label", "Close the figure");
    close.textContent = "\u00d7";
    close.addEventListener("click", function () { view.close(); });
    var hint = document.createElement("p");
    hint.className = "book-figure-hint";
    var image = document.createElement("img");
    var caption = document.createElement("div");
    caption.className = "book-figure-caption";
    view.appendChild(close);
    view.appendChild(hint);
    view.appendChild(image);
    view.appendChild(caption);
    view.addEventListener("click", function (event) {
      if (event.target === view) { view.close(); }   // a tap on the backdrop
    });
    document.body.appendChild(view);
    return view;
  }

  function openFigure(img) {
    var view = figureView();
    var image = view.querySelector("img");
    var drawn = parseFloat(img.getAttribute("width")) || parseFloat(img.style.width) ||
      img.naturalWidth;
    var room = document.documentElement.clientWidth - 32;
    image.src = img.currentSrc || img.src;
    image.alt = img.alt;
    // the caption comes along (a copy: its links and formulas stay as in the page)
    var figure = img.closest("figure");
    var source = figure && figure.querySelector("figcaption");
    var caption = view.querySelector(".book-figure-caption");
    caption.innerHTML = source ? source.innerHTML : "";
    caption.querySelectorAll("a.headerlink").forEach(function (a) { a.remove(); });

    image.style.width = Math.max(drawn, Math.min(room, img.naturalWidth)) + "px";
    caption.style.maxWidth = image.style.width;
    view.showModal();
    view.scrollTop = 0;
    view.scrollLeft = 0;
    // say so when part of the figure is out of sight (nothing cut without a way to reach it)
    var wide = view.scrollWidth > view.clientWidth + 1;
    var tall = view.scrollHeight > view.clientHeight + 1;
    view.querySelector(".book-figure-hint").textContent = wide || tall
      ? "Scroll " + (wide && tall ? "both ways" : wide ? "sideways" : "down") +
        " to see the whole figure."
      : "";
  }

  function linkFigures() {
    document.querySelectorAll("article figure img, article div.cell_output img").forEach(
      function (img) {
        if (!img.getAttribute("src")) { return; }
        // Sphinx already links a figure given a size (the 2x figures) to its image file;
        // any other link around an image goes elsewhere and is left alone.
        var link = img.closest("a");
        if (link && !link.classList.contains("image-reference")) { return; }
        if (!link) {
          link = document.createElement("a");
          link.href = img.getAttribute("src");
          img.parentNode.insertBefore(link, img);
          link.appendChild(img);
        }
        if (link.classList.contains("book-figure-link")) { return; }
        link.classList.add("book-figure-link");
        link.title = "Open the figure at full size";
        link.addEventListener("click", function (event) {
          if (!window.HTMLDialogElement) { return; }   // old browsers follow the link
          event.preventDefault();
          openFigure(img);
        });
      });
  }

  function firstFormulaTabStop() {   // the first formula in sight (not in a closed dropdown)
    var all = document.querySelectorAll("article.bd-article mjx-container");
    for (var i = 0; i < all.length; i++) {
      if (all[i].getClientRects().length) {
        if (all[i].tabIndex < 0) { all[i].tabIndex = 0; }
        return;
      }
    }
  }

  function mark() {
    markWideMath();
    markScrollers();
    firstFormulaTabStop();   // again: a resize may have taken a scrolling first formula out
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

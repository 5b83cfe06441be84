/* Phone width: an inline formula wider than its line cannot wrap (MathJax 3 does not break
 * lines), so after typesetting, and again on resize, every inline formula wider than its
 * block gets the class `book-wide-math`, which lets it scroll sideways inside itself
 * (assets/book.css).  Narrow formulas are left alone: a scrolling box would move their
 * baseline. */
(function () {
  function mark() {
    var formulas = document.querySelectorAll('mjx-container[jax="CHTML"]:not([display="true"])');
    formulas.forEach(function (c) {
      c.classList.remove("book-wide-math");
      var block = c.parentElement && c.parentElement.closest("p, li, dd, td, th, div, figcaption");
      if (block && c.getBoundingClientRect().width > block.clientWidth + 1) {
        c.classList.add("book-wide-math");
      }
    });
  }
  function start() {
    var mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    (mj || Promise.resolve()).then(mark);
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

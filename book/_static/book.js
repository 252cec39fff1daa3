// The minitorch book: a picture in a cell's output that the column shrinks (a graph on a
// phone) opens at full size in a new tab when clicked. Nothing is fetched from elsewhere.
(function () {
  "use strict";

  function shrunk(img) {
    return img.naturalWidth > Math.ceil(img.getBoundingClientRect().width) + 1;
  }

  function setUp(img) {
    if (img.closest("a")) return; // already a link
    const mark = () => {
      img.classList.toggle("book-zoomable", shrunk(img));
      img.title = shrunk(img) ? "Click to open the full-size picture" : "";
    };
    if (img.complete) mark(); else img.addEventListener("load", mark);
    window.addEventListener("resize", mark);
    img.addEventListener("click", () => {
      if (shrunk(img)) window.open(img.currentSrc || img.src, "_blank", "noopener");
    });
  }

  function start() {
    document.querySelectorAll(".cell_output img, .output img").forEach(setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

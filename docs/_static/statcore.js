// Wide figures stay readable: every figure of the gallery and the guide is shown at no less than 60%
// of its pixel width (in a strip that scrolls sideways when the column is narrower) and links to the
// full-size image.
document.addEventListener("DOMContentLoaded", () => {
  const MIN_SCALE = 0.6;
  const images = document.querySelectorAll(
    ".bd-article img.sphx-glr-single-img, .bd-article img.sphx-glr-multi-img, .bd-article figure img, .bd-article img.plot-directive");
  for (const img of images) {
    if (img.closest(".statcore-figure-scroll") || img.closest(".sphx-glr-thumbcontainer")) continue;
    const strip = document.createElement("div");
    strip.className = "statcore-figure-scroll";
    const link = img.closest("a") || document.createElement("a");
    if (!link.parentNode) {
      link.href = img.getAttribute("src");
      img.replaceWith(link);
      link.appendChild(img);
    }
    link.replaceWith(strip);
    strip.appendChild(link);
    const fit = () => { img.style.minWidth = Math.round(MIN_SCALE * img.naturalWidth) + "px"; };
    if (img.complete && img.naturalWidth) fit(); else img.addEventListener("load", fit);
  }
});

// Search: an API page whose summary line names the searched word ranks by how often its docstring
// names it (docs/conf.py writes the counts to statcore_search_weights.js). Runs before Sphinx's search
// (this listener is registered before searchtools.js registers its own).
document.addEventListener("DOMContentLoaded", () => {
  if (typeof Scorer === "undefined" || !window.STATCORE_SEARCH_WEIGHTS) return;
  const terms = (new URLSearchParams(window.location.search).get("q") || "").toLowerCase().split(/\s+/);
  Scorer.score = (result) => {
    const weights = window.STATCORE_SEARCH_WEIGHTS[result[0]];
    let bonus = 0;
    if (weights) for (const t of terms) bonus = Math.max(bonus, weights[t] || 0);
    return result[4] + bonus;
  };
});

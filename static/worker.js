/* The rating slider: no default value counts. Next stays disabled until the worker has moved the
   slider (pointer or keyboard); the score is sent as a whole number 0-100. No inline scripts (CSP). */
(function () {
  "use strict";

  // A page restored from the back/forward cache must not offer an old item: ask the server.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) { window.location.reload(); }
  });

  var form = document.getElementById("rating-form");
  if (!form) { return; }
  var slider = document.getElementById("slider");
  var score = document.getElementById("score");
  var next = document.getElementById("next");
  var hint = document.getElementById("hint");
  var KEYS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"];

  function moved() {
    slider.classList.remove("untouched");
    score.value = String(Math.round(Number(slider.value)));
    next.disabled = false;
    if (hint) { hint.hidden = true; }
  }

  slider.addEventListener("input", moved);
  slider.addEventListener("change", moved);
  // A click exactly where the hidden thumb sits changes nothing, but it is still a choice.
  slider.addEventListener("pointerup", moved);
  slider.addEventListener("keydown", function (event) {
    if (KEYS.indexOf(event.key) >= 0) { window.setTimeout(moved, 0); }
  });

  form.setAttribute("data-ready", "1"); // listeners attached (tests wait for this)

  form.addEventListener("submit", function (event) {
    if (score.value === "" || form.getAttribute("data-sent") === "1") {
      event.preventDefault();
      return;
    }
    form.setAttribute("data-sent", "1");
    window.setTimeout(function () { next.disabled = true; }, 0);
  });
})();

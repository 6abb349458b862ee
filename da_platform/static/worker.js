/* The rating slider and the step to the next item. No default value counts: Next stays disabled
   until the worker has moved the slider (pointer or keyboard); the score is sent as a whole number
   0-100. Next sends the rating to the server, which answers with the next item; the page shows it
   in place once its images have loaded (one request per rating, no history entry, so the browser's
   Back button has no earlier item to show). An item whose pictures did not load (an error, or no
   pixels) cannot be rated: the form says so (data-images="failed"), offers a reload and keeps Next
   disabled; the behaviour record then says whether the pictures were shown (behaviour.js). Without
   fetch, the form posts normally. No inline scripts (CSP); text from the server only ever goes into
   textContent. */
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
  var slot = form.querySelector("input[name=slot]");
  var next = document.getElementById("next");
  var hint = document.getElementById("hint");
  var notice = document.getElementById("notice");
  var KEYS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"];

  function unseen() {
    return form.getAttribute("data-images") === "failed";
  }

  function moved() {
    if (form.getAttribute("data-sent") === "1" || unseen()) { return; }
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

  function say(message, resume, label) {
    notice.textContent = message + " ";
    if (resume) {
      var link = document.createElement("a");
      link.href = resume;
      link.id = "notice-link";
      link.textContent = label || message_("continue", "Continue");
      notice.appendChild(link);
    }
    notice.hidden = false;
  }

  function imagesShown(ok) {
    // The pictures are the item: without them nothing may be rated. A reload asks for them again.
    form.setAttribute("data-images", ok ? "ok" : "failed");
    if (!ok) {
      next.disabled = true;
      if (hint) { hint.hidden = true; }
      say(message_("images-failed", "The pictures of this item could not be loaded, so it cannot be rated yet."),
          window.location.href, message_("reload", "Reload the page"));
    }
  }

  function message_(name, english) {
    // The page's language: the server renders each message into a data-msg-* attribute of the form.
    return form.getAttribute("data-msg-" + name) || english;
  }

  function setImage(img, src) {
    // Drawn at 2x (or the campaign's density): the srcset descriptor makes it show at its CSS size.
    img.src = src;
    img.srcset = src + " " + (img.getAttribute("data-density") || "1x");
  }

  function showContext(screen) {
    var context = document.getElementById("context");
    if (!context) { return; }
    document.getElementById("context-text").textContent = screen.context || "";
    context.hidden = !screen.context;
    context.open = false;
  }

  function loaded(src) {
    // Resolves with true once the image at src can be shown (there is none: true), false if it failed
    // to load or has no pixels.
    return new Promise(function (resolve) {
      if (!src) { resolve(true); return; }
      var probe = new Image();
      probe.onload = function () { resolve(probe.naturalWidth > 0 && probe.naturalHeight > 0); };
      probe.onerror = function () { resolve(false); };
      probe.src = src;
    });
  }

  function allLoaded(results) {
    return results.every(function (ok) { return ok; });
  }

  function show(screen) {
    var reference = document.getElementById("answer-a");
    var candidate = document.getElementById("answer-b");
    return Promise.all([loaded(screen.reference_image), loaded(screen.candidate_image)])
      .then(function (results) {
        document.getElementById("statement").textContent = screen.statement;
        document.getElementById("question").textContent = screen.question;
        reference.closest("figure").hidden = !screen.reference_image;
        if (screen.reference_image) { setImage(reference, screen.reference_image); } else {
          reference.removeAttribute("src");
          reference.removeAttribute("srcset");
        }
        setImage(candidate, screen.candidate_image);
        showContext(screen);
        var caption = screen.caption || (screen.reference_image ? "Answer B" : "Answer");
        document.getElementById("candidate-caption").textContent = caption;
        candidate.alt = caption;
        slot.value = screen.slot;
        slider.value = "50";
        slider.classList.add("untouched");
        score.value = "";
        next.disabled = true;
        if (hint) { hint.hidden = false; }
        notice.hidden = true;
        form.removeAttribute("data-sent");
        document.title = screen.title;
        document.getElementById("progress").textContent = screen.progress;
        window.scrollTo(0, 0);
        slider.focus({ preventScroll: true });
        imagesShown(allLoaded(results));
        form.setAttribute("data-ready", "1");
      });
  }

  form.addEventListener("submit", function (event) {
    if (score.value === "" || form.getAttribute("data-sent") === "1" || unseen()) {
      event.preventDefault();
      return;
    }
    form.setAttribute("data-sent", "1");
    var url = form.getAttribute("data-rating-url");
    if (!url || !window.fetch || !window.Promise) {  // the plain form post: 303 to the next item
      window.setTimeout(function () { next.disabled = true; }, 0);
      return;
    }
    event.preventDefault();
    next.disabled = true;
    form.setAttribute("data-ready", "0");
    // A server that does not answer within the time limit counts as a lost request (sent again safely).
    var abort = window.AbortController ? new window.AbortController() : null;
    var limit = Number(form.getAttribute("data-send-timeout-ms")) || 20000;
    var timer = abort ? window.setTimeout(function () { abort.abort(); }, limit) : null;
    window.fetch(url, {
      method: "POST",
      headers: { "Accept": "application/json" },
      body: new URLSearchParams(new FormData(form)),  // as the plain post: slot, score, behaviour
      credentials: "omit",
      cache: "no-store",
      signal: abort ? abort.signal : undefined
    }).then(function (response) {
      window.clearTimeout(timer);
      return response.json().then(function (data) { return { ok: response.ok, data: data }; });
    }).then(function (answer) {
      if (answer.ok && answer.data.done) {
        window.location.assign(answer.data.done);
      } else if (answer.ok && answer.data.screen) {
        return show(answer.data.screen);
      } else {
        say(answer.data.error || message_("not-saved", "Your rating could not be saved."), answer.data.resume);
      }
    }).catch(function () {
      window.clearTimeout(timer);
      // Nothing is known to be saved: sending the same rating again is safe (it is stored once).
      form.removeAttribute("data-sent");
      form.setAttribute("data-ready", "1");
      next.disabled = false;
      say(message_("not-sent", "Your rating could not be sent. Check your connection and press Next again."), null);
    });
  });

  // Ready (tests wait for this) once the listeners are attached and this item's images have loaded
  // (or failed: then the form says so), as show() does for every later item: the images must not
  // push the slider down under a click.
  if (window.Promise) {
    Promise.all([loaded(document.getElementById("answer-a").getAttribute("src")),
                 loaded(document.getElementById("answer-b").getAttribute("src"))])
      .then(function (results) {
        imagesShown(allLoaded(results));
        form.setAttribute("data-ready", "1");
      });
  } else {
    form.setAttribute("data-ready", "1");
  }
})();

/* The behaviour record sent with each rating (what happened while the item was shown), as the
   form field "behaviour": {"v": 1, "slot", "first_input_ms", "pointer", "touch", "key",
   "hidden_ms", "blur_ms", "paste", "copy", "shown_ms", "images_loaded", "webdriver", "headless_ua",
   "software_gl"}. Only counts and durations: no positions, no key values. Of the browser, only three
   bits (1 or 0) that an automated browser shows and a person's rarely does, identifying nobody:
   navigator.webdriver is set, the user agent names a headless browser, WebGL is drawn in software. Only
   events the browser marks as trusted (made by the person, not by a script) count, and only those on
   the slider. "images_loaded" (true) says the item's pictures were shown: worker.js sets the form's
   data-images to "ok" once they have loaded, and sends no rating for an item whose pictures failed; it
   is left out when worker.js has not checked them (a browser without Promise).

   An item counts as shown when the page is ready for it (the form's data-ready turns "1" with a new
   slot id; the first item from the moment this script runs). The record is written into a hidden
   input of the form at submit, before worker.js sends it (this script is loaded first). */
(function () {
  "use strict";

  var form = document.getElementById("rating-form");
  var slider = document.getElementById("slider");
  if (!form || !slider || !window.JSON) { return; }
  var slotInput = form.querySelector("input[name=slot]");
  var field = document.createElement("input");
  field.type = "hidden";
  field.name = "behaviour";
  form.appendChild(field);

  function now() { return window.performance && performance.now ? performance.now() : Date.now(); }

  var item = null;

  function softwareGraphics() {
    // One WebGL context, made and released once per page: does a software renderer draw it?
    try {
      var canvas = document.createElement("canvas");
      var gl = canvas.getContext("webgl") || canvas.getContext("experimental-webgl");
      if (!gl) { return 0; }
      var info = gl.getExtension("WEBGL_debug_renderer_info");
      var renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
      var lose = gl.getExtension("WEBGL_lose_context");
      if (lose) { lose.loseContext(); }
      return /SwiftShader|llvmpipe|softpipe|Basic Render|software/i.test(renderer) ? 1 : 0;
    } catch (error) {
      return 0;
    }
  }

  var traces = {
    webdriver: navigator.webdriver === true ? 1 : 0,
    headless_ua: /HeadlessChrome/.test(navigator.userAgent || "") ? 1 : 0,
    software_gl: softwareGraphics()
  };

  function begin() {
    var t = now();
    item = { slot: slotInput.value, shown: t, first: null, pointer: 0, touch: 0, key: 0, paste: 0, copy: 0,
             hidden: 0, hiddenSince: document.hidden ? t : null, blur: 0,
             blurSince: document.hasFocus && !document.hasFocus() ? t : null };
  }

  function interaction(kind) {
    return function (event) {
      if (!event.isTrusted || !item) { return; }
      var type = kind;
      if (kind === "pointer" && event.pointerType === "touch") { type = "touch"; }
      item[type] += 1;
      if (item.first === null) { item.first = now() - item.shown; }
    };
  }

  if (window.PointerEvent) {
    slider.addEventListener("pointerdown", interaction("pointer"));
  } else {
    slider.addEventListener("mousedown", interaction("pointer"));
    slider.addEventListener("touchstart", interaction("touch"), { passive: true });
  }
  slider.addEventListener("keydown", interaction("key"));

  function counted(name) {
    return function (event) { if (event.isTrusted && item) { item[name] += 1; } };
  }
  document.addEventListener("paste", counted("paste"));
  document.addEventListener("copy", counted("copy"));
  document.addEventListener("cut", counted("copy"));

  document.addEventListener("visibilitychange", function () {
    if (!item) { return; }
    var t = now();
    if (document.hidden && item.hiddenSince === null) {
      item.hiddenSince = t;
    } else if (!document.hidden && item.hiddenSince !== null) {
      item.hidden += t - item.hiddenSince;
      item.hiddenSince = null;
    }
  });
  window.addEventListener("blur", function () {
    if (item && item.blurSince === null) { item.blurSince = now(); }
  });
  window.addEventListener("focus", function () {
    if (item && item.blurSince !== null) {
      item.blur += now() - item.blurSince;
      item.blurSince = null;
    }
  });

  function record() {
    // Every duration is measured on one clock up to the same moment t, so none exceeds shown_ms.
    var t = now();
    function upTo(total, since) { return Math.round(total + (since === null ? 0 : t - since)); }
    var fields = {
      v: 1, slot: item.slot,
      first_input_ms: item.first === null ? null : Math.round(item.first),
      pointer: item.pointer, touch: item.touch, key: item.key,
      hidden_ms: upTo(item.hidden, item.hiddenSince), blur_ms: upTo(item.blur, item.blurSince),
      paste: item.paste, copy: item.copy, shown_ms: Math.round(t - item.shown),
      webdriver: traces.webdriver, headless_ua: traces.headless_ua, software_gl: traces.software_gl
    };
    var images = form.getAttribute("data-images");
    if (images) { fields.images_loaded = images === "ok"; }
    return JSON.stringify(fields);
  }

  // Runs before worker.js's own submit listener (registered later), so that the fetch and the plain
  // post both carry the record. A retry after a lost request sends the same item's record, updated.
  form.addEventListener("submit", function () {
    if (item.slot !== slotInput.value) { begin(); }
    field.value = record();
  });

  // A new item is shown when the form is ready again with another slot.
  if (window.MutationObserver) {
    new MutationObserver(function () {
      if (form.getAttribute("data-ready") === "1" && item.slot !== slotInput.value) { begin(); }
    }).observe(form, { attributes: true, attributeFilter: ["data-ready"] });
  }
  begin();
})();

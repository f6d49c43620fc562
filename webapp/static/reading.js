// Which language a page's texts open with: a Chinese reader reads the Chinese first and the
// English beside or below it, an English reader the English first (the browser's language
// decides until the reader chooses; the choice is remembered on this device). The order is
// the stylesheet's (`html[data-first]`); the pages' buttons `[data-first-toggle]` switch it.
(function () {
  "use strict";
  var KEY = "kb-first";
  var root = document.documentElement;

  function stored() { try { return localStorage.getItem(KEY); } catch (e) { return null; } }
  function store(value) { try { localStorage.setItem(KEY, value); } catch (e) { /* private mode */ } }

  var browser = (navigator.language || "").toLowerCase().indexOf("en") === 0 ? "en" : "zh";
  var first = stored() === "en" || stored() === "zh" ? stored() : browser;
  root.setAttribute("data-first", first);

  function draw(button) {
    var en = first === "en";
    button.setAttribute("aria-pressed", en ? "true" : "false");
    button.hidden = false;
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-first-toggle]").forEach(function (button) {
      draw(button);
      button.addEventListener("click", function () {
        first = first === "en" ? "zh" : "en";
        store(first);
        root.setAttribute("data-first", first);
        document.querySelectorAll("[data-first-toggle]").forEach(draw);
      });
    });
  });
})();

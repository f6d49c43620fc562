// Copy buttons: the rule page's (the rule's text with its number and edition, or its link)
// and the forum tools' (the script tag, a linked post), ready to paste. A button's
// data-copy names the data- attributes of its .copy box to copy, one per line; "url" is
// made absolute. The boxes stay hidden without this script. navigator.clipboard needs a
// secure page; elsewhere a selected text area and execCommand("copy") do the same.
(function () {
  "use strict";

  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = false;
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
    area.remove();
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { return fallback(text); });
    }
    return fallback(text);
  }

  document.querySelectorAll(".copy").forEach(function (box) {
    var status = box.querySelector(".copied");
    box.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-copy]");
      if (!button) return;
      var text = button.getAttribute("data-copy").split(" ").map(function (name) {
        var value = box.getAttribute("data-" + name) || "";
        return name === "url" ? new URL(value, location.href).href : value;
      }).join("\n");
      copy(text).then(function () {
        status.textContent = box.getAttribute("data-copied");
        box.setAttribute("data-last-copied", text);
      }, function () { status.textContent = ""; });
    });
    box.hidden = false;
  });
})();

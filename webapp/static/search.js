// Search as you type, and "/" to focus the search box. The page works without this file:
// the form is a plain GET to "/", and this only fetches /api/search while typing and
// draws the same results. Every text is inserted as text; a snippet's <mark> elements are
// rebuilt from a parse, so no markup from a response is ever inserted as it is.
(function () {
  "use strict";

  var KIND_ORDER = ["rule", "card", "planar_card", "term", "section"];
  var DELAY_MS = 250;

  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var box = document.getElementById("q") || document.querySelector("input[type=search]");
    if (box) {
      event.preventDefault();
      box.focus();
      box.select();
    }
  });

  var box = document.getElementById("q");
  var results = document.getElementById("results");
  if (!box || !results || !window.fetch) return;
  var labels = JSON.parse(results.getAttribute("data-labels") || "{}");
  var script = document.documentElement.getAttribute("data-script") || "hant";
  var zhLang = script === "hans" ? "zh-Hans" : "zh-Hant";
  var timer = null;
  var pending = null;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function label(key) {
    var pair = labels[key] || [key, key];
    var span = el("span", {}, [el("span", { lang: zhLang }, [pair[0]]), " ", el("span", { lang: "en" }, [pair[1]])]);
    return span;
  }

  function snippet(html) {
    // Text and <mark> only, whatever the string holds.
    var parsed = new DOMParser().parseFromString("<body>" + html + "</body>", "text/html").body;
    var out = el("p", { "class": "snippet" });
    parsed.childNodes.forEach(function (node) {
      if (node.nodeType === Node.TEXT_NODE) out.appendChild(document.createTextNode(node.textContent));
      else if (node.nodeName === "MARK") out.appendChild(el("mark", {}, [node.textContent]));
      else out.appendChild(document.createTextNode(node.textContent || ""));
    });
    return out;
  }

  function result(r) {
    var meta = el("p", { "class": "meta" });
    if (r.edition) {
      meta.appendChild(label("edition"));
      meta.appendChild(document.createTextNode(" " + r.edition + " · "));
    }
    meta.appendChild(el("a", { href: "/sources/" + encodeURIComponent(r.source.id) }, [r.source.title]));
    return el("li", { "class": "result" }, [el("a", { "class": "title", href: r.url }, [r.title]), snippet(r.snippet), meta]);
  }

  function render(data) {
    var nodes = [];
    if (data.rule_jump) {
      nodes.push(el("p", { "class": "jump" }, [label("jump"), ": ",
        el("a", { href: data.rule_jump.url }, [data.rule_jump.title]), " ",
        el("span", { "class": "edition" }, [data.rule_jump.edition || ""])]));
    }
    if (data.did_you_mean) {
      nodes.push(el("p", { "class": "did-you-mean" }, [label("did_you_mean"), ": ",
        el("a", { href: "/?q=" + encodeURIComponent(data.did_you_mean) }, [data.did_you_mean])]));
    }
    nodes.push(el("p", { "class": "count" }, [String(data.total) + " ", label("results")]));
    KIND_ORDER.forEach(function (kind) {
      var items = data.results.filter(function (r) { return r.kind === kind; });
      if (!items.length) return;
      nodes.push(el("section", { "class": "group" }, [el("h2", {}, [label(kind)]),
        el("ol", { "class": "results" }, items.map(result))]));
    });
    if (!data.results.length) nodes.push(el("p", { "class": "none" }, [label("no_results")]));
    results.replaceChildren.apply(results, nodes);
  }

  function run() {
    var q = box.value.trim();
    if (pending) pending.abort();
    if (!q) {
      results.replaceChildren();
      return;
    }
    pending = new AbortController();
    var url = "/api/search?limit=20&script=" + script + "&q=" + encodeURIComponent(q);
    fetch(url, { signal: pending.signal, headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) return;
        render(data);
        history.replaceState(null, "", "/?q=" + encodeURIComponent(q));
      })
      .catch(function () { /* aborted or offline: the form still works */ });
  }

  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, DELAY_MS);
  });
})();

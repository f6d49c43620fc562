// The search box on every page: suggestions while typing (from /api/suggest), Enter on a
// rule number opens the rule, "/" focuses the box, and on the search page the results are
// drawn as you type (from /api/search). Every page works without this file: the forms are
// plain GETs to "/". Every text is inserted as text; a snippet's <mark> elements are
// rebuilt from a parse, so no markup from a response is ever inserted as it is.
(function () {
  "use strict";

  // The wait after a key before searching: it spares the server a query per key; answered
  // on this device (offline), a query costs no one else anything and the results follow the
  // key at once.
  var SEARCH_DELAY_MS = 250;
  var OFFLINE_DELAY_MS = 0;  // (searched in the key's own event)
  var FIRST_SCREEN = 6;  // results drawn before the rest (a phone's first screen shows four)
  var SUGGEST_DELAY_MS = 120;
  var script = document.documentElement.getAttribute("data-script") || "hant";
  var zhLang = script === "hans" ? "zh-Hans" : "zh-Hant";

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

  if (!window.fetch || !window.URLSearchParams) return;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  // A text's language as the server tells it (webapp/present.py: text_language), by the
  // character ranges the page carries (indexer/documents/script_ranges.py).
  var ranges = JSON.parse(document.documentElement.getAttribute("data-script-ranges"));
  var HAS_HAN = new RegExp("[" + ranges.han + "]", "u"), HAS_CYRILLIC = new RegExp("[" + ranges.cyrillic + "]", "u");
  function textLang(text) { return HAS_HAN.test(text) ? zhLang : (HAS_CYRILLIC.test(text) ? "bg" : "en"); }

  function searchUrl(q, extra) {
    var params = new URLSearchParams({ q: q, script: script });
    Object.keys(extra || {}).forEach(function (k) { params.set(k, extra[k]); });
    return "/?" + params.toString();
  }

  function getJson(url, signal) {
    return fetch(url, { signal: signal, headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; });
  }

  // --- the results page: Enter on a rule number -------------------------------------------
  // A header search box submits with jump=1; the results page then opens the rule at once,
  // leaving itself (without jump=1) one Back away. It waits for "load": a navigation that
  // starts before it replaces the page in the history instead of adding to it.
  var params = new URLSearchParams(location.search);
  if (params.get("jump") === "1") {
    params.delete("jump");
    history.replaceState(null, "", "/?" + params.toString());
    var jump = document.querySelector("#results .jump a");
    var go = function () { location.assign(jump.href); };
    if (jump) {
      if (document.readyState === "complete") setTimeout(go, 0);
      else window.addEventListener("load", function () { setTimeout(go, 0); });
    }
  }

  // --- suggestions: a combobox on every search box -------------------------------------
  function combobox(form, box) {
    var list = form.querySelector("[role=listbox]");
    if (!list) {
      list = el("ul", { "class": "suggestions", role: "listbox", id: "suggest-" + Math.random().toString(36).slice(2),
                        "aria-label": "Suggestions", hidden: "" });
      form.appendChild(list);
      box.setAttribute("role", "combobox");
      box.setAttribute("aria-autocomplete", "list");
      box.setAttribute("aria-expanded", "false");
      box.setAttribute("aria-controls", list.id);
    }
    var items = [], active = -1, timer = null, pending = null, typed = "";

    function close() {
      list.hidden = true;
      list.replaceChildren();
      items = [];
      active = -1;
      box.setAttribute("aria-expanded", "false");
      box.removeAttribute("aria-activedescendant");
    }

    function choose(i) {
      active = i;
      items.forEach(function (node, j) { node.setAttribute("aria-selected", j === i ? "true" : "false"); });
      if (i >= 0) box.setAttribute("aria-activedescendant", items[i].id);
      else box.removeAttribute("aria-activedescendant");
    }

    function open(found) {
      if (!found.length) return close();
      items = found.map(function (s, i) {
        var option = el("li", { role: "option", id: list.id + "-" + i, "aria-selected": "false", "data-url": s.url }, [
          el("span", { "class": "kind" }, [labelText(s.kind)]), el("span", { lang: textLang(s.text) }, [s.text])]);
        option.addEventListener("mousedown", function (e) { e.preventDefault(); });  // keep focus in the box
        option.addEventListener("click", function () { location.assign(s.url); });
        return option;
      });
      list.replaceChildren.apply(list, items);
      list.hidden = false;
      box.setAttribute("aria-expanded", "true");
      active = -1;
    }

    function suggest() {
      var q = box.value.trim();
      if (pending) pending.abort();
      if (!q || q === typed) { if (!q) close(); return; }
      typed = q;
      pending = new AbortController();
      getJson("/api/suggest?limit=6&script=" + script + "&q=" + encodeURIComponent(q), pending.signal)
        .then(function (data) { if (data && box.value.trim() === q) open(data.suggestions); })
        .catch(function () { /* aborted or offline */ });
    }

    box.addEventListener("input", function () {
      clearTimeout(timer);
      typed = "";
      // Offline nothing answers suggestions (the results below follow each key instead).
      if (navigator.onLine) timer = setTimeout(suggest, SUGGEST_DELAY_MS);
    });
    box.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown" && items.length) {
        event.preventDefault();
        choose((active + 1) % items.length);
      } else if (event.key === "ArrowUp" && items.length) {
        event.preventDefault();
        choose(active <= 0 ? items.length - 1 : active - 1);
      } else if (event.key === "Escape" && !list.hidden) {
        event.preventDefault();
        close();
      } else if (event.key === "Enter" && active >= 0) {
        event.preventDefault();
        location.assign(items[active].getAttribute("data-url"));
      }
    });
    box.addEventListener("blur", function () { setTimeout(close, 150); });
    return { close: close };
  }

  var labels = {};
  var results = document.getElementById("results");
  if (results) {
    labels = JSON.parse(results.getAttribute("data-labels") || "{}");
    // Tab moves from result to result; within one, the arrow keys move between its title, the
    // toggle of its other subrules and, once open, their links.
    results.addEventListener("keydown", function (event) {
      var step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      var item = step && event.target.closest(".result");
      if (!item) return;
      var stops = Array.prototype.slice.call(item.querySelectorAll("a.title, .also summary, .also[open] a"));
      var next = stops[stops.indexOf(event.target) + step];
      if (stops.indexOf(event.target) >= 0 && next) {
        event.preventDefault();
        next.focus();
      }
    });
  }

  function labelText(key) {
    var pair = labels[key];
    return pair ? pair[0] + " " + pair[1] : key;
  }

  function label(key) {
    var pair = labels[key] || [key, key];
    return el("span", {}, [el("span", { lang: zhLang }, [pair[0]]), " ", el("span", { lang: "en" }, [pair[1]])]);
  }

  document.querySelectorAll("form.search.small").forEach(function (form) {
    var box = form.querySelector("input[name=q]");
    if (!box) return;
    combobox(form, box);
    form.addEventListener("submit", function () {
      // The results page opens the rule itself when the query is one (see above).
      if (!form.querySelector("input[name=jump]")) form.appendChild(el("input", { type: "hidden", name: "jump", value: "1" }));
    });
  });

  // --- the search page: results as you type -------------------------------------------
  var form = document.getElementById("search-form");
  var box = document.getElementById("q");
  var count = document.getElementById("count");
  if (!form || !box || !results || !count) return;
  var suggestions = combobox(form, box);
  var newest = results.getAttribute("data-newest");
  var timer = null, pending = null, last = null;

  // A snippet is escaped text with <mark> elements only (indexer/search/highlighting.py,
  // or the offline search's escapeHtml): it is rebuilt as text nodes and <mark>s, so no
  // markup from a response is ever inserted as it is; anything else in it shows as text. A
  // split, not an HTML parser: a parser per result was a third of drawing the results on a
  // slow phone.
  var ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
  function unescaped(text) {
    return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, function (whole, name) {
      if (name[0] !== "#") return ENTITIES[name] || whole;
      var code = name[1] === "x" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
  }

  function snippet(html, lang) {
    var out = el("p", { "class": "snippet", lang: lang }), marked = false;
    html.split(/(<mark>|<\/mark>)/).forEach(function (part) {
      if (part === "<mark>") marked = true;
      else if (part === "</mark>") marked = false;
      else if (part) out.appendChild(marked ? el("mark", {}, [unescaped(part)]) : document.createTextNode(unescaped(part)));
    });
    return out;
  }

  function result(r) {
    var meta = el("p", { "class": "meta" });
    if (r.edition && r.edition !== newest) {
      meta.appendChild(el("span", { "class": "edition" }, [r.edition]));
      meta.appendChild(document.createTextNode(" · "));
    }
    meta.appendChild(el("span", { "class": "source", lang: textLang(r.source.title) }, [r.source.title]));
    if (r.other_editions && r.other_editions.length) {
      meta.appendChild(document.createTextNode(" · "));
      meta.appendChild(label("other_editions"));
      meta.appendChild(document.createTextNode(": " + r.other_editions.map(function (o) { return o.edition; }).join(", ")));
    }
    todayOf(r.today).forEach(function (part) {
      meta.appendChild(typeof part === "string" ? document.createTextNode(part) : part);
    });
    var langs = { en: "en", zh_hant: "zh-Hant", zh_hans: "zh-Hans", bg: "bg" };
    var title = el("a", { "class": "title", href: r.url }, [el("span", { "class": "kind" }, [label(r.kind)]), " ",
      el("span", { "class": "name", lang: textLang(r.title) }, [r.title])]);
    var parts = [title, snippet(r.snippet, langs[r.snippet_lang] || ""), meta];
    if (r.subrules && r.subrules.length) {
      // As the page does: the rule's other matching subrules, one right arrow key from the title.
      title.setAttribute("aria-keyshortcuts", "ArrowRight");
      var numbers = r.subrules.map(function (s) { return s.rule; }).join(", ");
      parts.push(el("details", { "class": "also" }, [
        el("summary", { tabindex: "-1" }, [label("subrules"), ": " + numbers]),
        el("ul", {}, r.subrules.map(function (s) { return el("li", {}, [el("a", { tabindex: "-1", href: s.url }, [s.rule])]); }))]));
    }
    return el("li", { "class": "result" }, parts);
  }

  // What an older edition's rule number is in today's rules, or the last edition that had it.
  function todayOf(today) {
    if (!today) return [];
    if (today.url) {
      var nodes = [" · ", label("today"), " (" + today.edition + "): ", el("a", { "class": "today", href: today.url }, [today.number])];
      (today.also || []).forEach(function (part) {  // the other rules a split one became
        nodes.push(", ", el("a", { "class": "today", href: part.url }, [part.number]));
      });
      return nodes;
    }
    if (today.ended) return [" · ", label("not_in_today"), ": ", label("last_in"), " " + today.ended.last];
    return [];
  }

  // Work after the results are drawn (the rest of them, the address): once typing pauses
  // and the page is idle. While a word is typed, a key's leftover work is dropped by the next
  // key's answer instead of delaying it (laying out twenty results took a slow phone longer
  // than the 120 ms between two keys).
  var TYPING_PAUSE_MS = 200;
  var idle = window.requestIdleCallback || function (fn) { return setTimeout(fn, 0); };
  var cancelIdle = window.cancelIdleCallback || clearTimeout;
  var leftover = [];
  function later(fn) {
    var handle = {};
    handle.timer = setTimeout(function () { handle.idle = idle(fn, { timeout: 500 }); }, TYPING_PAUSE_MS);
    leftover.push(handle);
  }
  function dropLeftover() {
    leftover.forEach(function (handle) {
      clearTimeout(handle.timer);
      if (handle.idle) cancelIdle(handle.idle);
    });
    leftover = [];
  }

  function render(data) {
    dropLeftover();
    var nodes = [];
    if (data.rule_jump) {
      nodes.push(el("p", { "class": "jump" }, [label("jump"), ": ",
        el("a", { href: data.rule_jump.url }, [data.rule_jump.title]), " ",
        data.rule_jump.end ? "– " + data.rule_jump.end + " " : "",
        el("span", { "class": "edition" }, [data.rule_jump.edition || ""])].concat(todayOf(data.rule_jump.today))));
    }
    if (data.official) {
      var o = data.official;
      var official = el("p", { "class": "official" }, [el("span", { lang: textLang(o.typed) }, ["「" + o.typed + "」"]), " ",
        label("official"), ": ", el("a", { href: o.url || searchUrl(o.name) }, [
          el("span", { lang: zhLang }, [o.name]), " ", el("span", { lang: "en" }, [o.english])])]);
      if (o.note) official.appendChild(el("span", { "class": "note", lang: "en" }, [" (" + o.note + ")"]));
      nodes.push(official);
    }
    if (data.cards && data.cards.length) {
      var cards = [label("cards_named"), ": "];
      data.cards.forEach(function (card, i) {
        if (i) cards.push(" · ");
        cards.push(el("a", { href: card.url, lang: textLang(card.name) }, [card.name]));
      });
      nodes.push(el("p", { "class": "cards-named" }, cards));
    }
    if (data.unknown_cards && data.unknown_cards.length) {
      nodes.push(el("p", { "class": "unknown-cards" }, [label("unknown_cards"), ": "].concat(
        data.unknown_cards.map(function (name) { return el("span", { lang: textLang(name) }, ["「" + name + "」"]); }),
        [" ", el("span", { "class": "hint" }, [label("add_cards")])])));
    }
    if (data.left_out && data.left_out.length) {
      var left = data.left_out.join(" ");
      nodes.push(el("p", { "class": "left-out" }, [label("left_out"), ": ", el("span", { lang: textLang(left) }, [left])]));
    }
    if (data.did_you_mean) {
      nodes.push(el("p", { "class": "did-you-mean" }, [label("did_you_mean"), ": ",
        el("a", { href: searchUrl(data.did_you_mean) }, [data.did_you_mean])]));
    }
    // The first screen's results at once, the rest when the page is idle (later(), in one
    // fragment): on a slow phone drawing twenty results took as long as searching, and done
    // at once it delayed the answer to the next key typed.
    var list = el("ol", { "class": "results" }, data.results.slice(0, FIRST_SCREEN).map(result));
    if (data.results.length) nodes.push(list);
    else nodes.push(el("p", { "class": "none" }, [label("no_results")]));
    if (data.results.length > FIRST_SCREEN) {
      later(function () {
        var rest = document.createDocumentFragment();
        data.results.slice(FIRST_SCREEN).forEach(function (r) { rest.appendChild(result(r)); });
        list.appendChild(rest);
      });
    }
    if (data.suggestions && data.suggestions.length) {
      nodes.push(el("div", { "class": "perhaps" }, [el("p", {}, [label("suggestions"), ":"]),
        el("ul", {}, data.suggestions.map(function (s) {
          return el("li", {}, [el("a", { href: s.url }, [el("span", { "class": "kind" }, [label(s.kind)]), " ",
            el("span", { lang: textLang(s.text) }, [s.text])])]);
        }))]));
    }
    if (!data.results.length) {
      nodes.push(el("p", { "class": "how" }, [label("how_to_search"), " ", el("a", { href: "/rules" }, [label("book")]),
        " · ", el("a", { href: "/glossary" }, [label("glossary")])]));
    }
    results.replaceChildren.apply(results, nodes);
    count.replaceChildren(String(data.total) + " ", label("results"));
  }

  // The address and the 繁/简 links follow the query, so a shared or switched page keeps it.
  function remember(q) {
    history.replaceState(null, "", q ? searchUrl(q) : "/?script=" + script);
    // The home page's ways into the book give their place to the results.
    document.querySelectorAll(".home-links").forEach(function (nav) { nav.hidden = !!q; });
    document.querySelectorAll(".script-toggle a[hreflang]").forEach(function (a) {
      var other = a.getAttribute("hreflang") === "zh-Hans" ? "hans" : "hant";
      var params = new URLSearchParams({ script: other });
      if (q) params.set("q", q);
      a.setAttribute("href", "/?" + params.toString());
    });
  }

  function fetchResults(q) {
    if (pending) pending.abort();
    pending = new AbortController();
    return getJson("/api/search?limit=20&script=" + script + "&q=" + encodeURIComponent(q), pending.signal)
      .then(function (data) {
        if (data) last = data;
        return data;
      });
  }

  function run() {
    var q = box.value.trim();
    if (!q) {
      dropLeftover();
      if (pending) pending.abort();
      results.replaceChildren();
      count.replaceChildren();
      remember("");
      return;
    }
    fetchResults(q).then(function (data) {
      if (!data || box.value.trim() !== q) return;
      render(data);
      // The address after the results are drawn: on a slow phone replacing it took as long
      // as drawing them.
      later(function () { if (box.value.trim() === q) remember(q); });
    }).catch(function () { /* aborted or offline: the form still works */ });
  }

  box.addEventListener("input", function () {
    clearTimeout(timer);
    var delay = navigator.onLine && !(last && last.offline) ? SEARCH_DELAY_MS : OFFLINE_DELAY_MS;
    if (delay) timer = setTimeout(run, delay);
    else run();
  });

  // Enter: a rule number (or range) opens the rule, and the results stay one Back away;
  // anything else is the plain form.
  var submitting = false;
  form.addEventListener("submit", function (event) {
    if (submitting) return;
    var q = box.value.trim();
    if (!q) return;
    event.preventDefault();
    suggestions.close();
    clearTimeout(timer);
    var answer = last && last.query.trim() === q ? Promise.resolve(last) : fetchResults(q);
    answer.then(function (data) {
      if (data && data.rule_jump) {
        render(data);
        remember(q);
        location.assign(data.rule_jump.url);
      } else {
        submitting = true;
        form.submit();
      }
    }).catch(function () {
      submitting = true;
      form.submit();
    });
  });
})();

// Rule references and [[card names]] on any page become links to their rule or card (plane,
// term), with a preview on hover, focus or a first tap.
//
//   <script src="https://HOST/embed.js" defer></script>
//   optional attributes: data-script="hant|hans" (Chinese script of the previews; default
//   from the browser's languages), data-selector="CSS selector" (where to look; default body)
//
// The grammar is the server's (indexer.documents.references, and the linker's [[name]]) and so
// are the addresses (its routes), written into this file when it is served. Only numbers and
// names the server knows become links; text inside code, pre, kbd, samp, links, scripts, styles, form fields and
// editable text is never touched, nor are web addresses. Text is split with DOM text nodes;
// nothing from the page or the server is inserted as HTML. The numbers of a page are asked
// for in batches of MAX_NUMBERS (every number is linked, however many), its names in batches
// of MAX_NAMES, and posts added later (a reply, the next page of a thread) are linked as they
// appear, with a request for the numbers and names they bring. A batch names the script in its address and sends no cookie, so
// a shared cache may keep its answer.
//
// A forum post can hold elements named like the DOM's own properties: <img name="currentScript">
// shadows the document's own currentScript, and <form><input name="nodeType"></form> makes the form's
// nodeType that input (as parentNode, isContentEditable, replaceChild...). So every property
// and method of the page's nodes this script uses is taken from the prototypes when it loads
// and called on the node, never read from the node or `document` itself, and its own element
// must be a real <script>.
(function () {
  "use strict";

  var DOC = Document.prototype, NODE = Node.prototype, ELEMENT = Element.prototype;
  function getter(proto, name) {
    var get = Object.getOwnPropertyDescriptor(proto, name).get;
    return function (target) { return get.call(target); };
  }
  function method(proto, name) {
    var fn = proto[name];
    return function (target) { return fn.apply(target, Array.prototype.slice.call(arguments, 1)); };
  }
  function bound(proto, name, target) {
    var fn = proto[name];
    return function () { return fn.apply(target, arguments); };
  }
  var currentScript = getter(DOC, "currentScript");
  var readyState = getter(DOC, "readyState");
  var bodyOf = getter(DOC, "body");
  var parentOf = getter(NODE, "parentNode");
  var nameOf = getter(NODE, "nodeName");
  var typeOf = getter(NODE, "nodeType");
  var valueOf = getter(NODE, "nodeValue");
  var editable = getter(HTMLElement.prototype, "isContentEditable");
  var appendChild = method(NODE, "appendChild");
  var replaceChild = method(NODE, "replaceChild");
  var getAttribute = method(ELEMENT, "getAttribute");
  var hasAttribute = method(ELEMENT, "hasAttribute");
  var closest = method(ELEMENT, "closest");
  var selectAll = method(ELEMENT, "querySelectorAll");
  var createElement = bound(DOC, "createElement", document);
  var createTextNode = bound(DOC, "createTextNode", document);
  var createFragment = bound(DOC, "createDocumentFragment", document);
  var createTreeWalker = bound(DOC, "createTreeWalker", document);
  var querySelectorAll = bound(DOC, "querySelectorAll", document);
  var listen = bound(EventTarget.prototype, "addEventListener", document);

  var me = currentScript(document);
  if (!(me instanceof HTMLScriptElement) || !window.fetch || !window.MutationObserver) return;
  var REFERENCE = new RegExp("__RULE_REFERENCE_PATTERN__", "gi");
  var NAME = new RegExp("__NAME_PATTERN__", "g");
  var ADDRESS = new RegExp("__URL_PATTERN__", "gi");
  var ROUTES = "__ROUTES__";  // {"rule": "/rules/NUMBER", "batch": "/api/rules", "names": "/api/names"}
  var SKIP = /^(A|CODE|PRE|KBD|SAMP|SCRIPT|STYLE|TEXTAREA|INPUT|SELECT|OPTION|BUTTON|NOSCRIPT|TEMPLATE|SVG|MATH)$/;
  var MAX_NUMBERS = 60;  // the server's largest batch (webapp.views.rules.MAX_BATCH)
  var MAX_NAMES = 30;  // and of names (webapp.views.forum.MAX_NAMES)
  var origin = new URL(me.src, location.href);
  var script = getAttribute(me, "data-script") || guessScript();
  var englishFirst = /^en/i.test(String((navigator.languages || [navigator.language || ""])[0] || ""));
  var selector = getAttribute(me, "data-selector") || "body";
  var rules = {};     // number -> the rule's preview, or null when no edition has it
  var names = {};     // [[name]] -> the preview of what it names, or null when nothing is called so
  var asked = {};     // numbers already asked for (the answer may still be on its way)
  var askedNames = {};  // and names

  function address(route) { return new URL(route, origin).href; }
  function ruleUrl(number) { return address(ROUTES.rule.replace("NUMBER", encodeURIComponent(number))); }

  function guessScript() {
    var langs = navigator.languages || [navigator.language || ""];
    for (var i = 0; i < langs.length; i++) {
      var lang = String(langs[i]).toLowerCase();
      if (/^zh-(cn|sg|hans)/.test(lang)) return "hans";
      if (/^zh/.test(lang)) return "hant";
    }
    return "hant";
  }

  // Whether a text node is inside something never linked: code, a link, a form field, editable
  // text, or this script's preview. Every step reads the prototypes' getters, so a clobbered
  // ancestor neither ends the walk early nor hides what it is.
  function skipped(node) {
    for (var el = parentOf(node); el && typeOf(el) === 1; el = parentOf(el)) {
      if (SKIP.test(nameOf(el).toUpperCase()) || (el instanceof HTMLElement && editable(el)) ||
          hasAttribute(el, "data-rule-ref") || hasAttribute(el, "data-name-ref") || el === box) return true;
    }
    return false;
  }

  // Rule numbers as people write them, as the server reads them (references.py,
  // fold_number_forms): any decimal digit as its ASCII digit, full-width forms as ASCII,
  // zero-width characters left out. `back` maps an offset of the folded text to the text's.
  var NUMBER_FORM = /[\u00ad\u200b-\u200d\u2060\ufeff\uff01-\uff5e\u3000]|(?![0-9])\p{Nd}/gu;
  var DIGIT = /\p{Nd}/u;

  function asWritten(ch) {
    var cp = ch.codePointAt(0);
    if (/[\u00ad\u200b-\u200d\u2060\ufeff]/.test(ch)) return "";
    if (cp === 0x3000) return " ";
    if (cp >= 0xff01 && cp <= 0xff5e && !DIGIT.test(ch)) return String.fromCharCode(cp - 0xfee0);
    var zero = cp;  // the digit zero of its script: digits are ten in a row from it
    while (DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
    return String((cp - zero) % 10);
  }

  function folded(text) {
    var out = "", starts = [[0, 0]], last = 0, m;
    NUMBER_FORM.lastIndex = 0;
    while ((m = NUMBER_FORM.exec(text))) {
      out += text.slice(last, m.index) + asWritten(m[0]);
      last = m.index + m[0].length;
      starts.push([out.length, last]);
    }
    out += text.slice(last);
    return { text: out, back: function (at) {
      var k = starts.length - 1;
      while (starts[k][0] > at) k--;
      return starts[k][1] + (at - starts[k][0]);
    } };
  }

  // The [[names]] and rule references of a text, in order, none inside a web address and no
  // reference inside a name (as the server's linker reads them).
  function references(text) {
    var found = [], taken = [], m, read = folded(text);
    function free(start) { return !taken.some(function (a) { return start >= a[0] && start < a[1]; }); }
    ADDRESS.lastIndex = 0;
    while ((m = ADDRESS.exec(text))) taken.push([m.index, m.index + m[0].length]);
    NAME.lastIndex = 0;
    while ((m = NAME.exec(text))) {
      var name = m.groups.card.trim();
      if (!name || !free(m.index)) continue;
      found.push({ name: name, start: m.index, stop: m.index + m[0].length });
      taken.push([m.index, m.index + m[0].length]);
    }
    REFERENCE.lastIndex = 0;
    while ((m = REFERENCE.exec(read.text))) {
      var number = m.groups.num.toLowerCase();
      if (number.indexOf(".") < 0 && !m.groups.prefix) continue;  // a bare 309 is not a reference
      var start = read.back(m.index + m[0].indexOf(m.groups.num)), stop = read.back(m.index + m[0].length);
      if (free(start)) found.push({ number: number, start: start, stop: stop });
    }
    return found.sort(function (a, b) { return a.start - b.start; });
  }

  // Every number and name not asked for yet, in batches; resolves when all are known.
  function fetchAll(numbers, nameList) {
    return Promise.all([
      fetchMissing(numbers, asked, MAX_NUMBERS, function (batch) {
        return fetchBatch(ROUTES.batch + "?script=" + script + "&numbers=" + batch.map(encodeURIComponent).join(","),
                          "rules", batch, rules);
      }),
      fetchMissing(nameList, askedNames, MAX_NAMES, function (batch) {
        return fetchBatch(ROUTES.names + "?script=" + script + batch.map(function (n) {
          return "&name=" + encodeURIComponent(n);
        }).join(""), "names", batch, names);
      })]);
  }

  // Requests of at most `size` keys each for every key not asked for yet.
  function fetchMissing(keys, seen, size, ask) {
    var missing = keys.filter(function (k) { return !(k in seen); });
    missing.forEach(function (k) { seen[k] = true; });
    var batches = [];
    for (var i = 0; i < missing.length; i += size) batches.push(ask(missing.slice(i, i + size)));
    return Promise.all(batches);
  }

  function fetchBatch(route, field, batch, into) {
    return fetch(address(route), { headers: { Accept: "application/json" }, credentials: "omit" })
      .then(function (r) { return r.ok ? r.json() : {}; })
      .catch(function () { return {}; })
      .then(function (data) {
        batch.forEach(function (k) { into[k] = (data[field] && data[field][k]) || null; });
      });
  }

  // --- links: hover or focus previews; on a touch screen the first tap previews and the
  // second opens (the emulated mouse events of a tap never count as hovering) ------------
  var lastPointer = "mouse";
  listen("pointerdown", function (e) { lastPointer = e.pointerType; }, true);

  function link(ref, label) {
    var a = createElement("a");
    a.href = ref.name ? address(names[ref.name].url) : ruleUrl(ref.number);
    a.textContent = label;
    if (ref.name) a.setAttribute("data-name-ref", ref.name);
    else a.setAttribute("data-rule-ref", ref.number);
    a.addEventListener("pointerenter", function (e) { if (e.pointerType === "mouse") show(a); });
    a.addEventListener("pointerleave", function (e) { if (e.pointerType === "mouse") hideSoon(); });
    a.addEventListener("focus", function () { if (lastPointer === "mouse") show(a); });
    a.addEventListener("blur", hideSoon);
    a.addEventListener("click", function (e) {
      if (lastPointer !== "mouse" && shownFor !== a) {
        e.preventDefault();
        show(a);
      }
    });
    return a;
  }

  // A link keeps the post's text size, but a finger gets TOUCH_PX around it: vertical padding
  // on an inline element widens where it is tapped without moving a line of the post, and
  // `position: relative` keeps that area above the lines it overlaps. The links of one text
  // share its font, so the first one is measured for all of them.
  var TOUCH_PX = 44;

  function touchArea(links) {
    var pad = Math.max(0, Math.ceil((TOUCH_PX - links[0].getBoundingClientRect().height) / 2));
    links.forEach(function (a) {
      a.style.paddingTop = a.style.paddingBottom = pad + "px";
      a.style.position = "relative";
    });
  }

  function rewrite(node, refs) {
    var text = valueOf(node), pos = 0, frag = createFragment(), links = [];
    refs.forEach(function (ref) {
      if (!(ref.name ? names[ref.name] : rules[ref.number])) return;
      frag.appendChild(createTextNode(text.slice(pos, ref.start)));
      links.push(frag.appendChild(link(ref, ref.name || text.slice(ref.start, ref.stop))));
      pos = ref.stop;
    });
    if (!links.length) return;
    frag.appendChild(createTextNode(text.slice(pos)));
    replaceChild(parentOf(node), frag, node);
    touchArea(links);
  }

  // --- the preview --------------------------------------------------------------------
  var box = null, shownFor = null, hideTimer = null;

  function preview() {
    if (box) return box;
    box = createElement("div");
    box.setAttribute("role", "tooltip");
    box.id = "rule-preview-" + Math.random().toString(36).slice(2);
    var s = box.style;
    s.position = "absolute"; s.zIndex = "2147483000"; s.maxWidth = "min(26rem, 92vw)"; s.boxSizing = "border-box";
    s.background = "#fff"; s.color = "#1d1d1f"; s.border = "1px solid #bbb"; s.borderRadius = "6px";
    s.boxShadow = "0 4px 16px rgba(0,0,0,.18)"; s.padding = "8px 10px"; s.font = "14px/1.5 system-ui, sans-serif";
    s.whiteSpace = "pre-line"; s.overflowWrap = "anywhere"; s.display = "none"; s.flexDirection = "column";
    box.addEventListener("pointerenter", function () { clearTimeout(hideTimer); });
    box.addEventListener("pointerleave", function (e) { if (e.pointerType === "mouse") hideSoon(); });
    appendChild(bodyOf(document), box);
    return box;
  }

  // What the preview says scrolls inside it when the screen is too short for all of it; its
  // Open link stays below, always in view.
  function fill(a, data) {
    var b = preview();
    var says = createElement("div");
    says.style.overflowY = "auto"; says.style.minHeight = "0"; says.style.overscrollBehavior = "contain";
    b.replaceChildren(says);
    var title = createElement("strong");
    title.textContent = data.title + (data.edition ? " · " + data.edition : "");
    says.appendChild(title);
    var attrs = data.attrs || {};  // a card's cost, type line, power and toughness
    var line = [attrs.mana_cost, attrs.type_line, attrs.power_toughness].filter(Boolean).join(" · ");
    if (line) {
      var about = createElement("div");
      about.style.marginTop = "4px";
      about.textContent = line;
      says.appendChild(about);
    }
    // The reader's language first: the Chinese, unless the browser's first language is English.
    var blocks = (data.text || []).slice().sort(function (a, b) {
      return ((a.lang === "en") !== englishFirst) - ((b.lang === "en") !== englishFirst);
    });
    blocks.slice(0, 2).forEach(function (block) {
      var p = createElement("div");
      p.lang = { en: "en", zh_hant: "zh-Hant", zh_hans: "zh-Hans", bg: "bg" }[block.lang] || "";
      p.style.marginTop = "4px";
      p.textContent = block.text;
      says.appendChild(p);
    });
    var today = data.today;
    if (today) {  // an older edition's number: today's rule, or the last edition that had it
      var now = createElement("div");
      now.style.marginTop = "4px";
      now.textContent = today.number ? "現行規則 Today (" + today.edition + "): " + today.number
        : "已無此規則 No longer a rule: last in " + today.ended.last;
      says.appendChild(now);
    }
    var open = createElement("a");
    open.href = a.href;
    open.textContent = "開啟 Open →";
    open.style.display = "inline-block"; open.style.marginTop = "4px"; open.style.padding = "10px 0";
    open.style.flex = "none"; open.style.alignSelf = "flex-start";
    b.appendChild(open);
  }

  function show(a) {
    clearTimeout(hideTimer);
    var data = hasAttribute(a, "data-name-ref") ? names[getAttribute(a, "data-name-ref")]
      : rules[getAttribute(a, "data-rule-ref")];
    if (!data) return;
    fill(a, data);
    var b = preview();
    place(b, a.getBoundingClientRect());
    if (shownFor && shownFor !== a) shownFor.removeAttribute("aria-describedby");
    a.setAttribute("aria-describedby", b.id);  // a screen reader reads the preview with the link
    shownFor = a;
  }

  // The preview inside the screen: below its link, or above it where only that has room for
  // all of it, else on the side with more room and no taller than that room (its text then
  // scrolls); a link too near the screen's edge for either gets it over the link instead.
  var GAP = 4, LEAST_ROOM = 160;

  function place(b, r) {
    var height = window.innerHeight, below = height - r.bottom - 2 * GAP, above = r.top - 2 * GAP;
    b.style.maxHeight = "";
    b.style.display = "flex";
    var whole = b.offsetHeight, under = whole <= below || below >= above;
    var room = under ? below : above;
    if (room < Math.min(whole, LEAST_ROOM)) room = height - 2 * GAP;
    b.style.maxHeight = room + "px";
    var tall = b.offsetHeight, top = under ? r.bottom + GAP : r.top - GAP - tall;
    top = Math.max(GAP, Math.min(top, height - GAP - tall));
    var left = Math.max(GAP, Math.min(r.left, window.innerWidth - b.offsetWidth - GAP));
    b.style.left = (left + window.scrollX) + "px";
    b.style.top = (top + window.scrollY) + "px";
  }

  function hideSoon() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(function () {
      if (box) box.style.display = "none";
      if (shownFor) shownFor.removeAttribute("aria-describedby");
      shownFor = null;
    }, 300);
  }

  listen("keydown", function (e) { if (e.key === "Escape") hideSoon(); });

  // --- walk the page, and what is added to it later -------------------------------------
  function scan(roots) {
    var found = [], numbers = {}, named = {};
    roots.forEach(function (root) {
      var walker = createTreeWalker(root, NodeFilter.SHOW_TEXT, {
        acceptNode: function (node) { return skipped(node) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT; }
      });
      var isText = typeOf(root) === 3;
      if (isText && skipped(root)) return;
      for (var node = isText ? root : walker.nextNode(); node; node = isText ? null : walker.nextNode()) {
        var text = valueOf(node), refs = references(text);
        if (!refs.length) continue;
        found.push({ node: node, text: text, refs: refs });
        refs.forEach(function (ref) { if (ref.name) named[ref.name] = true; else numbers[ref.number] = true; });
      }
    });
    return fetchAll(Object.keys(numbers), Object.keys(named)).then(function () {
      found.forEach(function (item) {
        // The page may have changed while the rules were fetched.
        if (parentOf(item.node) && valueOf(item.node) === item.text) rewrite(item.node, item.refs);
      });
      observer.takeRecords();  // our own links are not news
    });
  }

  // Roots to scan in what was added: the added node where it lies inside a matching
  // element, else the matching elements inside it.
  function rootsIn(nodes) {
    var roots = [];
    nodes.forEach(function (node) {
      if (!parentOf(node) || node === box) return;
      var element = typeOf(node) === 1 ? node : parentOf(node);
      if (!element || typeOf(element) !== 1) return;
      if (closest(element, selector)) roots.push(node);
      else if (typeOf(node) === 1) Array.prototype.push.apply(roots, selectAll(node, selector));
    });
    return roots;
  }

  var added = [], pending = null;
  var observer = new MutationObserver(function (mutations) {
    mutations.forEach(function (m) { Array.prototype.push.apply(added, m.addedNodes); });
    if (pending) return;
    pending = setTimeout(function () {
      var nodes = added;
      added = [];
      pending = null;
      scan(rootsIn(nodes));
    }, 50);
  });

  function start() {
    scan(Array.prototype.slice.call(querySelectorAll(selector)));
    observer.observe(bodyOf(document), { childList: true, subtree: true });
  }

  if (readyState(document) === "loading") listen("DOMContentLoaded", start);
  else start();
})();

// Rule references on any page become links to their rule, with a preview on hover or tap.
//
//   <script src="https://HOST/embed.js" defer></script>
//   optional attributes: data-script="hant|hans" (Chinese script of the previews; default
//   from the browser's languages), data-selector="CSS selector" (where to look; default body)
//
// The grammar is the server's (documents.references), written into this file when it is
// served. Only numbers the server knows become links; text inside code, pre, links,
// scripts, styles and form fields is never touched, nor are web addresses. Text is split
// with DOM text nodes; nothing from the page or the server is inserted as HTML.
(function () {
  "use strict";

  var me = document.currentScript;
  if (!me || !window.fetch || !document.createTreeWalker) return;
  var REFERENCE = new RegExp("__RULE_REFERENCE_PATTERN__", "gi");
  var ADDRESS = new RegExp("__URL_PATTERN__", "gi");
  var SKIP = /^(A|CODE|PRE|KBD|SAMP|SCRIPT|STYLE|TEXTAREA|INPUT|SELECT|OPTION|BUTTON|NOSCRIPT|TEMPLATE|SVG|MATH)$/;
  var MAX_NUMBERS = 60;
  var base = me.src.replace(/embed\.js(\?.*)?$/, "");
  var script = me.getAttribute("data-script") || guessScript();
  var selector = me.getAttribute("data-selector") || "body";
  var rules = {};  // number -> Promise of the rule's JSON, or null when unknown

  function guessScript() {
    var langs = navigator.languages || [navigator.language || ""];
    for (var i = 0; i < langs.length; i++) {
      var lang = String(langs[i]).toLowerCase();
      if (/^zh-(cn|sg|hans)/.test(lang)) return "hans";
      if (/^zh/.test(lang)) return "hant";
    }
    return "hant";
  }

  function skipped(node) {
    for (var el = node.parentNode; el && el.nodeType === 1; el = el.parentNode) {
      if (SKIP.test(el.nodeName.toUpperCase()) || el.isContentEditable || el.hasAttribute("data-rule-ref")) return true;
    }
    return false;
  }

  function references(text) {
    var found = [], addresses = [], m;
    ADDRESS.lastIndex = 0;
    while ((m = ADDRESS.exec(text))) addresses.push([m.index, m.index + m[0].length]);
    REFERENCE.lastIndex = 0;
    while ((m = REFERENCE.exec(text))) {
      var number = m.groups.num.toLowerCase();
      if (number.indexOf(".") < 0 && !m.groups.prefix) continue;  // a bare 309 is not a reference
      var start = m.index + m[0].indexOf(m.groups.num);
      var inAddress = addresses.some(function (a) { return start >= a[0] && start < a[1]; });
      if (!inAddress) found.push({ number: number, start: start, stop: m.index + m[0].length });
    }
    return found;
  }

  function fetchRule(number) {
    if (!(number in rules)) {
      var url = base + "api/rules/" + encodeURIComponent(number) + "?script=" + script;
      rules[number] = fetch(url, { headers: { Accept: "application/json" }, credentials: "omit" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .catch(function () { return null; });
    }
    return rules[number];
  }

  function link(number, label) {
    var a = document.createElement("a");
    a.href = base + "rules/" + encodeURIComponent(number);
    a.textContent = label;
    a.setAttribute("data-rule-ref", number);
    a.addEventListener("mouseenter", function () { show(a); });
    a.addEventListener("focus", function () { show(a); });
    a.addEventListener("mouseleave", hideSoon);
    a.addEventListener("blur", hideSoon);
    a.addEventListener("pointerdown", function (e) { a._touch = e.pointerType === "touch"; });
    a.addEventListener("click", function (e) {
      if (a._touch && shownFor !== a) {  // first tap previews, second tap follows
        e.preventDefault();
        show(a);
      }
    });
    return a;
  }

  function rewrite(node, refs, known) {
    var text = node.nodeValue, pos = 0, frag = document.createDocumentFragment(), changed = false;
    refs.forEach(function (ref) {
      if (!known[ref.number]) return;
      frag.appendChild(document.createTextNode(text.slice(pos, ref.start)));
      frag.appendChild(link(ref.number, text.slice(ref.start, ref.stop)));
      pos = ref.stop;
      changed = true;
    });
    if (!changed) return;
    frag.appendChild(document.createTextNode(text.slice(pos)));
    node.parentNode.replaceChild(frag, node);
  }

  // --- the preview --------------------------------------------------------------------
  var box = null, shownFor = null, hideTimer = null;

  function preview() {
    if (box) return box;
    box = document.createElement("div");
    box.setAttribute("role", "tooltip");
    var s = box.style;
    s.position = "absolute"; s.zIndex = "2147483000"; s.maxWidth = "min(26rem, 92vw)";
    s.background = "#fff"; s.color = "#1d1d1f"; s.border = "1px solid #bbb"; s.borderRadius = "6px";
    s.boxShadow = "0 4px 16px rgba(0,0,0,.18)"; s.padding = "8px 10px"; s.font = "14px/1.5 system-ui, sans-serif";
    s.whiteSpace = "pre-line"; s.overflowWrap = "anywhere"; s.display = "none";
    box.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    box.addEventListener("mouseleave", hideSoon);
    document.body.appendChild(box);
    return box;
  }

  function fill(a, data) {
    var b = preview();
    b.replaceChildren();
    var title = document.createElement("strong");
    title.textContent = data.title + (data.edition ? " · " + data.edition : "");
    b.appendChild(title);
    (data.text || []).slice(0, 2).forEach(function (block) {
      var p = document.createElement("div");
      p.lang = { en: "en", zh_hant: "zh-Hant", zh_hans: "zh-Hans", bg: "bg" }[block.lang] || "";
      p.style.marginTop = "4px";
      p.textContent = block.text.length > 400 ? block.text.slice(0, 400) + "…" : block.text;
      b.appendChild(p);
    });
    var open = document.createElement("a");
    open.href = a.href;
    open.textContent = "開啟 Open →";
    open.style.display = "inline-block"; open.style.marginTop = "4px";
    b.appendChild(open);
  }

  function show(a) {
    clearTimeout(hideTimer);
    fetchRule(a.getAttribute("data-rule-ref")).then(function (data) {
      if (!data) return;
      fill(a, data);
      var r = a.getBoundingClientRect(), b = preview();
      b.style.display = "block";
      var left = Math.max(4, Math.min(r.left, document.documentElement.clientWidth - b.offsetWidth - 4));
      b.style.left = (left + window.scrollX) + "px";
      b.style.top = (r.bottom + window.scrollY + 4) + "px";
      shownFor = a;
    });
  }

  function hideSoon() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(function () {
      if (box) box.style.display = "none";
      shownFor = null;
    }, 300);
  }

  document.addEventListener("keydown", function (e) { if (e.key === "Escape") hideSoon(); });

  // --- walk the page ------------------------------------------------------------------
  function run() {
    var found = [], numbers = {};
    document.querySelectorAll(selector).forEach(function (root) {
      var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
        acceptNode: function (node) {
          return skipped(node) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
        }
      });
      for (var node = walker.nextNode(); node; node = walker.nextNode()) {
        var refs = references(node.nodeValue);
        if (!refs.length) continue;
        found.push({ node: node, text: node.nodeValue, refs: refs });
        refs.forEach(function (ref) { numbers[ref.number] = true; });
      }
    });
    var list = Object.keys(numbers).slice(0, MAX_NUMBERS);
    Promise.all(list.map(fetchRule)).then(function (answers) {
      var known = {};
      list.forEach(function (n, i) { known[n] = !!answers[i]; });
      found.forEach(function (item) {
        // The page may have changed while the rules were fetched.
        if (item.node.parentNode && item.node.nodeValue === item.text) rewrite(item.node, item.refs, known);
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();

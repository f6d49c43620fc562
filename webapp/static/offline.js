// The installable app's page side: registers the service worker (/sw.js), keeps the offline
// copy of the index on this device and updates it when the server's index changes, says
// when the page is offline and which rules edition the copy holds, and, on the offline
// shell (a page never seen, opened with no network), shows the search or the rule asked for.
//
// The copy is kept by itself when it is at most AUTO_KEEP_BYTES compressed; the control
// beside the status removes it (and stops keeping it) or keeps it again.
(function () {
  "use strict";

  var DATA_CACHE = "kb-offline";
  var DATA_URL = "/api/offline/data";
  var META_URL = "/api/offline";
  var CHOICE = "kb-offline-choice";
  var SCRIPT = "kb-script";
  var AUTO_KEEP_BYTES = 4 * 1024 * 1024;

  // Interface texts: Traditional, Simplified, English.
  var TEXTS = {
    offline: ["離線中", "离线中", "Offline"],
    searching: ["搜尋的是此裝置上的離線副本", "搜索的是此设备上的离线副本", "searching the copy kept on this device"],
    noCopy: ["此裝置沒有離線副本", "此设备没有离线副本", "no offline copy is kept on this device"],
    copy: ["離線副本", "离线副本", "Offline copy"],
    rules: ["規則", "规则", "rules"],
    documents: ["與文件", "与文件", "and the documents"],
    kept: ["已保存", "已保存", "kept"],
    updated: ["已更新", "已更新", "updated"],
    keep: ["離線保存", "离线保存", "Keep offline"],
    remove: ["移除離線副本", "移除离线副本", "Remove offline copy"],
    saving: ["保存中…", "保存中…", "saving…"],
    failed: ["保存失敗", "保存失败", "could not be saved"],
    notKept: ["此頁不在離線副本中，請改用搜尋。", "此页不在离线副本中，请改用搜索。",
              "This page is not in the offline copy; search instead."],
    edition: ["版本", "版本", "Edition"],
    parent: ["上層規則", "上层规则", "Parent rule"],
    subrules: ["子規則", "子规则", "Subrules"],
    examples: ["範例", "范例", "Examples"],
    rulings: ["規則釋疑", "规则释疑", "Rulings"],
  };
  var LANG_TAGS = { en: "en", zh_hant: "zh-Hant", zh_hans: "zh-Hans", bg: "bg" };

  var root = document.documentElement;
  var shell = !!document.querySelector('meta[name="kb-offline-shell"]');
  var params = new URLSearchParams(location.search);

  function stored(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }

  // The shell was stored once, in no particular script: it takes the reader's.
  if (shell) {
    var wanted = params.get("script") || stored(SCRIPT);
    if (wanted === "hant" || wanted === "hans") {
      root.setAttribute("data-script", wanted);
      root.setAttribute("lang", wanted === "hans" ? "zh-Hans" : "zh-Hant");
    }
  } else if (root.getAttribute("data-script")) {
    store(SCRIPT, root.getAttribute("data-script"));
  }
  var script = root.getAttribute("data-script") === "hans" ? "hans" : "hant";

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    (children || []).forEach(function (child) {
      if (child != null) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function zh(key) { return TEXTS[key][script === "hans" ? 1 : 0]; }

  function label(key) {
    return el("span", {}, [el("span", { lang: script === "hans" ? "zh-Hans" : "zh-Hant" }, [zh(key)]), " ",
                           el("span", { lang: "en" }, [TEXTS[key][2]])]);
  }

  function megabytes(bytes) { return (bytes / 1048576).toFixed(1) + " MB"; }

  // --- the kept copy -------------------------------------------------------------------

  // role=status is a polite live region: the page's one aria-live region stays the results'.
  var status = el("div", { id: "offline-status", "class": "offline-status", role: "status" });
  var main = document.querySelector("main");
  if (main) main.parentNode.insertBefore(status, main);

  function keptMeta() {
    if (!window.caches) return Promise.resolve(null);
    return caches.open(DATA_CACHE).then(function (cache) { return cache.match(META_URL); })
      .then(function (response) { return response ? response.json() : null; })
      .catch(function () { return null; });
  }

  function keep(meta) {
    return caches.open(DATA_CACHE).then(function (cache) {
      return fetch(DATA_URL, { cache: "no-store" }).then(function (response) {
        if (!response.ok) throw new Error("offline copy: HTTP " + response.status);
        return cache.put(DATA_URL, response);
      }).then(function () {
        return cache.put(META_URL, new Response(JSON.stringify(meta), { headers: { "Content-Type": "application/json" } }));
      });
    }).then(function () {
      if (navigator.storage && navigator.storage.persist) navigator.storage.persist();
      return meta;
    });
  }

  function remove() {
    store(CHOICE, "off");
    return caches.delete(DATA_CACHE).then(function () { show(null, null); });
  }

  function describe(meta) {
    var what = [label("copy"), ": "];
    if (meta.edition) what.push(label("rules"), " ", el("span", { "class": "edition" }, [meta.edition]), " ");
    what.push(label("documents"));
    return what;
  }

  // The status line: offline or not, what the kept copy holds, and the control.
  function show(meta, news) {
    var nodes = [];
    var online = navigator.onLine;
    status.classList.toggle("is-offline", !online);
    root.classList.toggle("offline", !online);
    if (!online) {
      nodes.push(el("strong", {}, [label("offline")]), " · ");
      nodes.push(meta ? el("span", {}, [label("searching")]) : el("span", {}, [label("noCopy")]));
      if (meta) nodes.push(" · ");
    }
    if (meta) {
      nodes.push(el("span", { "class": "offline-copy", "data-index": meta.index, "data-edition": meta.edition || "" },
                    describe(meta).concat([" (", label(news || "kept"), ")"])));
      if (online) {
        var removeButton = el("button", { type: "button", "class": "offline-remove" }, [label("remove")]);
        removeButton.addEventListener("click", remove);
        nodes.push(" ", removeButton);
      }
    } else if (online && window.caches) {
      var keepButton = el("button", { type: "button", "class": "offline-keep" }, [label("keep")]);
      keepButton.addEventListener("click", function () {
        store(CHOICE, "on");
        keepButton.disabled = true;
        keepButton.replaceChildren(label("saving"));
        serverMeta().then(keep).then(function (kept) { show(kept, "kept"); })
          .catch(function () { keepButton.replaceChildren(label("failed")); keepButton.disabled = false; });
      });
      nodes.push(keepButton);
    }
    status.replaceChildren.apply(status, nodes);
  }

  function serverMeta() {
    return fetch(META_URL, { cache: "no-store" }).then(function (response) {
      if (!response.ok) throw new Error("offline copy: HTTP " + response.status);
      return response.json();
    });
  }

  // Online: keep the copy up to date (or keep it for the first time when it is small enough
  // and the reader did not remove it). Offline: say so.
  function refresh() {
    keptMeta().then(function (kept) {
      show(kept, null);
      if (!navigator.onLine || !window.caches) return;
      serverMeta().then(function (current) {
        if (kept && kept.index === current.index) return;
        var choice = stored(CHOICE);
        if (!kept && (choice === "off" || (choice !== "on" && current.gzip_bytes > AUTO_KEEP_BYTES))) return;
        return keep(current).then(function (meta) { show(meta, kept ? "updated" : "kept"); });
      }).catch(function () { /* the server is out of reach: the status says what is kept */ });
    });
  }

  window.addEventListener("online", refresh);
  window.addEventListener("offline", refresh);
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(function () {});
  refresh();

  // --- the shell: the search or rule the address asks for --------------------------------

  function texts(blocks) {
    if (!blocks || !blocks.length) return null;
    return el("div", { "class": "texts" + (blocks.length > 1 ? " side-by-side" : "") }, blocks.map(function (b) {
      return el("div", { "class": "text", lang: LANG_TAGS[b.lang] || "" }, [b.text]);
    }));
  }

  function link(summary) {
    return el("a", { href: summary.url }, [summary.title]);
  }

  function section(key, cls, children) {
    return children.length ? el("section", { "class": cls }, [el("h2", {}, [label(key)])].concat(children)) : null;
  }

  function renderRule(rule) {
    document.title = rule.title;
    var article = el("article", { "class": "rule" }, [
      rule.parent ? el("p", { "class": "crumbs" }, [label("parent"), ": ", link(rule.parent)]) : null,
      el("h1", {}, [rule.title]),
      el("p", { "class": "meta" }, [label("edition"), " ", el("span", { "class": "edition" }, [rule.edition])]),
      texts(rule.text),
      section("examples", "examples", rule.examples.map(texts)),
      section("subrules", "children", rule.children.length ? [el("ol", { "class": "subrules" }, rule.children.map(function (c) {
        return el("li", {}, [el("a", { "class": "num", href: c.url }, [c.number]), texts(c.text)]);
      }))] : []),
      section("rulings", "rulings", rule.rulings.length ? [el("ul", {}, rule.rulings.map(function (r) {
        return el("li", {}, [texts(r.text), el("p", { "class": "meta" }, [r.source.title])]);
      }))] : []),
    ]);
    main.replaceChildren(article);
  }

  function notice(key) {
    main.insertBefore(el("p", { "class": "offline-notice" }, [label(key)]), main.firstChild);
  }

  function searchFor(q) {
    var box = document.getElementById("q");
    box.value = q;
    box.dispatchEvent(new Event("input"));
  }

  function showAddress() {
    var rule = /^\/rules\/([^/]+)$/.exec(location.pathname);
    if (rule) {
      var args = new URLSearchParams({ script: script });
      if (params.get("edition")) args.set("edition", params.get("edition"));
      fetch("/api/rules/" + rule[1] + "?" + args, { headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) { if (data) renderRule(data); else notice("notKept"); })
        .catch(function () { notice("notKept"); });
    } else if (location.pathname === "/" && params.get("q") && params.get("jump") === "1") {
      // A header search box's rule number opens the rule, as the server's results page does.
      fetch("/api/search?limit=1&q=" + encodeURIComponent(params.get("q")), { headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (data && data.rule_jump) location.replace(data.rule_jump.url);
          else searchFor(params.get("q"));
        }, function () { searchFor(params.get("q")); });
    } else if (location.pathname === "/" && params.get("q")) {
      searchFor(params.get("q"));
    } else if (location.pathname !== "/" && location.pathname !== "/offline") {
      notice("notKept");
    }
  }

  // After every deferred script: the search box's own script listens by then.
  if (shell && main) document.addEventListener("DOMContentLoaded", showAddress);
})();

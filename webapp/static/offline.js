// The installable app's page side: registers the service worker (/sw.js), keeps the offline
// copy of the index on this device and updates it when the server's index changes, says
// when the page is offline and which rules edition the copy holds, and, on the offline
// shell (a page never seen, opened with no network), shows the search or the rule asked for.
//
// The copy is kept by itself when it is at most AUTO_KEEP_BYTES compressed; the control
// beside the status removes it (and stops keeping it) or keeps it again. Its words' meaning
// vectors are kept after it (`keepMeanings`).
//
// The status line is shown in full once; after that it is a small mark in the header (what is
// kept, or that the page is offline) that opens to the full line, so a phone's first screen
// holds results and rule text rather than the same news again.
(function () {
  "use strict";

  var DATA_CACHE = "kb-offline";
  var DATA_URL = "/api/offline/data";
  var META_URL = "/api/offline";
  var MEANINGS_URL = "/api/offline/meanings";
  var CHOICE = "kb-offline-choice";
  var SCRIPT = "kb-script";
  var SHOWN = "kb-offline-status-shown";
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
    book: ["規則目錄", "规则目录", "Contents"],
    glossary: ["詞彙表", "词汇表", "Glossary"],
    rulesInSection: ["條規則", "条规则", "rules"],
    rulesUnder: ["本節規則", "本节规则", "The rules of this section"],
    aToZ: ["英文 A–Z", "英文 A–Z", "A–Z in English"],
    byReading: ["依中文讀音（拼音）", "依中文读音（拼音）", "By Chinese reading (pinyin)"],
    english: ["英文", "英文", "English"],
    traditional: ["繁體", "繁体", "Traditional"],
    simplified: ["簡體", "简体", "Simplified"],
    cost: ["費用", "费用", "Cost"],
    type: ["類別", "类别", "Type"],
    pt: ["力量／防禦力", "力量／防御力", "P/T"],
    world: ["時空", "时空", "World"],
    set: ["系列", "系列", "Set"],
    source: ["來源", "来源", "Source"],
    abilities: ["異能", "异能", "Abilities"],
    superseded: ["已被取代", "已被取代", "Superseded"],
    today: ["現行規則中", "现行规则中", "In today's rules"],
    notInToday: ["現行規則中已無", "现行规则中已无", "Not in today's rules"],
    lastIn: ["最後見於", "最后见于", "last in"],
    numberNow: ["此編號現指", "此编号现指", "this number now names"],
  };
  var LANG_TAGS = { en: "en", zh_hant: "zh-Hant", zh_hans: "zh-Hans", bg: "bg" };

  var root = document.documentElement;
  var shell = !!document.querySelector('meta[name="kb-offline-shell"]');
  var params = new URLSearchParams(location.search);

  function stored(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }

  // The shell is kept in each script and the worker gives the one the address names
  // (`?script=`); an address naming none opens again with the reader's, so that every label
  // of the page is in it.
  if (shell) {
    var wanted = params.get("script") || stored(SCRIPT);
    if (params.get("script")) store(SCRIPT, wanted);
    if ((wanted === "hant" || wanted === "hans") && wanted !== root.getAttribute("data-script") && !params.get("script")) {
      params.set("script", wanted);
      location.replace(location.pathname + "?" + params + location.hash);
      return;
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
  var header = document.querySelector("header.top");
  var compact = stored(SHOWN) === "1" && !!header;
  var bigBox = document.querySelector(".search.big");
  if (compact) {
    status.classList.add("compact");
    header.insertBefore(status, header.querySelector(".script-toggle"));
  } else if (bigBox) {
    // Below the search box, never above it: the box stays the first thing on the page.
    bigBox.parentNode.insertBefore(status, bigBox.nextSibling);
  } else if (main) {
    main.parentNode.insertBefore(status, main);
  }

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

  // The kept copy's meaning vectors, kept after it under its build's name, the vectors of an
  // older build removed; with them the worker ranks a question as the server does. They are
  // not part of the copy, so a first visit on a slow link is not kept waiting for them: one
  // that fails is asked for again at the next visit. `status` says when they are kept.
  function keepMeanings(meta) {
    if (!meta) return Promise.resolve();
    var url = MEANINGS_URL + "?index=" + encodeURIComponent(meta.index);
    return caches.open(DATA_CACHE).then(function (cache) {
      return cache.match(url).then(function (kept) {
        if (kept) return;
        return fetch(url, { cache: "no-store" }).then(function (response) {
          if (!response.ok) throw new Error("meaning vectors: HTTP " + response.status);
          return cache.keys().then(function (requests) {
            return Promise.all(requests.filter(function (request) {
              return new URL(request.url).pathname === MEANINGS_URL;
            }).map(function (request) { return cache.delete(request); }));
          }).then(function () { return cache.put(url, response); });
        });
      });
    }).then(function () { status.setAttribute("data-meanings", "kept"); }, function () {});
  }

  function remove() {
    store(CHOICE, "off");
    return caches.delete(DATA_CACHE).then(function () {
      status.removeAttribute("data-meanings");
      show(null, null);
    });
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
        serverMeta().then(keep).then(function (kept) { show(kept, "kept"); keepMeanings(kept); })
          .catch(function () { keepButton.replaceChildren(label("failed")); keepButton.disabled = false; });
      });
      nodes.push(keepButton);
    }
    if (compact && nodes.length) nodes = [mark(meta, news, online, nodes)];
    else if (nodes.length) store(SHOWN, "1");
    status.replaceChildren.apply(status, nodes);
  }

  // The small mark: offline or not, the kept edition and any news of it (kept, updated),
  // opening to the full status line (whose copy description moves into the mark, so the page
  // has one .offline-copy).
  function mark(meta, news, online, nodes) {
    var summary = [];
    if (!online) summary.push(el("strong", {}, [label("offline")]), " ");
    var copy = nodes.filter(function (n) { return n.classList && n.classList.contains("offline-copy"); })[0];
    if (copy) {
      copy.classList.remove("offline-copy");
      summary.push(el("span", { "class": "visually-hidden" }, [label("copy")]), el("span", { "class": "offline-copy", "data-index": meta.index, "data-edition": meta.edition || "" },
                      ["✓", el("span", { "class": "mark-long" }, [" " + (meta.edition || zh("copy"))])]
                        .concat(news ? [" (", label(news), ")"] : [])));
    } else if (online) {
      summary.push(el("span", { lang: script === "hans" ? "zh-Hans" : "zh-Hant" }, [zh("copy")]));
    }
    return el("details", { "class": "offline-mark" }, [el("summary", {}, summary), el("div", { "class": "offline-full" }, nodes)]);
  }

  function serverMeta() {
    return fetch(META_URL, { cache: "no-store" }).then(function (response) {
      if (!response.ok) throw new Error("offline copy: HTTP " + response.status);
      return response.json();
    });
  }

  // Offline: the worker opens the kept copy now (an empty search), not at the first key typed,
  // which then waits only for its own search.
  function warm() {
    if (navigator.serviceWorker && navigator.serviceWorker.controller) {
      fetch("/api/search?q=", { headers: { Accept: "application/json" } }).catch(function () {});
    }
  }

  // Online: keep the copy up to date (or keep it for the first time when it is small enough
  // and the reader did not remove it). Offline: say so.
  function refresh() {
    keptMeta().then(function (kept) {
      show(kept, null);
      if (kept && !navigator.onLine) warm();
      if (!navigator.onLine || !window.caches) return;
      serverMeta().then(function (current) {
        if (kept && kept.index === current.index) return keepMeanings(kept);
        var choice = stored(CHOICE);
        if (!kept && (choice === "off" || (choice !== "on" && current.gzip_bytes > AUTO_KEEP_BYTES))) return;
        return keep(current).then(function (meta) {
          show(meta, kept ? "updated" : "kept");
          return keepMeanings(meta);
        });
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

  // A title in each language it is given in (webapp/templates/_macros.html `titles`).
  function titles(items) {
    var out = [];
    (items || []).forEach(function (t, n) {
      if (n) out.push(" ");
      out.push(el("span", { lang: LANG_TAGS[t.lang] || "" }, [t.text]));
    });
    return out;
  }

  function crumbs(place) {
    if (!place) return null;
    var nodes = [el("a", { href: place.contents }, [label("book")]), " › ",
      el("a", { href: place.chapter.url }, [place.chapter.number + ". "].concat(titles(place.chapter.title)))];
    if (place.section) {
      nodes.push(" › ", el("a", { href: place.section.url }, [place.section.number + ". "].concat(titles(place.section.title))));
    }
    return el("nav", { "class": "crumbs" }, nodes);
  }

  function neighbours(rule) {
    if (!rule.previous && !rule.next) return null;
    return el("nav", { "class": "neighbours" }, [
      rule.previous ? el("a", { rel: "prev", href: rule.previous.url }, ["← ", el("span", {}, [rule.previous.title])]) : null,
      rule.next ? el("a", { rel: "next", href: rule.next.url }, [el("span", {}, [rule.next.title]), " →"]) : null]);
  }

  function rulesUnder(rule) {
    if (!rule.contents || !rule.contents.length) {
      return section("subrules", "children", rule.children.length ? [el("ol", { "class": "subrules" }, rule.children.map(function (c) {
        return el("li", {}, [el("a", { "class": "num", href: c.url }, [c.number]), texts(c.text)]);
      }))] : []);
    }
    return section(rule.contents[0].depth === 1 ? "rulesUnder" : "subrules", "children", [el("ol", { "class": "subrules" },
      rule.contents.map(function (r) {
        var title = r.title.length ? [" ", el("strong", {}, titles(r.title))] : [];
        return el("li", { "class": "depth-" + r.depth, id: "r-" + r.number }, [el("a", { "class": "num", href: r.url }, [r.number])]
          .concat(title, [texts(r.text)], r.examples.map(function (ex) {
            var block = texts(ex);
            if (block) block.classList.add("example");
            return block;
          })));
      }))]);
  }

  // What an older edition's rule is today (webapp/templates/rule.html).
  function today(t, number) {
    if (!t) return null;
    var nodes = [label("superseded"), " · ", label("today"), " (" + t.edition + "): "];
    // A removed rule says so first, and names no successor: its number's rule today is another one.
    if (t.same_rule) {
      nodes.push(el("a", { href: t.same_rule.url }, [t.same_rule.number]));
      (t.also || []).forEach(function (part) { nodes.push(", ", el("a", { href: part.url }, [part.number])); });
    } else if (t.ended) {
      nodes.push(label("notInToday"), ": ", label("lastIn"), " ",
                 el("a", { href: t.ended.url }, [t.ended.last + " · " + t.ended.last_number]));
    } else {
      nodes.push(label("notInToday"));
    }
    if (t.number_now) {
      nodes.push(" · ", label("numberNow"), " " + number + ": ", el("a", { href: t.number_now.url }, [t.number_now.name]));
    }
    return el("p", { "class": "today" }, nodes);
  }

  function renderRule(rule) {
    document.title = rule.title;
    var article = el("article", { "class": "rule" }, [
      rule.place ? crumbs(rule.place)
        : rule.parent ? el("p", { "class": "crumbs" }, [label("parent"), ": ", link(rule.parent)]) : null,
      el("h1", {}, [rule.title]),
      today(rule.today, rule.number),
      el("p", { "class": "meta" }, [label("edition"), " ", el("span", { "class": "edition" }, [rule.edition])]),
      texts(rule.text),
      neighbours(rule),
      section("examples", "examples", rule.examples.map(texts)),
      rulesUnder(rule),
      section("rulings", "rulings", rule.rulings.length ? [el("ul", {}, rule.rulings.map(function (r) {
        return el("li", {}, [texts(r.text), el("p", { "class": "meta" }, [r.source.title])]);
      }))] : []),
    ]);
    main.replaceChildren(article);
  }

  function bookLinks(here, data) {
    return el("nav", { "class": "book-links" }, [
      here === "book" ? el("a", { "class": "glossary-link", href: data.glossary_url }, [label("glossary")])
        : el("a", { href: data.contents_url }, [label("book")]),
      el("ul", { "class": "edition-links" }, data.editions.map(function (e) {
        return el("li", e.current ? { "aria-current": "true" } : {}, [el("a", { href: e.url }, [e.edition])]);
      }))]);
  }

  // The table of contents (webapp/templates/contents.html).
  function renderContents(data) {
    document.title = zh("book") + " " + TEXTS.book[2] + " " + data.edition;
    var article = el("article", { "class": "book" }, [
      el("h1", {}, [label("book"), " ", el("span", { "class": "edition" }, [data.edition])]),
      bookLinks("book", data),
      el("ol", { "class": "chapter-index" }, data.chapters.map(function (c) {
        return el("li", {}, [el("a", { href: "#" + c.anchor }, [c.number + ". "].concat(titles(c.title)))]);
      }))].concat(data.chapters.map(function (c) {
        return el("section", { "class": "chapter", id: c.anchor }, [
          el("h2", {}, [c.number + ". "].concat(titles(c.title))),
          el("ol", { "class": "sections" }, c.sections.map(function (s) {
            return el("li", {}, [
              el("a", { "class": "section-link", href: s.url }, [el("span", { "class": "num" }, [s.number + "."]), " "].concat(titles(s.title))),
              s.rules.length ? el("details", { "class": "section-rules" }, [
                el("summary", {}, [s.rules.length + " ", label("rulesInSection")]),
                el("ol", { "class": "rule-links" }, s.rules.map(function (r) {
                  return el("li", {}, [el("a", { href: r.url }, [el("span", { "class": "num" }, [r.number])]
                    .concat(r.title.length ? [" "].concat(titles(r.title)) : []))]);
                }))]) : null]);
          }))]);
      })));
    main.replaceChildren(article);
    if (location.hash) {
      var target = document.getElementById(location.hash.slice(1));
      if (target) target.scrollIntoView();
    }
  }

  // The glossary (webapp/templates/glossary.html).
  function renderGlossary(data) {
    document.title = zh("glossary") + " " + TEXTS.glossary[2] + " " + data.edition;
    function list(groups, prefix, key) {
      return el("section", { "class": "by-letter", id: prefix === "en" ? "a-z" : "by-reading" }, [
        el("h2", {}, [label(key)]),
        el("ol", { "class": "letters" }, groups.map(function (g) {
          return el("li", {}, [el("a", { href: "#" + prefix + "-" + g.letter }, [g.letter])]);
        }))].concat(groups.map(function (g) {
          return el("section", { "class": "letter", id: prefix + "-" + g.letter }, [el("h3", {}, [g.letter]),
            el("ul", { "class": "terms" }, g.terms.map(function (t) {
              return el("li", {}, [el("a", { href: t.url }, titles(t.names).concat(t.reading
                ? [" ", el("span", { "class": "reading", lang: "zh-Latn-pinyin" }, [t.reading])] : []))]);
            }))]);
        })));
    }
    main.replaceChildren(el("article", { "class": "book glossary" }, [
      el("h1", {}, [label("glossary"), " ", el("span", { "class": "edition" }, [data.edition])]),
      bookLinks("glossary", data),
      list(data.english, "en", "aToZ"),
      data.chinese.length ? list(data.chinese, "zh", "byReading") : null]));
  }

  function pair(key, value, lang) {
    return value ? el("div", {}, [el("dt", {}, [label(key)]), el("dd", lang ? { lang: lang } : {}, [value])]) : null;
  }

  // A card, plane or term (webapp/templates/record.html).
  function renderRecord(r) {
    document.title = r.title;
    var zhLang = script === "hans" ? "zh-Hans" : "zh-Hant";
    var names = r.names || {};
    main.replaceChildren(el("article", { "class": "record " + r.kind }, [
      el("h1", {}, [r.title]),
      Object.keys(names).length ? el("dl", { "class": "names" }, [].concat(
        names.en ? [el("dt", {}, [label("english")]), el("dd", { lang: "en" }, [names.en])] : [],
        names.zh_hant ? [el("dt", {}, [label("traditional")]), el("dd", { lang: "zh-Hant" }, [names.zh_hant])] : [],
        names.zh_hans ? [el("dt", {}, [label("simplified")]), el("dd", { lang: "zh-Hans" }, [names.zh_hans])] : [])) : null,
      el("dl", { "class": "attrs pairs" }, [
        pair("cost", r.attrs.mana_cost), pair("type", r.attrs.type_line), pair("pt", r.attrs.power_toughness),
        pair("world", r.attrs.world, zhLang), pair("set", r.attrs.set),
        r.edition ? el("div", { "class": "wide" }, [el("dt", {}, [label("edition")]),
                                                    el("dd", {}, [el("span", { "class": "edition" }, [r.edition])])]) : null,
        el("div", { "class": "wide" }, [el("dt", {}, [label("source")]), el("dd", {}, [r.source.title])])]),
      r.abilities.length ? section("abilities", "abilities", r.abilities.map(texts)) : texts(r.text),
      section("rulings", "rulings", r.rulings.length ? [el("ul", {}, r.rulings.map(function (ru) {
        return el("li", {}, [texts(ru)]);
      }))] : []),
      section("examples", "examples", r.examples.map(texts))]));
  }

  // A document whole, each record at its anchor (webapp/templates/source.html).
  function renderSource(doc) {
    document.title = doc.title;
    main.replaceChildren(el("article", { "class": "source" }, [el("h1", {}, [doc.title])].concat(doc.records.map(function (r) {
      return el("section", { "class": "record " + r.kind, id: r.id }, [
        el("h2", {}, [r.kind === "section" ? r.title : el("a", { href: r.url }, [r.title])]),
        r.abilities.length ? el("div", {}, r.abilities.map(texts)) : texts(r.text),
        r.rulings.length ? el("ul", { "class": "rulings" }, r.rulings.map(function (ru) { return el("li", {}, [texts(ru)]); })) : null]);
    }))));
    if (location.hash) {
      var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
  }

  // The shell was stored at /offline: its 繁/简 links take the address shown in it instead.
  function scriptLinks() {
    document.querySelectorAll(".script-toggle a[hreflang]").forEach(function (a) {
      var wanted = a.getAttribute("hreflang") === "zh-Hans" ? "hans" : "hant";
      var args = new URLSearchParams(location.search);
      args.set("script", wanted);
      a.setAttribute("href", location.pathname + "?" + args + location.hash);
      if (wanted === script) a.setAttribute("aria-current", "true"); else a.removeAttribute("aria-current");
    });
    document.querySelectorAll('form input[name="script"]').forEach(function (input) { input.value = script; });
  }

  // A page of the offline copy, drawn by `render`, or the notice that it is not kept.
  function fromCopy(path, render) {
    var args = new URLSearchParams({ script: script });
    if (params.get("edition")) args.set("edition", params.get("edition"));
    fetch(path + "?" + args, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) { if (data) render(data); else notice("notKept"); })
      .catch(function () { notice("notKept"); });
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
    var record = /^\/(cards|planes|terms|sources)\/([^/]+)$/.exec(location.pathname);
    scriptLinks();
    if (rule) {
      fromCopy("/api/rules/" + rule[1], renderRule);
    } else if (record) {
      fromCopy("/api/" + record[1] + "/" + record[2], record[1] === "sources" ? renderSource : renderRecord);
    } else if (location.pathname === "/rules") {
      fromCopy("/api/toc", renderContents);
    } else if (location.pathname === "/glossary") {
      fromCopy("/api/glossary", renderGlossary);
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

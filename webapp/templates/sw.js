// The service worker (webapp/views/offline.py renders it with its precache list).
//
// Workbox does the caching: the shell and its files are precached; pages are fetched from
// the network first (given up after NETWORK_SECONDS on a bad connection) and kept, so a page
// seen before opens as it was; a page never seen opens the shell. With no network,
// /api/search, /api/toc, /api/glossary and the JSON twins of a rule's, card's, plane's, term's
// and document's page are answered from the offline copy the page kept (offline.js) by
// the offline search (static/offline-search/, its parts in order), in the server's shapes and
// error shape. Each part is imported at an address naming the hash of its bytes (and precached there),
// so a new worker never imports the release before from the HTTP cache; Workbox's own files
// are in a folder named for its version.
importScripts({{ (workbox ~ "/workbox-sw.js")|tojson }});
workbox.setConfig({ modulePathPrefix: {{ (workbox ~ "/")|tojson }}, debug: false });
importScripts.apply(self, {{ engine|tojson }});

var DATA_CACHE = "kb-offline";
var DATA_URL = "/api/offline/data";
var META_URL = "/api/offline";
// The words' meaning vectors of a build, which the page keeps after its copy (offline.js).
var MEANINGS_URL = "/api/offline/meanings?index=";
var NETWORK_SECONDS = 4;
// The JSON twins of the pages a record of the copy opens (a rule, card, plane, term, document).
var RECORD_PAGE = /^\/api\/(rules|cards|planes|terms|sources)\/([^/]+)$/;

workbox.core.setCacheNameDetails({ prefix: "kb" });
workbox.core.clientsClaim();
self.skipWaiting();

workbox.precaching.precacheAndRoute({{ precache|tojson }});
workbox.precaching.cleanupOutdatedCaches();

workbox.routing.registerRoute(
  function (options) { return options.request.mode === "navigate"; },
  new workbox.strategies.NetworkFirst({
    cacheName: "kb-pages",
    networkTimeoutSeconds: NETWORK_SECONDS,
    matchOptions: { ignoreVary: true },
    plugins: [
      new workbox.cacheableResponse.CacheableResponsePlugin({ statuses: [200] }),
      new workbox.expiration.ExpirationPlugin({ maxEntries: 300 }),
    ],
  })
);

workbox.routing.registerRoute(
  function (options) { return options.url.pathname.indexOf("/static/") === 0; },
  new workbox.strategies.StaleWhileRevalidate({
    cacheName: "kb-static",
    plugins: [new workbox.expiration.ExpirationPlugin({ maxEntries: 60 })],
  })
);

workbox.routing.registerRoute(
  function (options) {
    var path = options.url.pathname;
    return path === "/api/search" || path === "/api/toc" || path === "/api/glossary" || RECORD_PAGE.test(path);
  },
  function (options) {
    // With no network at all the copy answers at once (a search typed on asks at each key).
    if (!self.navigator.onLine) return answerOffline(options.url, options.request);
    return fetchWithin(options.request, NETWORK_SECONDS).catch(function () { return answerOffline(options.url, options.request); });
  }
);

workbox.routing.setCatchHandler(function (options) {
  // The shell in the script the address names (Traditional unless it says Simplified), its
  // query in that script too (as the server's page gives it after a switch of script).
  if (options.request.mode === "navigate") {
    var args = new URLSearchParams(options.url.search);
    var script = args.get("script") === "hans" ? "hans" : "hant";
    var shell = function () { return workbox.precaching.matchPrecache("/offline?script=" + script); };
    if (!args.get("q") || !args.get("script")) return shell();
    return offlineIndex().then(function (index) {
      var shown = index ? index.converted(args.get("q"), script, []) : args.get("q");
      if (shown === args.get("q")) return shell();
      args.set("q", shown);
      return Response.redirect(options.url.pathname + "?" + args + options.url.hash, 302);
    }).catch(shell);
  }
  return Promise.resolve(Response.error());
});

function fetchWithin(request, seconds) {
  return new Promise(function (resolve, reject) {
    var timer = setTimeout(function () { reject(new Error("timeout")); }, seconds * 1000);
    fetch(request).then(function (response) { clearTimeout(timer); resolve(response); },
                        function (error) { clearTimeout(timer); reject(error); });
  });
}

// The offline copy being opened or opened, kept while the worker lives: requests arriving
// together share one opening, and a newer copy kept by the page (another build) is opened
// in its place. Which copy is kept is read again after CHECK_MS, not at every request: a
// search typed on asks at each key, and reading it took two trips to the cache each time.
// The copy's meaning vectors are opened with it when the page has kept them, or at a later
// check once it has (until then a question is ranked without them).
var opened = null;
var checked = 0;
var CHECK_MS = 2000;

function offlineIndex() {
  if (opened && Date.now() - checked < CHECK_MS) return opened.engine;
  checked = Date.now();
  return caches.open(DATA_CACHE).then(function (cache) {
    return cache.match(META_URL).then(function (metaResponse) {
      if (!metaResponse) {
        opened = null;
        return null;
      }
      return metaResponse.json().then(function (meta) {
        if (!opened || opened.index !== meta.index) {
          var opening = { index: meta.index };
          opening.engine = Promise.all([cache.match(DATA_URL), meanings(cache, opening)]).then(function (found) {
            return found[0] ? found[0].json().then(function (data) {
              var engine = new self.OfflineIndex(data);
              if (found[1]) useMeanings(engine, found[1]);
              return engine;
            }) : null;
          }).then(function (engine) {
            if (!engine && opened === opening) opened = null;
            return engine;
          }, function (error) {
            if (opened === opening) opened = null;
            throw error;
          });
          opened = opening;
        } else if (!opened.meanings) {
          var current = opened;
          Promise.all([current.engine, meanings(cache, current)]).then(function (found) {
            if (found[0] && found[1]) useMeanings(found[0], found[1]);
          }).catch(function () { current.meanings = false; });
        }
        return opened.engine;
      });
    });
  });
}

// The kept meaning vectors of an opening's build, parsed, or null; `opening.meanings` is set
// while they are read or once read, so they are read once.
function meanings(cache, opening) {
  opening.meanings = true;
  return cache.match(MEANINGS_URL + encodeURIComponent(opening.index)).then(function (response) {
    if (!response) {
      opening.meanings = false;
      return null;
    }
    return response.json();
  }).catch(function () {
    opening.meanings = false;
    return null;
  });
}

// The vectors given to the opened copy, and today's rules' vectors made soon after, not at the
// first question typed (a tenth of a second a language on a laptop): RULES_A_SLICE rules at a
// time, so that a search typed meanwhile waits for one slice.
var RULES_A_SLICE = 250;

function useMeanings(engine, data) {
  if (!engine.useMeanings(data)) return;
  (function prepare() {
    if (!engine.prepareMeanings(RULES_A_SLICE)) setTimeout(prepare, 0);
  })();
}

function json(body, status) {
  return new Response(JSON.stringify(body), {
    status: status || 200,
    headers: { "Content-Type": "application/json", "X-Offline-Copy": "1" },
  });
}

function error(status, message) {
  return json({ error: { status: status, message: message } }, status);
}

function answerOffline(url, request) {
  return offlineIndex().then(function (index) {
    if (!index) return error(503, "No network, and no offline copy has been kept on this device.");
    // A search typed on is asked again at each key, the page dropping the one before: one
    // dropped while it waited for the worker is not worked out.
    if (request.signal && request.signal.aborted) return error(499, "The page no longer asks for this.");
    var args = url.searchParams, script = args.get("script") || null;
    try {
      if (url.pathname === "/api/search") {
        var limit = args.has("limit") ? Number(args.get("limit")) : 10;
        return json(index.search(args.get("q") || "", limit, script));
      }
      if (url.pathname === "/api/toc" || url.pathname === "/api/glossary") {
        var edition = args.get("edition");
        if (edition && index.data.edition.indexOf(edition) !== 0) {
          return error(404, "The offline copy holds the rules of " + index.data.edition + " only.");
        }
        return json(url.pathname === "/api/toc" ? index.contents(script) : index.glossary(script));
      }
      var page = RECORD_PAGE.exec(url.pathname), key = decodeURIComponent(page[2]).replace(/\.json$/, "");
      var found = page[1] === "rules" ? index.rule(key, args.get("edition"), script)
        : page[1] === "sources" ? index.sourcePage(key, script)
        : index.recordPage({ cards: "card", planes: "planar_card", terms: "term" }[page[1]], key, script);
      if (found) return json(found);
      var online = (index.data.online_only || []).some(function (source) { return key.indexOf(source + ":") === 0; });
      return online ? error(503, "Online only: the offline copy does not hold " + key.slice(0, 60) + "; it opens when the network is back.")
        : error(404, "The offline copy has no " + page[1].replace(/s$/, "") + " " + key.slice(0, 40) + ".");
    } catch (e) {
      if (e instanceof self.OfflineIndex.QueryError) return error(400, e.message);
      throw e;
    }
  });
}

// The answers: spelling suggestions, results and their snippets, /api/search and a rule's page.
// A part of the offline search: offline-search/index.js says how the parts fit.
(function (OfflineIndex) {
  "use strict";
  var parts = OfflineIndex.parts;
  var QueryError = parts.QueryError, shown = parts.shown, shownLang = parts.shownLang,
      plainText = parts.plainText, heading = parts.heading, trigrams = parts.trigrams, level = parts.level;

  // --- did you mean -----------------------------------------------------------------------

  // difflib.SequenceMatcher(None, a, b).ratio() for short words (no junk heuristics apply).
  function ratio(a, b) {
    var b2j = new Map();
    for (var j = 0; j < b.length; j++) {
      if (!b2j.has(b[j])) b2j.set(b[j], []);
      b2j.get(b[j]).push(j);
    }
    var matched = 0, queue = [[0, a.length, 0, b.length]];
    while (queue.length) {
      var q = queue.pop(), alo = q[0], ahi = q[1], blo = q[2], bhi = q[3];
      var besti = alo, bestj = blo, size = 0, j2len = new Map();
      for (var i = alo; i < ahi; i++) {
        var next = new Map();
        (b2j.get(a[i]) || []).forEach(function (jj) {
          if (jj < blo || jj >= bhi) return;
          var k = (j2len.get(jj - 1) || 0) + 1;
          next.set(jj, k);
          if (k > size) { besti = i - k + 1; bestj = jj - k + 1; size = k; }
        });
        j2len = next;
      }
      if (size) {
        matched += size;
        if (alo < besti && blo < bestj) queue.push([alo, besti, blo, bestj]);
        if (besti + size < ahi && bestj + size < bhi) queue.push([besti + size, ahi, bestj + size, bhi]);
      }
    }
    return a.length + b.length ? 2 * matched / (a.length + b.length) : 1;
  }

  // The known word closest to a lower-case word that no record holds, or null.
  OfflineIndex.prototype.correction = function (word) {
    var self = this;
    if (this.vocabulary.has(word)) return null;
    var tokens = this.tokens("body", word);
    if (tokens.every(function (t) { return self.data.postings.body[t] || self.data.postings.names[t]; })) return null;
    var candidates = new Set();
    trigrams(word).forEach(function (gram) { (self.byTrigram.get(gram) || []).forEach(function (w) { candidates.add(w); }); });
    var best = null, bestScore = 0;
    candidates.forEach(function (known) {
      var score = ratio(known, word);
      if (score >= self.ranking.spelling_cutoff && (score > bestScore || (score === bestScore && known > best))) { best = known; bestScore = score; }
    });
    return best;
  };

  // A corrected query when a Latin word of it is in no record but close to a known one.
  OfflineIndex.prototype.didYouMean = function (parsed) {
    var text = parsed.text, changed = false, self = this;
    var words = new Set(parsed.text.match(new RegExp(this.data.vocabulary_word, "g")) || []);
    words.forEach(function (word) {
      var close = self.correction(word.toLowerCase());
      if (!close) return;
      var fixed = /[A-Z]/.test(word[0]) ? close[0].toUpperCase() + close.slice(1) : close;
      text = text.replace(new RegExp("\\b" + word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "\\b", "g"), fixed);
      changed = true;
    });
    return changed ? text : null;
  };

  function escapeHtml(text) {
    return text.replace(/[&<>"']/g, function (ch) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" }[ch];
    });
  }

  // Where `word` next starts a word of `folded` from `from` on (-1: nowhere): an English
  // word or stem marks words it begins (tap: tapped), not letters inside others (a: attack).
  function wordAt(folded, word, from) {
    var at = folded.indexOf(word, from);
    while (at > 0 && /[a-z0-9]/.test(word[0]) && /[a-z0-9]/.test(folded[at - 1])) at = folded.indexOf(word, at + 1);
    return at;
  }

  // Where a mark of `word` at `at` ends: an English word or stem marks the whole word it
  // begins (a question's "tapped" read as its stem tap marks tapped, as the server's stems do).
  function wordEnd(folded, word, at) {
    var end = at + word.length;
    if (!/[a-z0-9]/.test(word[0])) return end;
    while (end < folded.length && /[a-z0-9]/.test(folded[end])) end++;
    return end;
  }

  // A window of the text around the first query word, escaped, with the query's words
  // (in either script, any case) in <mark>. A Chinese run is marked by the words the
  // analyzer segments it into (a question, 對手回合可以下地嗎, is never written whole in a
  // rule); a one-character word (嗎, 的) marks nothing worth reading.
  OfflineIndex.prototype.snippet = function (r, query, script) {
    var self = this, first = query.terms.length ? query.terms[0][0] : "";
    var preferZh = this.patterns.hasHan.test(first);
    var words = [];
    query.terms.concat(query.phrases.map(function (p) { return [p]; })).forEach(function (term) {
      term[0].split(/\s+/).forEach(function (w) {
        w = self.toHans(w).toLowerCase();
        if (!self.patterns.hasHan.test(w)) { if (w.length > 1) words.push(w); return; }
        self.tokens("text", w).forEach(function (t) { if (Array.from(t).length > 1) words.push(t); });
      });
    });
    var langs = r.langs.slice().sort(function (a, b) {
      var za = (a.indexOf("zh") === 0) !== preferZh, zb = (b.indexOf("zh") === 0) !== preferZh;
      return za - zb || (a < b ? -1 : a > b ? 1 : 0);
    });
    for (var n = 0; n < langs.length; n++) {
      var lang = langs[n];
      var parts = [r.text && shown(r.text, lang, script)];
      ["abilities", "rulings", "examples"].forEach(function (group) {
        (r[group] || []).forEach(function (item) { parts.push(shown(item, lang, script)); });
      });
      var text = parts.filter(Boolean).join("\n");
      var folded = this.toHans(text).toLowerCase();
      var hits = words.map(function (w) { return wordAt(folded, w, 0); }).filter(function (at) { return at >= 0; });
      if (!hits.length) continue;
      var start = Math.max(0, Math.min.apply(null, hits) - 60), end = Math.min(text.length, start + 240);
      var marks = [];
      words.forEach(function (w) {
        for (var at = wordAt(folded, w, start); at >= 0 && at < end; at = wordAt(folded, w, at + w.length)) {
          marks.push([at, Math.min(end, wordEnd(folded, w, at))]);
        }
      });
      marks.sort(function (a, b) { return a[0] - b[0]; });
      var out = start ? "… " : "", pos = start;
      marks.forEach(function (m) {
        if (m[0] < pos) return;
        out += escapeHtml(text.slice(pos, m[0])) + "<mark>" + escapeHtml(text.slice(m[0], m[1])) + "</mark>";
        pos = m[1];
      });
      out += escapeHtml(text.slice(pos, end)) + (end < text.length ? " …" : "");
      return [out, shownLang(lang, script)];
    }
    var plain = plainText(r, script);
    return [escapeHtml(plain.slice(0, 200) + (plain.length > 200 ? "…" : "")), shownLang(langs[0] || "en", script)];
  };

  OfflineIndex.prototype.summary = function (i, script) {
    var r = this.records[i];
    return { id: r.id, kind: r.kind, title: heading(r, script), number: r.number || null, edition: r.edition || null,
             url: r.url, source: { id: r.source, title: this.data.sources[r.source] || r.source } };
  };

  // The index of the subrule a keyword's heading rule is defined by (702.79a of 702.79
  // Persist), as the server's results show it (indexer/knowledge/results.py): the first
  // subrule of a rule whose text is only its title and that has nothing else of its own;
  // else null.
  OfflineIndex.prototype.definitionAt = function (r) {
    if (r.kind !== "rule" || !r.number || r.number.indexOf(".") < 0) return null;
    if ((r.abilities || []).length || (r.rulings || []).length || (r.examples || []).length) return null;
    var titles = Object.keys(r.title || {}).map(function (k) { return r.title[k].trim(); });
    var own = Object.keys(r.text || {}).some(function (k) {
      var text = r.text[k].trim();
      return text && titles.indexOf(text) < 0;
    });
    if (own) return null;
    var self = this, first = (this.byNumber.get(r.number + "a") || []).filter(function (i) {
      var c = self.records[i];
      return c.edition === r.edition && c.source === r.source;
    });
    return first.length ? first[0] : null;
  };

  // That subrule's record, or null.
  OfflineIndex.prototype.definition = function (r) {
    var at = this.definitionAt(r);
    return at === null ? null : this.records[at];
  };

  // Whether a query not read as a question still asks about what it names (Ranker.asks_about):
  // it holds a question form and is not itself a heading, a name or a glossary term.
  OfflineIndex.prototype.asksAbout = function (parsed) {
    var text = parsed.typed || parsed.text;
    if (!text || this.lookedUp(text) || this.lookup(text)) return false;
    return !this.plain(text);
  };

  // A group as it answers a query asking about its rule (Results.answering): a heading rule
  // shown by its definition is that subrule, the heading left out, and another edition shown
  // by its subrules before its heading.
  OfflineIndex.prototype.answering = function (group) {
    var at = this.definitionAt(this.records[group[0]]);
    if (at === null) return group;
    var headings = this.questionVocabulary().headings;
    var rest = group.slice(1).filter(function (i) { return i !== at; });
    return [at].concat(rest.filter(function (i) { return !headings.has(i); }),
                       rest.filter(function (i) { return headings.has(i); }));
  };

  OfflineIndex.prototype.result = function (group, query, script) {
    var r = this.records[group[0]], self = this, definition = this.definition(r);
    var names = Object.assign({}, r.kind === "rule" ? r.title : r.names);
    if (names.zh_hant && !names.zh_hans) names.zh_hans = names.zh_hant;
    if (names.zh_hans && !names.zh_hant) names.zh_hant = names.zh_hans;
    var snip = this.snippet(definition || r, query, script);
    return {
      id: r.id, kind: r.kind, rule: r.number || null, edition: r.edition || null, title: heading(r, script),
      names: names, text: plainText(definition || r, script), today: r.today || null, snippet: snip[0],
      snippet_lang: snip[1],
      definition: definition ? definition.number : null,
      source: { id: r.source, title: this.data.sources[r.source] || r.source }, url: r.url,
      other_editions: group.slice(1).map(function (i) {
        var o = self.records[i];
        return { id: o.id, edition: o.edition || null, rule: o.number || null, source: o.source, url: o.url };
      }),
    };
  };

  // Whether every word of a query starts a word of its first results' titles (Library._typed_start).
  OfflineIndex.prototype.typedStart = function (parsed, ranked) {
    var words = parsed.text.toLowerCase().split(/\s+/).filter(Boolean), self = this, titles = [];
    ranked.slice(0, this.ranking.few_found).forEach(function (pair) {
      titles = titles.concat(heading(self.records[pair[0]], "").toLowerCase().split(/\s+/));
    });
    return words.length > 0 && words.every(function (word) {
      return titles.some(function (title) { return title.indexOf(word) === 0; });
    });
  };

  // The answer of /api/search, computed here. Throws QueryError as the server answers 400.
  OfflineIndex.prototype.search = function (q, limit, script) {
    var started = Date.now();
    limit = limit || 10;
    if (!(limit >= 1 && limit <= this.ranking.max_limit)) throw new QueryError("limit must be between 1 and " + this.ranking.max_limit);
    var parsed = this.contentOf(this.quotations(this.parse(q)));
    var answer = { query: q, total: 0, took_ms: 0, did_you_mean: null, rule_jump: null, results: [],
                   left_out: parsed.left_out,
                   offline: { edition: this.data.edition, index: this.data.index } };
    if (!parsed.text && !parsed.phrases.length && !parsed.rule_number && !parsed.rule_list.length) return answer;
    var query = this.engineQuery(this.searchedOf(parsed));
    var jumps = this.data.stages.jump && (parsed.rule_number || parsed.rule_list.length);
    var ranked = jumps ? this.ruleJump(parsed, answer, script) : [];
    var numbered = ranked.length > 0;  // the rules it names by number are found: its results are theirs
    var named = new Set();
    if (!numbered) {
      var first = this.namedFirst(parsed, this.ranked(parsed, query));
      ranked = first.ranked;
      named = first.named;
      // As the server (Library._correction): a spelling for a query that finds little and
      // is no question nor the start of its results' titles, offered when it finds a record
      // the query did not.
      var suggestion = ranked.length < this.ranking.few_found && !this.asked(parsed) && !this.typedStart(parsed, ranked)
        ? this.didYouMean(parsed) : null;
      if (suggestion) {
        var correctedParsed = this.parse(suggestion);
        var correctedQuery = this.engineQuery(correctedParsed);
        var corrected = this.ranked(correctedParsed, correctedQuery);
        var had = new Set(ranked.map(function (pair) { return pair[0]; }));
        if (corrected.slice(0, this.ranking.few_found).some(function (pair) { return !had.has(pair[0]); })) {
          answer.did_you_mean = suggestion;
          if (!ranked.length) { query = correctedQuery; ranked = corrected; }
        }
      }
    }
    // As the server: an edition-limited search shows each matching record of it.
    var apart = parsed.filters.edition && !numbered, self = this;
    var asked = !apart && !numbered && this.asked(parsed);
    var bySubrule = asked && this.data.stages.subrules;
    var groups = apart ? ranked.map(function (pair) { return [pair[0]]; })
      : this.collapse(ranked, bySubrule ? this.subruleGroup.bind(this) : null);
    if (!numbered && !parsed.filters.edition && !parsed.phrases.length) {
      // Today's rules by default (Library.search): a result an older edition's rule leads
      // online is left out while today's rules match, unless the query names it.
      var old = bySubrule ? "old_question" : "old";
      var recent = groups.filter(function (g) { return !self.records[g[0]][old] || named.has(g[0]); });
      if (recent.length) groups = recent;
    }
    var marking = asked ? this.markingQuery(parsed, query) : query;
    answer.total = groups.length;
    var page = groups.slice(0, limit);
    if (!asked && !numbered) {
      var answering = page.map(this.answering, this);
      if (answering.some(function (g, n) { return g !== page[n]; }) && this.asksAbout(parsed)) page = answering;
    }
    answer.results = page.map(function (group) { return self.result(group, marking, script); });
    answer.took_ms = Date.now() - started;
    return answer;
  };

  // The rule page's data (the server's /api/rules/<number>, without what needs other
  // editions), or null when the offline copy has no such rule.
  OfflineIndex.prototype.rule = function (number, edition, script) {
    var m = this.patterns.rule.exec(number || "");
    if (!m) return null;
    number = m.groups.num.toLowerCase();
    var records = this.ruleRecords(number, edition), self = this;
    if (!records.length) return null;
    var primary = this.records[records[0]];
    edition = primary.edition;
    var merged = {};
    records.forEach(function (i) {
      var r = self.records[i];
      r.langs.forEach(function (lang) {
        if (r.text && r.text[lang] && !merged[lang]) merged[lang] = shown(r.text, lang, script);
      });
    });
    var titles = [];
    this.data.title_langs.forEach(function (lang) {
      records.forEach(function (i) {
        var r = self.records[i];
        if (r.title && r.title[lang] && r.langs.indexOf(lang) >= 0) {
          var t = shown(r.title, lang, script);
          if (titles.indexOf(t) < 0) titles.push(t);
        }
      });
    });
    var children = [];
    (this.children.get(edition + " " + number) || []).forEach(function (i) {
      var c = self.records[i];
      if (!children.length || self.records[children[children.length - 1]].number !== c.number) children.push(i);
    });
    var parent = primary.parent ? this.ruleRecords(primary.parent, edition)[0] : undefined;
    return {
      number: number, edition: edition, title: [number, titles.join(" / ")].join(" ").trim(),
      keyword: primary.keyword || null, url: "/rules/" + number + "?edition=" + edition,
      text: this.data.langs.filter(function (lang) { return merged[lang]; }).map(function (lang) {
        return { lang: shownLang(lang, script), text: merged[lang] };
      }),
      examples: [].concat.apply([], records.map(function (i) {
        var r = self.records[i];
        return (r.examples || []).map(function (ex) { return self.blocks(ex, r.langs, script); });
      })),
      rulings: [].concat.apply([], records.map(function (i) {
        var r = self.records[i];
        return (r.rulings || []).map(function (ru) { return { source: self.summary(i, script).source, text: self.blocks(ru, r.langs, script) }; });
      })),
      sources: records.map(function (i) { return self.summary(i, script).source; }),
      parent: parent === undefined ? null : this.summary(parent, script),
      children: children.map(function (i) {
        var c = self.records[i];
        return Object.assign(self.summary(i, script), { text: self.blocks(c.text || {}, c.langs, script) });
      }),
      place: edition === this.data.edition ? this.place(number, script) : null,
      previous: edition === this.data.edition ? this.steps(number, script)[0] : null,
      next: edition === this.data.edition ? this.steps(number, script)[1] : null,
      contents: level(number) < 2 ? this.rulesUnder(number, edition, script) : [],
      today: this.pageToday(primary, script),
      referenced_by: (this.data.referencing[edition + " " + number] || []).filter(function (i) {
        return self.records[i].number !== number;
      }).slice(0, 50).map(function (i) { return self.summary(i, script); }),
      offline: { edition: this.data.edition, index: this.data.index },
    };
  };
})((typeof self !== "undefined" ? self : this).OfflineIndex);

// Search and rule look-up over the offline copy of the index (webapp/offline_copy.py builds it).
//
// The service worker (sw.js) loads this with importScripts and answers /api/search and
// /api/rules/<number> with it when the network is gone, in the shapes the server answers, so
// the pages' scripts work unchanged. It is the server's query understanding and ranking
// (indexer/search/query.py, indexer/knowledge/library.py and ranking.py,
// indexer/search/whoosh_engine.py) over data the build prepared: the postings carry the
// server's BM25F scores, the constants, the query patterns and the writing systems'
// character ranges come from the build, Chinese is cut by longest match against the index's
// own words, and English words take the stems the build listed. A question is read and
// ranked again as indexer/knowledge/questions.py and ranking.py do, from the question forms
// and players' words the build read from their data files, and with the words' meaning
// vectors once the page has kept them too (`useMeanings`: a file of their own, as big as the
// copy). Records of other rules editions are not in the copy.
(function (root) {
  "use strict";

  // The analyzer's tokens (indexer/search/analysis.py), of the character ranges of
  // indexer/documents/script_ranges.py as the build wrote them into the copy.
  function tokenPattern(han, latin) {
    return new RegExp(
      "(\\{[^{}\\s]{1,15}\\})" +
      "|([+-]?\\d+/[+-]?\\d+)" +
      "|(\\d+(?:\\.\\d+(?:[a-zA-Z](?![a-zA-Z]))?)?)" +
      "|([" + han + "]+)" +
      "|([" + latin + "]+(?:['\\u2019][" + latin + "]+)*)" +
      "|((?:(?![" + latin + han + "])[\\p{L}\\p{M}])+)", "gu");
  }
  var RULE_NUMBER = /^[1-9]\d\d(?:\.\d{1,3}[a-km-np-z]?)?$/;
  var NOT_WORD = /[^\p{L}\p{N}]+/gu;
  var LANGS = ["en", "zh_hant", "zh_hans", "bg"];
  var CACHE_SIZE = 4096;

  function QueryError(message) { this.message = message; }

  function pairs(text) {
    var map = new Map();
    var chars = Array.from(text);
    for (var i = 0; i + 1 < chars.length; i += 2) map.set(chars[i], chars[i + 1]);
    return map;
  }

  // A Map that forgets its oldest entry beyond `size`: every cache here is bounded.
  function remember(map, key, value, size) {
    if (map.size >= size) map.delete(map.keys().next().value);
    map.set(key, value);
    return value;
  }

  function OfflineIndex(data) {
    this.data = data;
    // The tables a query's words are looked up in have no prototype: a word is never taken
    // for one of Object's own properties (constructor, __proto__, valueOf).
    [data.names, data.obsolete, data.titles, data.heads, data.stems, data.referencing, data.sources, data.edition_labels,
     data.glossary.keys, data.query.kind_aliases, data.book.readings, data.book.chapters,
     data.questions.concepts, data.questions.definitions, data.questions.elsewhere, data.questions.cited].concat(
      Object.keys(data.postings).map(function (field) { return data.postings[field]; })).forEach(function (table) {
      if (table) Object.setPrototypeOf(table, null);
    });
    this.toHantMap = pairs(data.to_hant);
    this.toHansMap = pairs(data.to_hans);
    var self = this;
    data.records.forEach(function (r) { self.unpack(r); });
    Object.keys(data.book.chapters).forEach(function (n) { self.unpackTexts(data.book.chapters[n].title); });
    this.records = data.records;
    this.ranking = data.ranking;
    // The Chinese words of the index, which a Chinese query is cut by: its Chinese tokens
    // of the fields the server segments (the recall field's are character pairs).
    var han = new RegExp("^[" + data.script_ranges.han + "]+$", "u"), words = new Set();
    ["names", "title", "body"].forEach(function (field) {
      Object.keys(data.postings[field]).forEach(function (token) { if (han.test(token)) words.add(token); });
    });
    this.words = words;
    this.longestWord = 1;
    words.forEach(function (w) { self.longestWord = Math.max(self.longestWord, Array.from(w).length); });
    this.common = {};
    for (var field in data.common) this.common[field] = new Set(data.common[field]);
    var q = data.query;
    this.patterns = {
      rule: new RegExp(q.rule, "i"), range: new RegExp("^\\s*(?:" + q.range + ")\\s*$", "i"),
      reference: new RegExp(q.range, "gi"), listGap: new RegExp("^(?:" + q.list_gap + ")$", "i"),
      filter: new RegExp(q.filter, "gi"), phrase: new RegExp(q.phrase, "g"), syntax: new RegExp(q.syntax, "g"),
      repairs: q.repairs.map(function (pair) { return [new RegExp(pair[0], "g"), pair[1]]; }),
      obsoleteMark: new RegExp(q.obsolete_mark, "i"),
      token: tokenPattern(data.script_ranges.han, data.script_ranges.latin),
      hanRun: new RegExp("[" + data.script_ranges.han + "]+", "gu"),
      hasHan: new RegExp("[" + data.script_ranges.han + "]", "u"),
    };
    this.byNumber = new Map();
    this.children = new Map();
    this.records.forEach(function (r, i) {
      if (r.kind !== "rule") return;
      if (!self.byNumber.has(r.number)) self.byNumber.set(r.number, []);
      self.byNumber.get(r.number).push(i);
      if (r.parent) {
        [r.edition + " " + r.parent, r.edition + " " + r.parent + " " + r.source].forEach(function (key) {
          if (!self.children.has(key)) self.children.set(key, []);
          self.children.get(key).push(i);
        });
      }
    });
    this.children.forEach(function (list) {
      list.sort(function (a, b) {
        var ra = self.records[a], rb = self.records[b];
        return self.ruleOrder(ra.number, rb.number) || (ra.source < rb.source ? -1 : ra.source > rb.source ? 1 : 0);
      });
    });
    this.titleKeys = Object.keys(data.titles);
    this.vocabulary = new Set(data.vocabulary);
    this.byTrigram = new Map();
    this.vocabulary.forEach(function (word) {
      trigrams(word).forEach(function (gram) {
        if (!self.byTrigram.has(gram)) self.byTrigram.set(gram, []);
        self.byTrigram.get(gram).push(word);
      });
    });
    this.postingsCache = new Map();
    this.foldedCache = new Map();
  }

  OfflineIndex.QueryError = QueryError;

  // Whether a record was read from a rules file (indexer/documents/records.py: from_rules_file).
  OfflineIndex.prototype.fromRulesFile = function (r) {
    return r.source.indexOf(this.data.rules_file_prefix) === 0;
  };

  // Whether a record is one of today's rules (Catalogue.of_todays_rules).
  OfflineIndex.prototype.isTodaysRule = function (r) {
    return r.kind === "rule" && r.edition === this.data.edition && this.fromRulesFile(r);
  };

  // --- the copy's compact form (webapp/offline_copy.py) ------------------------------------

  var BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  var DIGIT = new Map(Array.from(BASE64, function (ch, i) { return [ch, i]; }));

  // The numbers of one VLQ string (offline_copy._vlq), or its first `count` of them.
  function unvlq(text, count) {
    var out = [], value = 0, shift = 0;
    for (var i = 0; i < text.length && out.length !== count; i++) {
      var digit = DIGIT.get(text[i]);
      value += (digit & 31) * Math.pow(2, shift);
      if (digit & 32) { shift += 5; continue; }
      out.push(value % 2 ? -(value - 1) / 2 : value / 2);
      value = 0;
      shift = 0;
    }
    return out;
  }

  // A text converted to a script character by character, then the characters where the
  // converter, which reads words, differs (offline_copy._patch); a string is the text itself.
  OfflineIndex.prototype.converted = function (text, script, patch) {
    if (typeof patch === "string") return patch;
    var map = script === "hans" ? this.toHansMap : this.toHantMap;
    var chars = Array.from(text, function (ch) { return map.get(ch) || ch; });
    patch.forEach(function (p) { chars[p[0]] = p[1]; });
    return chars.join("");
  };

  // Texts per language with the other Chinese script's form made whole.
  OfflineIndex.prototype.unpackTexts = function (texts) {
    if (Array.isArray(texts.zh_hans)) texts.zh_hans = this.converted(texts.zh_hant, "hans", texts.zh_hans);
    if (Array.isArray(texts.zh_hant)) texts.zh_hant = this.converted(texts.zh_hans, "hant", texts.zh_hant);
    return texts;
  };

  // A record as the copy gives it, made whole: its texts in both scripts, its heading in
  // each script, its address (urls.record_url's pattern for its kind).
  OfflineIndex.prototype.unpack = function (r) {
    var self = this;
    ["text", "title", "names"].forEach(function (name) { if (r[name]) self.unpackTexts(r[name]); });
    ["abilities", "rulings", "examples"].forEach(function (name) {
      (r[name] || []).forEach(function (item) { self.unpackTexts(item); });
    });
    ["hans", "hant"].forEach(function (script) {
      if (r.heading[script] !== undefined) r.heading[script] = self.converted(r.heading[""], script, r.heading[script]);
    });
    var pattern = this.data.urls[r.edition ? r.kind : r.kind + "-"];
    r.url = pattern.replace(/\{(id|source|number|edition)\}/g, function (_, name) { return r[name]; });
  };

  // A text of a record's facts in the reader's script (offline_copy._in_scripts).
  OfflineIndex.prototype.inScript = function (forms, script) {
    return forms[script] === undefined ? forms[""] : this.converted(forms[""], script, forms[script]);
  };

  // --- text -------------------------------------------------------------------------------

  OfflineIndex.prototype.toHans = function (text) {
    var map = this.toHansMap;
    return Array.from(text, function (ch) { return map.get(ch) || ch; }).join("");
  };

  OfflineIndex.prototype.foldKey = function (text) {
    return this.toHans(text.normalize("NFKC")).toLowerCase().replace(NOT_WORD, "");
  };

  OfflineIndex.prototype.formKey = function (text) {
    return this.toHans(text.split(/\s+/).filter(Boolean).join(" ")).toLowerCase();
  };

  // A text of `lang` in the reader's script: the build gave each Chinese text in both.
  function shown(texts, lang, script) {
    if (script === "hans" && lang === "zh_hant" && texts.zh_hans) return texts.zh_hans;
    if (script === "hant" && lang === "zh_hans" && texts.zh_hant) return texts.zh_hant;
    return texts[lang];
  }

  function shownLang(lang, script) {
    return (lang === "zh_hant" || lang === "zh_hans") && (script === "hant" || script === "hans") ? "zh_" + script : lang;
  }

  // The record's texts of one language in reading order (indexer.records.Record.texts).
  function textsOf(r, lang) {
    var parts = [r.title && r.title[lang], r.names && r.names[lang], r.text && r.text[lang]];
    ["abilities", "rulings", "examples"].forEach(function (group) {
      (r[group] || []).forEach(function (item) { parts.push(item[lang]); });
    });
    return parts.filter(Boolean);
  }

  OfflineIndex.prototype.folded = function (i) {
    var found = this.foldedCache.get(i);
    if (found !== undefined) return found;
    var r = this.records[i], self = this;
    // A Traditional text is folded from the Simplified form the build gave with it.
    var all = r.langs.map(function (lang) {
      var hans = lang === "zh_hant" ? textsOf(r, "zh_hans") : null;
      var texts = textsOf(r, lang);
      return (hans && hans.length === texts.length ? hans : texts).join(" ");
    }).join(" ");
    return remember(this.foldedCache, i, self.foldKey(all), CACHE_SIZE);
  };

  function plainText(r, script) {
    var blocks = [];
    r.langs.forEach(function (lang) {
      var parts = [r.text && shown(r.text, lang, script)];
      ["abilities", "rulings", "examples"].forEach(function (group) {
        (r[group] || []).forEach(function (item) { parts.push(shown(item, lang, script)); });
      });
      var block = parts.filter(Boolean).join("\n");
      if (block) blocks.push(block);
    });
    return blocks.join("\n\n");
  }

  function heading(r, script) {
    return r.heading[script] || r.heading[""];
  }

  // A range's last rule written in full: 601.2f至h ends at 601.2h (references._range_end).
  function rangeEnd(num, end) {
    end = end.toLowerCase();
    return end.length === 1 ? num.replace(/[a-z]+$/, "") + end : end;
  }

  // --- the analyzer, query mode (indexer/search/analysis.py) ------------------------------

  OfflineIndex.prototype.segment = function (run) {
    var chars = Array.from(run), out = [], i = 0;
    while (i < chars.length) {
      var size = Math.min(this.longestWord, chars.length - i);
      while (size > 1 && !this.words.has(chars.slice(i, i + size).join(""))) size--;
      out.push(chars.slice(i, i + size).join(""));
      i += size;
    }
    return out;
  };

  function bigrams(run) {
    var chars = Array.from(run);
    if (chars.length === 1) return [run];
    var out = [];
    for (var i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
    return out;
  }

  OfflineIndex.prototype.stem = function (word) {
    var stems = this.data.stems;
    if (stems[word]) return stems[word];
    // A possessive stems as its word (Snowball's first step): opponent's, opponent.
    if (/['\u2019]s$/.test(word)) return this.stem(word.slice(0, -2));
    var plain = word.normalize("NFKD").replace(/\p{M}/gu, "");
    return stems[plain] || plain;
  };

  // `cut`: how a Chinese run is cut into words (by default `segment`).
  OfflineIndex.prototype.tokens = function (field, text, cut) {
    var norm = this.toHans(text).replace(/[\uff01-\uff5e]/g, function (ch) {
      return String.fromCharCode(ch.charCodeAt(0) - 0xfee0);
    }).replace(/\u3000/g, " ");
    var out = [], seen = new Set(), self = this, m;
    function add(token) {
      if (!seen.has(token) && out.length < self.ranking.max_query_tokens) { seen.add(token); out.push(token); }
    }
    var token = this.patterns.token;
    token.lastIndex = 0;
    while ((m = token.exec(norm)) !== null) {
      if (m[4]) (field === "grams" ? bigrams(m[4]) : (cut || this.segment).call(this, m[4])).forEach(add);
      else if (m[5]) add(this.stem(m[5].toLowerCase()));
      else add(m[0].toLowerCase());
    }
    return out;
  };

  // --- query understanding (indexer/search/query.py) --------------------------------------

  OfflineIndex.prototype.parse = function (raw) {
    if (raw.length > this.ranking.max_query_chars) {
      throw new QueryError("query too long: " + raw.length + " characters (at most " + this.ranking.max_query_chars + ")");
    }
    var text = raw;
    if (/[\uff01-\uff5e\u3000]/.test(text)) text = text.replace(/\u3000/g, " ").normalize("NFKC");
    text = text.normalize("NFC").replace(/[\0\p{C}]/gu, " ");
    // The sources' conversion mistakes, repaired as the texts were (每位元 -> 每位).
    this.patterns.repairs.forEach(function (pair) { text = text.replace(pair[0], pair[1]); });
    var parsed = { raw: raw, text: "", phrases: [], filters: {}, rule_number: null, rule_end: null, rule_list: [],
                   named_rules: [], left_out: [] };
    var q = this.data.query, p = this.patterns;
    text.replace(p.filter, function (_, name, value) {
      name = name.toLowerCase();
      value = value.trim().toLowerCase();
      if (name === "kind") {
        value = q.kind_aliases[value] || value;
        if (q.kinds.indexOf(value) < 0) throw new QueryError("unknown kind '" + value + "': use one of " + q.kinds.join(", "));
      }
      parsed.filters[name] = value;
    });
    text = text.replace(p.filter, " ");
    text.replace(p.phrase, function (_, phrase) { if (phrase.trim()) parsed.phrases.push(phrase.trim()); });
    text = text.replace(p.phrase, " ");
    // A rule number, or a range (702.30a-c: its first rule, and its last written in full), or
    // rule numbers typed together, or the rules named among other words (what is 702.19b).
    var number = p.rule.exec(text), range = number ? null : p.range.exec(text), found = null;
    if (number) found = [number.groups.num.toLowerCase(), null];
    else if (range && range.groups.end) {
      var first = range.groups.num.toLowerCase();
      found = [first, rangeEnd(first, range.groups.end)];
    }
    var named = this.namedRuleNumbers(text);
    // One rule with marks around it (702.19b?) is that rule's jump.
    if (!found && named.alone && named.rules.length === 1) found = named.rules[0];
    if (found && !parsed.phrases.length) { parsed.rule_number = found[0]; parsed.rule_end = found[1]; }
    else if (named.alone && named.rules.length && !parsed.phrases.length) parsed.rule_list = named.rules;
    else parsed.named_rules = named.rules;
    // At most max_query_words words, whole phrases first, then the free text's first words;
    // the rest left out, and said.
    var words = text.replace(p.syntax, " ").replace(/"/g, " ").split(/\s+/).filter(Boolean);
    var room = this.ranking.max_query_words;
    parsed.phrases = parsed.phrases.filter(function (phrase) {
      var size = phrase.split(/\s+/).filter(Boolean).length;
      if (size <= room) { room -= size; return true; }
      parsed.left_out.push('"' + phrase + '"');
      return false;
    });
    parsed.text = words.slice(0, room).join(" ");
    parsed.left_out = parsed.left_out.concat(words.slice(room));
    return parsed;
  };

  function termsText(parsed) {
    return [parsed.text].concat(parsed.phrases).join(" ").trim();
  }

  // --- the engine (indexer/search/whoosh_engine.py) ---------------------------------------

  // A term's postings, doc -> score: BM25F from its frequencies as the server scores them
  // (indexer/search/whoosh_engine.py, Whoosh's bm25 with its idf).
  OfflineIndex.prototype.postings = function (field, token) {
    var key = field + "\u0000" + token;
    var found = this.postingsCache.get(key);
    if (found) return found;
    var packed = this.data.postings[field][token], map = new Map();
    if (packed) {
      var numbers = unvlq(packed), s = this.data.scoring[field], doc = 0;
      var idf = Math.log(s.documents / (numbers[0] + 1)) + 1;
      for (var i = 1; i < numbers.length; i++) {
        var tf = 1;
        if (numbers[i] < 0) { doc -= numbers[i]; tf = numbers[++i]; } else doc += numbers[i];
        var length = s.lengths[doc];
        map.set(doc, idf * ((tf * (s.k1 + 1)) / (tf + s.k1 * ((1 - s.b) + s.b * length / s.average))));
      }
    }
    return remember(this.postingsCache, key, map, CACHE_SIZE);
  };

  OfflineIndex.prototype.engineSearch = function (query, limit) {
    var boosts = new Map(), self = this, fields = this.data.fields, own = new Set();
    var literal = query.terms.reduce(function (best, term) { return Math.max(best, term[1]); }, 0);
    query.terms.forEach(function (term) {
      Object.keys(fields).forEach(function (field) {
        self.tokens(field, term[0]).forEach(function (tok) {
          if (term[1] === literal) own.add(tok);
          var key = field + "\u0000" + tok, boost = term[1] * fields[field];
          if (!boosts.has(key) || boosts.get(key) < boost) boosts.set(key, boost);
        });
      });
    });
    // As the server's engine: a token common in any field finds nothing while rarer ones
    // remain, but adds to the scores of what they found outside the recall field.
    var tooCommon = new Set(), rare = new Map(), common = new Map();
    boosts.forEach(function (boost, key) {
      var parts = key.split("\u0000");
      if (self.common[parts[0]].has(parts[1])) tooCommon.add(parts[1]);
    });
    // The query's own words, all common, stay terms however rare its expansions' words.
    if (own.size && Array.from(own).every(function (tok) { return tooCommon.has(tok); })) {
      own.forEach(function (tok) { tooCommon.delete(tok); });
    }
    boosts.forEach(function (boost, key) {
      (tooCommon.has(key.split("\u0000")[1]) ? common : rare).set(key, boost);
    });
    var terms = rare.size ? rare : boosts;
    if (!rare.size) common = new Map();
    var must = [];
    query.phrases.forEach(function (phrase) {
      var tokens = self.tokens("body", phrase);
      if (!tokens.length) return;
      var kept = tokens.filter(function (tok) { return !self.common.body.has(tok); });
      if (!kept.length) {
        kept = [tokens.reduce(function (a, b) { return self.postings("body", b).size < self.postings("body", a).size ? b : a; })];
      }
      kept.forEach(function (tok) { must.push(tok); });
    });
    if (!terms.size && !must.length) return [];
    var scores = new Map();
    terms.forEach(function (boost, key) {
      var parts = key.split("\u0000");
      self.postings(parts[0], parts[1]).forEach(function (score, doc) {
        scores.set(doc, (scores.get(doc) || 0) + score * boost);
      });
    });
    var outsideRecall = new Set(), recall = this.data.recall_field;
    if (common.size) {
      terms.forEach(function (boost, key) {
        var parts = key.split("\u0000");
        if (parts[0] !== recall) self.postings(parts[0], parts[1]).forEach(function (score, doc) { outsideRecall.add(doc); });
      });
    }
    common.forEach(function (boost, key) {
      var parts = key.split("\u0000");
      self.postings(parts[0], parts[1]).forEach(function (score, doc) {
        if (outsideRecall.has(doc)) scores.set(doc, scores.get(doc) + score * boost);
      });
    });
    if (must.length) {
      var required = must.map(function (tok) { return self.postings("body", tok); });
      var out = new Map();
      required[0].forEach(function (_, doc) {
        if (terms.size && !scores.has(doc)) return;
        if (!required.every(function (part) { return part.has(doc); })) return;
        var total = 0;
        required.forEach(function (part) { total += part.get(doc); });
        out.set(doc, total + (terms.size ? scores.get(doc) : 0));
      });
      scores = out;
    }
    Object.keys(query.filters).forEach(function (name) {
      var value = query.filters[name];
      scores.forEach(function (_, doc) {
        var r = self.records[doc];
        var ok = name === "lang" ? r.langs.indexOf(value) >= 0 : (r[name] || "") === value;
        if (!ok) scores.delete(doc);
      });
    });
    return Array.from(scores).sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; }).slice(0, limit);
  };

  // --- the library (indexer/knowledge/library.py, ranking.py) -----------------------------

  OfflineIndex.prototype.lookup = function (form) {
    var found = this.data.glossary.keys[this.formKey(form)];
    return found ? Object.assign({ forms: this.data.glossary.entries[found.entry].forms,
                                   english: this.data.glossary.entries[found.entry].english }, found) : null;
  };

  // Other forms of every glossary term the query holds (QueryExpander._expand): its word
  // spans longest first, a word inside a term found whole adding nothing of its own, then its
  // Chinese runs.
  OfflineIndex.prototype.expand = function (text) {
    var found = new Map(), words = text.split(/\s+/).filter(Boolean), spans = [], self = this;
    for (var i = 0; i < words.length; i++) {
      for (var j = i + 1; j <= Math.min(words.length, i + 4); j++) spans.push([i, j]);
    }
    spans.sort(function (a, b) { return (a[0] - a[1]) - (b[0] - b[1]) || a[0] - b[0]; });
    var covered = new Set(), terms = new Map();
    spans.forEach(function (span) {
      var inside = true;
      for (var k = span[0]; k < span[1]; k++) if (!covered.has(k)) inside = false;
      if (inside) return;
      var written = words.slice(span[0], span[1]).join(" "), entry = self.lookup(written);
      if (!entry) return;
      for (k = span[0]; k < span[1]; k++) covered.add(k);
      if (!terms.has(written)) terms.set(written, entry);
    });
    (text.match(this.patterns.hanRun) || []).forEach(function (span) {
      var entry = self.lookup(span);
      if (entry && !terms.has(span)) terms.set(span, entry);
    });
    terms.forEach(function (entry, span) {
      var weight = entry.primary ? self.ranking.expansion : self.ranking.expansion / 2;
      var key = self.formKey(span);
      entry.forms.forEach(function (form) {
        if (self.formKey(form) === key) return;
        if (!found.has(form) || found.get(form) < weight) found.set(form, weight);
      });
    });
    return Array.from(found).slice(0, this.ranking.max_expansions);
  };

  // The other forms of the glossary term the whole query names by its own name in several
  // words (QueryExpander.term_forms): mana burn -> 法術力灼傷.
  OfflineIndex.prototype.termForms = function (text) {
    if (text.split(/\s+/).filter(Boolean).length < 2) return [];
    var entry = this.lookup(text), key = this.formKey(text), self = this;
    if (!entry || !entry.primary) return [];
    return entry.forms.filter(function (form) { return self.formKey(form) !== key; });
  };

  // The texts holding a term's other forms, from their own search, the best of them level with
  // the best candidate (Candidates._add_term_texts). `scores` (doc -> score) changed in place.
  OfflineIndex.prototype.addTermTexts = function (forms, filters, limit, scores) {
    var kinds = this.ranking.kinds, self = this, top = 0, best = 0;
    scores.forEach(function (s) { top = Math.max(top, s); });
    if (!scores.size) top = 1;
    var found = this.engineSearch({ terms: forms.map(function (f) { return [f, 1.0]; }), phrases: [], filters: filters },
                                  limit).map(function (hit) { return [hit[0], hit[1] * kinds[self.records[hit[0]].kind]]; });
    found.forEach(function (hit) { best = Math.max(best, hit[1]); });
    best = best || 1;
    found.forEach(function (hit) { scores.set(hit[0], Math.max(scores.get(hit[0]) || 0, top * hit[1] / best)); });
  };

  // An English question's words that name its subject, for the engine (expansion.question_subject).
  OfflineIndex.prototype.questionSubject = function (text) {
    var v = this.questionVocabulary(), words = text.split(/\s+/).filter(Boolean);
    var subject = words.filter(function (w) { return !v.questionWords.has(w.toLowerCase()); });
    return words.length >= 3 && subject.length && /^[\x00-\x7f]*$/.test(text) ? subject.join(" ") : text;
  };

  OfflineIndex.prototype.engineQuery = function (parsed) {
    var text = termsText(parsed), self = this;
    var terms = text ? [[this.questionSubject(text), 1.0]] : [];
    var literal = this.foldKey(text);
    this.expand(text).forEach(function (pair) {
      if (self.foldKey(pair[0]) !== literal) terms.push(pair);
    });
    return { terms: terms, phrases: parsed.phrases, filters: parsed.filters };
  };

  OfflineIndex.prototype.passes = function (r, filters) {
    for (var name in filters) {
      if (name === "lang") { if (r.langs.indexOf(filters[name]) < 0) return false; }
      else if (String(r[name] || "").toLowerCase() !== filters[name]) return false;
    }
    return true;
  };

  OfflineIndex.prototype.ruleOrder = function (a, b) {
    function key(n) {
      var m = /^(\d+)(?:\.(\d+)([a-z]?))?$/.exec(n || "");
      return m ? [parseInt(m[1], 10), m[2] ? parseInt(m[2], 10) : -1, m[3] || ""] : [1e6, n || ""];
    }
    var ka = key(a), kb = key(b);
    for (var i = 0; i < 3; i++) {
      if (ka[i] < kb[i]) return -1;
      if (ka[i] > kb[i]) return 1;
    }
    return 0;
  };

  OfflineIndex.prototype.ranked = function (parsed, query) {
    var R = this.ranking, S = this.data.stages, self = this, scores = new Map();
    // An edition-limited search ranks all that edition's matches (the server's Ranker.ranked).
    var limit = parsed.filters.edition ? this.records.length : R.candidates;
    if (S.candidates) this.engineSearch(query, limit).forEach(function (hit) {
      scores.set(hit[0], hit[1] * R.kinds[self.records[hit[0]].kind]);
    });
    var forms = S.candidates && S.term_texts ? this.termForms(termsText(parsed)) : [];
    if (forms.length) this.addTermTexts(forms, query.filters, limit, scores);
    var top = 0;
    scores.forEach(function (s) { top = Math.max(top, s); });
    if (!top) top = 1;
    scores.forEach(function (s, doc) { scores.set(doc, s / top); });
    var text = termsText(parsed), key = this.foldKey(text);
    // A glossary heading typed as written, with its quotation marks (Ranker.ranked).
    var whole = parsed.phrases.length && !Object.keys(parsed.filters).length ? this.foldKey(parsed.raw) : "";
    var named = Object.prototype.hasOwnProperty.call(this.data.questions.definitions, whole);
    if (named) key = whole;
    var size = Array.from(key).length;
    if (key && (named || !parsed.phrases.length)) {
      var bonuses = new Map();
      var bump = function (doc, value) { bonuses.set(doc, Math.max(bonuses.get(doc) || 0, value)); };
      if (S.name) {
        (this.data.names[key] || []).forEach(function (doc) { if (self.records[doc].kind !== "term") bump(doc, R.name); });
      }
      if (S.obsolete) {
        (this.data.obsolete[this.foldKey(text.replace(this.patterns.obsoleteMark, ""))] || []).forEach(function (doc) {
          bump(doc, R.obsolete);
        });
      }
      var entry = this.lookup(text);
      if (entry && S.keyword) entry.rules.forEach(function (pair) { bump(pair[0], R.keyword * pair[1]); });
      var keywords = new Set();
      if (entry) keywords.add(entry.english.toLowerCase());
      if (this.data.heads[text.toLowerCase()]) keywords.add(text.toLowerCase());
      var heads = [];
      keywords.forEach(function (k) { heads = heads.concat(self.data.heads[k] || []); });
      if (S.keyword) {
        heads.forEach(function (doc) { bump(doc, R.keyword); });
        (this.data.titles[key] || []).forEach(function (doc) { bump(doc, R.keyword); });
      }
      if (size >= 2 && S.title) {
        this.titleKeys.forEach(function (titleKey) {
          if (titleKey !== key && titleKey.indexOf(key) >= 0) {
            var share = R.title * size / Array.from(titleKey).length;
            self.data.titles[titleKey].forEach(function (doc) { bump(doc, share); });
          }
        });
      }
      if (size >= 2 && S.literal) {
        scores.forEach(function (_, doc) {
          if (self.folded(doc).indexOf(key) >= 0) {
            bonuses.set(doc, (bonuses.get(doc) || 0) + R.literal * R.kinds[self.records[doc].kind]);
          }
        });
      }
      this.questionBonuses(text, scores, bonuses);
      // A query that is a term of today's glossary, alone or with question forms cut, asks
      // what the term is: the rules its entry cites, a heading's subrules that use the term
      // in its place (Bonuses.added, ConceptTables.definitions).
      var definition = this.data.questions.weights.definition;
      if (S.definition) {
        (this.data.questions.definitions[key] || []).forEach(function (doc) {
          bonuses.set(doc, Math.max(bonuses.get(doc) || 0, definition));
        });
      }
      bonuses.forEach(function (bonus, doc) {
        if (self.passes(self.records[doc], parsed.filters)) scores.set(doc, (scores.get(doc) || 0) + bonus);
      });
      if (S.keyword_subrules) heads.forEach(function (doc) {
        if (!scores.has(doc)) return;
        var head = self.records[doc];
        (self.children.get(head.edition + " " + head.number + " " + head.source) || []).forEach(function (child, i) {
          if (self.passes(self.records[child], parsed.filters)) scores.set(child, scores.get(doc) - 0.001 * (i + 1));
        });
      });
    }
    var ranked = Array.from(scores);
    if (parsed.phrases.length && S.phrases) {
      var needles = parsed.phrases.map(function (p) { return self.foldKey(p); });
      ranked = ranked.filter(function (pair) {
        return needles.every(function (n) { return self.folded(pair[0]).indexOf(n) >= 0; });
      });
    }
    // The records after the searched ones open by number only, as older editions' rules do
    // online (a bare word searches today's rules).
    var searched = this.data.searched;
    ranked = ranked.filter(function (pair) { return pair[0] < searched; });
    var kept = new Map(ranked);
    this.rerank(parsed, query, kept);
    ranked = Array.from(kept);
    ranked.sort(function (a, b) { return b[1] - a[1] || self.records[a[0]].order - self.records[b[0]].order; });
    return ranked;
  };

  // Records of a rule number in one edition (the newest holding it when not given): the
  // rules file's first, then the documents that quote it.
  OfflineIndex.prototype.ruleRecords = function (number, edition) {
    var found = (this.byNumber.get(number) || []), self = this;
    if (!found.length) return [];
    edition = (this.data.edition_labels || {})[edition] || edition;
    if (!edition) {
      edition = found.map(function (i) { return self.records[i].edition || ""; }).sort().reverse()[0];
    }
    return found.filter(function (i) { return self.records[i].edition === edition; }).sort(function (a, b) {
      var ra = self.records[a], rb = self.records[b];
      var ca = self.fromRulesFile(ra) ? 0 : 1, cb = self.fromRulesFile(rb) ? 0 : 1;
      return ca - cb || (ra.source < rb.source ? -1 : ra.source > rb.source ? 1 : 0);
    });
  };

  // The rules a query names (`rules`), each [first, range's last or null], in the order typed
  // and each once, and whether it names nothing else (`alone`: only separators between and
  // around them) (references.named_rule_numbers).
  OfflineIndex.prototype.namedRuleNumbers = function (text) {
    var p = this.patterns, rules = [], keys = new Set(), alone = true, at = 0, m;
    p.reference.lastIndex = 0;
    while ((m = p.reference.exec(text)) !== null) {
      var num = m.groups.num.toLowerCase();
      if (num.indexOf(".") < 0 && !m.groups.prefix) continue;  // a bare 702 is no reference
      alone = alone && p.listGap.test(text.slice(at, m.index));
      var end = m.groups.end ? rangeEnd(num, m.groups.end) : null;
      if (!keys.has(num + " " + end)) rules.push([num, end]);
      keys.add(num + " " + end);
      at = m.index + m[0].length;
    }
    return { rules: rules, alone: alone && p.listGap.test(text.slice(at)) };
  };

  // The rules a query names by number (RuleJumps.rule_jump): each rule and range in turn,
  // then their subrules, then what quotes them; one rule's number also sets the answer's jump.
  OfflineIndex.prototype.ruleJump = function (parsed, answer, script) {
    var self = this, named = this.rulesNamed(parsed.rule_number ? [[parsed.rule_number, parsed.rule_end]] : parsed.rule_list,
                                             parsed.filters);
    var heads = named.heads, ranked = named.ranked;
    if (!heads.length) return [];
    if (parsed.rule_number) {
      var head = heads[0][1];
      answer.rule_jump = { number: parsed.rule_number, edition: head.edition, id: head.id, title: heading(head, script),
                           url: head.url };
      if (head.today) answer.rule_jump.today = head.today;  // an older edition's number, as the server says
      if (parsed.rule_end) answer.rule_jump.end = parsed.rule_end;
    }
    heads.forEach(function (found) {
      (self.children.get(found[1].edition + " " + found[0]) || []).forEach(function (i) {
        if (self.passes(self.records[i], parsed.filters)) ranked.push([i, 5.0]);
      });
    });
    heads.forEach(function (found) {
      (self.data.referencing[found[1].edition + " " + found[0]] || []).forEach(function (i) {
        if (self.passes(self.records[i], parsed.filters)) ranked.push([i, 1.0]);
      });
    });
    var seen = new Set();
    return ranked.filter(function (pair) { return !seen.has(pair[0]) && seen.add(pair[0]); });
  };

  // Each named rule's records under the filters, then the rest of its range: the numbers
  // found with their first record (`heads`), and the records in turn (`ranked`) (ranking's
  // RuleJumps._rules_named).
  OfflineIndex.prototype.rulesNamed = function (named, filters) {
    var self = this, heads = [], ranked = [];
    named.forEach(function (pair) {
      var records = self.ruleRecords(pair[0], filters.edition).filter(function (i) {
        return self.passes(self.records[i], filters);
      });
      if (!records.length) return;
      var head = self.records[records[0]];
      heads.push([pair[0], head]);
      records.forEach(function (i) { ranked.push([i, 10.0]); });
      var last = pair[1] ? self.ruleRecords(pair[1], head.edition)[0] : undefined;
      if (last !== undefined) {  // the rest of the range, in rule order
        (self.children.get(head.edition + " " + head.parent) || []).forEach(function (i) {
          var r = self.records[i];
          if (r.order > head.order && r.order <= self.records[last].order && self.passes(r, filters)) ranked.push([i, 10.0]);
        });
      }
    });
    return { heads: heads, ranked: ranked };
  };

  // The rules a query names among its words before what its words find (RuleJumps.named_first).
  OfflineIndex.prototype.namedFirst = function (parsed, ranked) {
    if (!this.data.stages.named_rules) return ranked;
    var first = this.rulesNamed(parsed.named_rules, parsed.filters).ranked, seen = new Set();
    if (!first.length) return ranked;
    return first.concat(ranked).filter(function (pair) { return !seen.has(pair[0]) && seen.add(pair[0]); });
  };

  // Ranked records as results, each led by its newest record (grouping.EditionGrouping.collapse);
  // `groupOf` gives a record's group (by default its rule's: a question's is its subrule's).
  OfflineIndex.prototype.collapse = function (ranked, groupOf) {
    var groups = new Map(), self = this;
    ranked.forEach(function (pair) {
      var key = groupOf ? groupOf(pair[0]) : self.records[pair[0]].group;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(pair[0]);
    });
    return Array.from(groups.values()).map(function (members) {
      if (members.length < 2) return members;
      var best = members[0];
      members.forEach(function (i) {
        var r = self.records[i], b = self.records[best];
        var ka = [r.edition || "", self.fromRulesFile(r)], kb = [b.edition || "", self.fromRulesFile(b)];
        if (ka[0] > kb[0] || (ka[0] === kb[0] && ka[1] && !kb[1])) best = i;
      });
      return [best].concat(members.filter(function (i) { return i !== best; }));
    });
  };

  // --- questions (indexer/knowledge/questions.py, ranking.py's _rerank) -------------------
  //
  // A query is read as a question as the server reads it (`QuestionReader.asks`): its
  // question forms and players' words (data/question_forms.tsv, data/thesaurus.tsv, as the
  // build read them) and its other words as concepts, each weighing what its rarest form
  // says; a question's best candidates are ranked again by the share of it each holds, and
  // each of today's subrules is its own result. The constants and weights are the server's,
  // from the build; the words' meaning vectors (`meanings`) are read once the page keeps them.

  // The vocabulary of question forms and players' words (questions.Vocabulary), made once.
  OfflineIndex.prototype.questionVocabulary = function () {
    if (this.questionWords) return this.questionWords;
    var Q = this.data.questions, han = new RegExp("^[" + this.data.script_ranges.han + "]+$", "u");
    var keys = Object.keys(Q.forms).concat(Object.keys(Q.means));
    var hanKeys = new Set(keys.filter(function (k) { return han.test(k); })), longest = 0;
    hanKeys.forEach(function (k) { longest = Math.max(longest, k.length); });
    this.questionWords = {
      asks: new Map(Object.entries(Q.forms)), means: new Map(Object.entries(Q.means)),
      latin: new RegExp(Q.latin, "g"), han: hanKeys, longestHan: longest, hanWord: han,
      questionWords: new Set(Q.question_words), queryWord: new RegExp(Q.query_word, "g"),
      headings: new Set(Q.headings), lookedUp: new Set(Q.looked_up), readings: new Map(),
      lists: new Set(Q.lists), listedForms: null,
    };
    return this.questionWords;
  };

  // The form words are looked up in: NFKC, Simplified, lower case (questions._normal).
  OfflineIndex.prototype.normal = function (text) {
    return this.toHans(text.normalize("NFKC")).toLowerCase();
  };

  // The question forms and players' words in a normal text, longest first and not
  // overlapping, as [start, end, key] (Vocabulary.spans).
  OfflineIndex.prototype.spans = function (text) {
    var v = this.questionVocabulary(), found = [], m;
    v.latin.lastIndex = 0;
    while ((m = v.latin.exec(text)) !== null) {
      if (!m[0].length) { v.latin.lastIndex++; continue; }
      found.push([m.index, m.index + m[0].length, m[0]]);
    }
    var run = this.patterns.hanRun;
    run.lastIndex = 0;
    while ((m = run.exec(text)) !== null) {
      var at = m.index, end = m.index + m[0].length;
      while (at < end) {
        var size = Math.min(v.longestHan, end - at);
        // A one-character form (吗, 能) only as a word of its own: the words meet it.
        for (; size > 1; size--) {
          var key = text.slice(at, at + size);
          if (v.han.has(key)) { found.push([at, at + size, key]); break; }
        }
        at += size > 1 ? size : 1;
      }
    }
    return found.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
  };

  // How many records of the whole index hold a token (its postings' first number; a token
  // of older editions' only, as the build counted it).
  OfflineIndex.prototype.frequency = function (field, token) {
    var packed = this.data.postings[field][token];
    if (!packed) return field === "body" ? this.data.questions.elsewhere[token] || 0 : 0;
    return unvlq(packed, 1)[0];
  };

  // A Chinese run cut as the server's segmenter cuts a question: the index's words by longest
  // match, and the characters between them that are no word of the index nor a question form
  // (没付, 后进先出) kept together as one word, as jieba keeps a word its dictionary has or its
  // model makes, where a cut by the index's words alone makes each a word of its own.
  OfflineIndex.prototype.questionCut = function (run) {
    var v = this.questionVocabulary(), out = [], alone = "";
    this.segment(run).forEach(function (word) {
      if (word.length === 1 && !v.asks.has(word) && !v.means.has(word)) { alone += word; return; }
      if (alone) out.push(alone);
      alone = "";
      out.push(word);
    });
    if (alone) out.push(alone);
    return out;
  };

  // A text's query tokens with how many records hold each (WhooshBackend.word_frequencies):
  // a Chinese word no record holds whole, by its rarest character pair.
  OfflineIndex.prototype.frequencies = function (text) {
    var self = this, recall = this.data.recall_field, han = this.questionVocabulary().hanWord;
    return this.tokens("body", text, this.questionCut).map(function (token) {
      var count = self.frequency("body", token);
      if (!count && han.test(token)) {
        var grams = self.tokens(recall, token).map(function (g) { return self.frequency(recall, g); });
        count = grams.length ? Math.min.apply(null, grams) : 0;
      }
      return [token, count];
    });
  };

  // An English stem as the start of the words it stems from (questions._as_written).
  function asWritten(stem) {
    return stem.length > 3 && /i$/.test(stem) && /^[\x00-\x7f]*$/.test(stem) ? stem.slice(0, -1) : stem;
  }

  // A written form as the pieces a text must hold, and how many records hold its rarest
  // piece (QuestionReader._pieces).
  OfflineIndex.prototype.pieces = function (text) {
    var self = this, v = this.questionVocabulary(), pieces = [], counts = [];
    this.frequencies(text).forEach(function (pair) {
      if (v.hanWord.test(pair[0]) || pair[0].length >= self.data.questions.min_latin_needle) {
        pieces.push(self.foldKey(asWritten(pair[0])));
        counts.push(pair[1]);
      }
    });
    // A Chinese form is looked for as written, whatever the cut made of it.
    if (this.patterns.hasHan.test(text) && !/[a-z0-9]/.test(text.toLowerCase())) pieces = [this.foldKey(text)];
    return [pieces.filter(Boolean), counts.length ? Math.min.apply(null, counts) : 0];
  };

  // Today's rules with Chinese text, their Simplified texts folded (as `folded` folds them;
  // the text is Simplified already, so no conversion) one after another, a line break
  // between two (folding leaves none in a text, so no form is found across two rules), and
  // where each starts: what TodaysHolders counts, made at the first Chinese question. One
  // string searched with indexOf, not postings per character: building those cost a phone
  // a third of a second.
  OfflineIndex.prototype.todaysHolders = function () {
    if (this.holders) return this.holders;
    var self = this, han = this.patterns.hasHan, texts = [], starts = [], at = 0;
    this.records.forEach(function (r) {
      if (!self.isTodaysRule(r)) return;
      if (!(r.text && r.text.zh_hans && han.test(r.text.zh_hans))) return;
      var folded = textsOf(r, "zh_hans").join(" ").normalize("NFKC").toLowerCase().replace(NOT_WORD, "");
      starts.push(at);
      texts.push(folded);
      at += folded.length + 1;
    });
    this.holders = { text: texts.join("\n"), starts: starts, total: starts.length, counts: new Map() };
    return this.holders;
  };

  // How many of today's rules hold a Chinese form (folded) as written (TodaysHolders.count):
  // each match counts its rule once, and the search goes on from the next rule's start.
  OfflineIndex.prototype.holderCount = function (form) {
    var h = this.todaysHolders(), known = h.counts.get(form);
    if (known !== undefined) return known;
    var count = 0, from = 0, found;
    while (form && (found = h.text.indexOf(form, from)) >= 0) {
      var lo = 0, hi = h.starts.length - 1;
      while (lo < hi) {
        var mid = (lo + hi + 1) >> 1;
        if (h.starts[mid] <= found) lo = mid; else hi = mid - 1;
      }
      count += 1;
      from = lo + 1 < h.starts.length ? h.starts[lo + 1] : h.text.length;
    }
    return remember(h.counts, form, count, CACHE_SIZE);
  };

  // The share of records a form as `pieces` is held by, which weighs it (QuestionReader._concept):
  // `count` of the whole index's records hold its rarest piece; for a Chinese question
  // (`chinese`) a Chinese form's share is of today's rules holding it as written.
  OfflineIndex.prototype.heldShare = function (pieces, count, chinese) {
    var Q = this.data.questions, han = this.questionVocabulary().hanWord, self = this;
    if (chinese && this.data.stages.todays_holders && pieces.every(function (p) { return han.test(p); })) {
      var least = Math.min.apply(null, pieces.map(function (p) { return self.holderCount(p); }));
      return Math.max(least, 1) / Math.max(this.todaysHolders().total, 1);
    }
    return count / Math.max(Q.documents, 1);
  };

  // One thing a question names: its forms' pieces and its weight, by its commonest form's
  // share (QuestionReader._concept).
  OfflineIndex.prototype.concept = function (forms, share, chinese) {
    var self = this, alternatives = [], commonest = 0;
    Array.from(new Set(forms)).forEach(function (form) {
      var found = self.pieces(form);
      if (!(found[0].length && found[1])) return;
      alternatives.push(found[0]);
      commonest = Math.max(commonest, self.heldShare(found[0], found[1], chinese));
    });
    if (!alternatives.length) return null;
    return { forms: alternatives, weight: (share === undefined ? 1 : share) * Math.log(1 + 1 / commonest) };
  };

  // A word of the question as the index analysed it, not analysed again
  // (QuestionReader._word).
  OfflineIndex.prototype.wordConcept = function (token, count, chinese) {
    var Q = this.data.questions;
    if (!count || !(this.questionVocabulary().hanWord.test(token) || token.length >= Q.min_latin_needle)) return null;
    var pieces = [this.foldKey(asWritten(token))];
    return { forms: [pieces], weight: Math.log(1 + 1 / this.heldShare(pieces, count, chinese)) };
  };

  // The concepts of a question, in the order it names them (QuestionReader._read).
  OfflineIndex.prototype.read = function (text) {
    var v = this.questionVocabulary(), found = v.readings.get(text);
    if (found) return found;
    var W = this.data.questions.weights, self = this, normal = this.normal(text);
    var forms = W.question_forms > 0, thesaurus = this.data.stages.thesaurus, chinese = this.patterns.hasHan.test(normal);
    var concepts = [], rest = [], at = 0;
    var reading = function (key) {
      if (thesaurus && v.means.has(key)) return self.concept([key].concat(v.means.get(key)), 1, chinese);
      if (forms && v.asks.has(key)) {
        return v.asks.get(key).length ? self.concept(v.asks.get(key), W.question_forms, chinese) : null;
      }
      return undefined;
    };
    this.spans(normal).forEach(function (span) {
      var concept = reading(span[2]);
      if (concept === undefined) return;
      concepts.push(concept);
      rest.push(normal.slice(at, span[0]));
      at = span[1];
    });
    rest.push(normal.slice(at));
    this.frequencies(rest.join(" ")).forEach(function (pair) {
      var concept = reading(pair[0]);
      concepts.push(concept === undefined ? self.wordConcept(pair[0], pair[1], chinese) : concept);
    });
    return remember(v.readings, text, concepts.filter(Boolean), CACHE_SIZE);
  };

  // Whether a query holds no question form: a judge's few words of the game's terms
  // (QuestionReader._plain).
  OfflineIndex.prototype.plain = function (text) {
    var v = this.questionVocabulary(), normal = this.normal(text), rest = [], at = 0;
    var spans = this.spans(normal);
    for (var n = 0; n < spans.length; n++) {
      var key = spans[n][2];
      if (v.means.has(key)) { rest.push(normal.slice(at, spans[n][0])); at = spans[n][1]; }
      else if (v.asks.has(key)) return false;
    }
    rest.push(normal.slice(at));
    return !this.frequencies(rest.join(" ")).some(function (pair) {
      return v.asks.has(pair[0]) && !v.means.has(pair[0]);
    });
  };

  // The bonuses for a question's words (Bonuses._bonuses): today's glossary terms of two
  // words or more it names lead to the rules they cite, by the share of its subject words the
  // term takes; and each candidate holding its subject words gets the share it holds, squared.
  // `bonuses` (doc -> bonus) gets them added.
  OfflineIndex.prototype.questionBonuses = function (text, scores, bonuses) {
    var v = this.questionVocabulary(), Q = this.data.questions, self = this;
    var spoken = text.toLowerCase().match(v.queryWord) || [];
    var words = Array.from(new Set(spoken)).filter(function (w) { return !v.questionWords.has(w); })
      .map(function (w) { return self.foldKey(w); });
    if (words.length < 2) return;
    var add = function (doc, value) { bonuses.set(doc, (bonuses.get(doc) || 0) + value); };
    var found = new Map();
    for (var n = Math.min(Q.concept_words, spoken.length); n > 1; n--) {
      for (var at = 0; at + n <= spoken.length; at++) {
        var window = spoken.slice(at, at + n);
        var subject = window.filter(function (w) { return !v.questionWords.has(w); }).length;
        if (!subject) continue;
        var share = Math.min(1, subject / words.length);
        (Q.concepts[this.foldKey(window.join(" "))] || []).forEach(function (doc) {
          found.set(doc, Math.max(found.get(doc) || 0, share));
        });
      }
    }
    if (this.data.stages.concept) found.forEach(function (share, doc) { add(doc, Q.weights.concept * share); });
    var kinds = this.ranking.kinds;
    if (this.data.stages.coverage) scores.forEach(function (_, doc) {
      var folded = self.folded(doc), held = 0;
      words.forEach(function (w) { if (folded.indexOf(w) >= 0) held++; });
      if (held) add(doc, Q.weights.coverage * Math.pow(held / words.length, 2) * kinds[self.records[doc].kind]);
    });
  };

  // Whether a query is read as a question (QuestionReader.asks, questions.is_question): from
  // its fewest concepts, or from two when `terse` and it is the game's words typed apart.
  OfflineIndex.prototype.asks = function (text, terse) {
    var Q = this.data.questions, concepts = this.read(text), han = this.patterns.hasHan.test(text);
    if (concepts.length >= (han ? Q.min_concepts : Q.min_english_concepts) || this.short(text)) return true;
    return Boolean(terse) && concepts.length >= Q.min_terse_concepts &&
      text.split(/\s+/).filter(Boolean).length > 1 && this.plain(text);
  };

  // Whether a query is an English question of three concepts with a question form
  // (QuestionReader.short): a question whose candidates are not ranked again by its share.
  OfflineIndex.prototype.short = function (text) {
    var Q = this.data.questions;
    if (!this.data.stages.short_english || this.patterns.hasHan.test(text)) return false;
    var n = this.read(text).length;
    return n >= Q.min_concepts && n < Q.min_english_concepts && !this.plain(text);
  };

  // Whether a parsed query is read as a question: not a phrase search, a heading or a name
  // (Ranker.asks).
  OfflineIndex.prototype.asked = function (parsed) {
    var S = this.data.stages, text = termsText(parsed);
    if (!S.asks || parsed.phrases.length || this.lookedUp(text)) return false;
    return this.asks(text, S.terse);
  };

  // Whether a query is a heading or a name, an obsolete term's too (Ranker._looked_up).
  OfflineIndex.prototype.lookedUp = function (text) {
    var key = this.foldKey(text);
    return Boolean(this.data.titles[key] || this.data.names[key] || this.questionVocabulary().lookedUp.has(key));
  };

  // A Chinese text without the question forms that ask nothing (吗, 是, 什么, 的), each cut
  // where it stands and the rest kept as written (QuestionReader.content): a players' word
  // is kept whole, and a one-character form is cut only where the cut makes it a word.
  OfflineIndex.prototype.content = function (text) {
    var v = this.questionVocabulary(), normal = this.normal(text);
    if (!this.patterns.hasHan.test(normal)) return text;
    var nothing = function (word) { return !v.means.has(word) && v.asks.has(word) && !v.asks.get(word).length; };
    var kept = (text.length === normal.length ? text : normal).split(""), rest = normal.split(""), i;
    this.spans(normal).forEach(function (span) {
      if (!v.hanWord.test(span[2])) return;
      for (i = span[0]; i < span[1]; i++) rest[i] = " ";
      if (nothing(span[2])) for (i = span[0]; i < span[1]; i++) kept[i] = " ";
    });
    var run = this.patterns.hanRun, m, self = this, left = rest.join("");
    run.lastIndex = 0;
    while ((m = run.exec(left)) !== null) {
      var at = m.index;
      self.segment(m[0]).forEach(function (word) {
        if (nothing(word)) for (i = at; i < at + word.length; i++) kept[i] = " ";
        at += word.length;
      });
    }
    return kept.join("").split(/\s+/).filter(Boolean).join(" ");
  };

  // The query as its reading, bonuses and marks take it: a Chinese query's free text without
  // its forms that ask nothing, as typed in `typed` (Ranker.content); a heading, a name or a
  // glossary term is looked up as typed.
  OfflineIndex.prototype.contentOf = function (parsed) {
    if (!this.data.stages.function_words || parsed.rule_number || !parsed.text) return parsed;
    if (this.lookedUp(parsed.text) || this.lookup(parsed.text)) return parsed;
    var content = this.content(parsed.text);
    if (!content || content === parsed.text) return parsed;
    return Object.assign({}, parsed, { text: content, typed: parsed.text });
  };

  // What the engine searches: a question's text as typed, else its content (Ranker.searched).
  OfflineIndex.prototype.searchedOf = function (parsed) {
    return parsed.typed && this.asked(parsed) ? Object.assign({}, parsed, { text: parsed.typed, typed: "" }) : parsed;
  };

  // The rules' wording of the players' words a question holds (QuestionReader.wordings).
  OfflineIndex.prototype.wordings = function (text) {
    if (!this.data.stages.thesaurus) return [];
    var v = this.questionVocabulary(), self = this, out = [];
    this.spans(this.normal(text)).forEach(function (span) {
      (v.means.get(span[2]) || []).forEach(function (m) { if (self.normal(m) !== span[2]) out.push(self.content(m)); });
    });
    return out;
  };

  // The question's own words without its question forms, as a snippet marks them
  // (QuestionReader.subject): an English word as the start its stem gives.
  OfflineIndex.prototype.subject = function (text) {
    var v = this.questionVocabulary(), normal = this.normal(text), kept = [], at = 0;
    this.spans(normal).forEach(function (span) {
      kept.push(normal.slice(at, span[0]));
      if (v.means.has(span[2]) || !v.asks.has(span[2])) kept.push(span[2]);
      at = span[1];
    });
    kept.push(normal.slice(at));
    var words = this.tokens("body", kept.join(" ")).filter(function (token) {
      return v.means.has(token) || !v.asks.has(token);
    }).map(asWritten);
    return Array.from(new Set(words)).join(" ");
  };

  // What a question's results mark: its own words and the rules' wording of its players'
  // words, not its question forms (Ranker.marking_query).
  OfflineIndex.prototype.markingQuery = function (parsed, query) {
    var text = termsText(parsed), subject = this.subject(text), weight = this.ranking.expansion;
    if (!subject) return query;
    var terms = [[subject, 1.0]].concat(this.wordings(text).map(function (w) { return [w, weight]; }));
    return { terms: terms, phrases: query.phrases, filters: query.filters };
  };

  // For each candidate, the weight of the question's concepts its text holds over that of
  // all of them (QuestionRanker.coverage).
  OfflineIndex.prototype.coverage = function (concepts, docs) {
    var total = weightOf(concepts);
    return this.held(concepts, docs).map(function (h) { return total ? h / total : h; });
  };

  // For each candidate, the weight of the question's concepts its text holds (QuestionRanker.held).
  OfflineIndex.prototype.held = function (concepts, docs) {
    var self = this, held = docs.map(function () { return 0; });
    concepts.forEach(function (concept) {
      docs.forEach(function (doc, n) {
        var text = self.folded(doc);
        var holds = concept.forms.some(function (pieces) {
          return pieces.every(function (piece) { return text.indexOf(piece) >= 0; });
        });
        if (holds) held[n] += concept.weight;
      });
    });
    return held;
  };

  function weightOf(concepts) {
    return concepts.reduce(function (total, concept) { return total + concept.weight; }, 0);
  }

  // The share of the question each candidate holds, a rule that lists keyword abilities
  // holding the question's ones as items of its list only, at `list_items` of their weight
  // (QuestionRanking._share).
  OfflineIndex.prototype.share = function (concepts, docs) {
    var share = this.coverage(concepts, docs), lists = this.questionVocabulary().lists;
    var listing = [];
    docs.forEach(function (doc, n) { if (lists.has(doc)) listing.push(n); });
    if (!listing.length) return share;
    var listed = this.listedForms();
    var items = concepts.filter(function (c) {
      return c.forms.some(function (pieces) { return listed.has(pieces.join("\t")); });
    });
    if (!items.length) return share;
    var others = concepts.filter(function (c) { return items.indexOf(c) < 0; });
    var at = listing.map(function (n) { return docs[n]; }), total = weightOf(concepts);
    var heldOthers = this.held(others, at), heldItems = this.held(items, at);
    var w = this.data.questions.weights.list_items;
    listing.forEach(function (n, i) { share[n] = (heldOthers[i] + w * heldItems[i]) / total; });
    return share;
  };

  // The forms of the keyword abilities a list rule names, as the question's concepts have
  // them: each name's first concept, read once (QuestionRanking._listed_forms).
  OfflineIndex.prototype.listedForms = function () {
    var v = this.questionVocabulary(), self = this;
    if (!v.listedForms) {
      var forms = new Set();
      this.data.questions.listed_keywords.forEach(function (name) {
        var first = self.read(name)[0];
        if (first) first.forms.forEach(function (pieces) { forms.add(pieces.join("\t")); });
      });
      v.listedForms = forms;
    }
    return v.listedForms;
  };

  // For an English question, each candidate's BM25 over its own statement, today's rule's
  // English text alone (statements.Statements): a concept's weight times its count there, its
  // best form's, a form's its rarest piece's, saturated and lightly normalised by length; 0
  // for a record that is not one of today's rules.
  OfflineIndex.prototype.statementScores = function (concepts, docs) {
    var S = this.data.questions.statements, self = this;
    return docs.map(function (doc) {
      var r = self.records[doc], text = r.kind === "rule" && r.edition === self.data.edition && r.text && r.text.en;
      if (!text) return 0;
      var folded = self.foldKey(text), length = text.split(/\s+/).filter(Boolean).length;
      var norm = S.k1 * (1 - S.b + S.b * length / S.mean_length), total = 0;
      concepts.forEach(function (concept) {
        var count = 0;
        concept.forms.forEach(function (pieces) {
          count = Math.max(count, Math.min.apply(null, pieces.map(function (piece) { return occurrences(folded, piece); })));
        });
        if (count) total += concept.weight * count * (S.k1 + 1) / (count + norm);
      });
      return total;
    });
  };

  // How many times `piece` occurs in `text`, not overlapping (Python's bytes.count).
  function occurrences(text, piece) {
    var count = 0, at = text.indexOf(piece);
    while (at >= 0) { count++; at = text.indexOf(piece, at + piece.length); }
    return count;
  }

  // --- meanings (indexer/knowledge/meanings.py) ----------------------------------------------
  //
  // The words' meaning vectors, which the page keeps after the copy (offline_copy.meanings):
  // a question's nearness in meaning to each of today's rules, as a whole text and word by
  // word, as the server's `QuestionRanking._with_meanings` adds them. Until they are kept, a question
  // is ranked without them.

  // The table (offline_copy.meanings): each word's vector made unit length again, its weight.
  OfflineIndex.prototype.useMeanings = function (data) {
    if (data.index !== this.data.index) return false;
    var bytes = atob(data.vectors);
    var d = data.dimensions, n = data.words.length, vectors = new Float32Array(n * d);
    var han = new RegExp("^[" + this.data.script_ranges.han + "]+$", "u"), hanWords = new Set(), longest = new Map();
    for (var i = 0; i < n; i++) {
      var norm = 0;
      for (var k = 0; k < d; k++) {
        var v = bytes.charCodeAt(i * d + k);
        v = v > 127 ? v - 256 : v;
        vectors[i * d + k] = v;
        norm += v * v;
      }
      norm = Math.sqrt(norm) || 1;
      for (k = 0; k < d; k++) vectors[i * d + k] /= norm;
    }
    var index = new Map();
    data.words.forEach(function (word, row) {
      index.set(word, row);
      if (han.test(word)) {
        hanWords.add(word);
        longest.set(word[0], Math.max(longest.get(word[0]) || 1, word.length));
      }
    });
    this.meanings = { dimensions: d, vectors: vectors, weights: Float32Array.from(data.weights), index: index,
                      hanWords: hanWords, longest: longest, rules: {}, making: {}, todays: null, chinese: null,
                      word: new RegExp("([" + this.data.script_ranges.han + "]+)|[a-z0-9]+", "gu") };
    return true;
  };

  // A text's words as table rows (WordVectors.rows of meanings.words): NFKC, Simplified, lower
  // case; a Chinese run cut by the table's own words, longest first (the server cuts it with
  // its segmenter, whose words the table was made of), a word the table lacks as its
  // characters; an English word or number as it is, left out when the table lacks it.
  // `simplified`: the text is in Simplified already (today's rules), not converted again.
  OfflineIndex.prototype.meaningRows = function (text, simplified) {
    var M = this.meanings, rows = [], m, normal = text.normalize("NFKC");
    normal = (simplified || !this.patterns.hasHan.test(normal) ? normal : this.toHans(normal)).toLowerCase();
    M.word.lastIndex = 0;
    while ((m = M.word.exec(normal)) !== null) {
      if (!m[1]) {
        if (M.index.has(m[0])) rows.push(M.index.get(m[0]));
        continue;
      }
      // By code unit, each table word's longest length by its first unit.
      var run = m[1], at = 0;
      while (at < run.length) {
        var size = Math.min(M.longest.get(run[at]) || 1, run.length - at), word;
        for (; size > 1; size--) {
          word = run.substr(at, size);
          if (M.hanWords.has(word)) break;
        }
        if (size === 1) { word = String.fromCodePoint(run.codePointAt(at)); size = word.length; }
        if (M.index.has(word)) rows.push(M.index.get(word));
        at += size;
      }
    }
    return rows;
  };

  // The weighted mean of table rows (WordVectors.mean), into `out`; false for none.
  OfflineIndex.prototype.meanOf = function (rows, out) {
    var M = this.meanings, d = M.dimensions, total = 0;
    out.fill(0);
    rows.forEach(function (row) {
      var w = M.weights[row], base = row * d;
      total += w;
      for (var k = 0; k < d; k++) out[k] += w * M.vectors[base + k];
    });
    if (!total) return false;
    for (var k = 0; k < d; k++) out[k] /= total;
    return true;
  };

  // Today's rules' vectors and distinct words in one language, "en" or "zh"
  // (Meanings.of_todays_rules): each rule read as its heading, its text and its rule's
  // heading, its vector less the rules' mean, unit length. Made by `prepareMeanings` a slice
  // at a time, or whole at the first question in that language that finds them unmade.
  OfflineIndex.prototype.meaningsOfRules = function (key) {
    while (!this.meaningsMade(key, Infinity)) { /* made whole */ }
    return this.meanings.rules[key];
  };

  // The next `count` rules' vectors of both languages, Chinese first; true once all are made.
  // A worker makes them so between requests after opening the vectors, so that a search typed
  // meanwhile waits for one slice, not for all of them.
  OfflineIndex.prototype.prepareMeanings = function (count) {
    return this.meaningsMade("zh", count) && this.meaningsMade("en", count);
  };

  // The next `count` rules' vectors in one language (`meaningsOfRules`); true once all are made.
  OfflineIndex.prototype.meaningsMade = function (key, count) {
    var M = this.meanings, self = this, d = M.dimensions;
    if (M.rules[key]) return true;
    if (!M.todays) {
      M.todays = [];
      M.chinese = "zh_hant";
      this.records.forEach(function (r, i) {
        if (!self.isTodaysRule(r)) return;
        M.todays.push(i);
        if (r.text && r.text.zh_hans) M.chinese = "zh_hans";
      });
    }
    var made = M.making[key];
    if (!made) {
      made = M.making[key] = { lang: key === "en" ? "en" : M.chinese, todays: M.todays, next: 0,
                               at: new Int32Array(this.records.length).fill(-1), words: [], starts: [0], vectors: [],
                               seen: new Int32Array(M.weights.length).fill(-1) };
    }
    var lang = made.lang;
    function titleOf(r) { return (r.title && r.title[lang]) || ""; }
    var last = Math.min(made.todays.length, made.next + count);
    for (; made.next < last; made.next++) {
      var i = made.todays[made.next], r = this.records[i];
      if (!(r.text && r.text[lang])) continue;
      var parts = [titleOf(r), r.text[lang]];
      var parent = r.parent ? this.ruleRecords(r.parent, r.edition)[0] : undefined;
      if (parent !== undefined) parts.push(titleOf(this.records[parent]));
      var rows = this.meaningRows(parts.join("\n"), lang !== "zh_hant"), vector = new Float32Array(d), n = made.vectors.length;
      this.meanOf(rows, vector);
      made.at[i] = n;
      rows.forEach(function (row) {
        if (made.seen[row] !== n) { made.seen[row] = n; made.words.push(row); }
      });
      made.vectors.push(vector);
      made.starts.push(made.words.length);
    }
    if (made.next < made.todays.length) return false;
    var vectors = made.vectors, mean = new Float32Array(d), matrix = new Float32Array(vectors.length * d);
    vectors.forEach(function (v) { for (var k = 0; k < d; k++) mean[k] += v[k] / vectors.length; });
    vectors.forEach(function (v, n) {
      var norm = 0, k;
      for (k = 0; k < d; k++) { matrix[n * d + k] = v[k] - mean[k]; norm += matrix[n * d + k] * matrix[n * d + k]; }
      norm = Math.sqrt(norm) + 1e-9;
      for (k = 0; k < d; k++) matrix[n * d + k] /= norm;
    });
    M.rules[key] = { at: made.at, matrix: matrix, mean: mean, words: Int32Array.from(made.words), starts: Int32Array.from(made.starts) };
    delete M.making[key];
    return true;
  };

  // The cosine of each doc to the question (Meanings.cosines): 0 for one not of today's rules.
  OfflineIndex.prototype.meaningCosines = function (rules, rows, docs) {
    var M = this.meanings, d = M.dimensions, q = new Float32Array(d), norm = 0, k;
    if (!this.meanOf(rows, q)) return docs.map(function () { return 0; });
    for (k = 0; k < d; k++) { q[k] -= rules.mean[k]; norm += q[k] * q[k]; }
    norm = Math.sqrt(norm);
    return docs.map(function (doc) {
      var row = rules.at[doc];
      if (row < 0 || !norm) return 0;
      var dot = 0;
      for (var k = 0; k < d; k++) dot += rules.matrix[row * d + k] * q[k];
      return dot / norm;
    });
  };

  // For each doc, the question's words' nearest words in it, averaged with their weights
  // (Meanings.word_matches): 0 for a doc not of today's rules or with no word of the table.
  OfflineIndex.prototype.wordMatches = function (rules, rows, docs) {
    var M = this.meanings, d = M.dimensions, V = M.vectors;
    var asked = Array.from(new Set(rows)), total = 0, near = new Map();
    asked.forEach(function (a) { total += M.weights[a]; });
    function cosine(a, b) {
      var key = a * 65536 + b;
      if (near.has(key)) return near.get(key);
      var dot = 0, x = a * d, y = b * d;
      for (var k = 0; k < d; k++) dot += V[x + k] * V[y + k];
      near.set(key, dot);
      return dot;
    }
    return docs.map(function (doc) {
      var row = rules.at[doc];
      if (row < 0 || !asked.length) return 0;
      var from = rules.starts[row], to = rules.starts[row + 1];
      if (to <= from) return 0;
      var sum = 0;
      asked.forEach(function (a) {
        var best = -Infinity;
        for (var j = from; j < to; j++) best = Math.max(best, cosine(a, rules.words[j]));
        sum += M.weights[a] * best;
      });
      return sum / total;
    });
  };

  // A question's candidates with their nearness in meaning added, as a whole text and word by
  // word, each as a share of the nearest candidate's (QuestionRanking._with_meanings). `scores` changed
  // in place.
  OfflineIndex.prototype.withMeanings = function (text, scores) {
    var W = this.data.questions.weights, S = this.data.stages, rows = this.meaningRows(text);
    var rules = this.meaningsOfRules(this.patterns.hasHan.test(text) ? "zh" : "en");
    var docs = Array.from(scores.keys());
    if (S.meanings) {
      var cosines = this.meaningCosines(rules, rows, docs).map(function (c) { return Math.max(c, 0); });
      var top = Math.max.apply(null, cosines.concat([0]));
      if (top > 0) docs.forEach(function (doc, n) { scores.set(doc, scores.get(doc) + W.meanings * cosines[n] / top); });
    }
    if (S.word_matches) {
      var best = docs.map(function (doc, n) { return n; }).sort(function (a, b) {
        return scores.get(docs[b]) - scores.get(docs[a]) || a - b;
      }).slice(0, this.data.questions.candidates).map(function (n) { return docs[n]; });
      var near = this.wordMatches(rules, rows, best), held = near.filter(function (v) { return v > 0; });
      if (held.length) {
        var least = Math.min.apply(null, held), most = Math.max.apply(null, held);
        best.forEach(function (doc, n) {
          if (near[n] > 0) scores.set(doc, scores.get(doc) + W.word_matches * (near[n] - least) / (most - least || 1));
        });
      }
    }
  };

  // Each of today's rules' place among its numbered paragraph's (siblings.Siblings): 0 for
  // the first, towards 1 for the last; 0 for any other record.
  OfflineIndex.prototype.siblingPlace = function () {
    if (this.places) return this.places;
    var self = this, groups = new Map(), paragraphs = this.data.questions.paragraphs;
    var places = this.places = new Float64Array(this.records.length);
    this.records.forEach(function (r, i) {
      if (!self.isTodaysRule(r)) return;
      if (!groups.has(paragraphs[i])) groups.set(paragraphs[i], []);
      groups.get(paragraphs[i]).push(i);
    });
    groups.forEach(function (members) {
      members.sort(function (a, b) { return self.records[a].order - self.records[b].order; });
      members.forEach(function (i, n) { places[i] = n / members.length; });
    });
    return places;
  };

  // The candidates of each paragraph among `docs` ordered again by their score less
  // `weight` times their place; the group's scores go to them in that order (Siblings.reorder).
  OfflineIndex.prototype.reorder = function (docs, scores, weight) {
    var places = this.siblingPlace(), paragraphs = this.data.questions.paragraphs, groups = new Map();
    docs.forEach(function (doc) {
      if (!groups.has(paragraphs[doc])) groups.set(paragraphs[doc], []);
      groups.get(paragraphs[doc]).push(doc);
    });
    groups.forEach(function (mine) {
      if (mine.length < 2) return;
      var values = mine.map(function (doc) { return scores.get(doc); }).sort(function (a, b) { return b - a; });
      mine.slice().sort(function (a, b) {
        return (scores.get(b) - weight * places[b]) - (scores.get(a) - weight * places[a]) || mine.indexOf(a) - mine.indexOf(b);
      }).forEach(function (doc, n) { scores.set(doc, values[n]); });
    });
  };

  // A question's candidates again: today's rules its words find, the rules the glossary
  // entries it finds cite, then its best candidates by the share of it each holds, squared,
  // a heading alone answering nothing, and a paragraph's subrules in their order
  // (QuestionRanking.rerank). `scores`: doc -> score, changed in place.
  OfflineIndex.prototype.rerank = function (parsed, query, scores) {
    var Q = this.data.questions, W = Q.weights, S = this.data.stages, self = this, text = termsText(parsed);
    if (!scores.size || !this.asked(parsed)) return;
    var concepts = this.read(text), top = 0;
    scores.forEach(function (s) { top = Math.max(top, s); });
    scores.forEach(function (s, doc) { scores.set(doc, s / (top || 1)); });
    if (S.todays_candidates && !parsed.filters.edition && !parsed.filters.source) {
      var weight = this.ranking.expansion;
      var todays = { terms: query.terms.concat(this.wordings(text).map(function (w) { return [w, weight]; })),
                     phrases: [], filters: Object.assign({}, query.filters, { source: this.data.rules_file_prefix + this.data.edition }) };
      var found = this.engineSearch(todays, W.todays_candidates), best = found.length ? found[0][1] || 1 : 1;
      found.forEach(function (hit) {
        scores.set(hit[0], Math.max(scores.get(hit[0]) || 0, hit[1] / best * W.todays_share));
      });
    }
    if (S.glossary_map) {
      var sent = new Map(), cited = Q.cited;
      scores.forEach(function (score, doc) {
        (cited[doc] || []).forEach(function (rule) { sent.set(rule, Math.max(sent.get(rule) || 0, W.glossary_map * score)); });
      });
      sent.forEach(function (value, rule) {
        if (self.passes(self.records[rule], parsed.filters)) scores.set(rule, (scores.get(rule) || 0) + value);
      });
    }
    if (this.meanings && (S.meanings || S.word_matches)) this.withMeanings(parsed.typed || text, scores);
    var docs = Array.from(scores.keys()).sort(function (a, b) {
      return scores.get(b) - scores.get(a) || a - b;
    }).slice(0, Q.candidates);
    var share = !S.share || this.short(text) ? docs.map(function () { return 0; }) : this.share(concepts, docs);
    var headings = this.questionVocabulary().headings;
    var statements = S.statements && !this.patterns.hasHan.test(text) ? this.statementScores(concepts, docs) : null;
    var bestStatement = statements ? Math.max.apply(null, statements.concat([0])) : 0;
    docs.forEach(function (doc, n) {
      var score = scores.get(doc) + W.share * share[n] * share[n];
      if (bestStatement > 0) score += W.statements * statements[n] / bestStatement;
      scores.set(doc, headings.has(doc) && S.question_heading ? score * W.question_heading : score);
    });
    if (S.siblings) this.reorder(docs, scores, W.siblings);
  };

  // What makes records one result of a question: each of today's subrules with its
  // quotations, anything else by its numbered paragraph (Placement.subrule_group_at).
  OfflineIndex.prototype.subruleGroup = function (i) {
    var r = this.records[i];
    return r.kind === "rule" && r.number && r.edition === this.data.edition ? "s" + r.number : "p" + this.data.questions.paragraphs[i];
  };

  // --- did you mean -----------------------------------------------------------------------

  function trigrams(word) {
    var marked = "^" + word + "$", out = new Set();
    for (var i = 0; i + 3 <= marked.length; i++) out.add(marked.slice(i, i + 3));
    return out;
  }

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
      if (score >= 0.75 && (score > bestScore || (score === bestScore && known > best))) { best = known; bestScore = score; }
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

  // The answer of /api/search, computed here. Throws QueryError as the server answers 400.
  OfflineIndex.prototype.search = function (q, limit, script) {
    var started = Date.now();
    limit = limit || 10;
    if (!(limit >= 1 && limit <= this.ranking.max_limit)) throw new QueryError("limit must be between 1 and " + this.ranking.max_limit);
    var parsed = this.contentOf(this.parse(q));
    var answer = { query: q, total: 0, took_ms: 0, did_you_mean: null, rule_jump: null, results: [],
                   left_out: parsed.left_out,
                   offline: { edition: this.data.edition, index: this.data.index } };
    if (!parsed.text && !parsed.phrases.length && !parsed.rule_number && !parsed.rule_list.length) return answer;
    var query = this.engineQuery(this.searchedOf(parsed));
    var jumps = this.data.stages.jump && (parsed.rule_number || parsed.rule_list.length);
    var ranked = jumps ? this.ruleJump(parsed, answer, script) : [];
    var numbered = ranked.length > 0;  // the rules it names by number are found: its results are theirs
    if (!numbered) {
      ranked = this.namedFirst(parsed, this.ranked(parsed, query));
      var suggestion = this.didYouMean(parsed);
      if (suggestion) {
        answer.did_you_mean = suggestion;
        if (!ranked.length) {
          query = this.engineQuery(this.parse(suggestion));
          ranked = this.ranked(this.parse(suggestion), query);
        }
      }
    }
    // As the server: an edition-limited search shows each matching record of it.
    var apart = parsed.filters.edition && !numbered, self = this;
    var asked = !apart && !numbered && this.asked(parsed);
    var groups = apart ? ranked.map(function (pair) { return [pair[0]]; })
      : this.collapse(ranked, asked && this.data.stages.subrules ? this.subruleGroup.bind(this) : null);
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
    ["zh_hant", "zh_hans", "en", "bg"].forEach(function (lang) {
      records.forEach(function (i) {
        var r = self.records[i];
        if (r.title && r.title[lang] && r.langs.indexOf(lang) >= 0) {
          var t = shown(r.title, lang, script);
          if (titles.indexOf(t) < 0) titles.push(t);
        }
      });
    });
    var textBlocks = function (texts, langs) {
      return LANGS.filter(function (lang) { return langs.indexOf(lang) >= 0 && texts[lang]; })
        .map(function (lang) { return { lang: shownLang(lang, script), text: shown(texts, lang, script) }; });
    };
    var children = [];
    (this.children.get(edition + " " + number) || []).forEach(function (i) {
      var c = self.records[i];
      if (!children.length || self.records[children[children.length - 1]].number !== c.number) children.push(i);
    });
    var parent = primary.parent ? this.ruleRecords(primary.parent, edition)[0] : undefined;
    return {
      number: number, edition: edition, title: [number, titles.join(" / ")].join(" ").trim(),
      keyword: primary.keyword || null, url: "/rules/" + number + "?edition=" + edition,
      text: LANGS.filter(function (lang) { return merged[lang]; }).map(function (lang) {
        return { lang: shownLang(lang, script), text: merged[lang] };
      }),
      examples: [].concat.apply([], records.map(function (i) {
        var r = self.records[i];
        return (r.examples || []).map(function (ex) { return textBlocks(ex, r.langs); });
      })),
      rulings: [].concat.apply([], records.map(function (i) {
        var r = self.records[i];
        return (r.rulings || []).map(function (ru) { return { source: self.summary(i, script).source, text: textBlocks(ru, r.langs) }; });
      })),
      sources: records.map(function (i) { return self.summary(i, script).source; }),
      parent: parent === undefined ? null : this.summary(parent, script),
      children: children.map(function (i) {
        var c = self.records[i];
        return Object.assign(self.summary(i, script), { text: textBlocks(c.text || {}, c.langs) });
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

  // --- the pages of cards, planes, terms and documents (webapp/present.py record_view) -------

  function textBlocks(texts, langs, script) {
    return LANGS.filter(function (lang) { return langs.indexOf(lang) >= 0 && texts && texts[lang]; })
      .map(function (lang) { return { lang: shownLang(lang, script), text: shown(texts, lang, script) }; });
  }

  // A record by its id, or by one of its names (the server takes a card's name in its place).
  OfflineIndex.prototype.find = function (kind, key) {
    if (!this.byId) {
      var byId = this.byId = new Map();
      this.records.forEach(function (r, i) { byId.set(r.id, i); });
    }
    var i = this.byId.get(key);
    if (i === undefined) {
      var folded = this.foldKey(key), self = this;
      i = this.records.findIndex(function (r) {
        return r.kind === kind && r.names && Object.keys(r.names).some(function (lang) {
          return self.foldKey(r.names[lang]) === folded;
        });
      });
    }
    return i >= 0 && i !== undefined && this.records[i].kind === kind ? i : null;
  };

  // The page of a card, plane or term (the server's /api/cards/<id>, /api/planes/<id>,
  // /api/terms/<id>, without what needs the whole index), or null.
  OfflineIndex.prototype.recordPage = function (kind, key, script) {
    var i = this.find(kind, key), self = this;
    if (i === null) return null;
    var r = this.records[i], names = Object.assign({}, r.names || {});
    if (names.zh_hant && !names.zh_hans) names.zh_hans = names.zh_hant;
    if (names.zh_hans && !names.zh_hant) names.zh_hant = names.zh_hans;
    var attrs = {};
    Object.keys(r.attrs || {}).forEach(function (key) { attrs[key] = self.inScript(r.attrs[key], script); });
    return Object.assign(this.summary(i, script), {
      keyword: r.keyword || null, names: names, attrs: attrs, aliases: r.aliases || [],
      text: textBlocks(r.text, r.langs, script),
      abilities: (r.abilities || []).map(function (a) { return textBlocks(a, r.langs, script); }),
      rulings: (r.rulings || []).map(function (ru) { return textBlocks(ru, r.langs, script); }),
      examples: (r.examples || []).map(function (ex) { return textBlocks(ex, r.langs, script); }),
      current: r.edition ? r.edition === this.data.edition : null, current_edition: this.data.edition,
      offline: { edition: this.data.edition, index: this.data.index },
    });
  };

  // A document whole, its records in its order (the server's /api/sources/<id>, in one
  // page), or null.
  OfflineIndex.prototype.sourcePage = function (sourceId, script) {
    var self = this, records = [];
    this.records.forEach(function (r, i) {
      if (r.source === sourceId && !self.fromRulesFile(r) && i < self.data.searched) records.push(i);
    });
    if (!records.length) return null;
    return {
      id: sourceId, title: this.data.sources[sourceId] || sourceId,
      records: records.map(function (i) {
        var r = self.records[i];
        return Object.assign(self.summary(i, script), {
          text: textBlocks(r.text, r.langs, script),
          abilities: (r.abilities || []).map(function (a) { return textBlocks(a, r.langs, script); }),
          rulings: (r.rulings || []).map(function (ru) { return textBlocks(ru, r.langs, script); }),
        });
      }),
      offline: { edition: this.data.edition, index: this.data.index },
    };
  };

  // What an older edition's rule is today, as its page says it (present._today).
  OfflineIndex.prototype.pageToday = function (r, script) {
    var t = r.page_today;
    if (!t) return null;
    var now = t.number_now === undefined ? null : this.records[t.number_now];
    return {
      edition: t.edition,
      same_rule: t.same_rule ? { number: t.same_rule, url: "/rules/" + t.same_rule + "?edition=" + t.edition } : null,
      number_now: now ? { number: now.number, name: heading(now, script), url: now.url } : null,
      ended: t.ended || null,
    };
  };

  // --- the book: contents, a rule's place and what is under it, the glossary (webapp/book.py) --

  // 0 for a section (510), 1 for a rule (510.1), 2 for a subrule (510.1a).
  function level(number) {
    return number.indexOf(".") < 0 ? 0 : /[a-z]$/.test(number) ? 2 : 1;
  }

  // A title per language the record (or chapter) gives, Chinese in the reader's script.
  function titles(texts, langs, script) {
    return LANGS.filter(function (lang) { return texts && texts[lang] && langs.indexOf(lang) >= 0; })
      .map(function (lang) { return { lang: shownLang(lang, script), text: shown(texts, lang, script) }; });
  }

  // A rule's own title (702.79 Persist), none for a numbered paragraph (510.1).
  function ownTitle(r, script) {
    var titled = level(r.number) === 0 || r.langs.some(function (lang) {
      return r.title && r.text && r.title[lang] && r.title[lang] === r.text[lang];
    });
    return titled ? titles(r.title, r.langs, script) : [];
  }

  function chapterTitles(chapter, script) {
    return chapter ? titles(chapter.title, chapter.langs, script) : [];
  }

  // The numbers of one level of today's rules, in rule order (made once).
  OfflineIndex.prototype.levelOrder = function (depth) {
    this.orders = this.orders || {};
    if (!this.orders[depth]) {
      var edition = this.data.edition, self = this;
      this.orders[depth] = Array.from(this.byNumber.keys()).filter(function (n) {
        return (depth === null || level(n) === depth) && self.byNumber.get(n).some(function (i) {
          return self.records[i].edition === edition;
        });
      }).sort(function (a, b) { return self.ruleOrder(a, b); });
    }
    return this.orders[depth];
  };

  // The rules before and after one as the book is read (indexer.knowledge.book.Book.steps).
  OfflineIndex.prototype.steps = function (number, script) {
    var order = this.levelOrder(level(number) === 2 ? null : level(number)), at = order.indexOf(number), self = this;
    var summary = function (n) {
      var i = n === undefined ? undefined : self.ruleRecords(n, self.data.edition)[0];
      return i === undefined ? null : { number: n, title: heading(self.records[i], script), url: self.records[i].url };
    };
    return at < 0 ? [null, null] : [summary(order[at - 1]), summary(order[at + 1])];
  };

  // One record per number under a rule, the rules file's first.
  OfflineIndex.prototype.under = function (number, edition) {
    var out = [], self = this;
    (this.children.get(edition + " " + number) || []).forEach(function (i) {
      if (!out.length || self.records[out[out.length - 1]].number !== self.records[i].number) out.push(i);
    });
    return out;
  };

  // Every rule and subrule under a section or rule, with texts and examples (present.rules_under).
  OfflineIndex.prototype.rulesUnder = function (number, edition, script) {
    var self = this, out = [];
    var blocks = function (texts, langs) { return titles(texts, langs, script); };
    this.under(number, edition).forEach(function (i) {
      var rules = [i];
      if (level(self.records[i].number) === 1) rules = rules.concat(self.under(self.records[i].number, edition));
      rules.forEach(function (j) {
        var r = self.records[j], depth = level(r.number);
        out.push({ number: r.number, edition: edition, url: "/rules/" + r.number, depth: depth,
                   title: depth === 1 ? ownTitle(r, script) : [], text: blocks(r.text || {}, r.langs),
                   examples: (r.examples || []).map(function (ex) { return blocks(ex, r.langs); }) });
      });
    });
    return out;
  };

  // Where a rule of today's rules stands in the book (webapp/book.place_view).
  OfflineIndex.prototype.place = function (number, script) {
    var chapter = this.data.book.chapters[number.charAt(0)];
    if (!chapter) return null;
    var section = level(number) ? this.ruleRecords(number.split(".")[0], this.data.edition)[0] : undefined;
    var s = section === undefined ? null : this.records[section];
    return {
      contents: "/rules",
      chapter: { number: number.charAt(0), title: chapterTitles(chapter, script), url: "/rules#chapter-" + number.charAt(0) },
      section: s ? { number: s.number, title: titles(s.title, s.langs, script), url: "/rules/" + s.number } : null,
    };
  };

  // The table of contents of today's rules (the server's /api/toc).
  OfflineIndex.prototype.contents = function (script) {
    var edition = this.data.edition, source = this.data.rules_file_prefix + edition, self = this;
    var chapters = [], byNumber = {};
    this.levelOrder(0).forEach(function (number) {
      var i = self.ruleRecords(number, edition).filter(function (j) { return self.records[j].source === source; })[0];
      if (i === undefined) return;
      var s = self.records[i], first = number.charAt(0);
      if (!byNumber[first]) {
        byNumber[first] = { number: first, anchor: "chapter-" + first,
                            title: chapterTitles(self.data.book.chapters[first], script), sections: [] };
        chapters.push(byNumber[first]);
      }
      byNumber[first].sections.push({
        number: number, url: "/rules/" + number, title: titles(s.title, s.langs, script),
        rules: (self.children.get(edition + " " + number + " " + source) || []).map(function (j) {
          var r = self.records[j];
          return { number: r.number, url: "/rules/" + r.number, title: ownTitle(r, script) };
        }),
      });
    });
    return { edition: edition, current: true, editions: [{ edition: edition, url: "/rules", current: true }],
             glossary_url: "/glossary", chapters: chapters, offline: { edition: edition, index: this.data.index } };
  };

  function initial(key) {
    var first = key.charAt(0);
    return /^[A-Za-z]$/.test(first) ? first.toUpperCase() : "#";
  }

  function grouped(items) {
    var groups = [];
    items.forEach(function (item) {
      var letter = initial(item[0][0]);
      if (!groups.length || groups[groups.length - 1].letter !== letter) groups.push({ letter: letter, terms: [] });
      groups[groups.length - 1].terms.push(item[1]);
    });
    return groups;
  }

  function compareKeys(a, b) {
    for (var n = 0; n < a[0].length; n++) {
      if (a[0][n] < b[0][n]) return -1;
      if (a[0][n] > b[0][n]) return 1;
    }
    return 0;
  }

  // Today's glossary A to Z and by Chinese reading (the server's /api/glossary).
  OfflineIndex.prototype.glossary = function (script) {
    var edition = this.data.edition, source = this.data.rules_file_prefix + edition;
    var readings = this.data.book.readings || {};
    var english = [], chinese = [];
    this.records.forEach(function (r) {
      if (r.kind !== "term" || r.source !== source) return;
      var entry = { id: r.id, url: r.url, names: titles(r.names, r.langs, script) };
      if (r.names.en) english.push([[r.names.en.toLowerCase()], entry]);
      var zh = r.names.zh_hans && r.langs.indexOf("zh_hans") >= 0 ? r.names.zh_hans : null;
      if (zh && readings[zh]) {
        var reading = readings[zh];
        var zhFirst = entry.names.filter(function (n) { return n.lang.indexOf("zh") === 0; })
          .concat(entry.names.filter(function (n) { return n.lang.indexOf("zh") !== 0; }));
        chinese.push([[reading.replace(/\d/g, "").toLowerCase(), reading, zh],
                      Object.assign({}, entry, { names: zhFirst, reading: reading })]);
      }
    });
    english.sort(compareKeys);
    chinese.sort(compareKeys);
    return { edition: edition, current: true, editions: [{ edition: edition, url: "/glossary", current: true }],
             contents_url: "/rules", english: grouped(english), chinese: grouped(chinese),
             offline: { edition: edition, index: this.data.index } };
  };

  root.OfflineIndex = OfflineIndex;
})(typeof self !== "undefined" ? self : this);

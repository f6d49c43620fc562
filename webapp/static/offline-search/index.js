// Search and rule look-up over the offline copy of the index (webapp/offline_copy.py builds it):
// the copy read whole, its texts, the analyzer, the query's reading and the engine. The other
// parts add to `OfflineIndex` what its name says (ranking.js, questions.js, meanings.js,
// answers.js, pages.js); the service worker imports them all, this one first, in the order
// webapp/views/offline.py lists them (ENGINE).
//
// The service worker (sw.js) answers /api/search and the JSON twins of the pages with it when
// the network is gone, in the shapes the server answers, so the pages' scripts work unchanged.
// It is the server's query understanding and ranking (indexer/search/query.py,
// indexer/knowledge/library.py and ranking/, indexer/search/whoosh_engine.py) as generic
// machinery over what the build exported (webapp/offline_copy.py `_constants`): the postings
// carry the server's BM25F scores; the weights, bounds, stage list, query patterns, languages
// and the writing systems' character ranges are the server's own values; Chinese is cut by
// longest match against the index's own words, and English words take the stems the build
// listed. A question is read and ranked again as indexer/knowledge/questions.py and ranking/
// do, from the question forms and players' words the build read from their data files, and
// with the words' meaning vectors once the page has kept them too (`useMeanings`: a file of
// their own, as big as the copy). Records of other rules editions are not in the copy.
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
  var NOT_WORD = /[^\p{L}\p{N}]+/gu;
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
      // What the word bound counts (indexer/search/query.py COUNTED_PATTERN), and never counts.
      counted: new RegExp("[" + data.script_ranges.han + "]{1,2}|(?:(?![" + data.script_ranges.han + "])[\\p{L}\\p{N}])+", "gu"),
      functionWords: new Set(q.function_words),
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
        return ra.order - rb.order;
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

  // Each language's text of a record (or chapter) in the order pages show them, Chinese in
  // the reader's script (present.py's text blocks).
  OfflineIndex.prototype.blocks = function (texts, langs, script) {
    return this.data.langs.filter(function (lang) { return texts && texts[lang] && langs.indexOf(lang) >= 0; })
      .map(function (lang) { return { lang: shownLang(lang, script), text: shown(texts, lang, script) }; });
  };

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

  // 0 for a section (510), 1 for a rule (510.1), 2 for a subrule (510.1a).
  function level(number) {
    return number.indexOf(".") < 0 ? 0 : /[a-z]$/.test(number) ? 2 : 1;
  }

  // A word's character trigrams, marked at its ends (spelling suggestions look words up by them).
  function trigrams(word) {
    var marked = "^" + word + "$", out = new Set();
    for (var i = 0; i + 3 <= marked.length; i++) out.add(marked.slice(i, i + 3));
    return out;
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

  // `phrases` false: a quoted phrase is read as words of the free text where it stands.
  OfflineIndex.prototype.parse = function (raw, phrases) {
    if (raw.length > this.ranking.max_query_chars) {
      throw new QueryError("query too long: " + raw.length + " characters (at most " + this.ranking.max_query_chars + ")");
    }
    var text = raw;
    if (/[\uff01-\uff5e\u3000]/.test(text)) text = text.replace(/\u3000/g, " ").normalize("NFKC");
    // As the server reads rule numbers (references.py fold_number_forms): zero-width
    // characters left out, any script's decimal digit as its ASCII digit.
    text = text.replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, "").replace(/(?![0-9])\p{Nd}/gu, function (ch) {
      var zero = ch.codePointAt(0);
      while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--;
      return String((ch.codePointAt(0) - zero) % 10);
    });
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
    if (phrases === false) {
      text = text.replace(p.phrase, function (_, phrase) { return " " + phrase + " "; });
    } else {
      text.replace(p.phrase, function (_, phrase) { if (phrase.trim()) parsed.phrases.push(phrase.trim()); });
      text = text.replace(p.phrase, " ");
    }
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
    // At most max_query_words distinct words counted (indexer/search/query.py: a run of
    // letters or digits, or two Han characters, never a function word), whole phrases first,
    // then the free text's first words; the rest left out, and said.
    var words = text.replace(p.syntax, " ").replace(/"/g, " ").split(/\s+/).filter(Boolean);
    var counted = new Set(), self = this;
    parsed.phrases = parsed.phrases.filter(function (phrase) {
      if (self.fits(phrase, counted)) return true;
      parsed.left_out.push('"' + phrase + '"');
      return false;
    });
    var kept = 0;
    while (kept < words.length && this.fits(words[kept], counted)) kept++;
    if (kept < words.length) {  // the words of the first that does not fit that do (a,b,c/d)
      var cut = 0, match, counting = new RegExp(p.counted.source, "gu");
      while ((match = counting.exec(words[kept])) && this.fits(match[0], counted)) cut = counting.lastIndex;
      if (cut) { words.splice(kept, 1, words[kept].slice(0, cut), words[kept].slice(cut)); kept++; }
    }
    parsed.text = words.slice(0, kept).join(" ");
    parsed.left_out = parsed.left_out.concat(words.slice(kept));
    return parsed;
  };

  // Whether a text's counted words, beside those counted so far, stay within the bound; if
  // they do, they are counted.
  OfflineIndex.prototype.fits = function (text, counted) {
    var fresh = new Set(), p = this.patterns, match, counting = new RegExp(p.counted.source, "gu");
    var lower = text.toLowerCase();
    while ((match = counting.exec(lower))) {
      if (!p.functionWords.has(match[0]) && !counted.has(match[0])) fresh.add(match[0]);
    }
    if (counted.size + fresh.size > this.ranking.max_query_words) return false;
    fresh.forEach(function (word) { counted.add(word); });
    return true;
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
      var numbers = unvlq(packed), s = this.data.scoring[field], doc = -1;  // gaps from -1 (offline_copy._postings)
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

  // The query's tokens per field with their boosts, split as the server's engine splits them:
  // `terms` find; `common` (tokens common in a field while rarer ones remain) only add to the
  // scores of what the terms found outside the recall field.
  OfflineIndex.prototype.engineTerms = function (query) {
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
    return rare.size ? { terms: rare, common: common } : { terms: boosts, common: new Map() };
  };

  // The body tokens a query's phrases require: each phrase's uncommon ones, or its rarest.
  OfflineIndex.prototype.phraseTokens = function (phrases) {
    var must = [], self = this;
    phrases.forEach(function (phrase) {
      var tokens = self.tokens("body", phrase);
      if (!tokens.length) return;
      var kept = tokens.filter(function (tok) { return !self.common.body.has(tok); });
      if (!kept.length) {
        kept = [tokens.reduce(function (a, b) { return self.postings("body", b).size < self.postings("body", a).size ? b : a; })];
      }
      kept.forEach(function (tok) { must.push(tok); });
    });
    return must;
  };

  OfflineIndex.prototype.engineSearch = function (query, limit) {
    var split = this.engineTerms(query), terms = split.terms, common = split.common, self = this;
    var must = this.phraseTokens(query.phrases);
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

  // What the other parts share with this one.
  OfflineIndex.parts = {
    NOT_WORD: NOT_WORD, CACHE_SIZE: CACHE_SIZE, QueryError: QueryError, remember: remember, unvlq: unvlq,
    shown: shown, shownLang: shownLang, textsOf: textsOf, plainText: plainText, heading: heading,
    rangeEnd: rangeEnd, termsText: termsText, trigrams: trigrams, level: level,
  };
  root.OfflineIndex = OfflineIndex;
})(typeof self !== "undefined" ? self : this);

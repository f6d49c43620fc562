// The ranking of a query's candidates and the jump to a rule by its number.
// A part of the offline search: offline-search/index.js says how the parts fit.
(function (OfflineIndex) {
  "use strict";
  var parts = OfflineIndex.parts;
  var heading = parts.heading, rangeEnd = parts.rangeEnd, termsText = parts.termsText, level = parts.level;

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
      for (var j = i + 1; j <= Math.min(words.length, i + self.ranking.term_words); j++) spans.push([i, j]);
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
      var weight = entry.primary ? self.ranking.expansion : self.ranking.expansion * self.ranking.variant_share;
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
    return words.length >= this.ranking.subject_words && subject.length && /^[\x00-\x7f]*$/.test(text) ? subject.join(" ") : text;
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

  // The engine's candidates of a query, with the texts of the glossary term it names in its
  // other forms, scaled so that the best is 1 (Candidates).
  OfflineIndex.prototype.candidates = function (parsed, query) {
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
    return scores;
  };

  // What the query's words say beyond the engine's scores (Bonuses): names, obsolete terms,
  // keywords and their headings, titles, the literal text, a question's words and a term's
  // definition, added to `scores` in place; a keyword heading's subrules just below it.
  OfflineIndex.prototype.addBonuses = function (parsed, scores) {
    var R = this.ranking, S = this.data.stages, self = this;
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
  };

  OfflineIndex.prototype.ranked = function (parsed, query) {
    var S = this.data.stages, self = this, scores = this.candidates(parsed, query);
    this.addBonuses(parsed, scores);
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

  // The rules a query names among its words before what its words find, and those rules'
  // records (`named`) (RuleJumps.named_first).
  OfflineIndex.prototype.namedFirst = function (parsed, ranked) {
    if (!this.data.stages.named_rules) return { ranked: ranked, named: new Set() };
    var first = this.rulesNamed(parsed.named_rules, parsed.filters).ranked, seen = new Set();
    if (!first.length) return { ranked: ranked, named: new Set() };
    return { ranked: first.concat(ranked).filter(function (pair) { return !seen.has(pair[0]) && seen.add(pair[0]); }),
             named: new Set(first.map(function (pair) { return pair[0]; })) };
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
})((typeof self !== "undefined" ? self : this).OfflineIndex);

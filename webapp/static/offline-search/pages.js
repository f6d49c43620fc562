// The pages of cards, planes, terms and documents, and the book: contents, steps and glossary.
// A part of the offline search: offline-search/index.js says how the parts fit.
(function (OfflineIndex) {
  "use strict";
  var parts = OfflineIndex.parts;
  var heading = parts.heading, level = parts.level;

  // --- the pages of cards, planes, terms and documents (webapp/present.py record_view) -------

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
      text: self.blocks(r.text, r.langs, script),
      abilities: (r.abilities || []).map(function (a) { return self.blocks(a, r.langs, script); }),
      rulings: (r.rulings || []).map(function (ru) { return self.blocks(ru, r.langs, script); }),
      examples: (r.examples || []).map(function (ex) { return self.blocks(ex, r.langs, script); }),
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
          text: self.blocks(r.text, r.langs, script),
          abilities: (r.abilities || []).map(function (a) { return self.blocks(a, r.langs, script); }),
          rulings: (r.rulings || []).map(function (ru) { return self.blocks(ru, r.langs, script); }),
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
      also: (t.also || []).map(function (n) { return { number: n, url: "/rules/" + n + "?edition=" + t.edition }; }),
      number_now: now ? { number: now.number, name: heading(now, script), url: now.url } : null,
      ended: t.ended || null,
    };
  };

  // --- the book: contents, a rule's place and what is under it, the glossary (webapp/book.py) --

  // A rule's own title (702.79 Persist), none for a numbered paragraph (510.1).
  OfflineIndex.prototype.ownTitle = function (r, script) {
    var titled = level(r.number) === 0 || r.langs.some(function (lang) {
      return r.title && r.text && r.title[lang] && r.title[lang] === r.text[lang];
    });
    return titled ? this.blocks(r.title, r.langs, script) : [];
  };

  OfflineIndex.prototype.chapterTitles = function (chapter, script) {
    return chapter ? this.blocks(chapter.title, chapter.langs, script) : [];
  };

  // The numbers of one level of today's rules, in rule order (made once).
  OfflineIndex.prototype.levelOrder = function (depth) {
    this.orders = this.orders || {};
    if (!this.orders[depth]) {
      var edition = this.data.edition, self = this;
      this.orders[depth] = Array.from(this.byNumber.keys()).filter(function (n) {
        return (depth === null || level(n) === depth) && self.byNumber.get(n).some(function (i) {
          return self.records[i].edition === edition;
        });
      }).sort(function (a, b) { return self.records[self.byNumber.get(a)[0]].order - self.records[self.byNumber.get(b)[0]].order; });
    }
    return this.orders[depth];
  };

  // The rules before and after one as the book is read (indexer.knowledge.book.Book.steps).
  OfflineIndex.prototype.steps = function (number, script) {
    var order = this.levelOrder(level(number) === 2 ? null : level(number)), at = order.indexOf(number), self = this;
    var summary = function (n) {
      var i = n === undefined ? undefined : self.ruleRecords(n, self.data.edition)[0];
      if (i === undefined) return null;
      var r = self.records[i];
      var title = self.ownTitle(r, script).length ? heading(r, script) : n + " " + self.opening(r, script);
      return { number: n, title: title, url: r.url };
    };
    return at < 0 ? [null, null] : [summary(order[at - 1]), summary(order[at + 1])];
  };

  // How a numbered paragraph's text starts, naming it in a previous or next link (present._opening).
  OfflineIndex.prototype.opening = function (r, script) {
    var shown = this.blocks(r.text || {}, r.langs, script);
    var chinese = script ? shown.filter(function (b) { return b.lang !== "en"; })[0] : null;
    var text = Array.from((chinese || shown[0] || { text: "" }).text.split(/\s+/).filter(Boolean).join(" "));
    var most = this.data.pages.neighbour_chars;
    return text.length <= most ? text.join("") : text.slice(0, most).join("") + "…";
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
    this.under(number, edition).forEach(function (i) {
      var rules = [i];
      if (level(self.records[i].number) === 1) rules = rules.concat(self.under(self.records[i].number, edition));
      rules.forEach(function (j) {
        var r = self.records[j], depth = level(r.number);
        out.push({ number: r.number, edition: edition, url: "/rules/" + r.number, depth: depth,
                   title: depth === 1 ? self.ownTitle(r, script) : [], text: self.blocks(r.text || {}, r.langs, script),
                   examples: (r.examples || []).map(function (ex) { return self.blocks(ex, r.langs, script); }) });
      });
    });
    return out;
  };

  // Where a rule of today's rules stands in the book (webapp/book.place_view).
  OfflineIndex.prototype.place = function (number, script) {
    var chapter = this.data.book.chapters[number.charAt(0)];
    if (!chapter) return null;
    var section = level(number) ? this.ruleRecords(number.split(".")[0], this.data.edition)[0] : undefined;
    var s = section === undefined ? null : this.records[section], self = this;
    return {
      contents: "/rules",
      chapter: { number: number.charAt(0), title: self.chapterTitles(chapter, script), url: "/rules#chapter-" + number.charAt(0) },
      section: s ? { number: s.number, title: self.blocks(s.title, s.langs, script), url: "/rules/" + s.number } : null,
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
                            title: self.chapterTitles(self.data.book.chapters[first], script), sections: [] };
        chapters.push(byNumber[first]);
      }
      byNumber[first].sections.push({
        number: number, url: "/rules/" + number, title: self.blocks(s.title, s.langs, script),
        rules: (self.children.get(edition + " " + number + " " + source) || []).map(function (j) {
          var r = self.records[j];
          return { number: r.number, url: "/rules/" + r.number, title: self.ownTitle(r, script) };
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
    var edition = this.data.edition, source = this.data.rules_file_prefix + edition, self = this;
    var readings = this.data.book.readings || {};
    var english = [], chinese = [];
    this.records.forEach(function (r) {
      if (r.kind !== "term" || r.source !== source) return;
      var entry = { id: r.id, url: r.url, names: self.blocks(r.names, r.langs, script) };
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
})((typeof self !== "undefined" ? self : this).OfflineIndex);

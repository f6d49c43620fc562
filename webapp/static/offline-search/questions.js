// A question read and ranked again as the server does.
// A part of the offline search: offline-search/index.js says how the parts fit.
(function (OfflineIndex) {
  "use strict";
  var parts = OfflineIndex.parts;
  var NOT_WORD = parts.NOT_WORD, CACHE_SIZE = parts.CACHE_SIZE, remember = parts.remember,
      unvlq = parts.unvlq, textsOf = parts.textsOf, heading = parts.heading, termsText = parts.termsText;

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

  // A query whose words outside its quotations are a question of their own, read again with
  // its quotations as words where they stand (Ranker.quotations).
  OfflineIndex.prototype.quotations = function (parsed) {
    var S = this.data.stages;
    if (!S.quotations || !S.asks || !parsed.phrases.length || !parsed.text) return parsed;
    if (this.lookedUp(parsed.text) || !this.asks(parsed.text, false)) return parsed;
    return Object.assign(this.parse(parsed.raw, false), { filters: parsed.filters });
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
      var length = text.split(/\s+/).filter(Boolean).length;
      return bm25(concepts, self.foldKey(text), length / S.mean_length, S.k1, S.b);
    });
  };

  // Each of the copy's rules that answered questions before, with the question's BM25 in them
  // (answered.Answered): [doc, score] pairs, the questions of each rule joined once, when first asked.
  OfflineIndex.prototype.answeredScores = function (concepts) {
    var A = this.data.questions.answered;
    if (!A) return [];  // a copy kept from a build before them
    if (!this.answeredTexts) {
      this.answeredTexts = A.rules.map(function (rule) {
        return rule[1].map(function (n) { return A.questions[n]; }).join("\n");
      });
    }
    var texts = this.answeredTexts;
    return A.rules.map(function (rule, n) {
      return [rule[0], bm25(concepts, texts[n], rule[2] / A.mean_length, A.k1, A.b)];
    });
  };

  // A folded text's BM25 over a question's concepts (statements.bm25): a concept's weight
  // times its count, its best form's, a form's its rarest piece's, saturated by k1 and
  // normalised by the text's length against the mean by b.
  function bm25(concepts, folded, relativeLength, k1, b) {
    var norm = k1 * (1 - b + b * relativeLength), total = 0;
    concepts.forEach(function (concept) {
      var count = 0;
      concept.forms.forEach(function (pieces) {
        count = Math.max(count, Math.min.apply(null, pieces.map(function (piece) { return occurrences(folded, piece); })));
      });
      if (count) total += concept.weight * count * (k1 + 1) / (count + norm);
    });
    return total;
  }

  // How many times `piece` occurs in `text`, not overlapping (Python's bytes.count).
  function occurrences(text, piece) {
    var count = 0, at = text.indexOf(piece);
    while (at >= 0) { count++; at = text.indexOf(piece, at + piece.length); }
    return count;
  }
})((typeof self !== "undefined" ? self : this).OfflineIndex);

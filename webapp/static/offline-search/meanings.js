// The words' meaning vectors, kept after the copy: a question ranked by what it means.
// A part of the offline search: offline-search/index.js says how the parts fit.
(function (OfflineIndex) {
  "use strict";
  var parts = OfflineIndex.parts;
  var heading = parts.heading, termsText = parts.termsText;

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
  // entries it finds cite, the rules that answered questions worded like it, then its best
  // candidates by the share of it each holds, squared, a heading alone answering nothing, and
  // a paragraph's subrules in their order (QuestionRanking.rerank). `scores`: doc -> score,
  // changed in place.
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
    if (S.answered && !parsed.filters.edition && !parsed.filters.source && !this.short(text)) {
      var answered = this.answeredScores(concepts), bestAnswered = 0;
      answered.forEach(function (pair) { bestAnswered = Math.max(bestAnswered, pair[1]); });
      if (bestAnswered > 0) {
        answered.forEach(function (pair) {
          if (pair[1] > 0 && self.passes(self.records[pair[0]], parsed.filters)) {
            scores.set(pair[0], (scores.get(pair[0]) || 0) + W.answered * pair[1] / bestAnswered);
          }
        });
      }
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
})((typeof self !== "undefined" ? self : this).OfflineIndex);

// The page's words in the viewer's language. Every sentence is written in English in the
// code, marked t("...") in the scripts and data-i18n in the HTML (data-i18n-label for an
// aria-label); the board sends its catalogue (/api/words: {English: translation}, made
// from lang/<code>/LC_MESSAGES/page.po) in the language the browser asks for
// (Accept-Language), or the one chosen on the page (remembered). Placeholders are named:
// t("Game {game} is over", { game: 3 }).
"use strict";

const LANG_KEY = "orbito-hw-lang";
let WORDS = {};
let REASONS = []; // the board's reasons (English, as events and answers carry them), said here

function compileReasons(pairs, wordFields = []) {
  // [[English template, translation]], the most words first: a reader for each template
  // (a field of ``wordFields`` is one word: a count, a square, a turn, a colour).
  return (pairs || []).map(([template, translated]) => {
    const names = [];
    const parts = template.split(/\{(\w+)\}/);
    const source = parts.map((part, index) => {
      if (index % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (names.includes(part)) return `\\k<${part}>`;
      names.push(part);
      return wordFields.includes(part) ? `(?<${part}>\\S+?)` : `(?<${part}>[\\s\\S]+?)`;
    }).join("");
    return { pattern: new RegExp(`^${source}$`), translated, words: parts.filter((p, i) => i % 2 === 0).join("").length };
  });
}

function inWords(text) {
  // A reason the board sent in English (a refusal, an answer's), in the page's language:
  // the template that reads it whole, its fields put back (each said too); where several
  // read it, the one that explains the most of it by its own words (as lang.reworded).
  return readReason(String(text ?? ""), new Map())[1];
}

function readReason(text, memo) {
  if (memo.has(text)) return memo.get(text);
  let best = [0, text];
  memo.set(text, best); // a field that reads as itself: no loop through it
  for (const reason of REASONS) {
    const match = reason.pattern.exec(text);
    if (match === null) continue;
    let score = reason.words;
    const fields = {};
    for (const [name, value] of Object.entries(match.groups || {})) {
      const [explained, said] = readReason(value, memo);
      score += explained;
      fields[name] = said;
    }
    if (score > best[0]) {
      best = [score, reason.translated.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? fields[name] : whole))];
    }
  }
  memo.set(text, best);
  return best;
}

function t(text, fields = {}) {
  const said = WORDS[text] || text;
  return said.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? String(fields[name]) : whole));
}

function translateStatic(root = document) {
  // The HTML's sentences: the English is kept in the attribute, so a change of language
  // translates from it again.
  for (const element of root.querySelectorAll("[data-i18n]")) {
    if (!element.dataset.i18n) element.dataset.i18n = element.textContent.trim().replace(/\s+/g, " ");
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of root.querySelectorAll("[data-i18n-label]")) {
    if (!element.dataset.i18nLabel) element.dataset.i18nLabel = element.getAttribute("aria-label");
    element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  }
}

function chosenLanguage() {
  // The viewer's own choice (remembered), else the link's (a seat's link carries the
  // language it was made in: ?lang=), else none: the board's, or the browser's.
  // (a seat across the internet carries it in its fragment, with the rest of its link).
  return localStorage.getItem(LANG_KEY) || new URLSearchParams(location.search).get("lang")
    || new URLSearchParams(location.hash.slice(1)).get("lang") || "";
}

async function loadWords(code = chosenLanguage()) {
  // The catalogue, then the HTML translated; the page draws in the chosen language from now.
  try {
    const response = await fetch(`/api/words${code ? `?lang=${encodeURIComponent(code)}` : ""}`);
    const answer = response.ok ? await response.json() : { lang: "en", languages: ["en"], words: {} };
    WORDS = answer.words || {};
    REASONS = compileReasons(answer.reasons, answer.word_fields);
    document.documentElement.lang = answer.lang;
    translateStatic();
    return answer;
  } catch {
    return { lang: "en", languages: ["en"], words: {} }; // the English as written
  }
}

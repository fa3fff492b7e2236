// The page's words in the viewer's language. Every sentence is written in English in the
// code, marked t("...") in the scripts and data-i18n in the HTML (data-i18n-label for an
// aria-label); the board sends its catalogue (/api/words: {English: translation}, made
// from lang/<code>/LC_MESSAGES/page.po) in the language the browser asks for
// (Accept-Language), or the one chosen on the page (remembered). Placeholders are named:
// t("Game {game} is over", { game: 3 }).
"use strict";

const LANG_KEY = "orbito-hw-lang";
let WORDS = {};

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

async function loadWords(code = localStorage.getItem(LANG_KEY) || "") {
  // The catalogue, then the HTML translated; the page draws in the chosen language from now.
  try {
    const response = await fetch(`/api/words${code ? `?lang=${encodeURIComponent(code)}` : ""}`);
    const answer = response.ok ? await response.json() : { lang: "en", languages: ["en"], words: {} };
    WORDS = answer.words || {};
    document.documentElement.lang = answer.lang;
    translateStatic();
    return answer;
  } catch {
    return { lang: "en", languages: ["en"], words: {} }; // the English as written
  }
}

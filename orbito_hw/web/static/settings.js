// The viewer's own settings, kept in this browser (localStorage): the theme (as the
// system's prefers-color-scheme, or light, or dark), the sounds (off until turned on) and
// the language (as the browser's Accept-Language, or chosen here). The sounds are made
// with WebAudio: no file is fetched.
"use strict";

const THEME_KEY = "orbito-hw-theme";
const SOUND_KEY = "orbito-hw-sounds";

function applyTheme(theme) {
  // "system" leaves it to prefers-color-scheme (style.css); light or dark wins over it.
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

applyTheme(localStorage.getItem(THEME_KEY) || "system");

function soundsOn() {
  return localStorage.getItem(SOUND_KEY) === "on";
}

let audio = null;

const TUNES = {
  // Notes (Hz) and their length (s): a rising pair for your turn, a low buzz for a refusal,
  // a short fanfare for the result.
  turn: [[660, 0.09], [880, 0.12]],
  refused: [[180, 0.25]],
  result: [[523, 0.12], [659, 0.12], [784, 0.22]],
};

function sound(name) {
  if (!soundsOn()) return;
  document.body.dataset.sound = name; // what was played last (the tests read it)
  try {
    audio = audio || new AudioContext();
    let at = audio.currentTime;
    for (const [pitch, length] of TUNES[name]) {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      tone.type = name === "refused" ? "square" : "sine";
      tone.frequency.value = pitch;
      volume.gain.setValueAtTime(0.12, at);
      volume.gain.exponentialRampToValueAtTime(0.001, at + length);
      tone.connect(volume).connect(audio.destination);
      tone.start(at);
      tone.stop(at + length);
      at += length;
    }
  } catch {
    // no WebAudio here: the page stays silent
  }
}

function setUpSettings(onLanguage) {
  const theme = $("theme");
  theme.value = localStorage.getItem(THEME_KEY) || "system";
  theme.addEventListener("change", () => {
    localStorage.setItem(THEME_KEY, theme.value);
    applyTheme(theme.value);
  });
  const sounds = $("sounds");
  sounds.checked = soundsOn();
  sounds.addEventListener("change", () => {
    localStorage.setItem(SOUND_KEY, sounds.checked ? "on" : "off");
    if (sounds.checked) sound("turn"); // heard at once: the browser allows sound after a click
  });
  const language = $("language");
  language.value = localStorage.getItem(LANG_KEY) || "";
  language.addEventListener("change", async () => {
    if (language.value) localStorage.setItem(LANG_KEY, language.value);
    else localStorage.removeItem(LANG_KEY);
    await loadWords(language.value);
    onLanguage();
  });
}

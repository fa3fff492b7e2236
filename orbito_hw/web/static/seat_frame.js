// The seat's page, one frame for both seats (docs/seat.md): the seat at home (seat.html,
// served at /seat/TOKEN) and the seat across the internet (seat_remote.html, a static page any
// web host may serve); each HTML is only its head, and this script builds its body: the
// header, the colour the seat plays, the lines to read, the board, its controls, the asks and
// the turns. Loaded after words.js and board.js, before seat_pick.js and the page's transport
// (seat.js or seat_remote.js). Each sentence is marked t() and kept in data-i18n (or
// data-i18n-label), as the HTML's are: built before loadWords, t() gives the English, which
// loadWords then translates (words.js).
"use strict";

function frameElement(name, attributes = {}, ...children) {
  const made = document.createElement(name);
  for (const [attribute, value] of Object.entries(attributes)) made.setAttribute(attribute, value);
  made.append(...children);
  return made;
}

function sentence(name, attributes, text) {
  // An element whose text is one of the page's sentences, translated by loadWords.
  return frameElement(name, { ...attributes, "data-i18n": text }, text);
}

function seatButton(id, action, text, hidden = false) {
  const button = sentence("button", { id, type: "button", "data-action": action }, text);
  button.hidden = hidden;
  return button;
}

function buildSeatFrame() {
  const header = frameElement("header", {},
    sentence("h1", {}, t("Orbito: your seat")),
    sentence("span", { id: "link", class: "link", "data-link": "connecting" }, t("connecting")));
  const boardLabel = t("The board seen from above: rank 4 at the top, files a to d from the left; arrows choose a square, Enter plays it");
  const sideLabel = t("the board");
  // The board's draw offer, hidden unless one waits; the asks' state in #ask-state's data-ask:
  // "", asked, offered, agreed, refused (its text says the reason).
  const offer = frameElement("div", { id: "offer", class: "draw-offer", role: "alert" },
    sentence("p", {}, t("The person at the board offers a draw.")),
    frameElement("div", { class: "row" },
      seatButton("accept-draw", "seat-accept", t("Accept the draw")),
      seatButton("decline-draw", "seat-decline", t("Decline"))));
  offer.hidden = true;
  const side = frameElement("section", { class: "board-side", "aria-label": sideLabel, "data-i18n-label": sideLabel },
    frameElement("div", {
      id: "board", class: "board", role: "group", tabindex: "0",
      "aria-label": boardLabel, "data-i18n-label": boardLabel,
    }),
    frameElement("div", { class: "row" },
      seatButton("press", "seat-press", t("Press (full board)"), true),
      seatButton("cancel", "seat-cancel", t("Cancel the move"), true)),
    // Asks across the board: a take-back of the seat's last turn, a draw; the person at the
    // board answers.
    frameElement("div", { class: "row asks" },
      seatButton("ask-take-back", "seat-take-back", t("Ask to take back")),
      seatButton("ask-draw", "seat-draw", t("Offer a draw"))),
    offer,
    frameElement("div", { id: "result", class: "result", "data-result": "" }),
    sentence("h2", { id: "turns-title" }, t("Turns")),
    frameElement("ol", { id: "turns", class: "turns", "aria-labelledby": "turns-title" }));
  // What the link plays, then the one line to read: whose turn, or why the seat is closed.
  const main = frameElement("main", { class: "seat" },
    frameElement("p", { id: "colour", class: "who", "data-colour": "" }),
    sentence("p", { id: "instruction", class: "instruction", role: "status", "aria-live": "polite", "data-waiting": "" },
      t("Opening your seat…")),
    frameElement("p", { id: "refusal", class: "refusal", role: "alert", "data-refusal": "" }),
    frameElement("p", { id: "ask-state", class: "ask-state", role: "status", "aria-live": "polite", "data-ask": "" }),
    side);
  document.body.prepend(header, main);
}

function say(text) {
  $("instruction").textContent = text;
}

function refuse(text) {
  $("refusal").textContent = text;
  $("refusal").dataset.refusal = text ? "yes" : "";
}

function setLink(state) {
  $("link").dataset.link = state;
  $("link").textContent = state === "live" ? t("live") : t("reconnecting");
  // The lines that depend on the link (a turn sent or queued) said again.
  if (typeof seatTransport !== "undefined" && seatTransport !== null) drawSeat();
}

function showColour(colour) {
  $("colour").dataset.colour = colour;
  $("colour").textContent = colour === "black"
    ? t("You play black, from away: the person at the board makes your turns for you.")
    : t("You play white, from away: the person at the board makes your turns for you.");
}

buildSeatFrame();

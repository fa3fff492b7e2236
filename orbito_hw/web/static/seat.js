// A seat: a player at home plays one colour of the board's game from this page. The link's
// token (/seat/TOKEN) is the seat: a reload, or a phone that slept, is the same seat. The
// board follows live from /events (the main page's snapshots); a turn is made here by
// clicks (or the arrows and Enter) and sent to /api/seat/TOKEN/turn, which checks it with
// the rules; the person at the board then makes it, guided by the LEDs, and it counts once
// the board has read it and the button is pressed. board.js draws; words.js says (t).
"use strict";

const TOKEN = decodeURIComponent(location.pathname.split("/").pop());
const FILES = "abcd";
let me = null; // /api/seat/TOKEN: the colour this link plays
let last = null; // the last snapshot
let waiting = null; // {number, turn}: handed in, not yet made at the board
let pick = { from: null, to: null }; // a move chosen before the placement
let cursor = "a1"; // the square the keys are on

function colourName(colour) {
  return colour === "black" ? t("black") : t("white");
}

function say(text) {
  $("instruction").textContent = text;
}

function refuse(text) {
  $("refusal").textContent = text;
  $("refusal").dataset.refusal = text ? "yes" : "";
}

// --- the link -----------------------------------------------------------------------------
async function ask() {
  const response = await fetch(`/api/seat/${encodeURIComponent(TOKEN)}`);
  if (!response.ok) {
    closed(response.status, await errorOf(response));
    return false;
  }
  me = await response.json();
  document.body.dataset.seat = "live";
  $("colour").dataset.colour = me.colour;
  $("colour").textContent = me.colour === "black"
    ? t("You play black, from away: the person at the board makes your turns for you.")
    : t("You play white, from away: the person at the board makes your turns for you.");
  waiting = me.shown ? { number: me.number, turn: me.shown } : null;
  heardAsks(me.ask, me.answer);
  return true;
}

function closed(status, why) {
  const state = status === 404 ? "unknown" : status === 410 ? "revoked" : "error";
  document.body.dataset.seat = state;
  say(state === "unknown" ? t("No such seat: ask the person at the board for a new link.")
    : state === "revoked" ? t("This link is closed: it was revoked at the board, or its game is over.")
      : t("The board did not answer ({why}): try again in a moment.", { why }));
}

function connect() {
  const stream = new EventSource("/events");
  stream.onopen = () => setLink("live");
  stream.onerror = () => {
    setLink("reconnecting");
    if (stream.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
  };
  stream.onmessage = (message) => {
    const event = readEvent(message);
    if (event === null) return;
    if (event.event === "snapshot") draw(event);
    else if (event.event === "answer") heardAsks(null, event);
    else if (event.event === "new-game") ask(); // this link's game may be over
  };
}

function setLink(state) {
  const link = $("link");
  link.dataset.link = state;
  link.textContent = state === "live" ? t("live") : t("reconnecting");
}

// --- drawing ------------------------------------------------------------------------------
function myTurn() {
  return last !== null && me !== null && !last.result && last.to_move === me.colour && waiting === null;
}

function draw(s) {
  last = s;
  if (waiting !== null && s.turns.length >= waiting.number) waiting = null; // made and pressed
  for (const square of $("board").querySelectorAll("[data-square]")) {
    const name = square.dataset.square;
    const led = s.leds[name] || "";
    square.dataset.marble = s.marbles[name] || "";
    // The board's lights as its page draws them: a ring in the LED's colour while it is on,
    // a faint dashed one for a step waiting or a blink's off half (style.css).
    const glow = (s.glows || {})[name] || null;
    square.dataset.led = led;
    square.dataset.glow = glow ? glow.kind : led ? "lit" : "";
    square.style.setProperty("--glow", glow ? glow.colour : led || "transparent");
    square.dataset.pick = name === pick.from ? "from" : name === pick.to ? "to" : "";
    square.dataset.cursor = String(name === cursor);
  }
  const turns = $("turns");
  turns.replaceChildren(...s.turns.map((token) => {
    const item = document.createElement("li");
    item.dataset.turn = token;
    item.textContent = token;
    return item;
  }));
  showResult(s.result, s.lines);
  heardAsks(s.ask, s.answered);
  const full = Object.keys(s.marbles).length === 16;
  $("press").hidden = !(myTurn() && full);
  $("cancel").hidden = pick.from === null;
  $("instruction").dataset.waiting = waiting ? waiting.turn : "";
  if (s.result) say(t("The game is over."));
  else if (waiting) say(t("Your turn {turn} is on the board's lights: the person at the board makes it and presses.", { turn: waiting.turn }));
  else if (myTurn()) say(pick.from === null
    ? t("Your turn: click an empty square to place your marble, or one of the other colour's marbles to move it first.")
    : pick.to === null ? t("Move {square} to which empty square next to it?", { square: pick.from })
      : t("Now the empty square to place your marble on."));
  else say(t("The person at the board is playing {colour}.", { colour: colourName(me.colour === "black" ? "white" : "black") }));
}

// --- making a turn ------------------------------------------------------------------------
function marbleOn(square) {
  if (square === pick.to) return pick.from ? last.marbles[pick.from] : "";
  if (square === pick.from && pick.to) return "";
  return last.marbles[square] || "";
}

function adjacent(a, b) {
  const df = Math.abs(FILES.indexOf(a[0]) - FILES.indexOf(b[0]));
  const dr = Math.abs(Number(a[1]) - Number(b[1]));
  return df + dr === 1;
}

function choose(square) {
  refuse("");
  if (!myTurn()) {
    refuse(waiting ? t("Your turn is being made at the board.") : t("It is not your turn."));
    return;
  }
  const marble = marbleOn(square);
  if (pick.from === null) {
    if (marble === me.colour) {
      refuse(t("{square} holds your own marble: only one of the other colour's may be moved.", { square }));
    } else if (marble) {
      pick.from = square;
    } else {
      send(square);
    }
  } else if (pick.to === null) {
    if (square === pick.from) pick.from = null;
    else if (!marble && adjacent(pick.from, square)) pick.to = square;
    else refuse(t("{square} is not an empty square next to {from}.", { square, from: pick.from }));
  } else if (marble) {
    refuse(t("{square} is taken: place on an empty square.", { square }));
  } else {
    send(`${pick.from}-${pick.to}:${square}`);
  }
  draw(last);
}

async function send(turn) {
  const number = last.turns.length + 1;
  pick = { from: null, to: null };
  let response;
  try {
    response = await fetch(`/api/seat/${encodeURIComponent(TOKEN)}/turn`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ number: String(number), turn }),
    });
  } catch (error) {
    refuse(t("The board did not answer ({why}): try again in a moment.", { why: error.message }));
    return;
  }
  if (response.ok) {
    waiting = { number, turn };
  } else if (response.status === 404 || response.status === 410) {
    closed(response.status, await errorOf(response));
  } else {
    refuse(t("Refused: {reason}", { reason: await errorOf(response) }));
  }
  if (last) draw(last);
}

function key(event) {
  const file = FILES.indexOf(cursor[0]);
  const rank = Number(cursor[1]);
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  if (event.key in moves) {
    const [df, dr] = moves[event.key];
    const f = Math.min(3, Math.max(0, file + df));
    const r = Math.min(4, Math.max(1, rank + dr));
    cursor = FILES[f] + r;
    event.preventDefault();
    if (last) draw(last);
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    if (last) choose(cursor);
  } else if (event.key === "Escape") {
    pick = { from: null, to: null };
    if (last) draw(last);
  }
}

// --- asks across the board: a take-back, a draw (docs/seat.md) -----------------------------
// The seat asks (POST /api/seat/TOKEN/ask); the person at the board answers on the board's
// page, or agrees to a take-back with a hold of the button; the board's own draw offer is
// answered here (POST .../answer). What stands comes with each snapshot (ask, answered).
let asking = null; // {what, colour, number}: the ask waiting, this seat's or the board's
let answered = null; // the last answer of the game: {what, colour, agreed, reason}

function heardAsks(ask, answer) {
  asking = ask || null;
  if (answer) answered = answer; // kept: an agreed draw ends the game and its snapshots
  showAsks();
}

function showAsks() {
  if (me === null) return;
  const mine = asking !== null && asking.colour === me.colour;
  const offered = asking !== null && !mine;
  const over = last !== null && Boolean(last.result);
  $("ask-take-back").hidden = over || asking !== null;
  $("ask-draw").hidden = over || asking !== null;
  $("offer").hidden = !offered;
  let state = "";
  let text = "";
  if (mine) {
    state = "asked";
    text = asking.what === "draw"
      ? t("You offered a draw: waiting for the person at the board.")
      : t("You asked to take back your last turn: waiting for the person at the board.");
  } else if (offered) {
    state = "offered";
  } else if (answered !== null && answered.agreed) {
    state = "agreed";
    text = answered.what === "draw" ? t("A draw, agreed.")
      : t("Agreed: your last turn is taken back on the board.");
  } else if (answered !== null && answered.colour === me.colour) {
    state = "refused";
    text = answered.what === "draw"
      ? t("Your draw offer was not accepted: {reason}", { reason: answered.reason })
      : t("Your take-back was not agreed: {reason}", { reason: answered.reason });
  }
  $("ask-state").dataset.ask = state;
  $("ask-state").textContent = text;
}

async function askOrAnswer(path, fields) {
  refuse("");
  let response;
  try {
    response = await fetch(`/api/seat/${encodeURIComponent(TOKEN)}/${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(fields),
    });
  } catch (error) {
    refuse(t("The board did not answer ({why}): try again in a moment.", { why: error.message }));
    return;
  }
  if (response.ok) {
    const said = await response.json();
    heardAsks(said.ask, said.answer);
  } else if (response.status === 404 || response.status === 410) {
    closed(response.status, await errorOf(response));
  } else {
    refuse(t("Refused: {reason}", { reason: await errorOf(response) }));
  }
}

function setUpAsks() {
  $("ask-take-back").addEventListener("click", () => askOrAnswer("ask", { what: "take-back" }));
  $("ask-draw").addEventListener("click", () => askOrAnswer("ask", { what: "draw" }));
  $("accept-draw").addEventListener("click", () => askOrAnswer("answer", { agree: "yes" }));
  $("decline-draw").addEventListener("click", () => askOrAnswer("answer", { agree: "no" }));
}

async function start() {
  await loadWords();
  setUpAsks();
  buildPositionBoard($("board"));
  $("board").addEventListener("click", (event) => {
    const square = event.target.closest("[data-square]");
    if (square && last) {
      cursor = square.dataset.square;
      choose(square.dataset.square);
    }
  });
  $("board").addEventListener("keydown", key);
  $("press").addEventListener("click", () => send("*"));
  $("cancel").addEventListener("click", () => {
    pick = { from: null, to: null };
    if (last) draw(last);
  });
  // A phone that slept: the page asks again where its seat stands when it is seen again.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && me) ask();
  });
  if (await ask()) connect();
}

start();

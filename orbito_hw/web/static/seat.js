// A seat: a player at home plays one colour of the board's game from this page. The link's
// token (/seat/TOKEN) is the seat: a reload, or a phone that slept, is the same seat. The
// board follows live from /events (the main page's snapshots); a turn is made here by
// clicks (or the arrows and Enter: seat_pick.js) and sent to /api/seat/TOKEN/turn, which
// checks it with the rules; the person at the board then makes it, guided by the LEDs, and it
// counts once the board has read it and the button is pressed. seat_frame.js builds the
// page; board.js draws; words.js says (t).
"use strict";

const TOKEN = decodeURIComponent(location.pathname.split("/").pop());
let me = null; // /api/seat/TOKEN: the colour this link plays
let last = null; // the last snapshot
let waiting = null; // {number, turn}: handed in, not yet made at the board
let linkSeen = false; // the last snapshot showed this link live on the board
const RECHECK_MS = 15000; // how often an idle page asks whether its link still stands

// --- the link -----------------------------------------------------------------------------
async function readSeat() {
  let response;
  try {
    response = await fetch(`/api/seat/${encodeURIComponent(TOKEN)}`);
  } catch (error) {
    if (me === null) closed(0, error.message);
    return false; // the board away: the link's state says so, the seat stays as it was
  }
  if (!response.ok) {
    const { why, state } = await problemOf(response);
    closed(response.status, why, state);
    return false;
  }
  me = await response.json();
  document.body.dataset.seat = "live";
  showColour(me.colour);
  waiting = me.shown ? { number: me.number, turn: me.shown } : null;
  heardAsks(me.ask, me.answer);
  return true;
}

async function problemOf(response) {
  // A refused request's reason, in the page's language, and a closed link's state.
  try {
    const body = await response.json();
    return { why: inWords(body.error || response.statusText), state: body.state || "" };
  } catch {
    return { why: response.statusText, state: "" };
  }
}

function closed(status, why, how = "") {
  // The link closed: why, and nothing left on the page that was about its game's moments
  // (a refusal, an ask's answer); a game over keeps its result, in this player's terms.
  const state = status === 404 ? "unknown" : status === 410 ? (how === "ended" ? "ended" : "revoked") : "error";
  document.body.dataset.seat = state;
  if (state !== "error") {
    refuse("");
    if ($("ask-state").dataset.ask !== "agreed") { // an agreed draw ended the game: it stays
      $("ask-state").textContent = "";
      $("ask-state").dataset.ask = "";
    }
    for (const id of ["ask-take-back", "ask-draw", "press", "cancel"]) $(id).hidden = true;
    $("offer").hidden = true;
  }
  say(state === "unknown" ? t("No such seat: ask the person at the board for a new link.")
    : state === "revoked" ? t("This link is closed: it was revoked at the board. Ask the person at the board for a new one.")
      : state === "ended" ? t("This link is closed: its game is over. The person at the board can make a new one.")
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
    if (event.event === "snapshot") heardSnapshot(event);
    else if (event.event === "answer") heardAsks(null, event);
    else if (event.event === "new-game") readSeat(); // this link's game may be over
  };
}

function heardSnapshot(s) {
  if (me !== null && last !== null && s.game !== me.game && s.game !== last.game) {
    // Another game on the board: this link's game is over. The page keeps the game it
    // played (its result) and asks where its link stands (closed with its game).
    if (document.body.dataset.seat === "live") readSeat();
    return;
  }
  last = s;
  const link = s.invitation;
  if (me !== null && link && link.colour === me.colour) {
    // The turn the link handed in, from this page or another on the same link: every page
    // of the link shows the same game.
    waiting = link.waiting ? { number: s.turns.length + 1, turn: link.waiting } : null;
  } else if (waiting !== null && s.turns.length >= waiting.number) {
    waiting = null; // made and pressed
  }
  const ours = Boolean(me !== null && link && link.colour === me.colour);
  if (linkSeen && !ours && document.body.dataset.seat === "live") {
    readSeat(); // the link gone from the board (revoked, a new game): the page says why
  }
  linkSeen = ours;
  heardAsks(s.ask, s.answered);
}

const BUSY = {
  "turning the rings back": () => t("Wait: the board is taking back a turn."),
  "waiting for the turn to be undone": () => t("Wait: the board is taking back a turn."),
  "setting up": () => t("Wait: the board is being set up."),
  correction: () => t("Wait: the person at the board is putting it right."),
  fault: () => t("Wait: the board has a fault; the person at the board sees it."),
  starting: () => t("Wait: the board is starting."),
};

function now() {
  // What seat_pick.js shows: the board's snapshot, as this link plays it.
  if (last === null || me === null) return null;
  const mine = asking !== null && asking.colour === me.colour ? asking : null;
  return {
    colour: me.colour, marbles: last.marbles, leds: last.leds, glows: last.glows,
    turns: last.turns, result: last.result, lines: last.lines, toMove: last.to_move,
    waiting: waiting ? waiting.turn : null, pending: null, sent: true,
    busy: last.result ? null : (BUSY[last.state] || (() => null))(),
    asks: {
      mine,
      offered: asking !== null && mine === null,
      word: answered === null ? null : { ...answered, mine: answered.colour === me.colour },
    },
  };
}

// --- the seat's requests: a turn, an ask, an answer -----------------------------------------
async function post(path, fields) {
  // The answer's JSON, or null (said on the page: refused with its reason, or the link closed).
  let response;
  try {
    response = await fetch(`/api/seat/${encodeURIComponent(TOKEN)}/${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(fields),
    });
  } catch (error) {
    refuse(t("The board did not answer ({why}): try again in a moment.", { why: error.message }));
    return null;
  }
  if (response.ok) return response.json();
  if (response.status === 404 || response.status === 410) {
    const { why, state } = await problemOf(response);
    closed(response.status, why, state);
  } else {
    refuse(t("Refused: {reason}", { reason: await errorOf(response) }));
  }
  return null;
}

async function send(turn) {
  const number = last.turns.length + 1;
  if (await post("turn", { number: String(number), turn }) !== null) waiting = { number, turn };
  drawSeat();
}

// Asks across the board (docs/seat.md): the seat asks (POST /api/seat/TOKEN/ask); the person
// at the board answers on the board's page, or agrees to a take-back with a hold of the
// button; the board's own draw offer is answered here (POST .../answer). What stands comes
// with each snapshot (ask, answered).
let asking = null; // {what, colour, number}: the ask waiting, this seat's or the board's
let answered = null; // the last answer of the game: {what, colour, agreed, reason}

function heardAsks(ask, answer) {
  asking = ask || null;
  if (answer) answered = answer; // kept: an agreed draw ends the game and its snapshots
  drawSeat();
}

async function askOrAnswer(path, fields) {
  const said = await post(path, fields);
  if (said !== null) heardAsks(said.ask, said.answer);
}

async function start() {
  await startSeat({
    now,
    send,
    ask: (what) => askOrAnswer("ask", { what }),
    answer: (agreed) => askOrAnswer("answer", { agree: agreed ? "yes" : "no" }),
  });
  // A phone that slept: the page asks again where its seat stands when it is seen again.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && me) readSeat();
  });
  // A link revoked from the command line (seat revoke) changes nothing on the board: the
  // page asks where its seat stands now and then, so it never says "your turn" on a dead link.
  setInterval(() => {
    if (document.visibilityState === "visible" && document.body.dataset.seat === "live") readSeat();
  }, RECHECK_MS);
  if (await readSeat()) connect();
}

start();

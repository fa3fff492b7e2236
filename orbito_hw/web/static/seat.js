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

// --- the link -----------------------------------------------------------------------------
async function readSeat() {
  const response = await fetch(`/api/seat/${encodeURIComponent(TOKEN)}`);
  if (!response.ok) {
    closed(response.status, await errorOf(response));
    return false;
  }
  me = await response.json();
  document.body.dataset.seat = "live";
  showColour(me.colour);
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
    if (event.event === "snapshot") heardSnapshot(event);
    else if (event.event === "answer") heardAsks(null, event);
    else if (event.event === "new-game") readSeat(); // this link's game may be over
  };
}

function heardSnapshot(s) {
  last = s;
  if (waiting !== null && s.turns.length >= waiting.number) waiting = null; // made and pressed
  heardAsks(s.ask, s.answered);
}

function now() {
  // What seat_pick.js shows: the board's snapshot, as this link plays it.
  if (last === null || me === null) return null;
  const mine = asking !== null && asking.colour === me.colour ? asking : null;
  return {
    colour: me.colour, marbles: last.marbles, leds: last.leds, glows: last.glows,
    turns: last.turns, result: last.result, lines: last.lines, toMove: last.to_move,
    waiting: waiting ? waiting.turn : null, pending: null,
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
    closed(response.status, await errorOf(response));
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
  if (await readSeat()) connect();
}

start();

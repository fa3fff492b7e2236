// A seat across the internet: this page plays one colour of a board's remote game through
// the MQTT broker the boards use (MQTT over WebSockets, vendor/mqtt.min.js), speaking the
// remote protocol as a board does (remote/protocol.py): its record, retained, under
// orbito-hw/GAME/COLOUR/record, and its presence (a last will) under .../online. The board
// cannot tell it from another board but by its hello's "kind": "seat". The link's fragment
// (#broker=...&game=...&colour=...&seat=...[&user=...&password=...]) says where and what;
// it never reaches a web host. The seat's id is the link's: a reload, another tab, a phone
// that slept, is the same seat. The clicks that make a turn are seat_pick.js's, as at home;
// seat_rules.js refuses an illegal turn before it is sent; seat_frame.js builds the page;
// board.js draws; words.js says (t).
"use strict";

const HERE = new URLSearchParams(location.hash.slice(1));
const SEAT = {
  broker: HERE.get("broker") || "",
  game: HERE.get("game") || "",
  colour: HERE.get("colour") || "",
  id: HERE.get("seat") || "",
  user: HERE.get("user"),
  password: HERE.get("password"),
};
const PREFIX = "orbito-hw";
const VERSION = 1;
const RETAINED_MS = 500; // the game's retained records, read before the hello (as link.py)
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const OTHER = SEAT.colour === "black" ? "white" : "black";
const KEPT = `orbito-hw-seat:${SEAT.game}:${SEAT.colour}:${SEAT.id}`; // localStorage

let client = null;
let mine = null; // this seat's record: {round, first, turns, takebacks}
let theirs = null; // the board's latest record (what is on the board and counted)
let opponent = null; // the board's id, trusted from the first record seen (as protocol.py)
let rival = null; // another seat's record of this colour, before this one has joined
let said = false; // the hello said on this connection (records are published after it only)
const online = {}; // board id -> whether its presence says online

function topicOf(colour, kind) {
  return `${PREFIX}/${SEAT.game}/${colour}/${kind}`;
}

// --- the records ----------------------------------------------------------------------------
function kept() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEPT) || "null");
    return saved && typeof saved === "object" ? saved : null;
  } catch {
    return null;
  }
}

function recordBytes(record) {
  return JSON.stringify({
    v: VERSION, game: SEAT.game, round: record.round, board: SEAT.id, colour: SEAT.colour,
    first: record.first, number: record.turns.length, turns: record.turns,
    takebacks: record.takebacks, kind: "seat",
  });
}

function publishMine() {
  // Nothing is said before the hello: a seat that finds its colour taken says nothing at all.
  if (!said) return;
  localStorage.setItem(KEPT, JSON.stringify({ ...mine, joined: true }));
  if (client && client.connected) {
    client.publish(topicOf(SEAT.colour, "record"), recordBytes(mine), { qos: 1, retain: true });
  }
}

function readRecord(text, colour) {
  // A record as protocol.py reads one (the same checks, the rules' replay); null if not.
  let obj;
  try {
    obj = JSON.parse(text);
  } catch {
    return null;
  }
  if (!obj || obj.v !== VERSION || obj.game !== SEAT.game || obj.colour !== colour) return null;
  if (typeof obj.board !== "string" || !NAME.test(obj.board)) return null;
  if (!Array.isArray(obj.turns) || obj.turns.length > 21 || obj.number !== obj.turns.length) return null;
  if (!["black", "white"].includes(obj.first) || !Number.isInteger(obj.round) || obj.round < 1) return null;
  if (!Number.isInteger(obj.takebacks) || obj.takebacks < 0) return null;
  if (obj.busy !== undefined && !(typeof obj.busy === "string" && NAME.test(obj.busy))) delete obj.busy;
  try {
    replayTurns(obj.first, obj.turns);
  } catch {
    return null;
  }
  return obj;
}

function newerOwn(record) {
  // This seat's record as another page on the same link published it, newer than this
  // page's: a turn more (that page's turn handed in), a take-back or a new round. Every
  // page on one link then shows the same game.
  if (record.round !== mine.round) return record.round > mine.round;
  if (record.takebacks !== mine.takebacks) return record.takebacks > mine.takebacks;
  return record.first === mine.first && record.turns.length > mine.turns.length && startsWith(record.turns, mine.turns);
}

function startsWith(longer, shorter) {
  return shorter.length <= longer.length && shorter.every((token, i) => longer[i] === token);
}

function follow() {
  // The board's record, taken as this seat's where it is newer: a new round, a take-back,
  // or the board's person's turn; a turn of this seat's waiting at the board is kept.
  if (theirs === null) return;
  const same = mine && mine.round === theirs.round && mine.takebacks === theirs.takebacks;
  const waits = same && mine.first === theirs.first && mine.turns.length === theirs.turns.length + 1
    && startsWith(mine.turns, theirs.turns);
  if (waits) return;
  const newer = mine === null || theirs.round > mine.round
    || (theirs.round === mine.round && theirs.takebacks > mine.takebacks)
    || (same && (mine.first !== theirs.first || startsWith(theirs.turns, mine.turns)));
  if (!newer) return;
  const changed = mine === null || JSON.stringify(mine.turns) !== JSON.stringify(theirs.turns)
    || mine.round !== theirs.round || mine.takebacks !== theirs.takebacks || mine.first !== theirs.first;
  mine = { round: theirs.round, first: theirs.first, turns: [...theirs.turns], takebacks: theirs.takebacks };
  if (changed) publishMine();
}

function onMessage(topic, payload) {
  const parts = topic.split("/");
  if (parts.length !== 4 || parts[0] !== PREFIX || parts[1] !== SEAT.game) return;
  const [, , colour, kind] = parts;
  const text = new TextDecoder().decode(payload);
  if (kind === "online") {
    try {
      const said = JSON.parse(text);
      if (said && typeof said.board === "string") online[said.board] = said.online === true;
    } catch { /* not ours */ }
  } else if (kind === "record") {
    const record = readRecord(text, colour);
    if (record === null) return;
    if (colour === SEAT.colour) {
      if (record.board === SEAT.id) { // this seat's: a reload, or another page on the same link
        if (mine === null || newerOwn(record)) {
          mine = { round: record.round, first: record.first, turns: record.turns, takebacks: record.takebacks };
          localStorage.setItem(KEPT, JSON.stringify({ ...mine, joined: true }));
        }
      } else {
        rival = record;
      }
    } else if (opponent === null || record.board === opponent) {
      opponent = record.board;
      theirs = record;
      follow();
      if (unread !== null) heardOffer(unread); // the board's offer, read before its record
    }
  } else if (kind === "offer" && colour === OTHER) {
    heardOffer(text);
  }
  if (document.body.dataset.seat === "live") drawSeat();
}

// --- the broker -----------------------------------------------------------------------------
function connect() {
  const saved = kept();
  if (saved && Array.isArray(saved.turns)) mine = { round: saved.round, first: saved.first, turns: saved.turns, takebacks: saved.takebacks };
  const will = JSON.stringify({ v: VERSION, board: SEAT.id, online: false, kind: "seat" });
  client = mqtt.connect(SEAT.broker, {
    clientId: `orbito-hw-seat-${SEAT.id}-${Math.random().toString(36).slice(2, 10)}`,
    username: SEAT.user || undefined,
    password: SEAT.password || undefined,
    keepalive: 10,
    reconnectPeriod: 1000,
    timerVariant: "native", // no worker from a blob: the page's policy allows none
    connectTimeout: 10_000,
    clean: true,
    will: { topic: topicOf(SEAT.colour, "online"), payload: will, qos: 1, retain: true },
  });
  client.on("connect", () => {
    said = false;
    setLink("live");
    client.subscribe(`${PREFIX}/${SEAT.game}/+/+`, { qos: 1 }, () => setTimeout(hello, RETAINED_MS));
  });
  client.on("reconnect", () => setLink("reconnecting"));
  client.on("offline", () => setLink("reconnecting"));
  client.on("error", (error) => {
    // Refused by the broker: a wrong or withdrawn user (MQTT 3.1.1 codes 4 and 5, MQTT 5's
    // 134 and 135) will be refused again: the page stops there instead of knocking each second.
    if ([4, 5, 134, 135].includes(error.code)) {
      client.end(true);
      document.body.dataset.seat = "revoked";
    }
    say(t("The broker refused the seat ({why}): ask the person at the board for a new link.", { why: error.message }));
  });
  client.on("message", onMessage);
}

function hello() {
  // As a board says hello (link.py): a colour held by another seat online stays its own.
  const joined = (kept() || {}).joined === true;
  if (!joined && rival !== null && online[rival.board]) {
    document.body.dataset.seat = "taken";
    say(t("Another player already has this seat: ask the person at the board for a new link."));
    client.end();
    return;
  }
  said = true;
  client.publish(topicOf(SEAT.colour, "online"),
    JSON.stringify({ v: VERSION, board: SEAT.id, online: true, kind: "seat" }), { qos: 1, retain: true });
  follow();
  if (mine !== null) publishMine(); // said again on every connection: a broker restarted forgets
  publishAsks();
  document.body.dataset.seat = "live";
  drawSeat();
}

// --- drawing --------------------------------------------------------------------------------
function shown() {
  // The board's position (the turns counted) and this seat's turn waiting at the board.
  const turns = theirs ? theirs.turns : mine ? mine.turns : [];
  const first = theirs ? theirs.first : mine ? mine.first : "black";
  const waiting = mine && theirs && mine.turns.length === theirs.turns.length + 1
    && startsWith(mine.turns, theirs.turns) ? mine.turns[mine.turns.length - 1] : null;
  return { position: replayTurns(first, turns), turns, waiting };
}

const BUSY = {
  "take-back": () => t("Wait: the board is taking back a turn."),
  correction: () => t("Wait: the person at the board is putting it right."),
  "setting-up": () => t("Wait: the board is being set up."),
};

function busyWords(record) {
  // What the board is doing instead of waiting for a turn, as its record says (optional in
  // version 1: an older board says nothing); a newer board's word: busy all the same.
  if (record === null || typeof record.busy !== "string") return null;
  return (BUSY[record.busy] || (() => t("Wait: the board is busy.")))();
}

function now() {
  // What seat_pick.js shows: the board's record (the turns counted), this seat's turn
  // waiting at the board, the asks.
  const { position, turns, waiting } = shown();
  return {
    colour: SEAT.colour, marbles: position.marbles, turns, result: position.result,
    lines: position.lines.map((line) => [...line].sort()), toMove: position.toMove, waiting,
    pending: theirs === null ? t("Waiting for the board to join the game…") : null,
    busy: position.result ? null : busyWords(theirs), // as the board's record says (protocol.py)
    queued: !(client && client.connected && said), // the turn kept here, published once back
    boardAway: opponent !== null && online[opponent] === false,
    asks: {
      mine: standing(asks.ask, asks.round) ? asks.ask : null,
      offered: boardAsk !== null && standing(boardAsk, boardAsk.round),
      word: lastWord,
    },
  };
}

// --- making a turn --------------------------------------------------------------------------
function send(token) {
  // The turn added to this seat's record and published: the board shows it on its LEDs.
  const fault = turnFault(shown().position, token);
  if (fault) {
    refuse(t("Refused: {reason}", { reason: inWords(fault) }));
    return;
  }
  mine = { round: theirs.round, first: theirs.first, turns: [...theirs.turns, token], takebacks: theirs.takebacks };
  publishMine();
}

// --- asks across the board over the broker: a take-back, a draw (docs/seat.md) ---------------
// This seat's latest ask and its latest answer to the board's draw offer, by id, in the round
// it plays, published (retained) under orbito-hw/GAME/COLOUR/offer as remote/offers.py reads
// them; the board's own offer message carries its answer to this seat's ask, and its draw
// offer. Kept in the browser too: a reload asks nothing twice. The board checks every ask
// (nothing to take back, one at a time, the game over) and answers a refusal with its reason.
const ASKS_KEPT = `${KEPT}:asks`;
const DECLINED = "declined by the player away"; // as control/seat.py's
let asks = keptAsks(); // {round, asked, ask: {id, what, number}|null, answer: {...}|null}
let boardAsk = null; // the board's draw offer: {id, what, number, round}
let lastWord = null; // the last answer, either way: {what, agreed, reason, mine}
let unread = null; // the board's offer message, heard before the board was known

function keptAsks() {
  try {
    const saved = JSON.parse(localStorage.getItem(ASKS_KEPT) || "null");
    if (saved && Number.isInteger(saved.asked)) return saved;
  } catch { /* none kept */ }
  return { round: 0, asked: 0, ask: null, answer: null };
}

function publishAsks() {
  localStorage.setItem(ASKS_KEPT, JSON.stringify(asks));
  if (!said || !client || !client.connected || (asks.ask === null && asks.answer === null)) return;
  const offer = JSON.stringify({
    v: VERSION, game: SEAT.game, round: asks.round, board: SEAT.id, colour: SEAT.colour,
    ask: asks.ask, answer: asks.answer,
  });
  client.publish(topicOf(SEAT.colour, "offer"), offer, { qos: 1, retain: true });
}

function thisRound() {
  // An ask and an answer are of the round the board plays: an older one is said no more.
  const round = theirs.round;
  if (asks.round !== round) asks = { ...asks, round, ask: null, answer: null };
}

function askBoard(what) {
  if (theirs === null) return;
  thisRound();
  asks.asked += 1;
  asks.ask = { id: asks.asked, what, number: theirs.turns.length };
  lastWord = null;
  publishAsks();
  drawSeat();
}

function answerBoard(agreed) {
  if (boardAsk === null || theirs === null) return;
  thisRound();
  asks.answer = { id: boardAsk.id, what: boardAsk.what, agreed, reason: agreed ? "" : DECLINED };
  lastWord = { what: boardAsk.what, agreed, reason: "", mine: false };
  boardAsk = null;
  publishAsks();
  drawSeat();
}

function heardOffer(text) {
  // The board's offer message, as remote/offers.py writes it: its answer to this seat's
  // latest ask, and its own draw offer (shown until answered, or the game goes on).
  let obj;
  try {
    obj = JSON.parse(text);
  } catch {
    return;
  }
  if (!obj || obj.v !== VERSION || obj.game !== SEAT.game || obj.colour !== OTHER) return;
  unread = opponent === null ? text : null;
  if (opponent === null || obj.board !== opponent || !Number.isInteger(obj.round)) return;
  const answer = obj.answer;
  if (answer && asks.ask && answer.id === asks.ask.id && obj.round === asks.round
      && typeof answer.agreed === "boolean") {
    lastWord = { what: answer.what, agreed: answer.agreed, reason: String(answer.reason || ""), mine: true };
    asks.ask = null; // answered: no longer standing
    localStorage.setItem(ASKS_KEPT, JSON.stringify(asks));
  }
  const ask = obj.ask;
  const answered = asks.answer && asks.round === obj.round ? asks.answer.id : 0;
  if (ask && ask.what === "draw" && Number.isInteger(ask.id) && ask.id > answered) {
    boardAsk = { id: ask.id, what: ask.what, number: ask.number, round: obj.round };
  }
}

function standing(ask, round) {
  // Whether an ask still stands: asked in this round, after the turns the board has now.
  return ask !== null && theirs !== null && round === theirs.round && ask.number === theirs.turns.length;
}

async function start() {
  await startSeat({ now, send, ask: askBoard, answer: answerBoard });
  const broker = /^wss?:\/\/[^/\s]+/.test(SEAT.broker);
  if (!broker || !NAME.test(SEAT.game) || !NAME.test(SEAT.id) || !["black", "white"].includes(SEAT.colour)) {
    document.body.dataset.seat = "unknown";
    say(t("This link is incomplete: ask the person at the board for a new link."));
    return;
  }
  showColour(SEAT.colour);
  connect();
}

start();

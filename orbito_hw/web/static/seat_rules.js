// Orbito's rules, as far as a seat across the internet needs them (rules/game.py is the
// reference; tests/test_seat_remote_rules.py replays games through both): the position a
// record reaches, whose turn it is, the result, and why a turn is refused, so that an
// illegal click is refused on the page before anything is sent (the board refuses anyway).
"use strict";

const RULE_FILES = "abcd";
const OUTER_RING = "a4 a3 a2 a1 b1 c1 d1 d2 d3 d4 c4 b4".split(" ");
const INNER_RING = "b2 c2 c3 b3".split(" ");
const EXTRA_PRESSES = 5;
const PRESS_TO = {}; // where a marble is after one press: both rings turn counter-clockwise
for (const ring of [OUTER_RING, INNER_RING]) {
  ring.forEach((square, i) => { PRESS_TO[square] = ring[(i + 1) % ring.length]; });
}
const SQUARES = Object.keys(PRESS_TO);
const LINES = [];
for (let i = 0; i < 4; i++) {
  LINES.push([1, 2, 3, 4].map((r) => RULE_FILES[i] + r)); // a file
  LINES.push([...RULE_FILES].map((f) => f + (i + 1))); // a rank
}
LINES.push([0, 1, 2, 3].map((i) => RULE_FILES[i] + (i + 1)), [0, 1, 2, 3].map((i) => RULE_FILES[3 - i] + (i + 1)));

function startPosition(first) {
  return { marbles: {}, toMove: first, extra: 0, result: null, lines: [] };
}

function parseTurn(token) {
  // "*", "a2" or "c1-c2:a2"; null for anything else.
  if (token === "*") return { place: null, from: null, to: null };
  let m = /^([a-d][1-4])$/.exec(token);
  if (m) return { place: m[1], from: null, to: null };
  m = /^([a-d][1-4])-([a-d][1-4]):([a-d][1-4])$/.exec(token);
  return m ? { place: m[3], from: m[1], to: m[2] } : null;
}

function isStep(a, b) {
  const df = Math.abs(RULE_FILES.indexOf(a[0]) - RULE_FILES.indexOf(b[0]));
  return df + Math.abs(Number(a[1]) - Number(b[1])) === 1;
}

function turnFault(position, token) {
  // Why ``token`` cannot be played in ``position`` (English, as the board says it); "" if it can.
  const turn = parseTurn(token);
  if (turn === null) return `${token} is not a turn`;
  if (position.result) return "the game is over";
  const full = Object.keys(position.marbles).length === 16;
  if (turn.place === null) return full ? "" : "an extra press (*) needs a full board; place a marble first";
  if (full) return "the board is full: only an extra press (*) is allowed";
  const occupied = { ...position.marbles };
  if (turn.from !== null) {
    if (occupied[turn.from] === position.toMove) return `${turn.from} holds your own marble; only an opponent marble may be moved`;
    if (!occupied[turn.from]) return `${turn.from} is empty, there is no marble to move`;
    if (!isStep(turn.from, turn.to)) return `${turn.from}-${turn.to} is not a step to an orthogonally adjacent square`;
    if (occupied[turn.to]) return `${turn.to} is occupied; a marble moves only to an empty square`;
    occupied[turn.to] = occupied[turn.from];
    delete occupied[turn.from];
  }
  if (occupied[turn.place]) return `${turn.place} is occupied; a marble is placed on an empty square`;
  return "";
}

function playTurn(position, token) {
  // The position after ``token`` and its press; an Error naming why if the rules refuse it.
  const fault = turnFault(position, token);
  if (fault) throw new Error(fault);
  const turn = parseTurn(token);
  const before = { ...position.marbles };
  if (turn.from !== null) {
    before[turn.to] = before[turn.from];
    delete before[turn.from];
  }
  if (turn.place !== null) before[turn.place] = position.toMove;
  const marbles = {};
  for (const [square, colour] of Object.entries(before)) marbles[PRESS_TO[square]] = colour;
  const extra = position.extra + (turn.place === null ? 1 : 0);
  const lines = LINES.filter((line) => line.every((s) => marbles[s] === marbles[line[0]] && marbles[s]));
  const colours = new Set(lines.map((line) => marbles[line[0]]));
  let result = null;
  if (colours.size === 2) result = "draw";
  else if (colours.size === 1) result = [...colours][0];
  else if (Object.keys(marbles).length === 16 && extra >= EXTRA_PRESSES) result = "draw";
  return { marbles, toMove: position.toMove === "black" ? "white" : "black", extra, result, lines };
}

function replayTurns(first, turns) {
  return turns.reduce(playTurn, startPosition(first));
}

if (typeof module !== "undefined") module.exports = { SQUARES, parseTurn, turnFault, playTurn, replayTurns };

// Making a turn on a seat's page, the same at home (seat.js) and across the internet
// (seat_remote.js): the clicks (or the arrows and Enter) that choose a marble of the other
// colour to move, its new square and the square to place on, or the press of a full board;
// the refusal of a click, with its reason, before anything is sent; the board drawn with the
// turn being chosen; and the asks' controls (a take-back, a draw). Only the transport is the
// page's own, handed to startSeat:
//   now()          what to show, or null before anything is known: {colour (the seat's),
//                  marbles {square: colour}, turns, result, lines, toMove, waiting (the seat's
//                  turn waiting at the board, or null), pending (a line to say while the game
//                  cannot be shown yet, or null), asks {mine (the seat's ask waiting), offered
//                  (the board's draw offer waiting), word (the last answer: {what, agreed,
//                  reason, mine})}, and optionally leds and glows (the board's lights)}
//   send(token)    hand a turn in ("a2", "c1-c2:a2", "*")
//   ask(what)      ask the person at the board: "take-back" or "draw"
//   answer(agreed) answer the board's draw offer
// Loaded after seat_rules.js (isStep, RULE_FILES) and seat_frame.js (say, refuse).
"use strict";

let seatTransport = null;
let pick = { from: null, to: null }; // a move chosen before the placement
let cursor = "a1"; // the square the keys are on

function myTurn(now) {
  return !now.pending && !now.busy && !now.result && now.toMove === now.colour && now.waiting === null;
}

function seatClosed() {
  // The link closed (seat.js's closed, seat_remote.js's refusals): its own line stands.
  return ["revoked", "unknown", "ended", "taken", "error"].includes(document.body.dataset.seat);
}

function linkLive() {
  return $("link").dataset.link === "live";
}

function seatResult(now) {
  // The result in this player's terms: won, lost or a draw; its line on the board too.
  const where = (now.lines || []).map((line) => line.join(" ")).join("; ");
  const words = now.result === "draw" ? t("Draw") : now.result === now.colour ? t("You won") : t("You lost");
  $("result").dataset.result = now.result;
  $("result").dataset.outcome = now.result === "draw" ? "draw" : now.result === now.colour ? "won" : "lost";
  $("result").textContent = where ? t("{result}: {lines}", { result: words, lines: where }) : words;
  return now.result === "draw" ? t("The game is over: a draw.")
    : now.result === now.colour ? t("The game is over: you won.") : t("The game is over: you lost.");
}

function waitingWords(now) {
  // Where the turn handed in is, said as it is: on the board's lights only once it got there.
  if (now.queued || !linkLive()) return t("Your turn {turn} is queued: it goes to the board when the link is back.", { turn: now.waiting });
  if (now.boardAway) return t("Your turn {turn} is sent: the board is offline, it shows it when it is back.", { turn: now.waiting });
  return t("Your turn {turn} is on the board's lights: the person at the board makes it and presses.", { turn: now.waiting });
}

function marbleOn(now, square) {
  // The marble shown on ``square``: the move being chosen is shown made.
  if (square === pick.to) return pick.from ? now.marbles[pick.from] || "" : "";
  if (square === pick.from && pick.to) return "";
  return now.marbles[square] || "";
}

// --- drawing --------------------------------------------------------------------------------
function drawSeat() {
  const now = seatTransport.now();
  if (now === null) return;
  const leds = now.leds || {};
  const glows = now.glows || {};
  for (const square of $("board").querySelectorAll("[data-square]")) {
    const name = square.dataset.square;
    const led = leds[name] || "";
    // The board's lights as its page draws them: a ring in the LED's colour while it is on,
    // a faint dashed one for a step waiting or a blink's off half (style.css).
    const glow = glows[name] || null;
    square.dataset.marble = marbleOn(now, name);
    square.dataset.led = led;
    square.dataset.glow = glow ? glow.kind : led ? "lit" : "";
    square.style.setProperty("--glow", glow ? glow.colour : led || "transparent");
    square.dataset.pick = name === pick.from ? "from" : name === pick.to ? "to" : "";
    square.dataset.cursor = String(name === cursor);
    const what = now.marbles[name] === "black" ? t("{square}: black marble", { square: name })
      : now.marbles[name] === "white" ? t("{square}: white marble", { square: name })
        : t("{square}: empty", { square: name });
    square.setAttribute("aria-label", what);
  }
  $("turns").replaceChildren(...now.turns.map((token) => {
    const item = document.createElement("li");
    item.dataset.turn = token;
    item.textContent = token;
    return item;
  }));
  if (now.result) seatResult(now);
  else showResult(null);
  $("result").dataset.outcome = now.result ? $("result").dataset.outcome : "";
  $("press").hidden = !(myTurn(now) && Object.keys(now.marbles).length === 16);
  $("cancel").hidden = pick.from === null;
  $("instruction").dataset.waiting = now.waiting || "";
  const other = now.colour === "black" ? t("white") : t("black");
  if (seatClosed()) {
    // closed (seat.js's closed): its own line stands; the board as it was
  } else if (now.pending) say(now.pending);
  else if (now.result) say(seatResult(now));
  else if (now.busy) say(now.busy);
  else if (now.waiting) say(waitingWords(now));
  else if (myTurn(now)) say(pick.from === null
    ? t("Your turn: click an empty square to place your marble, or one of the other colour's marbles to move it first.")
    : pick.to === null ? t("Move {square} to which empty square next to it?", { square: pick.from })
      : t("Now the empty square to place your marble on."));
  else say(t("The person at the board is playing {colour}.", { colour: other }));
  showAsks(now);
}

function showAsks(now) {
  const { mine, offered, word } = now.asks;
  const over = Boolean(now.pending || now.result) || seatClosed();
  // Nothing to ask while the board is busy (it would refuse): the buttons come back after.
  $("ask-take-back").hidden = over || Boolean(now.busy) || mine !== null || offered;
  $("ask-draw").hidden = over || Boolean(now.busy) || mine !== null || offered;
  $("offer").hidden = !offered;
  let state = "";
  let text = "";
  if (mine !== null) {
    state = "asked";
    text = mine.what === "draw"
      ? t("You offered a draw: waiting for the person at the board.")
      : t("You asked to take back your last turn: waiting for the person at the board.");
  } else if (offered) {
    state = "offered";
  } else if (word !== null && word.agreed) {
    state = "agreed";
    text = word.what === "draw" ? t("A draw, agreed.")
      : t("Agreed: your last turn is taken back on the board.");
  } else if (word !== null && word.mine && !over) { // a refusal is about a moment of the game
    state = "refused";
    text = word.what === "draw"
      ? t("Your draw offer was not accepted: {reason}", { reason: inWords(word.reason) })
      : t("Your take-back was not agreed: {reason}", { reason: inWords(word.reason) });
  }
  $("ask-state").dataset.ask = state;
  $("ask-state").textContent = text;
}

// --- making a turn --------------------------------------------------------------------------
function choose(square) {
  refuse("");
  const now = seatTransport.now();
  if (now === null) return;
  if (!myTurn(now)) {
    refuse(now.busy ? now.busy : now.waiting ? t("Your turn is being made at the board.")
      : now.result ? t("The game is over.") : t("It is not your turn."));
    return;
  }
  const marble = marbleOn(now, square);
  if (pick.from === null) {
    if (marble === now.colour) refuse(t("{square} holds your own marble: only one of the other colour's may be moved.", { square }));
    else if (marble) pick.from = square;
    else play(square);
  } else if (pick.to === null) {
    if (square === pick.from) pick.from = null;
    else if (!marble && isStep(pick.from, square)) pick.to = square;
    else refuse(t("{square} is not an empty square next to {from}.", { square, from: pick.from }));
  } else if (marble) {
    refuse(t("{square} is taken: place on an empty square.", { square }));
  } else {
    play(`${pick.from}-${pick.to}:${square}`);
  }
  drawSeat();
}

function play(token) {
  pick = { from: null, to: null };
  seatTransport.send(token);
}

function cancelPick() {
  pick = { from: null, to: null };
  drawSeat();
}

function seatKey(event) {
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  if (event.key in moves) {
    const [df, dr] = moves[event.key];
    const file = RULE_FILES.indexOf(cursor[0]) + df;
    const rank = Number(cursor[1]) + dr;
    cursor = RULE_FILES[Math.min(3, Math.max(0, file))] + Math.min(4, Math.max(1, rank));
    event.preventDefault();
    drawSeat();
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    if (document.body.dataset.seat === "live") choose(cursor);
  } else if (event.key === "Escape") {
    cancelPick();
  }
}

async function startSeat(transport) {
  // The words, the board and its controls; then the transport connects (its own start).
  seatTransport = transport;
  await loadWords();
  buildPositionBoard($("board"));
  $("board").addEventListener("click", (event) => {
    const square = event.target.closest("[data-square]");
    if (square && document.body.dataset.seat === "live") {
      cursor = square.dataset.square;
      choose(square.dataset.square);
    }
  });
  $("board").addEventListener("keydown", seatKey);
  $("press").addEventListener("click", () => {
    play("*");
    drawSeat();
  });
  $("cancel").addEventListener("click", cancelPick);
  const asking = (what) => () => {
    refuse("");
    what();
  };
  $("ask-take-back").addEventListener("click", asking(() => transport.ask("take-back")));
  $("ask-draw").addEventListener("click", asking(() => transport.ask("draw")));
  $("accept-draw").addEventListener("click", asking(() => transport.answer(true)));
  $("decline-draw").addEventListener("click", asking(() => transport.answer(false)));
}

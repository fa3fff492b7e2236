// The board's live page: draws each snapshot the controller sends on /events (the board
// itself with live_board.js), and sends the page's clicks and controls to /api/... . No
// framework, no build step: the controller serves this file as it is. The facts (square names, the rings, the hold time) come from
// the snapshot, so the page never keeps a second copy of them. Every sentence is English in
// the code, marked t("...") (words.js): the page shows it in the viewer's language.
"use strict";

const CODE_KEY = "orbito-hw-code";
const LOG_LIMIT = 40;

let last = null; // the last snapshot drawn
let turned = false; // a turn event came: the next snapshot slides the marbles
let code = localStorage.getItem(CODE_KEY) || "";
let queue = Promise.resolve(); // one request at a time, in the order they were made
let ended = null; // the last result event heard: {game, result, lines}
let archived = null; // the archive's record of the game the result is shown for
let seated = { game: null, colour: null }; // the colour a seat (a phone) played in a game: its
// link closes with the game, and the archive says "remote" of a seat and a board alike

function seatOf(game) {
  // The colour the player on the phone played in ``game``, as the snapshots said; else null.
  return seated.game === game ? seated.colour : null;
}
let puzzle = null; // /api/puzzle: the game's puzzle and how the try ended

// --- the stream ---------------------------------------------------------------------------
let stream = null; // the live stream, in the language its sentences come in
function connect() {
  // The board words its sentences (the instruction, who plays, the legend) in the page's
  // language: a change of language on the page opens a new stream in the new one.
  const lang = document.documentElement.lang || "en";
  if (stream) stream.close();
  const source = new EventSource(`/events?lang=${encodeURIComponent(lang)}`);
  source.lang = lang;
  stream = source;
  source.onopen = () => setLink("live");
  source.onerror = () => {
    setLink("reconnecting");
    if (source.readyState === EventSource.CLOSED && stream === source) {
      setTimeout(connect, 2000); // the browser gave up: start again
    }
  };
  source.onmessage = (message) => {
    const event = readEvent(message);
    if (event === null) return;
    if (event.event === "snapshot") {
      draw(event);
    } else {
      if (event.event === "turn") turned = true;
      if (event.event === "result") {
        ended = { game: event.game, result: event.result, lines: event.lines };
        sound("result");
      }
      if (event.event === "rejected") sound("refused");
      if (["puzzle", "setup", "setup-done", "new-game"].includes(event.event)) askPuzzle();
      logEvent(event);
    }
  };
}

// The words of the game's data (colours, values), each written out so the catalogue has it.
function colourWord(colour) {
  return colour === "black" ? t("black") : colour === "white" ? t("white") : colour;
}

function Colour(colour) {
  return colour === "black" ? t("Black") : t("White");
}

function valueWord(value) {
  return { win: t("win"), draw: t("draw"), loss: t("loss") }[value] || value;
}

function setLink(state) {
  const link = $("link");
  link.dataset.link = state;
  link.textContent = { connecting: t("connecting"), live: t("live"), reconnecting: t("reconnecting") }[state];
}

// --- drawing ------------------------------------------------------------------------------
const MARKS = { place: "+", fix: "!", undo: "\u00d7", back: "\u21a9", warning: "!" };

function squareLabel(name, marble, glow) {
  // What a screen reader says of a square: its name, its marble, what its light asks.
  let text = marble === "black" ? t("{square}: black marble", { square: name })
    : marble === "white" ? t("{square}: white marble", { square: name })
      : t("{square}: empty", { square: name });
  if (glow) text += t("; light: {meaning}", { meaning: glow.meaning }) + (glow.blink ? " " + t("(blinking)") : "");
  return text;
}

function draw(s) {
  buildLiveBoard(s);
  // News ends the rings' slide: the board as it stands now comes first.
  for (const slide of sliding) slide.finish();
  sliding = [];
  const slide = turned && last !== null && !quiet.matches;
  const before = last;
  turned = false;
  if (!before || before.game !== s.game || before.turns.length !== s.turns.length || s.phase === "rotating") {
    baseline = s.phase === "rotating" ? -1 : Object.keys(s.marbles).length;
  } else if (baseline < 0) {
    baseline = Object.keys(s.marbles).length;
  }
  last = s;
  change(document.body.dataset, "simulated", String(s.simulated));
  for (const square of $("board").querySelectorAll("[data-square]")) {
    const name = square.dataset.square;
    const led = s.leds[name] || "";
    const glow = (s.glows || {})[name] || null;
    const marble = s.marbles[name] || "";
    change(square.dataset, "marble", marble);
    if (change(square.dataset, "led", led)) square.style.setProperty("--led", led || "transparent");
    const kind = glow ? glow.kind : led ? "lit" : "";
    if (change(square.dataset, "glow", kind)) {
      square.querySelector(".mark").textContent = MARKS[kind] || "";
    }
    change(square.dataset, "blink", String(Boolean(glow && glow.blink)));
    const ring = glow ? glow.colour : led || "transparent";
    if (square.dataset.ring !== ring) {
      square.dataset.ring = ring;
      square.style.setProperty("--glow", ring);
    }
    const label = squareLabel(name, marble, glow);
    if (square.getAttribute("aria-label") !== label) square.setAttribute("aria-label", label);
    const inert = String(!s.simulated);
    if (square.getAttribute("aria-disabled") !== inert) square.setAttribute("aria-disabled", inert);
  }
  drawArrow(s.arrow);
  if (slide) slideMarbles(before, s);
  const status = $("status");
  if (change(status.dataset, "statusLed", s.status)) {
    status.style.setProperty("--led", s.status || "transparent");
  }
  change($("status-text"), "textContent", s.status_text || "");
  change($("hand"), "textContent", s.hand.length ? t("In the hand: {marbles}", { marbles: s.hand.map(colourWord).join(", ") }) : "");
  drawInstruction(s, before);
  drawLegend(s.legend || []);
  drawResult(s);
  drawPlayers(s);
  drawEval(s.eval);
  drawTurns(s);
  drawControls(s);
  followInvitation(s);
  drawPreview(s);
  if (!before || before.game !== s.game || Boolean(before.result) !== Boolean(s.result)) askPuzzle();
}

function change(target, key, value) {
  // Only what changed is written: the same attribute or text written again still costs every
  // open page a style pass, a layout and a paint. Answers whether it wrote.
  if (target[key] === value) return false;
  target[key] = value;
  return true;
}

function drawInstruction(s, before) {
  if (s.seat) seated = { game: s.game, colour: s.seat };
  // The line computed on the board (web/instruction.py): what the board wants now.
  const line = $("instruction");
  if (change(line.dataset, "phase", s.phase || "") && before && s.phase === "your-turn") sound("turn");
  if (change(line.dataset, "instruction", s.instruction || "")) {
    line.textContent = s.instruction || "";
    delete line.dataset.i18n; // the board's sentence now, not the page's
  }
  drawWho(s);
}

function drawWho(s) {
  // Who plays what, in words (the board's "who"), one element per colour: the one to move
  // is marked (data-to-move), in words too. A finished game: who played it, as archived.
  const who = $("who");
  const finished = s.result && archived ? `${archived.black}|${archived.white}` : "";
  const key = `${s.who}|${s.to_move}|${finished}|${document.documentElement.lang}`;
  if (who.dataset.key === key) return;
  who.dataset.key = key;
  who.replaceChildren();
  if (finished) {
    ["black", "white"].forEach((colour, i) => {
      const span = document.createElement("span");
      span.className = "player";
      span.dataset.colour = colour;
      const me = viewer(archived) === colour;
      const player = me ? t("you") : playerWords(archived[colour], seatOf(s.game) === colour);
      span.textContent = colour === "black" ? t("Black: {who}", { who: player }) : t("White: {who}", { who: player });
      if (i) who.append(" · ");
      who.append(span);
    });
    return;
  }
  const parts = (s.who || "").split(" · ");
  parts.forEach((part, i) => {
    const colour = part.split(":")[0].toLowerCase();
    const span = document.createElement("span");
    span.className = "player";
    span.dataset.colour = colour;
    span.dataset.toMove = String(s.to_move === colour);
    span.textContent = part + (s.to_move === colour ? t(", to move") : "");
    if (i) who.append(" · ");
    who.append(span);
  });
}

function drawLegend(rows) {
  const legend = $("legend");
  // Drawn again only when its words change (the page's language changed: a new stream).
  const said = rows.map((row) => `${row.key}|${row.colour}|${row.text}`).join("\n");
  if (legend.dataset.said === said || !rows.length) return;
  legend.dataset.said = said;
  legend.replaceChildren();
  for (const row of rows) {
    const item = document.createElement("li");
    item.dataset.legend = row.key;
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.setAttribute("aria-hidden", "true");
    swatch.style.setProperty("--glow", row.colour);
    item.append(swatch, row.text);
    legend.append(item);
  }
}

// --- the result, in the viewer's words -------------------------------------------------------
function viewer(players) {
  // The colour of the person here when the other side is the board or the other board; null
  // for two people at this board (the result is told as to a spectator).
  const people = ["black", "white"].filter((c) => players[c] === "person");
  return people.length === 1 ? people[0] : null;
}

function resultWords(result, players, seat = null) {
  if (result === "draw") return t("Draw");
  const me = viewer(players);
  if (me === result) return t("You win");
  if (me && seat === result) return t("The player on the phone wins");
  if (me && players[result] === "remote") {
    return t("{colour}'s board wins", { colour: Colour(result) });
  }
  if (me) return t("The board wins");
  return result === "black" ? t("Black wins") : t("White wins");
}

function shownResult(s) {
  // The game's result, or, just after a resignation or an agreed draw (the next game already
  // begun, no turn in it yet), the one the players ended.
  if (s.result) return { game: s.game, result: s.result, lines: s.lines, agreed: false };
  if (ended && ended.game < s.game && s.turns.length === 0) return { ...ended, agreed: true };
  return null;
}

function drawResult(s) {
  const result = $("result");
  const shown = shownResult(s);
  change(result.dataset, "result", shown ? shown.result : "");
  change($("result-box"), "hidden", !shown);
  if (!shown) {
    archived = null;
    sought = "";
    change($("review"), "hidden", true); // the next result's link is looked for afresh
    change(result, "textContent", "");
    return;
  }
  const players = archived ? { black: archived.black, white: archived.white } : s.players;
  let text = resultWords(shown.result, players, s.seat || seatOf(shown.game));
  const lines = (shown.lines || []).map((line) => line.join(" ")).join("; ");
  if (lines) text += ` (${lines})`;
  else if (shown.agreed && shown.result !== "draw") text += t(": the other side resigned");
  change(result, "textContent", text);
  change(result.dataset, "words", resultWords(shown.result, players, s.seat || seatOf(shown.game)));
  const allowed = s.simulated || !s.locked || code;
  change($("again"), "hidden", !allowed);
  if (!archived || archived.ended !== `${shown.game}|${shown.result}`) findArchived(shown, s);
}

let sought = ""; // the result whose record was looked for: once each (the LEDs' blinks redraw)

async function findArchived(shown, s, tries = 6) {
  // The archive's record of the game shown: who played it (a restart without --opponent
  // plays on with two people, but the finished game was the board's) and its review page.
  const key = `${shown.game}|${shown.result}`;
  if (sought === key) return;
  sought = key;
  try {
    for (let i = 0; i < tries; i++) {
      const answer = await fetchJson("/api/games?limit=5").catch(() => null); // the newest
      const games = answer && answer.available ? answer.games : [];
      const found = games.filter((g) => g.result === shown.result).pop();
      if (found && (shown.agreed || found.turns === s.turns.length || i === tries - 1)) {
        archived = { ...found, ended: `${shown.game}|${shown.result}` };
        const review = $("review");
        review.href = `/games/${encodeURIComponent(found.id)}`;
        review.hidden = false;
        if (last) {
          drawResult(last);
          drawWho(last);
        }
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 300)); // the archive writes a moment later
    }
  } catch {
    // no archive to read: the result is told without its review link
  }
}

function drawPlayers(s) {
  // The opponent's choice shows who plays now: never "nobody" while a level plays.
  const key = `${s.players.black}|${s.players.white}`;
  const players = $("controls");
  if (players.dataset.players === key) return;
  players.dataset.players = key;
  for (const colour of ["black", "white"]) {
    const player = s.players[colour];
    if (player.startsWith("board:")) {
      $("level").value = player.slice("board:".length);
      $("colour").value = colour;
      return;
    }
  }
  $("level").value = "none";
}

function drawEval(evaluation) {
  const box = $("eval");
  change(box, "hidden", !evaluation);
  if (!evaluation) return;
  // The mover's share of the bar: a quick win fills it, a quick loss empties it.
  const quick = Math.max(0, 1 - evaluation.plies / 22);
  const share = { win: 0.75 + 0.25 * quick, draw: 0.5, loss: 0.25 - 0.25 * quick }[evaluation.value];
  const black = evaluation.to_move === "black" ? share : 1 - share;
  change($("eval-black").style, "width", `${Math.round(black * 100)}%`);
  change(box.dataset, "value", evaluation.value);
  const mover = colourWord(evaluation.to_move);
  const other = colourWord(evaluation.to_move === "black" ? "white" : "black");
  const n = evaluation.plies;
  const text = {
    win: t("{mover}, to move, can force a win within {n} more turns (or presses)", { mover, n }),
    draw: t("best play by both ends in a draw"),
    loss: t("{other} can force a win within {n} more turns (or presses), whatever {mover} does", { other, mover, n }),
  }[evaluation.value];
  change($("eval-text"), "textContent", text);
}

function drawTurns(s) {
  const list = $("turns");
  const turns = s.turns;
  const key = turns.join(" ") + document.documentElement.lang;
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(
    ...turns.map((token, i) => {
      const item = document.createElement("li");
      item.dataset.turn = token;
      const colour = (i % 2 === 0) === (s.first === "black") ? "black" : "white";
      const shown = token === "*" ? t("* (a press, board full)") : token;
      item.textContent = colourWord(colour) + " " + shown;
      return item;
    }),
  );
}

let refusedCode = false; // the last control was refused for want of the code

function drawControls(s) {
  change($("press"), "hidden", !s.simulated);
  change($("how"), "hidden", !s.simulated);
  change($("code-form"), "hidden", !s.locked);
  change($("hints"), "checked", s.hints);
  change($("take-back"), "hidden", !s.take_back);
  change($("take-back"), "disabled", !s.turns.length);
  // Resign while a game is on and a person plays in it; a draw offered between two people
  // at this board (the board plays on; the link to another board does not carry it).
  const people = ["black", "white"].filter((c) => s.players[c] === "person").length;
  const on = !s.result && s.phase !== "setup";
  change($("resign"), "hidden", !(on && people >= 1));
  change($("offer-draw"), "hidden", !(on && (people === 2 || playerAway(s)) && s.turns.length > 0 && !s.ask));
  if (!on || people !== 2) change($("draw-offer"), "hidden", true);
  drawAsk(s);
  // Enabled, or read-only and why: said in words, not only by a greyed look.
  let state = "enabled";
  let text = t("The controls are enabled.");
  if (s.locked && (!code || refusedCode)) {
    state = "read-only";
    text = refusedCode
      ? t("Read-only: the board refused this access code. Type the code that `orbito-hw web code` prints.")
      : t("Read-only: these controls need the board's access code (`orbito-hw web code` prints it).");
  } else if (s.locked) {
    text = t("Enabled with the access code typed below.");
  }
  if (s.turns.length && !s.result) {
    text += " " + t("A game is in progress: a new opponent plays from the next game.");
  }
  if (!s.turns.length) text += " " + t("No turn to take back yet.");
  const box = $("controls-state");
  change(box.dataset, "controls", state);
  change(box, "textContent", text);
}

// --- asks across the board: a player away's take-back or draw, answered here ----------------
function playerAway(s) {
  // A seat (a phone), or the other board of a remote game: the archive's "remote".
  return ["black", "white"].some((c) => s.players[c] === "remote");
}

function drawAsk(s) {
  // The ask waiting (docs/seat.md): the player away's, with Agree and Refuse (a take-back is
  // agreed by a hold of the button too), or the draw offered from here, waiting.
  const ask = s.ask;
  const theirs = Boolean(ask) && s.players[ask.colour] === "remote";
  change($("ask"), "hidden", !ask);
  change($("ask").dataset, "ask", !ask ? "" : theirs ? ask.what : "waiting");
  change($("ask-answer"), "hidden", !theirs);
  if (!ask) return;
  const colour = Colour(ask.colour);
  change($("ask-text"), "textContent", !theirs
    ? t("A draw offered: waiting for the answer.")
    : ask.what === "draw" ? t("{colour} offers a draw.", { colour })
      : t("{colour} asks to take back their last turn: Agree (or hold the button), or Refuse.", { colour }));
}

function setUpAsk() {
  $("agree").addEventListener("click", () => control("/api/answer", { agree: "yes" }));
  $("refuse").addEventListener("click", () => {
    control("/api/answer", { agree: "no", reason: $("refuse-reason").value.trim() });
    $("refuse-reason").value = "";
  });
}

// --- puzzles --------------------------------------------------------------------------------
let asking = false;

async function askPuzzle() {
  if (asking) return;
  asking = true;
  try {
    puzzle = await fetchJson("/api/puzzle").catch(() => null);
  } finally {
    asking = false;
  }
  drawPuzzle();
}

function drawPuzzle() {
  const box = $("puzzle");
  const on = Boolean(puzzle && puzzle.id);
  change(box, "hidden", !on);
  if (!on) return;
  let text = t("Puzzle {id}: {goal}", { id: puzzle.id, goal: inWords(puzzle.goal || "") });
  let state = "on";
  if (puzzle.solved === true) {
    state = "solved";
    text += ". " + t("Solved in {n} turns.", { n: puzzle.plies });
  } else if (puzzle.solved === false) {
    state = "failed";
    text += ". " + t("Not solved: take back to try again, or go on to the next puzzle.");
  }
  box.dataset.puzzle = state;
  box.textContent = text;
}

// --- the log ------------------------------------------------------------------------------
// A board that tells colours names the marbles of the wrong colour: " (white on d3)".
function seenColours(seen) {
  const pairs = Object.entries(seen || {}).map(([sq, colour]) => t("{colour} on {square}", { colour: colourWord(colour), square: sq }));
  return pairs.length ? ` (${pairs.join(", ")})` : "";
}

function describe(e) {
  const squares = (e.squares || []).join(" ");
  const colour = e.colour ? colourWord(e.colour) : "";
  switch (e.event) {
    case "turn": return t("turn {number}: {colour} {turn}", { number: e.number, colour, turn: e.turn });
    case "board-turn":
      if (e.by === "remote" && seatOf(e.game) !== null) return t("turn {number} of the player on the phone ({colour}): {turn}, make it", { number: e.number, colour, turn: e.turn });
      if (e.by === "remote") return t("turn {number} of the other board ({colour}): {turn}, make it", { number: e.number, colour, turn: e.turn });
      return t("the board's turn {number} ({colour}): {turn}, make it", { number: e.number, colour, turn: e.turn });
    case "rejected": return t("not accepted: {reason}", { reason: inWords(e.reason) }) + (squares ? ` (${squares})` : "");
    case "correction": return t("the board does not match: {squares}", { squares }) + seenColours(e.seen);
    case "corrected": return t("the board matches again");
    case "result": return e.result === "draw" ? t("a draw") : e.result === "black" ? t("black wins") : t("white wins");
    case "new-game": return t("game {game}: {first} starts", { game: e.game, first: colourWord(e.first) });
    case "discard": return e.state === "asked" ? t("the board asks: throw this game away? (hold again to agree)")
      : e.state === "agreed" ? t("game {game} thrown away for a new one", { game: e.game }) : t("game {game} kept: play on", { game: e.game });
    case "first": return t("{colour} starts", { colour });
    case "hint": return t("hint for {colour}: {turn} ({value})", { colour, turn: e.turn, value: valueWord(e.value) });
    case "warning": return t("{turn} throws the game away ({value}): press again to play it", { turn: e.turn, value: valueWord(e.value) });
    case "takeback": return t("taking back turn {number} ({turn})", { number: e.number, turn: e.turn });
    case "taken-back": return t("turn {number} taken back", { number: e.number });
    case "ask": return e.what === "draw" ? t("{colour} offers a draw", { colour }) : t("{colour} asks to take back", { colour });
    case "answer": return e.agreed ? t("agreed") : t("not agreed: {reason}", { reason: inWords(e.reason) });
    case "puzzle": return e.solved ? t("puzzle {id} solved", { id: e.id }) : t("puzzle {id} not solved", { id: e.id });
    case "fault": return t("fault: {reason}", { reason: inWords(e.reason) });
    default: return null; // consumers ignore what they do not know
  }
}

function logEvent(event) {
  const text = describe(event);
  if (text === null) return;
  const item = document.createElement("li");
  item.dataset.event = event.event;
  item.textContent = text;
  const log = $("log");
  log.prepend(item);
  while (log.childElementCount > LOG_LIMIT) log.lastElementChild.remove();
}

// --- controls -----------------------------------------------------------------------------
function notice(text) {
  $("notice").textContent = text;
  if (text) $("controls").open = true;
}

function post(path, fields = {}) {
  const send = async () => {
    const headers = { "Content-Type": "application/json" };
    if (code) headers["X-Orbito-Code"] = code;
    try {
      const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(fields) });
      if (response.ok) return await response.json().catch(() => ({})); // the board's answer
      const why = await errorOf(response);
      document.body.dataset.refused = response.status;
      if (response.status === 403) refusedCode = true;
      sound("refused");
      if (last) drawControls(last); // a refused switch goes back to how the board stands
      notice(response.status === 403 ? t("{why}: the page is a view only without it", { why }) : why);
    } catch (error) {
      notice(t("the board did not answer ({why})", { why: error.message }));
    }
    return null; // refused, or no answer: said in the notice
  };
  queue = queue.then(send);
  return queue;
}

// --- a player at home (docs/seat.md) ---------------------------------------------------------
let invitation = null; // the link shown on this page: {token, colour, made, link, qr}
let followed = ""; // the live link the snapshot last said ("made", "" for none), acted on
let fetchingLink = false; // the live link is being fetched

function followInvitation(s) {
  // A link made elsewhere (the button's menu, another page) is shown here too: the snapshot
  // says only that one is live (never its token), a page with the access code asks for it.
  const live = s.invitation || null;
  const key = live ? live.made : "";
  if (key === followed || fetchingLink) return;
  if (!live) {
    followed = "";
    if (invitation && $("invitation").dataset.invitation === "live") showInvitation(invitation, "revoked");
    return;
  }
  if (invitation && invitation.made === live.made) {
    followed = key;
    return;
  }
  if (!(s.simulated || !s.locked || code)) return; // asked again once the code is typed
  fetchingLink = true;
  fetchInvitation(key).finally(() => { fetchingLink = false; });
}

async function fetchInvitation(key) {
  const headers = { "Content-Type": "application/json" };
  if (code) headers["X-Orbito-Code"] = code;
  try {
    const response = await fetch("/api/seat/invitation", { method: "POST", headers, body: "{}" });
    if (!response.ok) return; // gone meanwhile, or the code refused: nothing to show
    const made = await response.json();
    followed = key;
    invitation = made;
    showInvitation(made, "live");
  } catch (error) {
    // no answer: the next snapshot asks again
  }
}

function showInvitation(made, state) {
  const box = $("invitation");
  box.hidden = state === "";
  box.dataset.invitation = state;
  if (!made) return;
  const colour = colourWord(made.colour);
  $("invitation-text").textContent = state === "revoked"
    ? t("The link for {colour} is revoked: it opens nothing now.", { colour })
    : t("The player at home plays {colour}: open this link on their phone, or scan the code.", { colour });
  $("seat-link").textContent = made.link;
  $("seat-link").href = made.link;
  $("seat-qr").hidden = state !== "live";
  if (state === "live") {
    $("seat-qr").src = made.qr;
    $("seat-qr").alt = t("QR code of the link for {colour}", { colour });
  }
  $("revoke").hidden = state !== "live";
}

function setUpInvitation() {
  $("invite").addEventListener("click", async () => {
    const made = await control("/api/seat/invite", { colour: $("seat-colour").value });
    if (!made || !made.token) return;
    invitation = made;
    showInvitation(made, "live");
  });
  $("revoke").addEventListener("click", async () => {
    if (!invitation) return;
    const gone = await control("/api/seat/revoke", { token: invitation.token });
    if (gone && gone.state === "revoked") showInvitation(invitation, "revoked");
  });
}

function control(path, fields) {
  notice("");
  delete document.body.dataset.refused;
  return post(path, fields);
}

function setUpPress() {
  // A click presses and releases the Orbito button; held down past the snapshot's
  // hold_after_ms, it holds the button (down now, up on release) in real time.
  const press = $("press");
  let timer = null;
  let holding = false;
  let down = false;
  let seen; // the board the press was made on, sent with it: see the squares' clicks
  press.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    down = true;
    holding = false;
    seen = last ? last.view : undefined;
    timer = setTimeout(() => {
      holding = true;
      post("/api/press", { action: "down", seen });
    }, last ? last.hold_after_ms : 300);
  });
  const release = () => {
    if (!down) return;
    down = false;
    clearTimeout(timer);
    post("/api/press", holding ? { action: "up" } : { action: "click", seen });
  };
  press.addEventListener("pointerup", release);
  press.addEventListener("pointerleave", release);
  press.addEventListener("pointercancel", release);
  press.addEventListener("click", (event) => {
    if (event.detail === 0) post("/api/press", { action: "click", seen: last ? last.view : undefined }); // the keys
  });
  // The press previewed: where each marble goes, while the button is pointed at or focused.
  const want = (on) => () => {
    previewWanted = on;
    drawPreview(last);
  };
  press.addEventListener("pointerenter", want(true));
  press.addEventListener("pointerleave", want(false));
  press.addEventListener("focus", want(true));
  press.addEventListener("blur", want(false));
}

function setUpControls() {
  $("code").value = code;
  $("code").addEventListener("input", (event) => {
    code = event.target.value.trim();
    refusedCode = false;
    localStorage.setItem(CODE_KEY, code);
    if (last) drawControls(last);
  });
  $("code-form").addEventListener("submit", (event) => event.preventDefault());
  const newGame = () => control("/api/new-game", { first: $("first").value });
  $("new-game").addEventListener("click", newGame);
  $("again").addEventListener("click", newGame);
  $("opponent").addEventListener("click", () =>
    control("/api/opponent", { level: $("level").value, colour: $("colour").value }),
  );
  $("hints").addEventListener("change", (event) =>
    control("/api/hints", { hints: event.target.checked ? "on" : "off" }),
  );
  $("take-back").addEventListener("click", () => control("/api/take-back"));
  $("next-puzzle").addEventListener("click", () => control("/api/next-puzzle"));
  $("resign").addEventListener("click", () => {
    const people = last ? ["black", "white"].filter((c) => last.players[c] === "person") : [];
    // Two people at this board: the side to move resigns; else the person here.
    const colour = people.length === 2 && last.to_move ? last.to_move : undefined;
    control("/api/resign", colour ? { colour } : {});
  });
  $("offer-draw").addEventListener("click", () => {
    if (last && playerAway(last)) return control("/api/draw"); // offered to the player away
    const mover = last && last.to_move ? last.to_move : "black";
    const other = Colour(mover === "black" ? "white" : "black");
    $("draw-offer-text").textContent = t("{colour} offers a draw. {other}, do you accept?", {
      colour: Colour(mover), other });
    $("draw-offer").hidden = false;
    $("accept-draw").focus();
  });
  $("accept-draw").addEventListener("click", () => {
    $("draw-offer").hidden = true;
    control("/api/draw");
  });
  $("decline-draw").addEventListener("click", () => ($("draw-offer").hidden = true));
  $("flip").addEventListener("click", () => {
    flipped = !flipped;
    placeSquares();
    if (last) {
      drawRings(last.rings);
      drawArrow(last.arrow);
      drawPreview(last);
    }
  });
  setUpSettings(() => {
    if (stream && stream.lang !== document.documentElement.lang) connect();
    if (invitation) showInvitation(invitation, $("invitation").dataset.invitation);
    setLink($("link").dataset.link);
    if (last) draw(last);
    drawPuzzle();
  });
}

// Which orbito-hw the board runs, and why (its last upgrade, or a rollback and its reason).
async function showVersion() {
  const response = await fetch("/api/version").catch(() => null);
  const shown = response && response.ok ? await response.json() : {};
  if (shown.version) {
    $("version").textContent = `orbito-hw ${shown.version}${shown.why ? ` (${shown.why})` : ""}`;
  }
}

async function start() {
  await loadWords(); // the first words drawn are in the viewer's language
  setLink("connecting");
  setUpPress();
  setUpControls();
  setUpInvitation();
  setUpAsk();
  connect();
  showVersion();
}

start();

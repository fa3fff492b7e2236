// The board's live page: draws each snapshot the controller sends on /events, and sends
// the page's clicks and controls to /api/... . No framework, no build step: the controller
// serves this file as it is. The facts (square names, the rings, the hold time) come from
// the snapshot, so the page never keeps a second copy of them.
"use strict";

const CODE_KEY = "orbito-hw-code";
const LOG_LIMIT = 40;
const SLIDE_MS = 350; // the rings' turn, drawn: each marble slides to its next square

let last = null; // the last snapshot drawn
let sliding = []; // the marbles' slides still running
let turned = false; // a turn event came: the next snapshot slides the marbles
let code = localStorage.getItem(CODE_KEY) || "";
let queue = Promise.resolve(); // one request at a time, in the order they were made

// --- the stream ---------------------------------------------------------------------------
function connect() {
  const stream = new EventSource("/events");
  stream.onopen = () => setLink("live");
  stream.onerror = () => {
    setLink("reconnecting");
    if (stream.readyState === EventSource.CLOSED) {
      setTimeout(connect, 2000); // the browser gave up: start again
    }
  };
  stream.onmessage = (message) => {
    const event = readEvent(message);
    if (event === null) return;
    if (event.event === "snapshot") {
      draw(event);
    } else {
      if (event.event === "turn") turned = true;
      logEvent(event);
    }
  };
}

function setLink(state) {
  const link = $("link");
  link.dataset.link = state;
  link.textContent = state;
}

// --- drawing ------------------------------------------------------------------------------
function squareNames(rings) {
  // Rank 4 at the top, files a..d left to right, as seen from above.
  return Object.keys(rings).sort((a, b) => b[1].localeCompare(a[1]) || a.localeCompare(b));
}

function buildLiveBoard(snapshot) {
  const board = $("board");
  if (board.querySelector("[data-square]")) return;
  for (const name of squareNames(snapshot.rings)) {
    const square = document.createElement("button");
    square.type = "button";
    square.className = "square";
    square.dataset.square = name;
    square.dataset.marble = "";
    square.dataset.led = "";
    square.dataset.glow = "";
    square.setAttribute("aria-label", name);
    // The glow is a ring around the pocket, never a disc: it cannot pass for a marble. The
    // mark says what the glow asks (+ place, ! fix, x take off, back: put back).
    square.innerHTML =
      '<span class="led" aria-hidden="true"></span><span class="marble" aria-hidden="true"></span>' +
      '<span class="mark" aria-hidden="true"></span>';
    const label = document.createElement("span");
    label.className = "name";
    label.setAttribute("aria-hidden", "true");
    label.textContent = name;
    square.append(label);
    square.addEventListener("click", () => {
      if (last && last.simulated) post(`/api/square/${name}`);
    });
    square.addEventListener("keydown", (event) => moveFocus(event, name));
    board.append(square);
  }
}

const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

function moveFocus(event, name) {
  // The arrow keys go from square to square, as on the board seen from above.
  const step = STEPS[event.key];
  if (!step) return;
  const file = String.fromCharCode(name.charCodeAt(0) + step[0]);
  const rank = String(Number(name[1]) + step[1]);
  const next = $("board").querySelector(`[data-square="${file}${rank}"]`);
  if (next) {
    event.preventDefault();
    next.focus();
  }
}

const MARKS = { place: "+", fix: "!", undo: "\u00d7", back: "\u21a9", warning: "!" };

function squareLabel(name, marble, glow) {
  // What a screen reader says of a square: its name, its marble, what its light asks.
  let text = `${name}: ${marble ? `${marble} marble` : "empty"}`;
  if (glow) text += `; light: ${glow.meaning}` + (glow.blink ? " (blinking)" : "");
  return text;
}

function draw(s) {
  buildLiveBoard(s);
  // News ends the rings' slide: the board as it stands now comes first.
  for (const slide of sliding) slide.finish();
  sliding = [];
  const slide = turned && last !== null;
  const before = last;
  turned = false;
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
  change($("hand"), "textContent", s.hand.length ? `In the hand: ${s.hand.join(", ")}` : "");
  drawInstruction(s);
  drawLegend(s.legend || []);
  drawResult(s);
  drawPlayers(s);
  drawEval(s.eval);
  drawTurns(s);
  drawControls(s);
}

function change(target, key, value) {
  // Only what changed is written: the same attribute or text written again still costs every
  // open page a style pass, a layout and a paint. Answers whether it wrote.
  if (target[key] === value) return false;
  target[key] = value;
  return true;
}

function slideMarbles(before, now) {
  // The press moved every marble one place along its ring: draw it coming from there.
  const from = {};
  for (const [square, next] of Object.entries(now.rings)) from[next] = square;
  const board = $("board");
  for (const [name, colour] of Object.entries(now.marbles)) {
    const origin = from[name];
    if (before.marbles[origin] !== colour || origin === name) continue;
    const here = board.querySelector(`[data-square="${name}"]`);
    const there = board.querySelector(`[data-square="${origin}"]`);
    const a = here.getBoundingClientRect();
    const b = there.getBoundingClientRect();
    const slide = here.querySelector(".marble").animate(
      [{ transform: `translate(${b.left - a.left}px, ${b.top - a.top}px)` }, { transform: "none" }],
      { duration: SLIDE_MS, easing: "ease-in-out" },
    );
    sliding.push(slide);
  }
}

function drawInstruction(s) {
  // The line computed on the board (web/instruction.py): what the board wants now.
  const line = $("instruction");
  change(line.dataset, "phase", s.phase || "");
  if (change(line.dataset, "instruction", s.instruction || "")) {
    line.textContent = s.instruction || "";
  }
  drawWho(s);
}

function drawWho(s) {
  // Who plays what, in words (the board's "who"), one element per colour: the one to move
  // is marked (data-to-move), in words too.
  const who = $("who");
  const key = `${s.who}|${s.to_move}`;
  if (who.dataset.key === key) return;
  who.dataset.key = key;
  const parts = (s.who || "").split(" · ");
  who.replaceChildren();
  parts.forEach((part, i) => {
    const colour = part.split(":")[0].toLowerCase();
    const span = document.createElement("span");
    span.className = "player";
    span.dataset.colour = colour;
    span.dataset.toMove = String(s.to_move === colour);
    span.textContent = part + (s.to_move === colour ? ", to move" : "");
    if (i) who.append(" · ");
    who.append(span);
  });
}

function drawLegend(rows) {
  const legend = $("legend");
  if (legend.childElementCount || !rows.length) return;
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

function drawArrow(pair) {
  // The move the board asks for: an arrow from the marble to lift to where it goes.
  const arrow = $("arrow");
  const key = pair ? pair.join("-") : "";
  if (arrow.dataset.move === key) return;
  arrow.dataset.move = key;
  arrow.setAttribute("visibility", pair ? "visible" : "hidden");
  if (!pair) return;
  const at = (name) => [name.charCodeAt(0) - 97 + 0.5, 4 - Number(name[1]) + 0.5];
  const [x1, y1] = at(pair[0]);
  const [x2, y2] = at(pair[1]);
  // Stop short of the target's centre: the head sits on the ring, not on the marble.
  const shorten = 0.28;
  const dx = Math.sign(x2 - x1) * shorten;
  const dy = Math.sign(y2 - y1) * shorten;
  for (const [key2, value] of [["x1", x1 + dx], ["y1", y1 + dy], ["x2", x2 - dx], ["y2", y2 - dy]]) {
    arrow.setAttribute(key2, String(value));
  }
}

function drawResult(s) {
  const result = $("result");
  change(result.dataset, "result", s.result || "");
  if (!s.result) {
    change(result, "textContent", "");
    return;
  }
  const lines = s.lines.map((line) => line.join(" ")).join("; ");
  const what = s.result === "draw" ? "a draw" : `${s.result} wins`;
  const again = s.simulated || !s.locked || code ? " For another, hold the button or use New game below." : "";
  change(result, "textContent", `Game ${s.game} is over: ${what}` + (lines ? ` (${lines}).` : ".") + again);
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
  const mover = evaluation.to_move;
  const other = mover === "black" ? "white" : "black";
  const n = evaluation.plies;
  const within = `within ${n} more turn${n === 1 ? "" : "s"} (or presses)`;
  const text = {
    win: `${mover}, to move, can force a win ${within}`,
    draw: "best play by both ends in a draw",
    loss: `${other} can force a win ${within}, whatever ${mover} does`,
  }[evaluation.value];
  change($("eval-text"), "textContent", text);
}

function drawTurns(s) {
  const list = $("turns");
  const turns = s.turns;
  const shown = Array.from(list.children, (item) => item.dataset.turn);
  if (shown.join(" ") === turns.join(" ")) return;
  list.replaceChildren(
    ...turns.map((token, i) => {
      const item = document.createElement("li");
      item.dataset.turn = token;
      const colour = (i % 2 === 0) === (s.first === "black") ? "black" : "white";
      item.textContent = `${colour} ${token === "*" ? "* (a press, board full)" : token}`;
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
  // Enabled, or read-only and why: said in words, not only by a greyed look.
  let state = "enabled";
  let text = "The controls are enabled.";
  if (s.locked && (!code || refusedCode)) {
    state = "read-only";
    text = refusedCode
      ? "Read-only: the board refused this access code. Type the code that `orbito-hw web code` prints."
      : "Read-only: these controls need the board's access code (`orbito-hw web code` prints it).";
  } else if (s.locked) {
    text = "Enabled with the access code typed below.";
  }
  if (s.turns.length && !s.result) {
    text += " A game is in progress: a new opponent plays from the next game.";
  }
  if (!s.turns.length) text += " No turn to take back yet.";
  const box = $("controls-state");
  change(box.dataset, "controls", state);
  change(box, "textContent", text);
}

// --- the log ------------------------------------------------------------------------------
// A board that tells colours names the marbles of the wrong colour: " (white on d3)".
function seenColours(seen) {
  const pairs = Object.entries(seen || {}).map(([sq, colour]) => `${colour} on ${sq}`);
  return pairs.length ? ` (${pairs.join(", ")})` : "";
}

function describe(e) {
  const squares = (e.squares || []).join(" ");
  switch (e.event) {
    case "turn": return `turn ${e.number}: ${e.colour} ${e.turn}`;
    case "board-turn": return `the board's turn ${e.number} (${e.colour}): ${e.turn}, make it`;
    case "rejected": return `not accepted: ${e.reason}` + (squares ? ` (${squares})` : "");
    case "correction": return `the board does not match: ${squares}` + seenColours(e.seen);
    case "corrected": return "the board matches again";
    case "result": return e.result === "draw" ? "a draw" : `${e.result} wins`;
    case "new-game": return `game ${e.game}: ${e.first} starts`;
    case "first": return `${e.colour} starts`;
    case "hint": return `hint for ${e.colour}: ${e.turn} (${e.value})`;
    case "warning": return `${e.turn} throws the game away (${e.value}): press again to play it`;
    case "takeback": return `taking back turn ${e.number} (${e.turn})`;
    case "taken-back": return `turn ${e.number} taken back`;
    case "fault": return `fault: ${e.reason}`;
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
      if (response.ok) return;
      const why = await errorOf(response);
      document.body.dataset.refused = response.status;
      if (response.status === 403) refusedCode = true;
      if (last) drawControls(last); // a refused switch goes back to how the board stands
      notice(response.status === 403 ? `${why}: the page is a view only without it` : why);
    } catch (error) {
      notice(`the board did not answer (${error.message})`);
    }
  };
  queue = queue.then(send);
  return queue;
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
  press.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    down = true;
    holding = false;
    timer = setTimeout(() => {
      holding = true;
      post("/api/press", { action: "down" });
    }, last ? last.hold_after_ms : 300);
  });
  const release = () => {
    if (!down) return;
    down = false;
    clearTimeout(timer);
    post("/api/press", { action: holding ? "up" : "click" });
  };
  press.addEventListener("pointerup", release);
  press.addEventListener("pointerleave", release);
  press.addEventListener("pointercancel", release);
  press.addEventListener("click", (event) => {
    if (event.detail === 0) post("/api/press", { action: "click" }); // the keyboard's
  });
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
  $("new-game").addEventListener("click", () => control("/api/new-game", { first: $("first").value }));
  $("opponent").addEventListener("click", () =>
    control("/api/opponent", { level: $("level").value, colour: $("colour").value }),
  );
  $("hints").addEventListener("change", (event) =>
    control("/api/hints", { hints: event.target.checked ? "on" : "off" }),
  );
  $("take-back").addEventListener("click", () => control("/api/take-back"));
}

// Which orbito-hw the board runs, and why (its last upgrade, or a rollback and its reason).
async function showVersion() {
  const response = await fetch("/api/version").catch(() => null);
  const shown = response && response.ok ? await response.json() : {};
  if (shown.version) {
    $("version").textContent = `orbito-hw ${shown.version}${shown.why ? ` (${shown.why})` : ""}`;
  }
}

setUpPress();
setUpControls();
connect();
showVersion();

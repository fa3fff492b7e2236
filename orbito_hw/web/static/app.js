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
  if (board.childElementCount) return;
  for (const name of squareNames(snapshot.rings)) {
    const square = document.createElement("button");
    square.type = "button";
    square.className = "square";
    square.dataset.square = name;
    square.dataset.marble = "";
    square.dataset.led = "";
    square.setAttribute("aria-label", name);
    square.innerHTML = '<span class="led"></span><span class="marble"></span>';
    const label = document.createElement("span");
    label.className = "name";
    label.textContent = name;
    square.append(label);
    square.addEventListener("click", () => {
      if (last && last.simulated) post(`/api/square/${name}`);
    });
    board.append(square);
  }
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
  for (const square of $("board").children) {
    const name = square.dataset.square;
    const led = s.leds[name] || "";
    change(square.dataset, "marble", s.marbles[name] || "");
    if (change(square.dataset, "led", led)) square.style.setProperty("--led", led || "transparent");
  }
  if (slide) slideMarbles(before, s);
  const status = $("status");
  if (change(status.dataset, "statusLed", s.status)) {
    status.style.setProperty("--led", s.status || "transparent");
  }
  change($("state"), "textContent", s.state);
  change($("hand"), "textContent", s.hand.length ? `in the hand: ${s.hand.join(", ")}` : "");
  drawResult(s);
  drawPlayers(s);
  drawEval(s.eval);
  drawTurns(s.turns);
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

function drawResult(s) {
  const result = $("result");
  change(result.dataset, "result", s.result || "");
  if (!s.result) {
    change(result, "textContent", "");
    return;
  }
  const lines = s.lines.map((line) => line.join(" ")).join("; ");
  const what = s.result === "draw" ? "a draw" : `${s.result} wins`;
  change(result, "textContent", `Game ${s.game}: ${what}` + (lines ? ` (${lines})` : ""));
}

function drawPlayers(s) {
  const players = $("players");
  const key = `${s.players.black}|${s.players.white}|${s.to_move}`;
  if (players.dataset.key === key) return;
  players.dataset.key = key;
  players.replaceChildren();
  for (const colour of ["black", "white"]) {
    const row = document.createElement("div");
    row.className = "player";
    row.dataset.colour = colour;
    row.dataset.toMove = s.to_move === colour;
    const who = s.players[colour] === "person" ? "a person" : `the board (${s.players[colour]})`;
    row.textContent = `${colour}: ${who}` + (s.to_move === colour ? " (to move)" : "");
    players.append(row);
  }
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
  const text = { win: `${mover} wins`, draw: "a draw", loss: `${mover} loses` }[evaluation.value];
  change($("eval-text"), "textContent", `with perfect play: ${text} (${evaluation.plies} plies)`);
}

function drawTurns(turns) {
  const list = $("turns");
  const shown = Array.from(list.children, (item) => item.dataset.turn);
  if (shown.join(" ") === turns.join(" ")) return;
  list.replaceChildren(
    ...turns.map((token) => {
      const item = document.createElement("li");
      item.dataset.turn = token;
      item.textContent = token;
      return item;
    }),
  );
}

function drawControls(s) {
  change($("press"), "hidden", !s.simulated);
  change($("code-form"), "hidden", !s.locked);
  change($("hints"), "checked", s.hints);
  change($("take-back"), "hidden", !s.take_back);
}

// --- the log ------------------------------------------------------------------------------
function describe(e) {
  const squares = (e.squares || []).join(" ");
  switch (e.event) {
    case "turn": return `turn ${e.number}: ${e.colour} ${e.turn}`;
    case "board-turn": return `the board's turn ${e.number} (${e.colour}): ${e.turn}, make it`;
    case "rejected": return `refused: ${e.reason}` + (squares ? ` (${squares})` : "");
    case "correction": return `the board does not match: ${squares}`;
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
    localStorage.setItem(CODE_KEY, code);
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

setUpPress();
setUpControls();
connect();

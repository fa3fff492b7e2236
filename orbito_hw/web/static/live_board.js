// The live board as drawn: where each square sits (from above, or flipped), the rings' way
// round, the press previewed (where each marble goes), the rings' turn slid, the move's
// arrow. Loaded after board.js and before app.js, whose snapshot (``last``) and controls
// (``post``) it uses once the page runs.
"use strict";

const SLIDE_MS = 350; // the rings' turn, drawn: each marble slides to its next square
const quiet = matchMedia("(prefers-reduced-motion: reduce)"); // then no slide at all

let sliding = []; // the marbles' slides still running
let flipped = false; // the board seen from the other side (the view only)
let previewWanted = false; // the button is hovered or focused: show where the press takes each marble
let baseline = -1; // marbles on the board when the turn began: one more is a turn complete

// --- where each square is drawn -------------------------------------------------------------
function squareNames(rings) {
  // Rank 4 at the top, files a..d left to right, as seen from above.
  return Object.keys(rings).sort((a, b) => b[1].localeCompare(a[1]) || a.localeCompare(b));
}

function at(name) {
  // A square's column and row (0..3) as drawn: from above, or from the other side (flipped).
  const column = name.charCodeAt(0) - 97;
  const row = 4 - Number(name[1]);
  return flipped ? [3 - column, 3 - row] : [column, row];
}

function centre(name) {
  const [x, y] = at(name);
  return [x + 0.5, y + 0.5];
}

function placeSquares() {
  for (const square of $("board").querySelectorAll("[data-square]")) {
    const [x, y] = at(square.dataset.square);
    square.style.gridColumn = String(x + 1);
    square.style.gridRow = String(y + 1);
  }
  const board = $("board");
  board.dataset.flipped = String(flipped);
  const label = flipped
    ? "The board seen from the other side: rank 1 at the top, files d to a from the left"
    : "The board seen from above: rank 4 at the top, files a to d from the left";
  board.dataset.i18nLabel = label;
  board.setAttribute("aria-label", t(label));
  $("flip").setAttribute("aria-pressed", String(flipped));
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
    square.dataset.preview = "";
    square.setAttribute("aria-label", name);
    // The glow is a ring around the pocket, never a disc: it cannot pass for a marble. The
    // mark says what the glow asks (+ place, ! fix, x take off, back: put back). The ghost is
    // the marble the press would bring here (the preview).
    square.innerHTML =
      '<span class="led" aria-hidden="true"></span><span class="ghost" aria-hidden="true"></span>' +
      '<span class="marble" aria-hidden="true"></span><span class="mark" aria-hidden="true"></span>';
    const label = document.createElement("span");
    label.className = "name";
    label.setAttribute("aria-hidden", "true");
    label.textContent = name;
    square.append(label);
    square.addEventListener("click", () => {
      // With the board it was made on: a click on a board the rings have turned since is
      // refused (and said), never applied to squares this page did not show.
      if (last && last.simulated) post(`/api/square/${name}`, { seen: last.view });
    });
    square.addEventListener("keydown", (event) => moveFocus(event, name));
    board.append(square);
  }
  placeSquares();
  drawRings(snapshot.rings);
}

const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

function moveFocus(event, name) {
  // The arrow keys go from square to square, as the board is drawn (flipped: the other way).
  const step = STEPS[event.key];
  if (!step) return;
  const sign = flipped ? -1 : 1;
  const file = String.fromCharCode(name.charCodeAt(0) + sign * step[0]);
  const rank = String(Number(name[1]) + sign * step[1]);
  const next = $("board").querySelector(`[data-square="${file}${rank}"]`);
  if (next) {
    event.preventDefault();
    next.focus();
  }
}

// --- the rings ------------------------------------------------------------------------------
const SVG = "http://www.w3.org/2000/svg";

function drawRings(rings) {
  // Each ring's way round: a line through its pockets' centres (under the marbles) and, between
  // each pair of neighbours, a chevron pointing the way the press takes a marble.
  const svg = $("rings");
  svg.replaceChildren();
  for (const [from, to] of Object.entries(rings)) {
    const [x1, y1] = centre(from);
    const [x2, y2] = centre(to);
    const inner = "bcbc".includes(from[0]) && "23".includes(from[1]);
    const path = document.createElementNS(SVG, "line");
    path.setAttribute("class", inner ? "ring inner" : "ring outer");
    for (const [key, value] of [["x1", x1], ["y1", y1], ["x2", x2], ["y2", y2]]) {
      path.setAttribute(key, String(value));
    }
    svg.append(path);
    const angle = (Math.atan2(y2 - y1, x2 - x1) * 180) / Math.PI;
    const chevron = document.createElementNS(SVG, "path");
    chevron.setAttribute("class", inner ? "way inner" : "way outer");
    chevron.dataset.from = from;
    chevron.dataset.to = to;
    chevron.setAttribute("d", "M-0.09,-0.12 L0.07,0 L-0.09,0.12");
    chevron.setAttribute("transform", `translate(${(x1 + x2) / 2} ${(y1 + y2) / 2}) rotate(${angle})`);
    svg.append(chevron);
  }
}

function turnComplete(s) {
  // A marble placed since the turn began and none in the hand: the press would end the turn.
  const count = Object.keys(s.marbles).length;
  return s.simulated !== false && !s.result && s.hand.length === 0 && baseline >= 0 && count === baseline + 1;
}

function drawPreview(s) {
  // Where each marble goes on the press: a ghost on its next square and an arrow to it, shown
  // while the button is hovered or focused and once a turn is complete.
  const on = Boolean(s) && !s.result && s.phase !== "rotating" && (previewWanted || turnComplete(s));
  const arrows = $("preview-arrows");
  const goes = {};
  if (on) for (const [name, colour] of Object.entries(s.marbles)) goes[s.rings[name]] = colour;
  const key = on ? JSON.stringify(goes) + flipped : "";
  if (arrows.dataset.key === key) return;
  arrows.dataset.key = key;
  arrows.replaceChildren();
  for (const square of $("board").querySelectorAll("[data-square]")) {
    square.dataset.preview = goes[square.dataset.square] || "";
  }
  $("board").dataset.preview = String(on);
  if (!on) {
    $("preview-text").textContent = "";
    return;
  }
  for (const name of Object.keys(s.marbles)) {
    const [x1, y1] = centre(name);
    const [x2, y2] = centre(s.rings[name]);
    const line = document.createElementNS(SVG, "line");
    const short = 0.3;
    const dx = Math.sign(x2 - x1) * short;
    const dy = Math.sign(y2 - y1) * short;
    for (const [k, value] of [["x1", x1 + dx], ["y1", y1 + dy], ["x2", x2 - dx], ["y2", y2 - dy]]) {
      line.setAttribute(k, String(value));
    }
    line.setAttribute("marker-end", "url(#preview-head)");
    arrows.append(line);
  }
  const moves = Object.keys(s.marbles).sort().map((name) => `${name}\u2192${s.rings[name]}`);
  $("preview-text").textContent = moves.length
    ? t("On the press: {moves}", { moves: moves.join(" ") })
    : t("On the press the rings turn; no marble to move");
}

// --- the rings' turn and the board's move ---------------------------------------------------
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

function drawArrow(pair) {
  // The move the board asks for: an arrow from the marble to lift to where it goes.
  const arrow = $("arrow");
  const key = pair ? pair.join("-") + flipped : "";
  if (arrow.dataset.move === key) return;
  arrow.dataset.move = key;
  arrow.setAttribute("visibility", pair ? "visible" : "hidden");
  if (!pair) return;
  const [x1, y1] = centre(pair[0]);
  const [x2, y2] = centre(pair[1]);
  // Stop short of the target's centre: the head sits on the ring, not on the marble.
  const shorten = 0.28;
  const dx = Math.sign(x2 - x1) * shorten;
  const dy = Math.sign(y2 - y1) * shorten;
  for (const [key2, value] of [["x1", x1 + dx], ["y1", y1 + dy], ["x2", x2 - dx], ["y2", y2 - dy]]) {
    arrow.setAttribute(key2, String(value));
  }
}

// What every page shares: the small helpers (an element by id, fetching JSON, reading a
// server-sent event, table cells), and the board the archive's and the watchers' pages draw
// from a position string. Loaded before app.js, games.js or watch.js (all deferred, so in
// order).
"use strict";

const $ = (id) => document.getElementById(id);
const MARBLES = { B: "black", W: "white" }; // a position string's letters

async function fetchJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(await errorOf(response));
  return response.json();
}

function errorOf(response) {
  // What a refused request says: its JSON error, else the status line.
  return response.json().then(
    (body) => body.error || response.statusText,
    () => response.statusText,
  );
}

function readEvent(message) {
  // A server-sent event's JSON; null for a line that is not ours.
  try {
    return JSON.parse(message.data);
  } catch {
    return null;
  }
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  row.append(td);
  return td;
}

function buildPositionBoard() {
  // Rank 4 at the top, files a..d left to right, as seen from above: the order of a
  // position string's cells.
  const board = $("board");
  for (const rank of "4321") {
    for (const file of "abcd") {
      const square = document.createElement("div");
      square.className = "square";
      square.dataset.square = file + rank;
      square.dataset.marble = "";
      square.dataset.led = ""; // the archive and the watchers see no LEDs
      square.innerHTML = '<span class="led"></span><span class="marble"></span>';
      board.append(square);
    }
  }
}

function showBoard(position) {
  // A position string: ranks 4 down to 1, files a to d, B, W or "."
  const cells = position.replaceAll("/", "");
  const squares = $("board").children;
  for (let i = 0; i < squares.length; i++) {
    const marble = MARBLES[cells[i]] || "";
    if (squares[i].dataset.marble !== marble) squares[i].dataset.marble = marble;
  }
}

function showResult(result) {
  // The result line: "" for a game not over.
  const box = $("result");
  box.dataset.result = result || "";
  box.textContent = !result ? "" : result === "draw" ? "a draw" : `${result} wins`;
}

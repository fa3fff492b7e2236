// What every page shares: the small helpers (an element by id, fetching JSON, reading a
// server-sent event, table cells), and the board the archive's and the watchers' pages draw
// from a position string. Loaded before app.js, games.js or watch.js (all deferred, so in
// order), after words.js (t: the page's words in the viewer's language).
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
    (body) => (body.error ? inWords(body.error) : response.statusText), // words.js: in the page's language
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

function buildPositionBoard(board = $("board")) {
  // Rank 4 at the top, files a..d left to right, as seen from above: the order of a
  // position string's cells. The board is a group of 16 pictures, each named with its
  // square and what is on it.
  board.setAttribute("role", "group");
  for (const rank of "4321") {
    for (const file of "abcd") {
      const square = document.createElement("div");
      square.className = "square";
      square.setAttribute("role", "img");
      square.dataset.square = file + rank;
      square.dataset.marble = "";
      square.dataset.led = ""; // the archive and the watchers see no LEDs
      square.dataset.glow = "";
      square.setAttribute("aria-label", t("{square}: empty", { square: file + rank }));
      square.innerHTML =
        '<span class="led"></span><span class="marble"></span>' +
        `<span class="name">${file}${rank}</span>`;
      board.append(square);
    }
  }
  return board;
}

function showBoard(position, board = $("board"), line = []) {
  // A position string: ranks 4 down to 1, files a to d, B, W or "."; ``line``: the squares
  // of the winning line(s) to ring.
  const cells = position.replaceAll("/", "");
  const squares = board.querySelectorAll("[data-square]");
  for (let i = 0; i < squares.length; i++) {
    const square = squares[i];
    const marble = MARBLES[cells[i]] || "";
    const inLine = line.includes(square.dataset.square);
    if (square.dataset.marble !== marble) square.dataset.marble = marble;
    square.dataset.glow = inLine ? "line" : "";
    square.style.setProperty("--glow", inLine ? "#6fd36f" : "transparent");
    const name = square.dataset.square;
    const what = marble === "black" ? t("{square}: black marble", { square: name })
      : marble === "white" ? t("{square}: white marble", { square: name })
        : t("{square}: empty", { square: name });
    square.setAttribute("aria-label", what + (inLine ? t(", in the winning line") : ""));
  }
}

function showResult(result, lines = []) {
  // The result line: "" for a game not over.
  const box = $("result");
  box.dataset.result = result || "";
  const where = lines.map((l) => l.join(" ")).join("; ");
  box.textContent = !result
    ? ""
    : result === "draw"
      ? t("Draw") + (where ? t(": both have a line ({lines})", { lines: where }) : "")
      : where ? t("{result}: {lines}", { result: result === "black" ? t("Black wins") : t("White wins"), lines: where })
        : result === "black" ? t("Black wins") : t("White wins");
}

function playerWords(player, seat = false) {
  // The archive's PLAYER ("person", "board:LEVEL", "remote") in words; ``seat``: the remote
  // player was a seat, a person on a phone, not another board.
  if (!player || player === "person") return t("a person");
  if (player === "remote") return seat ? t("the player on the phone") : t("the other board");
  const level = player.startsWith("board:") ? player.slice(6) : player;
  const words = /^\d$/.test(level)
    ? t("level {n}", { n: level })
    : level === "perfect" ? t("perfect play") : level === "random" ? t("random turns") : level;
  return t("the board ({level})", { level: words });
}

function timeElement(iso) {
  // A <time> with the ISO UTC instant in its datetime, shown in this browser's local time.
  const time = document.createElement("time");
  if (!iso) {
    time.textContent = "";
    return time;
  }
  time.dateTime = iso;
  const date = new Date(iso);
  time.textContent = isNaN(date) ? iso : date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  return time;
}

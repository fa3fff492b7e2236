// The archive pages: /games lists the games, /games/ID replays one turn by turn with the
// review's marks. Both read the archive's JSON (/api/games, /api/games/ID); board.js draws.
"use strict";

async function listGames() {
  const status = $("archive-status");
  let answer;
  try {
    answer = await fetchJson("/api/games");
  } catch (error) {
    status.textContent = `the archive did not answer (${error.message})`;
    return;
  }
  if (!answer.available) {
    status.dataset.archive = "unavailable";
    status.textContent = "The game archive is not available on this board.";
    return;
  }
  if (!answer.games.length) {
    status.dataset.archive = "empty";
    status.textContent = "No games yet.";
    return;
  }
  status.textContent = "";
  const body = $("games").tBodies[0];
  const heads = Array.from($("games").tHead.rows[0].cells, (th) => th.textContent);
  for (const game of answer.games.slice().reverse()) {
    const row = document.createElement("tr");
    const link = document.createElement("a");
    link.href = `/games/${encodeURIComponent(game.id)}`;
    link.textContent = `Game ${game.id}`;
    cell(row, "").append(link);
    cell(row, "").append(timeElement(game.started));
    cell(row, playerWords(game.black));
    cell(row, playerWords(game.white));
    cell(row, resultWords(game.result));
    cell(row, game.turns);
    // On a phone each row is a card: each cell says what it is (style.css shows it).
    Array.from(row.cells).forEach((td, i) => (td.dataset.label = heads[i]));
    body.append(row);
  }
  $("games").hidden = false;
}

function resultWords(result) {
  if (!result) return "not finished";
  return result === "draw" ? "draw" : `${result} won`;
}

// --- one game, replayed -------------------------------------------------------------------
let boards = [];
let lines = []; // the winning line(s), ringed on the last board
let at = 0;

function show(index) {
  at = Math.max(0, Math.min(boards.length - 1, index));
  showBoard(boards[at], $("board"), at === boards.length - 1 ? lines.flat() : []);
  for (const item of $("turns").children) {
    item.dataset.current = Number(item.dataset.number) === at;
  }
  $("where").textContent = at ? `after turn ${at}` : "the start";
}

async function showGame(id) {
  let answer;
  try {
    answer = await fetchJson(`/api/games/${encodeURIComponent(id)}`);
  } catch (error) {
    $("review-status").textContent = `no such game (${error.message})`;
    return;
  }
  const game = answer.game;
  $("title").textContent = `Game ${game.id}`;
  document.title = `Orbito game ${game.id}`;
  lines = game.lines || [];
  showResult(game.result, lines);
  if (!game.result) $("result").textContent = "Not finished";
  $("game-players").textContent =
    `Black: ${playerWords(game.black)} · White: ${playerWords(game.white)} · ${game.first} moved first`;
  const date = $("game-date");
  date.replaceChildren("Started ", timeElement(game.started));
  if (game.ended) date.append(", ended ", timeElement(game.ended));
  const marks = {};
  for (const turn of (answer.review && answer.review.turns) || []) marks[turn.number] = turn;
  if (!answer.review) $("review-status").textContent = "no review for this game";
  const tokens = game.moves ? game.moves.split(/\s+/) : [];
  tokens.forEach((token, i) => {
    const item = document.createElement("li");
    const mark = marks[i + 1];
    item.dataset.turn = token;
    item.dataset.number = i + 1;
    // A button per turn: the keyboard reaches it, and its value is text, not a tooltip.
    const button = document.createElement("button");
    button.type = "button";
    button.className = "turn-button";
    const colour = (game.turns[i] && game.turns[i].colour) || "";
    button.textContent = `${i + 1}. ${colour} ${token === "*" ? "* (a press)" : token}`;
    item.append(button);
    if (mark) {
      item.dataset.mistake = mark.mistake;
      const value = document.createElement("span");
      value.className = "value";
      const change = mark.before === mark.after ? `keeps a ${mark.after}` : `${mark.before} to ${mark.after}`;
      value.textContent = mark.mistake
        ? ` mistake: ${change}; best was ${mark.best.slice(0, 3).join(" ")}`
        : ` ${change}`;
      item.append(value);
    }
    item.addEventListener("click", () => show(i + 1));
    $("turns").append(item);
  });
  boards = answer.boards;
  buildPositionBoard();
  show(boards.length - 1);
}

// "Set this position up on the board": the position shown (after turn `at`), asked of the
// board as `games resume ID --at N` asks it; the board's access code as the board page keeps it.
async function setUpOnBoard(id) {
  const status = $("set-up-status");
  const headers = { "Content-Type": "application/json" };
  const code = localStorage.getItem("orbito-hw-code") || "";
  if (code) headers["X-Orbito-Code"] = code;
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(id)}/set-up`, {
      method: "POST", headers, body: JSON.stringify({ at: String(at) }),
    });
    if (!response.ok) throw new Error(await errorOf(response));
    status.textContent = `Asked the board to set up the position after turn ${at}: follow its LEDs.`;
  } catch (error) {
    status.textContent = `Not set up: ${error.message}`;
  }
}

function setUpReplay() {
  $("start").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(at - 1));
  $("forward").addEventListener("click", () => show(at + 1));
  $("end").addEventListener("click", () => show(boards.length - 1));
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft") show(at - 1);
    if (event.key === "ArrowRight") show(at + 1);
  });
}

const match = location.pathname.match(/^\/games\/(.+)$/);
if (match) {
  setUpReplay();
  showGame(decodeURIComponent(match[1]));
  $("set-up").addEventListener("click", () => setUpOnBoard(decodeURIComponent(match[1])));
} else {
  listGames();
}

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
  for (const game of answer.games.slice().reverse()) {
    const row = document.createElement("tr");
    const link = document.createElement("a");
    link.href = `/games/${encodeURIComponent(game.id)}`;
    link.textContent = game.id;
    cell(row, "").append(link);
    cell(row, game.started);
    cell(row, game.black);
    cell(row, game.white);
    cell(row, game.result || "not finished");
    cell(row, game.turns);
    body.append(row);
  }
  $("games").hidden = false;
}

// --- one game, replayed -------------------------------------------------------------------
let boards = [];
let at = 0;

function show(index) {
  at = Math.max(0, Math.min(boards.length - 1, index));
  showBoard(boards[at]);
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
  showResult(game.result);
  if (!game.result) $("result").textContent = "not finished";
  const marks = {};
  for (const turn of (answer.review && answer.review.turns) || []) marks[turn.number] = turn;
  if (!answer.review) $("review-status").textContent = "no review for this game";
  const tokens = game.moves ? game.moves.split(/\s+/) : [];
  tokens.forEach((token, i) => {
    const item = document.createElement("li");
    const mark = marks[i + 1];
    item.dataset.turn = token;
    item.dataset.number = i + 1;
    item.textContent = token;
    if (mark) {
      item.dataset.mistake = mark.mistake;
      item.title = `${mark.before} -> ${mark.after}; best: ${mark.best.join(" ")}`;
      if (mark.mistake) item.textContent += ` ?  (best: ${mark.best.slice(0, 3).join(" ")})`;
    }
    item.addEventListener("click", () => show(i + 1));
    $("turns").append(item);
  });
  boards = answer.boards;
  buildPositionBoard();
  show(boards.length - 1);
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
} else {
  listGames();
}

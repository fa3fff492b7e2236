// The archive pages: /games lists the games, /games/ID replays one turn by turn with the
// review's marks. Both read the archive's JSON (/api/games, /api/games/ID); board.js draws.
"use strict";

async function listGames(before = null) {
  // A page of the list at a time, newest first (the board may keep thousands of games):
  // "Older games" asks for the page before the oldest shown.
  const status = $("archive-status");
  let answer;
  try {
    answer = await fetchJson(before ? `/api/games?before=${encodeURIComponent(before)}` : "/api/games");
  } catch (error) {
    status.textContent = t("the archive did not answer ({why})", { why: error.message });
    return;
  }
  if (!answer.available) {
    status.dataset.archive = "unavailable";
    status.textContent = t("The game archive is not available on this board.");
    return;
  }
  if (!answer.games.length) {
    status.dataset.archive = "empty";
    status.textContent = t("No games yet.");
    return;
  }
  status.textContent = "";
  const body = $("games").tBodies[0];
  const heads = Array.from($("games").tHead.rows[0].cells, (th) => th.textContent);
  for (const game of answer.games.slice().reverse()) {
    const row = document.createElement("tr");
    const link = document.createElement("a");
    link.href = `/games/${encodeURIComponent(game.id)}`;
    link.textContent = t("Game {id}", { id: game.id });
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
  const older = $("older-games");
  older.hidden = !answer.older;
  older.onclick = () => listGames(answer.older);
}

function resultWords(result) {
  if (!result) return t("not finished");
  return result === "draw" ? t("draw") : result === "black" ? t("black won") : t("white won");
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
  $("where").textContent = at ? t("after turn {n}", { n: at }) : t("the start");
}

async function showGame(id) {
  let answer;
  try {
    answer = await fetchJson(`/api/games/${encodeURIComponent(id)}`);
  } catch (error) {
    $("review-status").textContent = t("no such game ({why})", { why: error.message });
    return;
  }
  const game = answer.game;
  $("title").textContent = t("Game {id}", { id: game.id });
  document.title = t("Orbito game {id}", { id: game.id });
  lines = game.lines || [];
  showResult(game.result, lines);
  if (!game.result) $("result").textContent = t("Not finished");
  const first = game.first === "black" ? t("black moved first") : t("white moved first");
  $("game-players").textContent =
    t("Black: {who}", { who: playerWords(game.black) }) + " · " + t("White: {who}", { who: playerWords(game.white) }) + " · " + first;
  const date = $("game-date");
  date.replaceChildren(t("Started") + " ", timeElement(game.started));
  if (game.ended) date.append(", " + t("ended") + " ", timeElement(game.ended));
  const marks = {};
  for (const turn of (answer.review && answer.review.turns) || []) marks[turn.number] = turn;
  if (!answer.review) $("review-status").textContent = t("no review for this game");
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
    const named = colour === "black" ? t("black") : colour === "white" ? t("white") : colour;
    const shown = token === "*" ? t("* (a press)") : token;
    button.textContent = `${i + 1}. ${named} ` + shown;
    item.append(button);
    if (mark) {
      item.dataset.mistake = mark.mistake;
      const value = document.createElement("span");
      value.className = "value";
      const before = valueName(mark.before);
      const after = valueName(mark.after);
      const change = mark.before === mark.after
        ? t("keeps a {value}", { value: after })
        : t("{before} to {after}", { before, after });
      value.textContent = mark.mistake
        ? " " + t("mistake: {change}; best was {best}", { change, best: mark.best.slice(0, 3).join(" ") })
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
    status.textContent = t("Asked the board to set up the position after turn {n}: follow its LEDs.", { n: at });
  } catch (error) {
    status.textContent = t("Not set up: {why}", { why: error.message });
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

function valueName(value) {
  // A review's value ("win", "draw", "loss") in the page's words.
  return { win: t("win"), draw: t("draw"), loss: t("loss") }[value] || value;
}

const match = location.pathname.match(/^\/games\/(.+)$/);
loadWords().then(() => {
  if (match) {
    setUpReplay();
    showGame(decodeURIComponent(match[1]));
    $("set-up").addEventListener("click", () => setUpOnBoard(decodeURIComponent(match[1])));
  } else {
    listGames();
  }
});

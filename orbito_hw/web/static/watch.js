// Watching: /watch lists the games on the board's broker ([remote] broker), and
// /watch?game=NAME follows one live from the events its boards publish (/watch/events);
// board.js draws.
"use strict";

function online(game, colour) {
  const on = game.online[colour];
  const state = on === undefined ? t("not heard from") : on ? t("online") : t("offline");
  return colour === "black"
    ? t("Black: black's board, {state}", { state })
    : t("White: white's board, {state}", { state });
}

function turnWords(game) {
  // Whose turn it is, or how the game ended, in words.
  if (game.result) {
    const lines = (game.lines || []).map((l) => l.join(" ")).join("; ");
    const won = game.result === "draw" ? t("Draw") : game.result === "black" ? t("Black wins") : t("White wins");
    return won + (lines ? `: ${lines}` : "");
  }
  if (!game.to_move) return t("No turn yet");
  return game.to_move === "black"
    ? t("Black to move (black's board)")
    : t("White to move (white's board)");
}

async function listWatched() {
  const status = $("watch-status");
  let answer;
  try {
    answer = await fetchJson("/api/watch");
  } catch (error) {
    status.textContent = t("the broker did not answer ({why})", { why: error.message });
    return;
  }
  if (!answer.available) {
    status.dataset.watch = "unavailable";
    status.textContent = t("This board watches no broker (set [remote] broker in its config).");
    return;
  }
  if (!answer.games.length) {
    status.dataset.watch = "empty";
    status.textContent = t("No games on the broker.");
    return;
  }
  status.textContent = "";
  const list = $("watched");
  for (const game of answer.games) {
    const card = document.createElement("li");
    card.className = "card";
    card.dataset.game = game.game;
    const heading = document.createElement("h2");
    const link = document.createElement("a");
    link.href = `/watch?game=${encodeURIComponent(game.game)}`;
    link.textContent = game.game;
    heading.append(link);
    const board = document.createElement("div");
    board.className = "board small";
    board.setAttribute("aria-label", t("game {name}, the board seen from above", { name: game.game }));
    buildPositionBoard(board);
    if (game.board) showBoard(game.board, board, game.result ? game.lines.flat() : []);
    const words = document.createElement("p");
    words.dataset.toMove = game.to_move || "";
    words.textContent = turnWords(game) + " · " + t("{n} turns", { n: game.number });
    const players = document.createElement("p");
    players.className = "who";
    players.textContent = `${online(game, "black")} · ${online(game, "white")}`;
    card.append(heading, board, words, players);
    list.append(card);
  }
  list.hidden = false;
}

function addTurn(token) {
  const item = document.createElement("li");
  item.dataset.turn = token;
  item.textContent = token;
  $("turns").append(item);
}

async function follow(name) {
  $("title").textContent = t("Watching {name}", { name });
  $("following").hidden = false;
  buildPositionBoard();
  // Where the game stands now, from the broker's retained records; then live.
  try {
    const answer = await fetchJson("/api/watch");
    const game = (answer.games || []).find((g) => g.game === name);
    if (game) {
      if (game.board) showBoard(game.board, $("board"), game.result ? game.lines.flat() : []);
      for (const token of game.moves ? game.moves.split(/\s+/) : []) addTurn(token);
      $("follow-players").textContent = `${online(game, "black")} · ${online(game, "white")}`;
      $("follow-turn").textContent = turnWords(game);
    }
  } catch (error) {
    $("watch-status").textContent = t("the broker did not answer ({why})", { why: error.message });
  }
  $("watch-status").textContent = t("live");
  const stream = new EventSource(`/watch/events?game=${encodeURIComponent(name)}`);
  stream.onmessage = (message) => {
    const event = readEvent(message);
    if (event === null) return; // not a line of ours
    // Each board publishes the game's events: the turns come once, from the board that made them.
    if (event.event === "turn" && event.from === event.colour) {
      addTurn(event.turn);
      showBoard(event.board);
      const next = event.colour === "black" ? "white" : "black";
      $("follow-turn").textContent = turnWords({ to_move: next });
    } else if (event.event === "taken-back") {  // from either board: the same turns go
      for (const item of [...$("turns").children].slice(event.number - 1)) item.remove();
      showBoard(event.board);
    } else if (event.event === "result") {
      showResult(event.result, event.lines || []);
      $("follow-turn").textContent = turnWords(event);
    } else if (event.event === "new-game") {
      $("turns").replaceChildren();
      showResult(null);
    }
  };
  stream.onerror = () => { $("watch-status").textContent = t("reconnecting"); };
  stream.onopen = () => { $("watch-status").textContent = t("live"); };
}

const wanted = new URLSearchParams(location.search).get("game");
loadWords().then(() => (wanted ? follow(wanted) : listWatched()));

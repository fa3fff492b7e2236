// Watching: /watch lists the games on the board's broker ([remote] broker), and
// /watch?game=NAME follows one live from the events its boards publish (/watch/events);
// board.js draws.
"use strict";

function online(game, colour) {
  const on = game.online[colour];
  return on === undefined ? "?" : on ? "online" : "offline";
}

async function listWatched() {
  const status = $("watch-status");
  let answer;
  try {
    answer = await fetchJson("/api/watch");
  } catch (error) {
    status.textContent = `the broker did not answer (${error.message})`;
    return;
  }
  if (!answer.available) {
    status.dataset.watch = "unavailable";
    status.textContent = "This board watches no broker (set [remote] broker in its config).";
    return;
  }
  if (!answer.games.length) {
    status.dataset.watch = "empty";
    status.textContent = "No games on the broker.";
    return;
  }
  status.textContent = "";
  const body = $("watched").tBodies[0];
  for (const game of answer.games) {
    const row = document.createElement("tr");
    row.dataset.game = game.game;
    const link = document.createElement("a");
    link.href = `/watch?game=${encodeURIComponent(game.game)}`;
    link.textContent = game.game;
    cell(row, "").append(link);
    cell(row, online(game, "black"));
    cell(row, online(game, "white"));
    cell(row, game.first);
    cell(row, game.number);
    body.append(row);
  }
  $("watched").hidden = false;
}

function addTurn(token) {
  const item = document.createElement("li");
  item.dataset.turn = token;
  item.textContent = token;
  $("turns").append(item);
}

async function follow(name) {
  $("title").textContent = `Watching ${name}`;
  $("following").hidden = false;
  buildPositionBoard();
  // Where the game stands now, from the broker's retained records; then live.
  try {
    const answer = await fetchJson("/api/watch");
    const game = (answer.games || []).find((g) => g.game === name);
    if (game) {
      if (game.board) showBoard(game.board);
      for (const token of game.moves ? game.moves.split(/\s+/) : []) addTurn(token);
    }
  } catch (error) {
    $("watch-status").textContent = `the broker did not answer (${error.message})`;
  }
  $("watch-status").textContent = "live";
  const stream = new EventSource(`/watch/events?game=${encodeURIComponent(name)}`);
  stream.onmessage = (message) => {
    const event = readEvent(message);
    if (event === null) return; // not a line of ours
    // Each board publishes the game's events: the turns come once, from the board that made them.
    if (event.event === "turn" && event.from === event.colour) {
      addTurn(event.turn);
      showBoard(event.board);
    } else if (event.event === "taken-back") {  // from either board: the same turns go
      for (const item of [...$("turns").children].slice(event.number - 1)) item.remove();
      showBoard(event.board);
    } else if (event.event === "result") {
      showResult(event.result);
    } else if (event.event === "new-game") {
      $("turns").replaceChildren();
      showResult(null);
    }
  };
  stream.onerror = () => { $("watch-status").textContent = "reconnecting"; };
  stream.onopen = () => { $("watch-status").textContent = "live"; };
}

const wanted = new URLSearchParams(location.search).get("game");
if (wanted) {
  follow(wanted);
} else {
  listWatched();
}

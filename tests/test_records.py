"""Every game kept exactly once: a result is announced and archived once, whatever power
cuts and corrections come after it, and damage to the turn in progress never costs the
accepted turns."""

from __future__ import annotations

import json
import random
from pathlib import Path

from orbito_hw.control.journal import Journal, Saved
from orbito_hw.rules.game import Colour, replay
from orbito_hw.rules.squares import square_name, squares_of
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script

from .common.scripts import game_script, kinds, random_game


def history(state: Path) -> list[dict[str, object]]:
    path = state / Journal.HISTORY
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def finished_game(seed: int) -> tuple[Colour, list[str], str]:
    rng = random.Random(seed)
    first, turns = random_game(rng)
    position = replay(first, [t.notation() for t in turns])
    assert position.result is not None
    return first, [t.notation() for t in turns], position.result.value


def test_a_power_cut_and_a_correction_after_the_result_do_not_announce_it_again(
    tmp_path: Path,
) -> None:
    rng = random.Random(8)
    first, turns = random_game(rng)
    run = MockRun(tmp_path)
    try:
        run.run_script(game_script(first, turns, rng))
        square = square_name(next(iter(squares_of(run.referee.position.occupied))))
        # Someone starts clearing the board, the power goes, the marble goes back.
        run.run_script(parse_script(f"lift {square}\npower-cut\nput {square}\n"))
        assert len(kinds(run.events, "result")) == 1
        assert kinds(run.events, "corrected")  # the board was checked again after the cut
    finally:
        run.close()
    assert len(history(tmp_path)) == 1


def test_a_result_saved_but_not_yet_announced_is_announced_once_at_start(tmp_path: Path) -> None:
    first, moves, result = finished_game(3)
    with Journal(tmp_path) as journal:
        journal.load()
        journal.save(Saved(game=4, first=first, turns=moves, announced=False))
    # The board shows the final position: put the marbles where the game left them.
    position = replay(first, moves)
    script = "".join(
        f"put {square_name(s)} {position.colour_at(s).value}\n"  # type: ignore[union-attr]
        for s in squares_of(position.occupied)
    )
    run = MockRun(tmp_path)
    try:
        run.physics.clear()
        run.run_script(parse_script(script))
        (event,) = kinds(run.events, "result")
        assert event["result"] == result and event["game"] == 4
        run.power_cut()
        run.finish()
        assert len(kinds(run.events, "result")) == 1
    finally:
        run.close()
    assert [(g["game"], g["moves"], g["result"]) for g in history(tmp_path)] == [
        (4, " ".join(moves), result)
    ]


def test_archiving_a_game_twice_keeps_it_once(tmp_path: Path) -> None:
    first, moves, result = finished_game(5)
    with Journal(tmp_path) as journal:
        saved = Saved(game=2, first=first, turns=moves)
        journal.add_to_history(saved, result)
        journal.add_to_history(saved, result)  # the power went after the first, before "announced"
        journal.add_to_history(Saved(game=3, first=first, turns=moves[:3]), None)
    assert [g["game"] for g in history(tmp_path)] == [2, 3]


def test_a_damaged_turn_in_progress_costs_only_that_turn(tmp_path: Path) -> None:
    first, moves, _ = finished_game(6)
    kept = moves[:5]
    journal = {
        "format": 1,
        "game": 7,
        "first": first.value,
        "turns": kept,
        "pending": "*",  # an extra press on a board that is not full: damage
        "touches": [],
    }
    raw = json.dumps(journal).encode()
    (tmp_path / Journal.NAME).write_bytes(raw)
    run = MockRun(tmp_path)
    try:
        (fault,) = kinds(run.events, "fault")
        assert "goes on from its 5 accepted turns" in str(fault["reason"])
        assert run.referee.saved.turns == kept and run.referee.saved.game == 7
    finally:
        run.close()
    assert (tmp_path / f"{Journal.NAME}.damaged-1").read_bytes() == raw


def test_a_turn_in_progress_is_journaled_in_size_bounded_by_the_board(tmp_path: Path) -> None:
    run = MockRun(tmp_path)
    try:
        run.run_script(parse_script("reset white\nput b1\npress\nput a2\n"))
        sizes = set()
        for _ in range(300):
            run.run_script(parse_script("lift c1\nput c1\nlift a2\nput a2\n"))
            sizes.add((tmp_path / Journal.NAME).stat().st_size)
        assert max(sizes) < 2000  # bounded by the board, not by 1200 touches
        run.run_script(parse_script("power-cut\nlift c1\nput c2\npress\n"))
        assert [e["turn"] for e in kinds(run.events, "turn")] == ["b1", "c1-c2:a2"]
    finally:
        run.close()

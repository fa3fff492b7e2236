"""The page in a real browser: Debian's chromium (``/usr/bin/chromium``, which ``.ci/run``
installs) driven by Playwright, against ``orbito-hw run --mock --web`` in its own process.

A whole game played by clicks reaches the result the engine gives, while a second page
follows every turn live; the page survives a restart of the controller; a control without
the access code is refused; the rings' turn slides the marbles until the board changes; the
archive lists the game and replays it turn by turn; the watch page without a broker says so.
Under CI=true a missing browser fails, never skips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn

from .common.browser import (
    WAIT_MS,
    board,
    click_turn,
    free_port,
    marbles_of,
    random_game,
    turns_on,
)


def wait_for_turns(page: Any, count: int) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('[data-turn]').length === n", arg=count, timeout=WAIT_MS
    )


def marbles_on(page: Any) -> dict[str, str]:
    pairs = page.eval_on_selector_all(
        "[data-square]", "e => e.map(x => [x.dataset.square, x.dataset.marble])"
    )
    return {square: marble for square, marble in pairs if marble}


def test_a_game_by_clicks_reaches_the_engines_result_and_a_second_page_follows(
    browser: Any, tmp_path: Path
) -> None:
    tokens, end = random_game(seed=14)
    assert end.result is not None
    with board(free_port()) as url:
        player, watcher = browser.new_page(), browser.new_page()
        for page in (player, watcher):
            page.goto(url)
            page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        position = Position.start(Colour.BLACK)
        for number, token in enumerate(tokens, 1):
            click_turn(player, token)
            position = position.play(Turn.from_notation(token))
            wait_for_turns(watcher, number)  # the other page, live
            assert turns_on(watcher) == tokens[:number]
        for page in (player, watcher):
            page.wait_for_selector(f'[data-result="{end.result.value}"]', timeout=WAIT_MS)
            assert marbles_on(page) == marbles_of(end)
            assert turns_on(page) == tokens
            # The winning line blinks: lit half the time, so looked for over a while.
            page.wait_for_function(
                "[...document.querySelectorAll('[data-led]')].some(x => x.dataset.led)",
                timeout=WAIT_MS,
            )


def test_the_page_survives_a_restart_of_the_controller(browser: Any, tmp_path: Path) -> None:
    port, state = free_port(), str(tmp_path / "state")
    page = browser.new_page()
    with board(port, "--state-dir", state) as url:
        page.goto(url)
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        page.click('[data-square="b2"]')
        page.click('[data-action="press"]')
        wait_for_turns(page, 1)
    page.wait_for_selector('[data-link="reconnecting"]', timeout=WAIT_MS)
    with board(port, "--state-dir", state):
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        assert turns_on(page) == ["b2"]
        page.wait_for_selector('[data-square="c2"][data-marble="black"]', timeout=WAIT_MS)
        page.click('[data-square="a1"]')
        page.click('[data-action="press"]')
        wait_for_turns(page, 2)
        assert turns_on(page) == ["b2", "a1"]


def test_a_control_without_the_access_code_is_refused(browser: Any, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    sim = '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'
    config.write_text(sim + '[web]\ncode = "letmein42"\n')
    with board(free_port(), "--config", str(config)) as url:
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        page.click("#controls summary")
        page.select_option("#first", "white")
        page.click('[data-control="new-game"]')
        page.wait_for_selector('body[data-refused="403"]', timeout=WAIT_MS)
        assert "access code" in page.inner_text("#notice")
        assert page.get_attribute('[data-colour="black"]', "data-to-move") == "true"
        state = page.locator("#controls-state")  # read-only, and why, in words
        assert state.get_attribute("data-controls") == "read-only"
        assert "access code" in state.inner_text()
        page.fill("#code", "letmein42")
        page.click('[data-control="new-game"]')
        page.wait_for_selector('[data-colour="white"][data-to-move="true"]', timeout=WAIT_MS)
        assert page.get_attribute("body", "data-refused") is None


def test_the_rings_turn_slides_the_marbles_until_news_comes(browser: Any) -> None:
    # The page draws the rings' motion; a change on the board ends it at once, so a page
    # never shows a marble still sliding while the board has moved on.
    with board(free_port()) as url:
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        inspector = page.context.new_cdp_session(page)
        inspector.send("Animation.enable")
        inspector.send("Animation.setPlaybackRate", {"playbackRate": 0.01})  # 35 s a slide
        running = """() => document.getAnimations()
            .filter(a => !(a instanceof CSSTransition) && a.playState === 'running').length"""
        page.click('[data-square="b2"]')
        page.click('[data-action="press"]')
        wait_for_turns(page, 1)
        assert page.evaluate(running) == 1  # b2's marble, sliding to c2
        page.click('[data-square="a1"]')
        page.wait_for_selector('[data-square="a1"][data-marble="white"]', timeout=WAIT_MS)
        assert page.evaluate(running) == 0
        page.close()


def test_the_archive_lists_the_game_and_replays_it_turn_by_turn(
    browser: Any, tmp_path: Path
) -> None:
    tokens, end = random_game(seed=14)
    assert end.result is not None
    positions = [Position.start(Colour.BLACK)]
    for token in tokens:
        positions.append(positions[-1].play(Turn.from_notation(token)))
    with board(free_port(), "--state-dir", str(tmp_path / "state")) as url:
        player = browser.new_page()
        player.goto(url)
        player.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        for number, token in enumerate(tokens, 1):
            click_turn(player, token)
            wait_for_turns(player, number)
        page = browser.new_page()
        page.goto(url + "games")
        link = page.wait_for_selector("#games a", timeout=WAIT_MS)
        link.click()
        page.wait_for_selector(f'#result[data-result="{end.result.value}"]', timeout=WAIT_MS)
        assert turns_on(page) == tokens
        assert marbles_on(page) == marbles_of(end)  # the game's end, first
        for number in range(len(tokens) - 1, -1, -1):  # then back, turn by turn, to the start
            page.click("#back")
            assert marbles_on(page) == marbles_of(positions[number]), number
        page.click(f'[data-number="{len(tokens) // 2}"]')
        assert marbles_on(page) == marbles_of(positions[len(tokens) // 2])
        marked = page.eval_on_selector_all("[data-mistake]", "e => e.length")
        assert marked == len(tokens), "the review marks every turn, a mistake or not"


def test_without_a_broker_the_watch_page_says_so(browser: Any) -> None:
    with board(free_port()) as url:
        page = browser.new_page()
        page.goto(url + "watch")
        status = page.wait_for_selector('[data-watch="unavailable"]', timeout=WAIT_MS)
        assert "[remote] broker" in status.inner_text()
        assert page.is_hidden("#watched")

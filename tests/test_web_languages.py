"""The page's sentences in each viewer's language (issue 36): one board speaking English, a
French page and an English page, each told the same instruction in its own language, on
``/state`` and on the ``/events`` stream; ``lang.speaking`` never leaks from one asyncio
task (one viewer's request) to another."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp.test_utils import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw import lang
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.glows import LEGEND

from .common.page import serve
from .common.sse import next_event, snapshot_after

FR = lang.translation("fr")


async def post(client: TestClient[Any, Any], path: str, **fields: str) -> Any:
    return await client.post(path, json=fields)


def board_turn(state: dict[str, Any]) -> bool:
    return state["phase"] == "board-turn"


def test_an_english_board_tells_a_french_page_in_french_and_an_english_one_in_english() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        english = await client.get("/events", headers={"Accept-Language": "en-GB,en;q=0.9"})
        french = await client.get("/events", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
        chosen = await client.get("/events?lang=fr", headers={"Accept-Language": "en"})
        for stream in (english, french, chosen):
            assert (await next_event(stream))["event"] == "snapshot"
        assert (await post(client, "/api/opponent", level="perfect", colour="white")).status == 200
        for click in ["square/b1", "press"]:
            assert (await post(client, f"/api/{click}")).status == 200, click
        en = await snapshot_after(english, board_turn)
        fr = await snapshot_after(french, board_turn)
        assert (await snapshot_after(chosen, board_turn))["instruction"] == fr["instruction"]
        # the same instruction, each in its viewer's language
        steps = en["instruction"].removeprefix("The board's turn: ")
        assert steps != en["instruction"]
        assert fr["instruction"].startswith(
            FR.gettext("The board's turn: {steps}").split("{steps}")[0]
        )
        assert fr["instruction"] != en["instruction"]
        assert [row["text"] for row in en["legend"]] == [text for _key, text in LEGEND]
        assert [row["text"] for row in fr["legend"]] == [FR.gettext(t) for _k, t in LEGEND]
        # the board's data is the same for both: only the sentences differ
        words = {"instruction", "who", "glows", "status_text", "legend"}
        assert {k: v for k, v in en.items() if k not in words} == {
            k: v for k, v in fr.items() if k not in words
        }
        # /state: ?lang=, the cookie, the browser's header, in that order
        asked = {
            "fr": await client.get("/state?lang=fr", headers={"Accept-Language": "en"}),
            "fr-cookie": await client.get("/state", cookies={"orbito-hw-lang": "fr"}),
            "fr-header": await client.get("/state", headers={"Accept-Language": "fr"}),
            "en": await client.get("/state?lang=xx", headers={"Accept-Language": "en"}),
        }
        said = {key: (await answer.json())["instruction"] for key, answer in asked.items()}
        assert said == {
            "fr": fr["instruction"],
            "fr-cookie": fr["instruction"],
            "fr-header": fr["instruction"],
            "en": en["instruction"],
        }
        assert lang.language() == "en", "the board itself still speaks English"
        for stream in (english, french, chosen):
            stream.close()

    serve(test)


def test_a_snapshot_is_worded_once_per_language_not_once_per_page() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        from orbito_hw.web import feed as feed_module

        said: list[str] = []
        real = feed_module.instruction

        def counted(situation: Any) -> tuple[str, str]:
            said.append(lang.language())
            return real(situation)

        feed_module.instruction = counted  # type: ignore[assignment]
        try:
            pages = [
                await client.get("/events", headers={"Accept-Language": code})
                for code in ["fr", "en", "fr", "fr", "en"]
            ]
            for page in pages:
                await next_event(page, "snapshot")
            said.clear()
            assert (await post(client, "/api/square/b1")).status == 200
            for page in pages:
                await snapshot_after(page, lambda s: "b1" in s["marbles"])
            assert sorted(said) == ["en", "fr"], said  # one flush: two languages, five pages
        finally:
            feed_module.instruction = real
            for page in pages:
                page.close()

    serve(test)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([None, *lang.LANGUAGES]), min_size=1, max_size=12))
def test_speaking_never_leaks_across_concurrent_tasks(codes: list[str | None]) -> None:
    # Each task speaks its own language (None: the process's) across awaits that let the
    # others run in between; each hears only its own, and the process's is untouched.
    async def viewer(code: str | None, start: asyncio.Event) -> list[str]:
        heard = []
        await start.wait()
        if code is None:
            for _turn in range(3):
                heard.append(lang.language())
                await asyncio.sleep(0)
            return heard
        with lang.speaking(code):
            for _turn in range(3):
                heard.append(lang.language())
                heard.append("fr" if lang._("a draw") == FR.gettext("a draw") else "en")
                await asyncio.sleep(0)
        heard.append(lang.language())
        return heard

    async def main() -> list[list[str]]:
        start = asyncio.Event()
        tasks = [asyncio.create_task(viewer(code, start)) for code in codes]
        await asyncio.sleep(0)
        start.set()
        return await asyncio.gather(*tasks)

    lang.reset()
    results = asyncio.run(main())
    for code, heard in zip(codes, results, strict=True):
        if code is None:
            assert heard == ["en"] * 3
        else:
            assert heard == [code] * 6 + ["en"]
    assert lang.language() == "en"


def test_speaking_refuses_a_language_the_product_does_not_speak() -> None:
    try:
        with lang.speaking("xx"):
            raise AssertionError("entered")
    except ValueError as exc:
        assert "'xx'" in str(exc)
    assert lang.language() == "en"

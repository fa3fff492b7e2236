"""The framed protocol: frames survive garbage, cut frames and bit errors; a retried
command (same sequence number) is answered again but never run twice."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st
from orbito_fw.controller import RingController
from orbito_fw.device import Device
from orbito_fw.protocol import MAX_FRAME, PROTOCOL_VERSION, Deframer, crc16, encode

from .common.standin_rings import StandInRings

WORD = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters="$*"),
    min_size=1,
    max_size=8,
)
FRAME = st.tuples(st.integers(0, 65535), st.lists(WORD, min_size=1, max_size=6))


def test_the_crc_is_crc16_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1  # the standard check value


@given(FRAME)
def test_every_frame_round_trips(frame: tuple[int, list[str]]) -> None:
    seq, words = frame
    assert Deframer().feed(encode(seq, words)) == [(seq, words)]


@given(st.lists(FRAME, min_size=1, max_size=5), st.integers(1, 7))
def test_frames_split_anywhere_across_reads_arrive_whole(
    frames: list[tuple[int, list[str]]], chunk: int
) -> None:
    stream = b"".join(encode(seq, words) for seq, words in frames)
    d = Deframer()
    got = []
    for i in range(0, len(stream), chunk):
        got += d.feed(stream[i : i + chunk])
    assert got == frames


@given(st.binary(max_size=60), FRAME)
def test_garbage_before_a_frame_is_skipped(garbage: bytes, frame: tuple[int, list[str]]) -> None:
    got = Deframer().feed(garbage + encode(*frame))
    assert got[-1] == frame


@given(FRAME, FRAME, st.data())
def test_garbage_inside_a_frame_loses_that_frame_only(
    first: tuple[int, list[str]], second: tuple[int, list[str]], data: st.DataObject
) -> None:
    raw = encode(*first)
    at = data.draw(st.integers(1, len(raw) - 1))
    # No "$" in the junk: a "$" starts a frame, which is the cut-frame case below.
    junk = data.draw(st.binary(min_size=1, max_size=4).filter(lambda b: b"$" not in b))
    damaged = raw[:at] + junk + raw[at:]
    # Junk that completes the frame early (a "\n" right after its "\r") leaves it whole.
    assume(not damaged.startswith(raw))
    got = Deframer().feed(damaged + encode(*second))
    assert got[-1] == second and first not in got[:-1]  # (a CRC collision could add a frame)


def test_a_crlf_line_end_is_accepted() -> None:
    assert Deframer().feed(encode(3, ["PING"])[:-1] + b"\r\n") == [(3, ["PING"])]


@given(FRAME, FRAME, st.data())
def test_a_cut_frame_is_dropped_and_the_next_one_read(
    first: tuple[int, list[str]], second: tuple[int, list[str]], data: st.DataObject
) -> None:
    raw = encode(*first)
    cut = data.draw(st.integers(1, len(raw) - 1))  # the cable went at byte `cut`
    d = Deframer()
    assert d.feed(raw[:cut] + encode(*second)) == [second]
    assert d.cut == 1


def test_every_single_bit_error_is_caught() -> None:
    raw = encode(4242, ["MOVE", "3"])
    good = encode(7, ["STAT"])
    for bit in range(len(raw) * 8):
        bad = bytearray(raw)
        bad[bit // 8] ^= 1 << (bit % 8)
        assert Deframer().feed(bytes(bad) + good) == [(7, ["STAT"])], f"bit {bit}"


def test_the_deframer_counts_what_it_threw_away() -> None:
    d = Deframer()
    raw = encode(1, ["PING"])
    bad = bytearray(raw)
    bad[4] ^= 0x04  # "PING" -> "PMNG": the CRC no longer fits
    d.feed(b"xyz" + raw[:5] + bytes(bad) + b"$" + b"A" * 300 + b"\n")
    # The overlong line is cut after MAX_FRAME bytes; the rest of it is garbage.
    assert (d.garbage, d.cut, d.bad) == (3 + 300 - MAX_FRAME - 1, 2, 1)


# -- the Pico's side: commands and retries --------------------------------------------


def device(spp: int = 20) -> tuple[Device, StandInRings, Deframer]:
    rings = StandInRings(spp)
    dev = Device(RingController(rings), "b00t")
    dev.feed(encode(1, ["HELLO", str(PROTOCOL_VERSION), "host1"]), 0)
    dev.feed(encode(2, ["CFG", f"spp={spp}"]), 0)
    dev.feed(encode(3, ["HOME"]), 0)
    return dev, rings, Deframer()


def run(dev: Device, now: int = 0) -> int:
    while dev.controller.busy:
        now = max(now, dev.poll(now))
    return now


def test_a_repeated_sequence_number_is_answered_but_not_run_again() -> None:
    dev, rings, d = device()
    for _ in range(3):
        dev.feed(encode(10, ["MOVE", "2"]), 0)
    now = run(dev)
    dev.feed(encode(10, ["MOVE", "2"]), now)  # a late retry, after the move ended
    run(dev, now)
    replies = [f for f in d.feed(dev.take_output()) if f[0] == 10]
    assert replies == [(10, ["OK", "MOVE"])] * 4
    assert rings.position == 40  # two places, once
    dev.feed(encode(11, ["MOVE", "1"]), now)  # a new number is a new move
    run(dev, now)
    assert rings.position == 60


def test_stat_is_never_answered_from_memory() -> None:
    dev, _rings, d = device()
    dev.feed(encode(20, ["STAT"]), 0)
    dev.feed(encode(21, ["MOVE", "1"]), 0)
    dev.feed(encode(20, ["STAT"]), 0)
    states = [words[2] for seq, words in d.feed(dev.take_output()) if seq == 20]
    assert states == ["state=idle", "state=move"]


def test_a_new_host_session_starts_a_fresh_memory_and_a_reconnect_keeps_it() -> None:
    dev, rings, _d = device()
    dev.feed(encode(5, ["MOVE", "1"]), 0)
    now = run(dev)
    dev.feed(encode(6, ["HELLO", str(PROTOCOL_VERSION), "host1"]), now)  # reconnect
    dev.feed(encode(5, ["MOVE", "1"]), now)
    now = run(dev, now)
    assert rings.position == 20
    dev.feed(encode(1, ["HELLO", str(PROTOCOL_VERSION), "host2"]), now)  # a new host
    dev.feed(encode(5, ["MOVE", "1"]), now)
    run(dev, now)
    assert rings.position == 40


def test_bad_commands_get_a_clear_error() -> None:
    dev, _rings, d = device()
    dev.feed(encode(30, ["FLY"]), 0)
    dev.feed(encode(31, ["MOVE", "x"]), 0)
    dev.feed(encode(32, ["CFG", "warp=9"]), 0)
    dev.feed(encode(33, ["CFG", "speed=-5"]), 0)
    replies = {seq: words for seq, words in d.feed(dev.take_output())}
    assert replies[30] == ["ERR", "unknown_command"]
    assert replies[31] == ["ERR", "bad_value"]
    assert replies[32] == ["ERR", "unknown_key", "warp"]
    assert replies[33] == ["ERR", "bad_value", "speed"]


def test_the_handshake_names_the_protocol_and_the_boot() -> None:
    dev, _rings, d = device()
    dev.feed(encode(40, ["HELLO", "1", "host1"]), 0)
    (reply,) = [w for s, w in d.feed(dev.take_output()) if s == 40]
    assert reply[:3] == ["OK", "HELLO", f"proto={PROTOCOL_VERSION}"]
    assert "boot=b00t" in reply and "fault=-" in reply

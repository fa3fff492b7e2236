"""The hall sensors' classification: thresholds, hysteresis and the calibration file."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orbito_hw.hw.hall import (
    DESIGN,
    Calibration,
    Seen,
    SquareLevels,
    classify,
    default_calibration,
)

LEVELS = SquareLevels(empty=10.0, black=210.0, white=-150.0)


def test_thresholds_half_way_with_a_band_a_quarter_of_each_gap() -> None:
    t = LEVELS.thresholds()
    assert (t.black_on, t.black_off) == (135.0, 85.0)  # mid 110, band 200 / 4 = 50 wide
    assert (t.white_on, t.white_off) == (-90.0, -50.0)  # mid -70, band 160 / 4 = 40 wide
    assert LEVELS.separation == 160.0


@pytest.mark.parametrize(
    ("value", "previous", "seen"),
    [
        (134.9, Seen.EMPTY, Seen.EMPTY),
        (135.0, Seen.EMPTY, Seen.BLACK),
        (85.1, Seen.BLACK, Seen.BLACK),
        (85.0, Seen.BLACK, Seen.EMPTY),
        (-89.9, Seen.EMPTY, Seen.EMPTY),
        (-90.0, Seen.EMPTY, Seen.WHITE),
        (-50.1, Seen.WHITE, Seen.WHITE),
        (-50.0, Seen.WHITE, Seen.EMPTY),
        (150.0, Seen.WHITE, Seen.BLACK),  # black to white with no empty reading between
        (-100.0, Seen.BLACK, Seen.WHITE),
    ],
)
def test_classify_with_hysteresis(value: float, previous: Seen, seen: Seen) -> None:
    assert classify(value, LEVELS, previous) is seen


@given(
    st.floats(-400, 400),
    st.floats(-0.999, 0.999),
    st.sampled_from(Seen),
)
def test_noise_inside_a_band_never_flips_the_reading_back(
    value: float, share: float, previous: Seen
) -> None:
    """A reading that swings back and forth by less than a band settles at once: once it
    has crossed a threshold it never crosses back."""
    t = LEVELS.thresholds()
    nudge = share * min(t.black_on - t.black_off, t.white_off - t.white_on)
    seen = [classify(value, LEVELS, previous)]
    for step in range(6):
        seen.append(classify(value + nudge * (step % 2 == 0), LEVELS, seen[-1]))
    assert len(set(seen[1:])) == 1


def test_levels_out_of_order_are_refused() -> None:
    with pytest.raises(ValueError, match="black must read above empty"):
        SquareLevels(empty=0.0, black=-5.0, white=-100.0)
    with pytest.raises(ValueError, match="numbers of gauss"):
        SquareLevels(empty=float("nan"), black=5.0, white=-100.0)


def test_default_calibration_reads_the_weakest_marble_through_the_worst_offset() -> None:
    levels = default_calibration().squares[0]
    t = levels.thresholds()
    spread, noise = DESIGN.offset_spread_g, 4 * DESIGN.noise_rms_g
    assert DESIGN.black_weakest_g - spread - noise > t.black_on
    assert DESIGN.white_weakest_g + spread + noise < t.white_on
    assert DESIGN.empty_strongest_g + spread + noise < t.black_off
    assert -DESIGN.empty_strongest_g - spread - noise > t.white_off


def test_calibration_round_trips_through_json() -> None:
    cal = Calibration(tuple(SquareLevels(float(i), 100.0 + i, -100.0 - i) for i in range(16)))
    assert Calibration.from_json(cal.to_json()) == cal


def _broken(change: str) -> str:
    data = json.loads(default_calibration().to_json())
    if change == "version":
        data["version"] = 99
    elif change == "missing":
        del data["squares"]["c3"]
    elif change == "unknown":
        data["squares"]["e5"] = data["squares"]["a1"]
    elif change == "text":
        data["squares"]["b2"]["white"] = "low"
    elif change == "order":
        data["squares"]["d4"]["black"] = -300
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON"),
        ("[]", "not a JSON object"),
        (_broken("version"), "version is 99"),
        (_broken("missing"), "no levels for c3"),
        (_broken("unknown"), "'e5', not a square"),
        (_broken("text"), "b2.white is 'low'"),
        (_broken("order"), "d4: black must read above"),
    ],
)
def test_bad_calibration_names_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Calibration.from_json(text)

"""The turn reader on its own: touches in, the turn on the board (or why there is none) out.

No clock, no board, no referee: lifts and puts are fed as ``(square, present)`` pairs.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from orbito_hw.control.reading import Marble, TurnReader
from orbito_hw.errors import IllegalTurnError
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.squares import SQUARES, parse_square, squares_of
from orbito_hw.rules.turn import EXTRA_PRESS, Turn

Touch = tuple[int, bool]

# White placed b1, the rings carried it to c1: black to move, one white marble on c1.
OPENING = replay(Colour.WHITE, ["b1"])
# A full board with no line of four: only an extra press is legal.
FULL = Position.from_board("BBWW/WWBB/BBWW/WWBB", Colour.BLACK)


def lift(name: str) -> Touch:
    return parse_square(name), False


def put(name: str) -> Touch:
    return parse_square(name), True


def read(position: Position, touches: list[Touch]) -> TurnReader:
    reader = TurnReader(position)
    for square, present in touches:
        reader.sense(square, present)
    return reader


def refusal(position: Position, touches: list[Touch]) -> IllegalTurnError:
    with pytest.raises(IllegalTurnError) as info:
        read(position, touches).turn()
    return info.value


def names(squares: tuple[int, ...]) -> set[str]:
    return {"abcd"[sq % 4] + str(sq // 4 + 1) for sq in squares}


# --- turns the reader recognises -----------------------------------------------------


def test_the_board_at_the_start_of_a_turn_is_untouched() -> None:
    reader = TurnReader(OPENING)
    assert not reader.touched and reader.hand == []
    assert reader.marbles == {parse_square("c1"): Marble(Colour.WHITE, parse_square("c1"))}
    assert reader.occupied == OPENING.occupied


@pytest.mark.parametrize(
    ("touches", "turn"),
    [
        ([put("a2")], "a2"),
        ([lift("c1"), put("c2"), put("a2")], "c1-c2:a2"),
        ([put("a2"), lift("c1"), put("c2")], "c1-c2:a2"),
        # Same occupancy as "place c2", but the order says the white marble went to c2.
        ([lift("c1"), put("c2"), put("c1")], "c1-c2:c1"),
        ([lift("c1"), put("c1"), put("a2")], "a2"),  # lifted and put back: no move
        ([put("d4"), lift("d4"), put("a2")], "a2"),  # the new marble set down elsewhere
        ([lift("c1"), put("d3"), lift("d3"), put("c2"), put("a2")], "c1-c2:a2"),
    ],
)
def test_the_order_of_lifts_and_puts_names_the_turn(touches: list[Touch], turn: str) -> None:
    assert read(OPENING, touches).turn() == Turn.from_notation(turn)


def test_the_marble_lifted_last_goes_down_first() -> None:
    position = replay(Colour.WHITE, ["b1", "a2"])
    assert position.board() == "..../..../..../B..W"
    reader = read(position, [lift("a1"), lift("d1"), put("d4"), put("d3")])
    assert reader.colours(squares_of(reader.occupied)) == (
        (parse_square("d3"), Colour.BLACK),
        (parse_square("d4"), Colour.WHITE),
    )


def test_a_full_board_left_alone_is_an_extra_press() -> None:
    assert TurnReader(FULL).turn() == EXTRA_PRESS
    fidget = read(FULL, [lift("a1"), put("a1")])
    assert fidget.turn() == EXTRA_PRESS


def test_a_supply_marble_in_the_hand_goes_back_a_lifted_one_stays() -> None:
    reader = read(OPENING, [put("a2"), lift("a2"), lift("c1")])
    reader.back_to_supply()
    assert reader.hand == [Marble(Colour.WHITE, parse_square("c1"))]
    reader.sense(parse_square("c1"), True)
    assert not reader.touched


def test_the_last_games_marbles_cleared_off_are_not_in_the_hand() -> None:
    """A new game on a board that still holds the last game's marbles reads them as placed
    (the referee's board-not-empty, in the colours seen); lifted off, the other player's go
    back to the supply: the next put is a marble of the player to move, not the white one
    lifted last (which the page asked to be put back, and the simulated person put down)."""
    reader = TurnReader(Position.start(Colour.BLACK))
    reader.sense(parse_square("b2"), True, Colour.BLACK)
    reader.sense(parse_square("c3"), True, Colour.WHITE)
    reader.sense(parse_square("b2"), False)
    reader.sense(parse_square("c3"), False)
    assert not reader.touched
    assert reader.hand == [Marble(Colour.BLACK, None)]
    reader.sense(parse_square("a1"), True)
    assert reader.turn() == Turn.from_notation("a1")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_hand_never_holds_a_marble_of_the_other_players_supply(
    data: st.DataObject,
) -> None:
    position = data.draw(played_positions())
    reader = TurnReader(position)
    for _ in range(data.draw(st.integers(0, 30))):
        square = data.draw(st.sampled_from(SQUARES))
        colour = data.draw(st.sampled_from([None, *Colour]))
        reader.sense(square, not reader.holds(square), colour)
        supply = [m.colour for m in reader.hand if m.origin is None]
        assert position.to_move.other not in supply


# --- refusals, with the squares at fault ---------------------------------------------


def test_nothing_placed_names_no_square() -> None:
    exc = refusal(OPENING, [])
    assert "place one of your own marbles" in exc.reason and exc.squares == ()


def test_two_placements_name_both() -> None:
    exc = refusal(OPENING, [put("a2"), put("d4")])
    assert "only one marble may be placed" in exc.reason and "not 2" in exc.reason
    assert names(exc.squares) == {"a2", "d4"}


def test_a_marble_off_the_board_names_where_it_came_from() -> None:
    exc = refusal(OPENING, [put("a2"), lift("c1"), put("d4"), lift("d4")])
    assert exc.reason == "the marble lifted from c1 is not back on the board"
    assert names(exc.squares) == {"c1"}


def test_two_opponent_marbles_moved_name_all_four_squares() -> None:
    position = replay(Colour.WHITE, ["b1", "a2", "d4"])  # black to move, white on c4 and d2
    opponent = squares_of(position.marbles(position.to_move.other))
    assert len(opponent) == 2
    empty = squares_of(position.empty)
    a, b = empty[:2]
    exc = refusal(
        position,
        [(opponent[0], False), (a, True), (opponent[1], False), (b, True), (empty[2], True)],
    )
    assert exc.reason == "only one opponent marble may be moved in a turn"
    assert set(exc.squares) == {opponent[0], opponent[1], a, b}


def test_moving_your_own_marble_gets_the_rules_reason() -> None:
    position = replay(Colour.WHITE, ["b1", "a2"])  # white to move, its marble on d1
    exc = refusal(position, [lift("d1"), put("d2"), put("b4")])
    assert "holds your own marble" in exc.reason and names(exc.squares) == {"d1"}


def test_a_move_that_is_not_a_step_names_both_ends() -> None:
    exc = refusal(OPENING, [lift("c1"), put("c3"), put("a2")])
    assert "not a step" in exc.reason and names(exc.squares) == {"c1", "c3"}


def test_a_touched_full_board_names_what_changed() -> None:
    exc = refusal(FULL, [lift("a1"), put("a1"), lift("b1"), lift("c1"), put("b1"), put("c1")])
    assert exc.reason.startswith("the board is full")
    assert names(exc.squares) == {"b1", "c1"}


def test_a_game_that_is_over_has_no_turn() -> None:
    over = Position.from_board("BBBB/WWW./..../....", Colour.WHITE)
    assert over.is_over
    exc = refusal(over, [put("d3")])
    assert exc.squares == ()


# --- properties: random positions, random turns, random hands --------------------------


@st.composite
def played_positions(draw: st.DrawFn) -> Position:
    """A position reached by random legal play, the game still on."""
    position = Position.start(draw(st.sampled_from(list(Colour))))
    for _ in range(draw(st.integers(0, 24))):
        after = position.play(draw(st.sampled_from(list(position.legal_turns()))))
        if after.is_over:
            break
        position = after
    return position


@st.composite
def laid_out_positions(draw: st.DrawFn) -> Position:
    """Any layout without a line, full boards included (random play rarely fills one)."""
    cells = "BW" if draw(st.booleans()) else ".BW"
    squares = draw(st.lists(st.sampled_from(cells), min_size=16, max_size=16))
    text = "/".join("".join(squares[i : i + 4]) for i in (0, 4, 8, 12))
    position = Position.from_board(text, draw(st.sampled_from(list(Colour))))
    assume(not position.is_over)
    return position


positions = st.one_of(played_positions(), laid_out_positions())


class Hands:
    """Writes the touches of a person making a turn, checking each is physically possible:
    lifts of occupied squares, puts on empty ones, hesitations now and then."""

    def __init__(self, draw: st.DrawFn, position: Position) -> None:
        self.draw = draw
        self.occupied = set(squares_of(position.occupied))
        self.touches: list[Touch] = []

    def lift(self, square: int) -> None:
        assert square in self.occupied
        self.occupied.remove(square)
        self.touches.append((square, False))

    def put(self, square: int) -> None:
        assert square not in self.occupied
        self.occupied.add(square)
        self.touches.append((square, True))

    def hesitate(self) -> None:
        """Marbles lifted and put straight back (whatever is in the hand stays there)."""
        for _ in range(self.draw(st.integers(0, 2))):
            if self.occupied:
                square = self.draw(st.sampled_from(sorted(self.occupied)))
                self.lift(square)
                self.put(square)

    def carry_to(self, end: int) -> None:
        """The marble in the hand goes down on ``end``, maybe set down on the way first."""
        for _ in range(self.draw(st.integers(0, 2))):
            free = sorted(set(SQUARES) - self.occupied - {end})
            if not free:
                break
            via = self.draw(st.sampled_from(free))
            self.put(via)
            self.hesitate()
            self.lift(via)
        self.put(end)

    def move(self, src: int, dst: int) -> None:
        self.lift(src)
        self.hesitate()
        self.carry_to(dst)

    def place(self, square: int) -> None:
        free = sorted(set(SQUARES) - self.occupied - {square})
        if free and self.draw(st.booleans()):
            first = self.draw(st.sampled_from(free))  # from the supply, then moved over
            self.put(first)
            self.hesitate()
            self.lift(first)
            self.carry_to(square)
        else:
            self.put(square)


def perform(draw: st.DrawFn, position: Position, turn: Turn) -> list[Touch]:
    """``turn`` as lifts and puts in a random order, with hesitations."""
    hands = Hands(draw, position)
    hands.hesitate()
    if turn.place is not None:
        moves = turn.move_from is not None and turn.move_to is not None
        # The place square may be the one the move leaves: then the move goes first.
        place_first = moves and turn.place != turn.move_from and draw(st.booleans())
        if place_first:
            hands.place(turn.place)
            hands.hesitate()
        if turn.move_from is not None and turn.move_to is not None:
            hands.move(turn.move_from, turn.move_to)
            hands.hesitate()
        if not place_first:
            hands.place(turn.place)
    hands.hesitate()
    return hands.touches


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_legal_turn_made_in_any_order_reads_as_that_turn(data: st.DataObject) -> None:
    position = data.draw(positions)
    turn = data.draw(st.sampled_from(list(position.legal_turns())))
    touches = perform(data.draw, position, turn)
    reader = read(position, touches)
    assert reader.turn() == turn
    assert reader.hand == []
    assert reader.masks() == (
        position.before_press(turn) if turn.place is not None else (position.black, position.white)
    )


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_touches_read_as_the_one_legal_turn_they_show_or_a_refusal(
    data: st.DataObject,
) -> None:
    """Random lifts and puts: a turn read is legal and shows the board as the reader has it;
    a refusal means no legal turn shows that board, and names only squares touched."""
    position = data.draw(positions)
    occupied = set(squares_of(position.occupied))
    touches: list[Touch] = []
    for _ in range(data.draw(st.integers(0, 8))):
        square = data.draw(st.sampled_from(SQUARES))
        touches.append((square, square not in occupied))
        occupied ^= {square}
    reader = read(position, touches)
    shows = {
        turn
        for turn in position.legal_turns()
        if turn.place is not None and position.before_press(turn) == reader.masks()
    }
    if position.is_full and not reader.touched:
        shows.add(EXTRA_PRESS)
    assert len(shows) <= 1  # a colour layout has at most one legal turn
    try:
        turn = reader.turn()
    except IllegalTurnError as exc:
        assert not shows
        assert set(exc.squares) <= {square for square, _ in touches}
        assert exc.reason
    else:
        assert shows == {turn} and position.is_legal(turn)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_illegal_layouts_are_refused_with_the_squares_at_fault(data: st.DataObject) -> None:
    position = data.draw(played_positions())
    empty = squares_of(position.empty)
    opponent = squares_of(position.marbles(position.to_move.other))
    fault = data.draw(st.sampled_from(["two placed", "lifted", "two moved"]))
    hands = Hands(data.draw, position)
    if fault == "two placed":
        assume(len(empty) >= 2)
        first, second = data.draw(
            st.lists(st.sampled_from(empty), min_size=2, max_size=2, unique=True)
        )
        hands.place(first)
        hands.place(second)
        expected = {first, second}
    elif fault == "lifted":
        assume(position.occupied)
        origin = data.draw(st.sampled_from(squares_of(position.occupied)))
        if empty and data.draw(st.booleans()):
            hands.place(data.draw(st.sampled_from(empty)))
        hands.lift(origin)
        expected = {origin}
    else:
        assume(len(opponent) >= 2 and len(empty) >= 3)
        src = data.draw(st.lists(st.sampled_from(opponent), min_size=2, max_size=2, unique=True))
        dst = data.draw(st.lists(st.sampled_from(empty), min_size=3, max_size=3, unique=True))
        hands.move(src[0], dst[0])
        hands.move(src[1], dst[1])
        hands.place(dst[2])
        expected = {*src, dst[0], dst[1]}
    exc = refusal(position, hands.touches)
    assert set(exc.squares) == expected, exc.reason


# --- what the journal keeps of a turn in progress ----------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_replay_touches_rebuild_the_same_reader_in_a_bounded_run(data: st.DataObject) -> None:
    position = data.draw(positions)
    reader = TurnReader(position)
    for square in data.draw(st.lists(st.integers(0, 15), max_size=60)):
        reader.sense(square, not reader.holds(square))
        if data.draw(st.booleans()) and not data.draw(st.integers(0, 9)):
            reader.back_to_supply()
    again = TurnReader(position)
    touches = reader.replay_touches()
    for put, square in touches:
        assert again.holds(square) != put  # a lift of a marble, a put on an empty square
        again.sense(square, put)
    assert (again.marbles, again.hand) == (reader.marbles, reader.hand)
    assert len(touches) <= 48


def test_a_marble_lifted_and_put_back_a_thousand_times_leaves_nothing_to_replay() -> None:
    position = Position.start(Colour.WHITE).play(Turn.from_notation("b1"))
    reader = TurnReader(position)
    for _ in range(1000):
        reader.sense(parse_square("c1"), False)
        reader.sense(parse_square("c1"), True)
    assert reader.replay_touches() == []


# --- the first real fault, whatever else is missing ---------------------------------------------
def test_a_diagonal_move_with_nothing_placed_names_the_move() -> None:
    exc = refusal(OPENING, [lift("c1"), put("b2")])
    assert "not a step" in exc.reason and names(exc.squares) == {"c1", "b2"}


def test_two_marbles_moved_with_nothing_placed_names_the_moves() -> None:
    position = replay(Colour.WHITE, ["b1", "a2", "d4"])  # black to move, white on c4 and d2
    first, second = squares_of(position.marbles(position.to_move.other))
    a, b = squares_of(position.empty)[:2]
    exc = refusal(position, [(first, False), (a, True), (second, False), (b, True)])
    assert exc.reason == "only one opponent marble may be moved in a turn"
    assert set(exc.squares) == {first, second, a, b}


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_move_alone_is_refused_for_the_move_if_the_rules_refuse_it(data: st.DataObject) -> None:
    """Any one marble moved, nothing placed: a move the rules refuse is named, its squares
    lit; a move they allow leaves the place to make."""
    position = data.draw(played_positions())
    assume(position.occupied and position.empty and not position.is_full)
    src = data.draw(st.sampled_from(squares_of(position.occupied)))
    dst = data.draw(st.sampled_from(squares_of(position.empty)))
    exc = refusal(position, [(src, False), (dst, True)])
    stand_ins = [sq for sq in squares_of(position.empty) if sq != dst]
    allowed = []
    for place in stand_ins:
        try:
            position.check(Turn(place, src, dst))
            allowed.append(place)
        except IllegalTurnError as rules:
            if not set(rules.squares) <= {src, dst}:
                allowed.append(place)  # the rules object to that place, not to the move
    if stand_ins and not allowed:
        assert exc.squares and set(exc.squares) <= {src, dst}, exc.reason
    else:
        assert "place one of your own marbles" in exc.reason

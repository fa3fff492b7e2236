"""The referee's states, the triggers that change them, and every change in one table.

``TRANSITIONS`` maps (state, trigger) to the next state; ``Core.go`` (core.py) is the one
place the state changes, and it refuses a pair the table does not hold. The triggers are an
Enum, so mypy checks each one a part of the referee passes.
"""

from __future__ import annotations

from enum import Enum

from orbito_hw.errors import OrbitoError
from orbito_hw.lang import N_


class State(Enum):
    STARTING = N_("starting")
    WAITING = N_("waiting for a turn")
    TURN = N_("turn in progress")
    ROTATING = N_("rotating")
    VERIFYING = N_("verifying")
    CORRECTION = N_("correction")
    GAME_OVER = N_("game over")
    TAKING_BACK = N_("turning the rings back")
    UNDOING = N_("waiting for the turn to be undone")
    FAULT = N_("fault")
    SETTING_UP = N_("setting up")  # a position asked for, by the LEDs (setup.py)


class Trigger(Enum):
    """What moves the machine from one state to the next."""

    RESUME = "resume"
    RESUME_TURN = "resume_turn"
    RESUME_OVER = "resume_over"
    RESUME_TURNING = "resume_turning"
    RESUME_UNDO = "resume_undo"
    RESUME_SETUP = "resume_setup"
    MISMATCH = "mismatch"
    ACCEPT = "accept"
    FAULT = "fault"
    TOUCH = "touch"
    UNTOUCH = "untouch"
    MOVED = "moved"
    MATCH = "match"
    OVER = "over"
    FIXED = "fixed"
    FIXED_TURN = "fixed_turn"
    FIXED_OVER = "fixed_over"
    RETRY = "retry"
    TAKE_BACK = "take_back"
    TURNED_BACK = "turned_back"
    UNDONE = "undone"
    TAKE_BACK_TOO = "take_back_too"
    SET_UP = "set_up"
    SET_UP_DONE = "set_up_done"
    NEW_GAME = "new_game"
    STOP = "stop"  # the guard stopped the referee after an internal error


class TransitionError(OrbitoError, RuntimeError):
    """A trigger the machine does not allow in its state: a bug, never a player's doing."""


S, T = State, Trigger
# Every transition the referee can make, in one place: (state, trigger) -> next state.
TRANSITIONS: dict[tuple[State, Trigger], State] = {
    (S.STARTING, T.RESUME): S.WAITING,
    (S.STARTING, T.RESUME_TURN): S.TURN,
    (S.STARTING, T.RESUME_OVER): S.GAME_OVER,
    (S.STARTING, T.MISMATCH): S.CORRECTION,
    (S.STARTING, T.ACCEPT): S.ROTATING,
    (S.STARTING, T.FAULT): S.FAULT,
    (S.STARTING, T.RESUME_TURNING): S.TAKING_BACK,
    (S.STARTING, T.RESUME_UNDO): S.UNDOING,
    (S.WAITING, T.TOUCH): S.TURN,
    (S.WAITING, T.ACCEPT): S.ROTATING,
    (S.TURN, T.UNTOUCH): S.WAITING,
    (S.TURN, T.ACCEPT): S.ROTATING,
    (S.ROTATING, T.MOVED): S.VERIFYING,
    (S.ROTATING, T.FAULT): S.FAULT,
    (S.VERIFYING, T.MATCH): S.WAITING,
    (S.VERIFYING, T.OVER): S.GAME_OVER,
    (S.VERIFYING, T.MISMATCH): S.CORRECTION,
    (S.VERIFYING, T.FAULT): S.FAULT,
    (S.CORRECTION, T.FIXED): S.WAITING,
    (S.CORRECTION, T.FIXED_TURN): S.TURN,
    (S.CORRECTION, T.FIXED_OVER): S.GAME_OVER,
    (S.FAULT, T.RETRY): S.STARTING,
    # A take-back: the rings turn back one place, then the players undo the turn by hand.
    (S.TAKING_BACK, T.TURNED_BACK): S.UNDOING,
    (S.TAKING_BACK, T.FAULT): S.FAULT,
    (S.UNDOING, T.UNDONE): S.WAITING,
    (S.UNDOING, T.TAKE_BACK_TOO): S.TAKING_BACK,  # against the board: the person's turn too
    (S.STARTING, T.RESUME_SETUP): S.SETTING_UP,
    (S.SETTING_UP, T.SET_UP_DONE): S.WAITING,
}
# A hold may take back the last turn whenever the board is still and the game has one
# (it is refused, the squares at fault lit, unless the board shows the game as it stands).
for _state in (S.WAITING, S.TURN, S.CORRECTION, S.GAME_OVER):
    TRANSITIONS[(_state, T.TAKE_BACK)] = S.TAKING_BACK
# A new game, or a set-up of a position, may start from any state but the ring moves.
BETWEEN_MOVES = (S.WAITING, S.TURN, S.CORRECTION, S.GAME_OVER, S.FAULT, S.STARTING, S.UNDOING)
for _state in (*BETWEEN_MOVES, S.SETTING_UP):
    TRANSITIONS[(_state, T.NEW_GAME)] = S.WAITING
    TRANSITIONS[(_state, T.SET_UP)] = S.SETTING_UP
# The drive may fail between moves (a ring controller unplugged while the rings are idle).
IDLE = (S.WAITING, S.TURN, S.CORRECTION, S.GAME_OVER, S.UNDOING, S.SETTING_UP)
for _state in IDLE:
    TRANSITIONS[(_state, T.FAULT)] = S.FAULT
# An internal error stops the referee from any state (the guard's ``on_fault``).
for _state in State:
    TRANSITIONS[(_state, T.STOP)] = S.FAULT

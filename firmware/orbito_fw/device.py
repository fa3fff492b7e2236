"""The controller's side of the link: frames in, commands run, replies and events out.

Commands (host to Pico; every reply echoes the command's sequence number)::

    HELLO <version> <session>  ->  OK HELLO proto=<v> fw=<version> boot=<id> fault=<code|->
    CFG <key>=<int> ...        ->  OK CFG            | ERR <error> <key>
    MOVE <places>              ->  OK MOVE           | ERR busy|fault|not_homed|bad_value
                                   (places -100..100: counter-clockwise, as presses;
                                   MOVE -N turns the rings N places back, clockwise)
    HOME                       ->  OK HOME           | ERR busy|fault
    STAT                       ->  OK STAT state=.. op=.. kind=.. places=.. steps=..
                                   index=0|1 homed=0|1 slips=.. fault=<code|->
                                   (places as asked, -N for a move back; steps made,
                                   counted up whichever way the rings turn)
    SQ                         ->  OK SQ mask=<int>
    LV                         ->  OK LV levels=<a1>,<b1>,..,<d4>   (ADC counts, -1: none yet)
    STOP                       ->  OK STOP           (emergency stop: latches "stopped")
    CLEAR                      ->  OK CLEAR          (forget the fault; home before moving)
    PING                       ->  OK PING

Events (Pico to host, numbered by the Pico's own counter)::

    EV SQ <square> <0|1> <time_ms>
    EV LV <square> <level> <time_ms>   (a colour board's level moved: setting analog=1)

A command whose sequence number was seen lately in this host session is not run again:
its first reply is sent again. So a host that lost a reply (an unplug, a cut frame) can
retry with the same number and the rings never move twice. ``HELLO`` with a new session
word starts a fresh session (a restarted host counts from 1 again); the same session word
(a host reconnecting) keeps the record of recent commands.
"""

from . import FIRMWARE_VERSION
from .controller import BAD_VALUE, IDLE, UNKNOWN_COMMAND, RingController
from .protocol import PROTOCOL_VERSION, Deframer, encode

REMEMBERED = 16  # replies kept for retries


class Device:
    def __init__(self, controller: RingController, boot_id: str) -> None:
        self.controller = controller
        self.boot_id = boot_id
        self.deframer = Deframer()
        self.session = ""
        self._replies: dict[int, bytes] = {}
        self._order: list[int] = []
        self._event_seq = 0
        self._out = bytearray()
        self.commands_run = 0  # commands acted on (retries answered from memory excluded)
        self.acted: dict[str, int] = {}  # commands acted on, by name
        self.frames = 0  # command frames received, retries included
        self.last_command = ""

    def feed(self, data: bytes, now: int) -> None:
        for seq, words in self.deframer.feed(data):
            self._command(seq, words, now)

    def poll(self, now: int) -> int:
        wake = self.controller.poll(now)
        events = self.controller.events
        while events:
            square, present, when = events.pop(0)
            self._send_event(["EV", "SQ", str(square), "1" if present else "0", str(when // 1000)])
        levels = self.controller.level_events
        while levels:
            square, level, when = levels.pop(0)
            self._send_event(["EV", "LV", str(square), str(level), str(when // 1000)])
        return wake

    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out = bytearray()
        return out

    # -- inside -----------------------------------------------------------------------

    def _send_event(self, words: list[str]) -> None:
        # No ["EV", *words]: MicroPython has no unpacking in list displays.
        self._event_seq = (self._event_seq + 1) & 0xFFFF
        self._out += encode(self._event_seq, words)

    def _command(self, seq: int, words: list[str], now: int) -> None:
        name = words[0]
        self.frames += 1
        self.last_command = name
        if name == "HELLO":
            self._out += encode(seq, self._hello(words))
            return
        if name != "STAT" and seq in self._replies:
            self._out += self._replies[seq]  # a retry: answer, do not act again
            return
        reply = encode(seq, self._run(name, words[1:], seq, now))
        self.commands_run += 1
        self.acted[name] = self.acted.get(name, 0) + 1
        if name != "STAT":
            self._remember(seq, reply)
        self._out += reply

    def _remember(self, seq: int, reply: bytes) -> None:
        self._replies[seq] = reply
        self._order.append(seq)
        while len(self._order) > REMEMBERED:
            del self._replies[self._order.pop(0)]

    def _hello(self, words: list[str]) -> list[str]:
        session = words[2] if len(words) > 2 else ""
        if session != self.session:
            self.session = session
            self._replies = {}
            self._order = []
        fault = self.controller.fault or "-"
        return [
            "OK",
            "HELLO",
            "proto=" + str(PROTOCOL_VERSION),
            "fw=" + FIRMWARE_VERSION,
            "boot=" + self.boot_id,
            "fault=" + fault,
        ]

    def _run(self, name: str, args: list[str], seq: int, now: int) -> list[str]:
        ctl = self.controller
        if name == "PING":
            return ["OK", "PING"]
        if name == "STAT":
            return self._stat()
        if name == "SQ":
            return ["OK", "SQ", "mask=" + str(ctl.squares if ctl.config["scan"] else 0)]
        if name == "LV":
            on = ctl.config["scan"] and ctl.config["analog"]
            return ["OK", "LV", "levels=" + ",".join(str(v if on else -1) for v in ctl.levels)]
        if name == "STOP":
            ctl.stop()
            return ["OK", "STOP"]
        if name == "CLEAR":
            ctl.clear()
            return ["OK", "CLEAR"]
        if name == "HOME":
            return _answer(name, ctl.start_home(seq, now))
        if name == "MOVE":
            places = _signed(args[0]) if len(args) == 1 else None
            if places is None:
                return ["ERR", BAD_VALUE]
            return _answer(name, ctl.start_move(places, seq, now))
        if name == "CFG":
            return self._configure(args)
        return ["ERR", UNKNOWN_COMMAND]

    def _configure(self, args: list[str]) -> list[str]:
        for arg in args:
            key, _, text = arg.partition("=")
            value = _int(text)
            error = BAD_VALUE if value < 0 else self.controller.configure(key, value)
            if error:
                return ["ERR", error, key]
        return ["OK", "CFG"]

    def _stat(self) -> list[str]:
        ctl = self.controller
        return [
            "OK",
            "STAT",
            "state=" + ctl.state,
            "op=" + str(ctl.op),
            "kind=" + (ctl.kind or "-"),
            "places=" + str(ctl.places),
            "steps=" + str(ctl.steps),
            "index=" + ("1" if ctl.at_index else "0"),
            "homed=" + ("1" if ctl.homed else "0"),
            "slips=" + str(ctl.mismatches),
            "fault=" + (ctl.fault or "-"),
            "idle=" + ("1" if ctl.state == IDLE else "0"),
        ]


def _answer(name: str, error: str) -> list[str]:
    return ["ERR", error] if error else ["OK", name]


def _int(text: str) -> int:
    """A non-negative decimal, or -1."""
    return int(text) if text.isdigit() and len(text) < 10 else -1


def _signed(text: str) -> "int | None":
    """A decimal with an optional leading ``-`` (a move back), or None. The range is the
    controller's to check: ``MOVE 101`` and ``MOVE -101`` are numbers it refuses."""
    if text[:1] == "-":
        value = _int(text[1:])
        return None if value < 0 else -value
    value = _int(text)
    return None if value < 0 else value

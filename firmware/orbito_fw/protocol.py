"""The framed line protocol between the host (the Pi) and the ring controller (the Pico).

A frame is one ASCII line::

    $<seq> <word> <word> ...*<crc>\n

``seq`` is a decimal sequence number 0..65535, the words are printable ASCII without
spaces, ``$`` or ``*``, and ``crc`` is the CRC-16/CCITT-FALSE of everything between
``$`` and ``*``, as 4 upper-case hex digits. A ``$`` always starts a frame, so a receiver
that lost its place (garbage on the line, a frame cut short by an unplug, a CRC error)
is back in step at the next ``$``.
"""

PROTOCOL_VERSION = 2  # 2: the colour sensors' levels (CFG analog=1, LV, EV LV)
MAX_FRAME = 160  # bytes between "$" and "\n"; longer lines are garbage
MAX_SEQ = 65535

_START = 0x24  # $
_END = 0x0A  # \n
_CR = 0x0D
_STAR = 0x2A  # *


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): cheap on a Pico, catches every
    burst of up to 16 flipped bits."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def valid_word(word: str) -> bool:
    if not word:
        return False
    return all(0x20 < ord(c) < 0x7F and c not in "$*" for c in word)


def encode(seq: int, words: list[str]) -> bytes:
    """One frame: ``seq`` and ``words`` (at least one) with its CRC and newline."""
    if not 0 <= seq <= MAX_SEQ:
        raise ValueError("sequence number out of range: " + str(seq))
    if not words:
        raise ValueError("a frame needs at least one word")
    for word in words:
        if not valid_word(word):
            raise ValueError("word not allowed in a frame: " + repr(word))
    body = (str(seq) + " " + " ".join(words)).encode()
    return b"$" + body + b"*" + (f"{crc16(body):04X}").encode() + b"\n"


def parse_body(line: bytes) -> "tuple[int, list[str]] | None":
    """The (seq, words) of a frame's inside (between ``$`` and the newline), or None."""
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5:
        return None
    body = line[:star]
    try:
        crc = int(line[star + 1 :].decode(), 16)
    except ValueError:
        return None
    if crc != crc16(body):
        return None
    for byte in body:
        if byte < 0x20 or byte > 0x7E or byte == _STAR:
            return None
    words = body.decode().split(" ")
    if len(words) < 2 or not words[0].isdigit() or len(words[0]) > 5:
        return None
    seq = int(words[0])
    if seq > MAX_SEQ or not all(valid_word(w) for w in words[1:]):
        return None
    return seq, words[1:]


class Deframer:
    """Cuts a byte stream into frames and throws away everything else.

    ``feed`` returns the good frames; the counters say what was thrown away, so a test
    (or the ``STAT`` command) can tell garbage, cut frames and CRC errors apart.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._in_frame = False
        self.garbage = 0  # bytes outside any frame
        self.cut = 0  # frames cut short by a new "$" or an overlong line
        self.bad = 0  # complete lines that failed the CRC or the syntax

    def feed(self, data: bytes) -> "list[tuple[int, list[str]]]":
        frames = []
        for byte in data:
            if byte == _START:
                if self._in_frame:
                    self.cut += 1
                self._in_frame = True
                self._buf = bytearray()
            elif not self._in_frame:
                if byte not in (_END, _CR):
                    self.garbage += 1
            elif byte == _END:
                self._in_frame = False
                if self._buf and self._buf[-1] == _CR:
                    self._buf = self._buf[:-1]  # a CRLF line end; a CR anywhere else is bad
                frame = parse_body(bytes(self._buf))
                if frame is None:
                    self.bad += 1
                else:
                    frames.append(frame)
            else:
                self._buf.append(byte)
                if len(self._buf) > MAX_FRAME:
                    self.cut += 1
                    self._in_frame = False
        return frames


def fields(words: list[str]) -> "dict[str, str]":
    """The ``key=value`` words of a reply, as a dict (other words are skipped)."""
    out = {}
    for word in words:
        eq = word.find("=")
        if eq > 0:
            out[word[:eq]] = word[eq + 1 :]
    return out

"""Pure codec for the table reader's serial protocol, version 1 (``PROTOCOL.md``).

No I/O here: :func:`encode` turns a message into the bytes of one frame, and a :class:`Decoder`
is fed whatever bytes arrive and returns the messages it could complete, like pyserial's
``FramedPacket``. Every message type is encodable and decodable, device to host and host to device.

>>> frame = encode(TagEnter(antenna=3, uid=bytes.fromhex("04A1B2C3D4E5F607"), rssi=-41, t_ms=1000, seq=7))
>>> frame[:1] == frame[-1:] == b"\\x7e"
True
>>> d = Decoder()
>>> d.feed(b"garbage" + frame[:5]) + d.feed(frame[5:])
[TagEnter(antenna=3, uid=b'\\x04\\xa1\\xb2\\xc3\\xd4\\xe5\\xf6\\x07', rssi=-41, t_ms=1000, seq=7)]
>>> hex(crc16(b"123456789"))
'0x29b1'
"""

from __future__ import annotations

import abc

import binascii
import dataclasses
import enum
import struct
from typing import ClassVar, Union

FLAG = 0x7E
"""Frame delimiter."""
ESC = 0x7D
"""Escape byte: the next byte is the original XOR 0x20 (only 0x5E and 0x5D are allowed)."""
VERSION = 0x01
"""Protocol version carried in every frame."""
MAX_PAYLOAD = 256
"""Largest payload the ``len`` field may announce."""
HEADER_SIZE = 6
"""ver, type, seq, len."""
MAX_BODY = HEADER_SIZE + MAX_PAYLOAD + 2
"""Largest unstuffed body including the CRC (264).

PROTOCOL.md says a body "over 262 bytes" is dropped while allowing a 256-byte payload: 262 is
ver..payload (6 + 256), so with the 2-byte CRC the largest valid unstuffed frame is 264 bytes.
"""
MAX_STUFFED = 2 * MAX_BODY
"""No valid frame is longer than this on the wire (every byte escaped), flags excluded."""
SEQ_MOD = 1 << 16
"""Sequence numbers are u16 and wrap from 65535 to 0."""

_FLAG_B = b"\x7e"
_ESC_B = b"\x7d"
_HEADER = struct.Struct(">BBHH")


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0) of ``data``.

    ``binascii.crc_hqx`` is exactly this CRC when seeded with 0xFFFF, and runs in C.
    """
    return binascii.crc_hqx(data, crc)


def stuff(body: bytes) -> bytes:
    """Byte-stuff a frame body: 0x7D -> 7D 5D first, then 0x7E -> 7D 5E."""
    if ESC in body or FLAG in body:
        return body.replace(_ESC_B, b"\x7d\x5d").replace(_FLAG_B, b"\x7d\x5e")
    return body


class FrameError(ValueError):
    """A frame or payload that cannot be decoded; ``reason`` names the decoder counter."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def unstuff(raw: bytes) -> bytes:
    """Undo byte stuffing.

    :raises FrameError: (reason ``bad_escape``) when 0x7D is followed by anything but 0x5E or 0x5D,
        or ends the frame.
    """
    if ESC not in raw:
        return raw
    parts = raw.split(_ESC_B)
    out = [parts[0]]
    for part in parts[1:]:
        if not part or (part[0] != 0x5E and part[0] != 0x5D):
            raise FrameError("bad_escape", "0x7D not followed by 0x5E or 0x5D")
        out.append(b"\x7e" if part[0] == 0x5E else b"\x7d")
        out.append(part[1:])
    return b"".join(out)


class MsgType(enum.IntEnum):
    """Message type byte."""

    HELLO = 0x01
    HEARTBEAT = 0x02
    TAG_ENTER = 0x10
    TAG_LEAVE = 0x11
    FAULT = 0x20
    CMD_ACK = 0x30
    ACK_EVENTS = 0x80
    HELLO_REQ = 0x81
    INVENTORY = 0x82


class FaultCode(enum.IntEnum):
    """FAULT codes."""

    ANTENNA_OPEN = 1
    TOO_MANY_TAGS = 2
    BUFFER_OVERFLOW = 3
    TAMPER = 4


class CmdStatus(enum.IntEnum):
    """CMD_ACK status."""

    DONE = 0
    UNKNOWN_COMMAND = 1
    BAD_ARGUMENT = 2


HEARTBEAT_ANTENNA_FAULT = 0x01
HEARTBEAT_OVERFLOW = 0x02
HEARTBEAT_TAMPER = 0x04
NO_ANTENNA = 0xFF
"""Antenna byte meaning "none" (FAULT) or "all" (INVENTORY)."""


def _text(payload: bytes, offset: int) -> str:
    if offset >= len(payload):
        raise FrameError("bad_payload", "missing text length")
    n = payload[offset]
    if offset + 1 + n != len(payload):
        raise FrameError("bad_payload", "text length does not match the payload")
    # Non-ASCII bytes in a frame with a good CRC are the firmware's problem; keep the message.
    return payload[offset + 1 :].decode("ascii", "replace")


def _pack_text(text: str) -> bytes:
    raw = text.encode("ascii")
    if len(raw) > 255:
        raise ValueError("text longer than 255 bytes")
    return bytes([len(raw)]) + raw


def _check_uid(uid: bytes) -> None:
    if len(uid) != 8:
        raise ValueError(f"uid must be 8 bytes, not {len(uid)}")


class _Message(abc.ABC):
    __slots__ = ()
    TYPE: ClassVar[MsgType]
    EVENT: ClassVar[bool] = False
    seq: int

    @abc.abstractmethod
    def payload(self) -> bytes:
        """The message's payload bytes (every message type defines its layout)."""

    @classmethod
    @abc.abstractmethod
    def from_payload(cls, payload: bytes, seq: int) -> Message:
        """Parse a payload of this type."""


def _fixed(cls: type, fmt: struct.Struct, payload: bytes, seq: int) -> Message:
    if len(payload) != fmt.size:
        raise FrameError("bad_payload", f"{cls.__name__} payload is {len(payload)} bytes, not {fmt.size}")
    return cls(*fmt.unpack(payload), seq=seq)  # type: ignore[no-any-return]


# --- device to host -----------------------------------------------------------------------------

_HELLO = struct.Struct(">B8sBH")


@dataclasses.dataclass(frozen=True, slots=True)
class Hello(_Message):
    """HELLO (0x01): sent at power-up and in answer to HELLO_REQ."""

    TYPE: ClassVar[MsgType] = MsgType.HELLO
    proto: int
    """Protocol version the firmware speaks."""
    device_id: bytes
    """8-byte device identity."""
    antenna_count: int
    """Number of antennas."""
    last_seq: int
    """Seq of the newest event in the device buffer."""
    fw_version: str
    """Firmware version, ASCII."""
    seq: int = dataclasses.field(default=0, kw_only=True)
    """Always 0: not an event."""

    def payload(self) -> bytes:
        if len(self.device_id) != 8:
            raise ValueError("device_id must be 8 bytes")
        return _HELLO.pack(self.proto, self.device_id, self.antenna_count, self.last_seq) + _pack_text(
            self.fw_version
        )

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> Hello:
        if len(payload) < _HELLO.size + 1:
            raise FrameError("bad_payload", "HELLO payload too short")
        proto, dev, count, last = _HELLO.unpack_from(payload)
        return cls(proto, dev, count, last, _text(payload, _HELLO.size), seq=seq)


_HEARTBEAT = struct.Struct(">IB")


@dataclasses.dataclass(frozen=True, slots=True)
class Heartbeat(_Message):
    """HEARTBEAT (0x02): sent every second."""

    TYPE: ClassVar[MsgType] = MsgType.HEARTBEAT
    uptime_ms: int
    """Device uptime in milliseconds (u32)."""
    flags: int
    """bit0 antenna fault, bit1 buffer overflowed (events lost), bit2 tamper."""
    seq: int = dataclasses.field(default=0, kw_only=True)

    @property
    def antenna_fault(self) -> bool:
        """An antenna is faulty."""
        return bool(self.flags & HEARTBEAT_ANTENNA_FAULT)

    @property
    def overflow(self) -> bool:
        """The event buffer overflowed: events were lost."""
        return bool(self.flags & HEARTBEAT_OVERFLOW)

    @property
    def tamper(self) -> bool:
        """The case was opened."""
        return bool(self.flags & HEARTBEAT_TAMPER)

    def payload(self) -> bytes:
        return _HEARTBEAT.pack(self.uptime_ms, self.flags)

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> Heartbeat:
        return _fixed(cls, _HEARTBEAT, payload, seq)  # type: ignore[return-value]


_ENTER = struct.Struct(">B8sbI")


@dataclasses.dataclass(frozen=True, slots=True)
class TagEnter(_Message):
    """TAG_ENTER (0x10), an event: a tag is read on an antenna."""

    TYPE: ClassVar[MsgType] = MsgType.TAG_ENTER
    EVENT: ClassVar[bool] = True
    antenna: int
    """Antenna number (0 shoe, 1-10 seats, 11 board, 12 muck, 13 burn)."""
    uid: bytes
    """8-byte tag UID."""
    rssi: int
    """Signal strength in dBm (i8)."""
    t_ms: int
    """Device uptime at the read (u32)."""
    seq: int = dataclasses.field(default=0, kw_only=True)
    """Event seq."""

    def payload(self) -> bytes:
        _check_uid(self.uid)
        return _ENTER.pack(self.antenna, self.uid, self.rssi, self.t_ms)

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> TagEnter:
        return _fixed(cls, _ENTER, payload, seq)  # type: ignore[return-value]


_LEAVE = struct.Struct(">B8sI")


@dataclasses.dataclass(frozen=True, slots=True)
class TagLeave(_Message):
    """TAG_LEAVE (0x11), an event: a tag is no longer read on an antenna."""

    TYPE: ClassVar[MsgType] = MsgType.TAG_LEAVE
    EVENT: ClassVar[bool] = True
    antenna: int
    uid: bytes
    t_ms: int
    seq: int = dataclasses.field(default=0, kw_only=True)

    def payload(self) -> bytes:
        _check_uid(self.uid)
        return _LEAVE.pack(self.antenna, self.uid, self.t_ms)

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> TagLeave:
        return _fixed(cls, _LEAVE, payload, seq)  # type: ignore[return-value]


@dataclasses.dataclass(frozen=True, slots=True)
class Fault(_Message):
    """FAULT (0x20), an event."""

    TYPE: ClassVar[MsgType] = MsgType.FAULT
    EVENT: ClassVar[bool] = True
    code: int
    """1 antenna open, 2 too many tags, 3 buffer overflow, 4 tamper."""
    antenna: int
    """Antenna concerned, or 0xFF for none."""
    text: str
    """Human-readable detail, ASCII."""
    seq: int = dataclasses.field(default=0, kw_only=True)

    def payload(self) -> bytes:
        return bytes([self.code, self.antenna]) + _pack_text(self.text)

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> Fault:
        if len(payload) < 3:
            raise FrameError("bad_payload", "FAULT payload too short")
        return cls(payload[0], payload[1], _text(payload, 2), seq=seq)


_CMD_ACK = struct.Struct(">HB")


@dataclasses.dataclass(frozen=True, slots=True)
class CmdAck(_Message):
    """CMD_ACK (0x30): the device's answer to a host command."""

    TYPE: ClassVar[MsgType] = MsgType.CMD_ACK
    cmd_seq: int
    """The host command's seq."""
    status: int
    """0 done, 1 unknown command, 2 bad argument."""
    seq: int = dataclasses.field(default=0, kw_only=True)

    def payload(self) -> bytes:
        return _CMD_ACK.pack(self.cmd_seq, self.status)

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> CmdAck:
        return _fixed(cls, _CMD_ACK, payload, seq)  # type: ignore[return-value]


# --- host to device -----------------------------------------------------------------------------

_U16 = struct.Struct(">H")
_U8 = struct.Struct(">B")


@dataclasses.dataclass(frozen=True, slots=True)
class AckEvents(_Message):
    """ACK_EVENTS (0x80): every event up to and including ``up_to_seq`` is durably stored."""

    TYPE: ClassVar[MsgType] = MsgType.ACK_EVENTS
    up_to_seq: int
    seq: int = dataclasses.field(default=0, kw_only=True)
    """The host's command counter."""

    def payload(self) -> bytes:
        return _U16.pack(self.up_to_seq)

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> AckEvents:
        return _fixed(cls, _U16, payload, seq)  # type: ignore[return-value]


@dataclasses.dataclass(frozen=True, slots=True)
class HelloReq(_Message):
    """HELLO_REQ (0x81): ask for a HELLO (and so a resend of unacknowledged events)."""

    TYPE: ClassVar[MsgType] = MsgType.HELLO_REQ
    seq: int = dataclasses.field(default=0, kw_only=True)

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> HelloReq:
        if payload:
            raise FrameError("bad_payload", "HELLO_REQ carries no payload")
        return cls(seq=seq)


@dataclasses.dataclass(frozen=True, slots=True)
class Inventory(_Message):
    """INVENTORY (0x82): report a fresh TAG_ENTER for every tag on ``antenna`` (0xFF all)."""

    TYPE: ClassVar[MsgType] = MsgType.INVENTORY
    antenna: int = NO_ANTENNA
    seq: int = dataclasses.field(default=0, kw_only=True)

    def payload(self) -> bytes:
        return _U8.pack(self.antenna)

    @classmethod
    def from_payload(cls, payload: bytes, seq: int) -> Inventory:
        return _fixed(cls, _U8, payload, seq)  # type: ignore[return-value]


Message = Union[Hello, Heartbeat, TagEnter, TagLeave, Fault, CmdAck, AckEvents, HelloReq, Inventory]
"""Any decoded message."""
Event = Union[TagEnter, TagLeave, Fault]
"""Messages that carry an event seq and must be acknowledged."""

MESSAGE_TYPES: dict[int, type] = {
    cls.TYPE: cls
    for cls in (Hello, Heartbeat, TagEnter, TagLeave, Fault, CmdAck, AckEvents, HelloReq, Inventory)
}
"""Message class by type byte."""


def is_event(msg: Message) -> bool:
    """TAG_ENTER, TAG_LEAVE and FAULT are events (they carry the device's event seq)."""
    return msg.EVENT


def encode_frame(msg_type: int, seq: int, payload: bytes, version: int = VERSION) -> bytes:
    """One complete frame (flags included) from raw fields; any type byte is allowed.

    :raises ValueError: when the payload exceeds 256 bytes or a field is out of range.
    """
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    try:
        body = _HEADER.pack(version, msg_type, seq, len(payload)) + payload
    except struct.error as exc:
        raise ValueError(str(exc)) from None
    body += crc16(body).to_bytes(2, "big")
    return _FLAG_B + stuff(body) + _FLAG_B


def encode(msg: Message) -> bytes:
    """One complete frame (flags included) for ``msg``.

    :raises ValueError: when a field does not fit its wire format (uid not 8 bytes, text not
        ASCII or too long, integer out of range).
    """
    try:
        payload = msg.payload()
    except struct.error as exc:
        raise ValueError(f"{type(msg).__name__}: {exc}") from None
    except UnicodeEncodeError as exc:
        raise ValueError(f"{type(msg).__name__}: text is not ASCII: {exc}") from None
    return encode_frame(msg.TYPE, msg.seq, payload)


def decode_body(body: bytes) -> Message:
    """Decode one unstuffed body (ver..crc).

    :raises FrameError: whose ``reason`` is one of ``oversize``, ``bad_length``, ``bad_crc``,
        ``bad_version``, ``unknown_type``, ``bad_payload``.
    """
    n = len(body)
    if n > MAX_BODY:
        raise FrameError("oversize", f"body of {n} bytes")
    if n < HEADER_SIZE + 2:
        raise FrameError("bad_length", f"body of {n} bytes is shorter than a header and CRC")
    # A CRC computed over data followed by its own big-endian CRC leaves a zero residue
    # (no reflection, no xorout), so one C call checks the frame.
    if binascii.crc_hqx(body, 0xFFFF):
        raise FrameError("bad_crc", "CRC mismatch")
    ver, mtype, seq, length = _HEADER.unpack_from(body)
    if ver != VERSION:
        raise FrameError("bad_version", f"version {ver}")
    if length != n - HEADER_SIZE - 2 or length > MAX_PAYLOAD:
        raise FrameError("bad_length", f"len field {length} but {n - HEADER_SIZE - 2} payload bytes")
    cls = MESSAGE_TYPES.get(mtype)
    if cls is None:
        raise FrameError("unknown_type", f"type 0x{mtype:02X}")
    return cls.from_payload(body[HEADER_SIZE : n - 2], seq)  # type: ignore[no-any-return]


def decode(frame: bytes) -> Message:
    """Decode exactly one frame, with or without its flags.

    :raises FrameError: as :func:`decode_body`, or ``bad_escape``.
    """
    if frame[:1] == _FLAG_B:
        frame = frame[1:]
    if frame[-1:] == _FLAG_B:
        frame = frame[:-1]
    if _FLAG_B in frame:
        raise FrameError("bad_length", "more than one frame")
    return decode_body(unstuff(frame))


COUNTERS = (
    "frames",
    "bad_crc",
    "bad_length",
    "bad_version",
    "oversize",
    "bad_escape",
    "unknown_type",
    "bad_payload",
    "junk_bytes",
)
"""Names of :class:`Decoder` counters (``frames`` counts good frames)."""


class Decoder:
    """Streaming frame decoder: feed bytes, get messages; bad input is counted, never raised.

    Bytes before the first flag are junk (we may have joined mid-frame). After any bad frame the
    decoder resynchronises at the next flag. Empty frames (two flags in a row) are padding.
    Counters: see :data:`COUNTERS`.
    """

    __slots__ = ("_pending", "_hunting") + COUNTERS

    def __init__(self) -> None:
        self._pending = b""
        self._hunting = True
        for name in COUNTERS:
            setattr(self, name, 0)

    def reset(self) -> None:
        """Forget any partial frame (after a reconnect) and hunt for the next flag."""
        self._pending = b""
        self._hunting = True

    def stats(self) -> dict[str, int]:
        """Counter values by name."""
        return {name: getattr(self, name) for name in COUNTERS}

    @property
    def errors(self) -> int:
        """Total of bad and unknown frames."""
        return sum(getattr(self, n) for n in COUNTERS if n not in ("frames", "junk_bytes"))

    def feed(self, data: bytes) -> list[Message]:
        """Consume ``data`` and return every message it completed, in order. Never raises."""
        if self._pending:
            data = self._pending + data
        parts = bytes(data).split(_FLAG_B)
        tail = parts.pop()
        out: list[Message] = []
        if parts:
            if self._hunting:
                self.junk_bytes += len(parts[0])
                parts[0] = b""
                self._hunting = False
            for raw in parts:
                if raw:
                    self._frame(raw, out)
        elif self._hunting:
            self.junk_bytes += len(tail)
            tail = b""
        if len(tail) > MAX_STUFFED:
            # No flag in sight for longer than any valid frame: drop it and hunt for the next one.
            self.oversize += 1
            tail = b""
            self._hunting = True
        self._pending = tail
        return out

    def _frame(self, raw: bytes, out: list[Message]) -> None:
        if len(raw) > MAX_STUFFED:
            self.oversize += 1
            return
        try:
            out.append(decode_body(unstuff(raw)))
        except FrameError as exc:
            setattr(self, exc.reason, getattr(self, exc.reason) + 1)
            return
        self.frames += 1


def seq_add(a: int, n: int) -> int:
    """``a + n`` modulo 2**16."""
    return (a + n) % SEQ_MOD


def seq_diff(a: int, b: int) -> int:
    """Signed distance from ``b`` to ``a`` in serial-number arithmetic (RFC 1982), in -32767..32768.

    Positive when ``a`` is newer than ``b``. 32768 is undefined by RFC 1982; callers treat it as
    neither newer nor older.

    >>> seq_diff(2, 65534)
    4
    >>> seq_diff(65534, 2)
    -4
    """
    d = (a - b) % SEQ_MOD
    return d - SEQ_MOD if d > SEQ_MOD // 2 else d


def seq_newer(a: int, b: int) -> bool:
    """``a`` is strictly newer than ``b`` (RFC 1982 ``a > b``)."""
    return 0 < (a - b) % SEQ_MOD < SEQ_MOD // 2

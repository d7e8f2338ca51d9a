"""Codec: every message both ways, stuffing, CRC, resynchronisation, counters, and a decoder fuzz."""

from __future__ import annotations

import doctest
import importlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge import codec
from firmware_bridge.codec import (
    AckEvents,
    CmdAck,
    Decoder,
    Fault,
    Hello,
    HelloReq,
    Heartbeat,
    Inventory,
    TagEnter,
    TagLeave,
    crc16,
    decode,
    encode,
    encode_frame,
    seq_diff,
    seq_newer,
)

UID = bytes.fromhex("7E7D0102030405E0")  # both special bytes: stuffing must kick in
ALL = [
    Hello(1, b"CARDSIM1", 14, 65535, "fw-2.3.1"),
    Heartbeat(123456, 0b101),
    TagEnter(0, UID, -40, 4_000_000_000, seq=0x7E7D),
    TagLeave(13, UID, 17, seq=65535),
    Fault(3, 0xFF, "event buffer overflow", seq=1),
    CmdAck(0x7D7E, 2),
    AckEvents(65535, seq=9),
    HelloReq(seq=3),
    Inventory(0xFF, seq=4),
]


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize("msg", ALL, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(msg: codec.Message) -> None:
    frame = encode(msg)
    assert frame[0] == frame[-1] == 0x7E and 0x7E not in frame[1:-1]
    assert decode(frame) == msg
    assert Decoder().feed(frame) == [msg]


def test_wire_layout_is_big_endian_with_crc_over_ver_to_payload() -> None:
    frame = encode(AckEvents(0x0102, seq=0x0304))
    body = codec.unstuff(frame[1:-1])
    assert body[:6] == bytes([1, 0x80, 3, 4, 0, 2])
    assert body[6:8] == b"\x01\x02"
    assert int.from_bytes(body[8:], "big") == crc16(body[:8])


def test_stuffing() -> None:
    assert codec.stuff(b"\x7e\x7d\x01") == b"\x7d\x5e\x7d\x5d\x01"
    assert codec.unstuff(b"\x7d\x5e\x7d\x5d\x01") == b"\x7e\x7d\x01"
    with pytest.raises(codec.FrameError):
        codec.unstuff(b"\x7d\x01")


def test_resync_after_garbage_and_split_feeds() -> None:
    stream = b"\x00\x7d\xff junk" + encode(ALL[2]) + b"\x7e\x7e\x7e" + b"\x13\x37\x7e" + encode(ALL[1])
    d = Decoder()
    out = [m for i in range(len(stream)) for m in d.feed(stream[i : i + 1])]
    assert out == [ALL[2], ALL[1]]
    assert d.bad_length == 1 and d.frames == 2


def test_bad_frames_are_counted_never_fatal() -> None:
    good = encode(ALL[3])
    body = codec.unstuff(good[1:-1])
    bad_crc = b"\x7e" + codec.stuff(body[:-1] + bytes([body[-1] ^ 1])) + b"\x7e"
    bad_ver = encode_frame(0x10, 1, ALL[2].payload(), version=2)
    unknown = encode_frame(0x55, 0, b"abc")
    wrong_len = bytearray(body)
    wrong_len[5] += 1
    wrong_len = bytes(wrong_len[:-2]) + crc16(bytes(wrong_len[:-2])).to_bytes(2, "big")
    bad_len = b"\x7e" + codec.stuff(wrong_len) + b"\x7e"
    bad_esc = b"\x7e\x01\x7d\x01\x7e"
    oversize = b"\x7e" + b"\x01" * 600 + b"\x7e"
    short_payload = encode_frame(0x11, 5, b"\x01\x02")
    d = Decoder()
    out = d.feed(bad_crc + bad_ver + unknown + bad_len + bad_esc + oversize + short_payload + good)
    assert out == [ALL[3]]
    assert d.stats() | {"junk_bytes": 0} == {
        "frames": 1, "bad_crc": 1, "bad_version": 1, "unknown_type": 1, "bad_length": 1,
        "bad_escape": 1, "oversize": 1, "bad_payload": 1, "junk_bytes": 0,
    }


def test_largest_payload_accepted_and_larger_refused() -> None:
    frame = encode_frame(0x55, 0, bytes(256))
    d = Decoder()
    assert d.feed(frame) == [] and d.unknown_type == 1  # 256 bytes is legal
    with pytest.raises(ValueError):
        encode_frame(0x55, 0, bytes(257))
    body = bytes([1, 0x55, 0, 0, 1, 1]) + bytes(257)
    d.feed(b"\x7e" + codec.stuff(body + crc16(body).to_bytes(2, "big")) + b"\x7e")
    assert d.oversize == 1


def test_flagless_flood_is_dropped_as_oversize() -> None:
    d = Decoder()
    d.feed(b"\x7e")
    d.feed(b"\x01" * 2000)
    assert d.oversize == 1
    assert d.feed(b"\x01\x7e" + encode(ALL[1])) == [ALL[1]]


def test_encode_refuses_bad_fields() -> None:
    with pytest.raises(ValueError):
        encode(TagEnter(0, b"short", 0, 0))
    with pytest.raises(ValueError):
        encode(TagEnter(300, UID, 0, 0))
    with pytest.raises(ValueError):
        encode(Fault(1, 1, "é"))


def test_serial_number_arithmetic() -> None:
    assert seq_newer(0, 65535) and not seq_newer(65535, 0)
    assert seq_diff(5, 65530) == 11
    assert not seq_newer(7, 7)


@pytest.mark.parametrize(
    "module",
    ["codec", "deck", "records", "positions", "sinks", "transport"],
)
def test_doctests(module: str) -> None:
    mod = importlib.import_module(f"firmware_bridge.{module}")
    result = doctest.testmod(mod)
    assert result.failed == 0


# --- fuzz ---------------------------------------------------------------------------------------

_messages = st.one_of(
    st.builds(Hello, st.integers(0, 255), st.binary(min_size=8, max_size=8), st.integers(0, 255),
              st.integers(0, 65535), st.text("abcdef0123456789.-", max_size=20)),
    st.builds(Heartbeat, st.integers(0, 2**32 - 1), st.integers(0, 255)),
    st.builds(TagEnter, st.integers(0, 255), st.binary(min_size=8, max_size=8), st.integers(-128, 127),
              st.integers(0, 2**32 - 1), seq=st.integers(0, 65535)),
    st.builds(TagLeave, st.integers(0, 255), st.binary(min_size=8, max_size=8), st.integers(0, 2**32 - 1),
              seq=st.integers(0, 65535)),
    st.builds(Fault, st.integers(0, 255), st.integers(0, 255), st.text("abc ~}", max_size=30),
              seq=st.integers(0, 65535)),
    st.builds(CmdAck, st.integers(0, 65535), st.integers(0, 255)),
    st.builds(AckEvents, st.integers(0, 65535), seq=st.integers(0, 65535)),
    st.builds(Inventory, st.integers(0, 255), seq=st.integers(0, 65535)),
)


def _check_stream(stream: bytes, chunks: list[int]) -> list[codec.Message]:
    d = Decoder()
    out: list[codec.Message] = []
    pos = 0
    for n in chunks + [len(stream)]:
        out += d.feed(stream[pos : pos + n])
        pos += n
    for msg in out:
        # A message can only come from a frame present byte for byte, CRC included.
        try:
            frame = encode(msg)
        except ValueError:
            continue  # non-ASCII text, decoded leniently
        body = codec.unstuff(frame[1:-1])
        assert crc16(body) == 0
        assert frame[1:-1] in stream
    return out


@settings(max_examples=5000, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=600), st.lists(st.integers(0, 64), max_size=8))
def test_fuzz_random_bytes(stream: bytes, chunks: list[int]) -> None:
    _check_stream(stream, chunks)


@settings(max_examples=5000, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    st.lists(_messages, min_size=1, max_size=6),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255), st.sampled_from(["flip", "insert", "delete"])), max_size=6),
    st.lists(st.integers(0, 64), max_size=8),
)
def test_fuzz_mutated_streams(msgs: list[codec.Message], mutations: list[tuple[int, int, str]], chunks: list[int]) -> None:
    stream = bytearray(b"".join(encode(m) for m in msgs))
    for pos, value, kind in mutations:
        i = pos % (len(stream) + 1)
        if kind == "insert":
            stream[i:i] = bytes([value])
        elif stream:
            i = min(i, len(stream) - 1)
            if kind == "flip":
                stream[i] ^= value or 1
            else:
                del stream[i]
    out = _check_stream(bytes(stream), chunks)
    if not mutations:
        assert out == msgs

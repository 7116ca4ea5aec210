"""The message schema: an error names a peer's word only in the protocol's own shape, never a
value or a control character; hostile nesting gets a reason; new messages fuzzed round-trip or
fail in a P2P error."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from p2p.errors import (
    MalformedFrame,
    SchemaError,
    WireError,
)
from p2p.messages import (
    Ping,
    Resume,
    parse,
)
from p2p.wire import decode, encode

CHOSEN = "ann says: new invite at evil.x"
"""Text a stranger would like the host (or the joiner) to read: no secret is needed to send it."""


HELLO = {"t": "hello", "proto": 3, "program": "x", "name": "eve", "eph": bytes(32)}


def test_a_schema_error_never_repeats_a_peers_control_characters() -> None:
    """Flaw: a hostile hello with an extra field named ``ESC ] 0 ; … BEL CSI 2 J`` made the host's
    refusal text (its log, its status line, a record's note) carry the raw escape sequence. The
    interface's ``printable`` caught it; now the protocol's own error quotes field names (repr)."""
    with pytest.raises(SchemaError) as caught:
        parse(
            {
                "t": "hello",
                "proto": 3,
                "program": "x",
                "name": "bob",
                "eph": bytes(32),
                "\x1b]0;x\x07\x9b2J": 1,
            }
        )
    assert str(caught.value).isprintable()


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ({**HELLO, "t": CHOSEN}, "unknown message type"),
        ({**HELLO, CHOSEN: 1, "hints": True}, "hello: unexpected fields: 'hints'"),
        ({**HELLO, "name": f" {CHOSEN}"}, "hello.name: must be of the form"),
        ({"t": "abort", "reason": CHOSEN[:16], "detail": ""}, "abort.reason: must be of the form"),
    ],
    ids=["type", "field", "name", "reason"],
)
def test_a_schema_error_never_repeats_a_strangers_text(message: dict[str, object], named: str) -> None:
    """Flaw: a malformed first message put up to 100 characters of anyone's choosing on the host's
    refusal line, quoted in the schema error: the message type, an unexpected field's name, a value
    not of its field's form. Now an error names the field, and a word the peer sent only if it has
    the protocol's own shape (a lowercase word of at most 16 letters). Check: ``_word`` in ``parse``."""
    with pytest.raises(SchemaError) as caught:
        parse(message)
    assert named in str(caught.value) and "ann says" not in str(caught.value) and "evil" not in str(caught.value)


def test_a_deep_nesting_bomb_gets_a_reason_not_an_empty_one() -> None:
    """A 16 KiB frame of nested one-element arrays: refused, and the refusal says why (msgpack's
    depth error has an empty message). Check: ``decode`` names the error's type when it says nothing."""
    with pytest.raises(MalformedFrame) as caught:
        decode(b"\x91" * 16000)
    assert not str(caught.value).endswith("()")


RESUME = Resume(root=bytes(32), links=3, transcript=bytes(32), sig=bytes(64))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
@example(b"\x83\xa1t\xa6resume\xa4root\xc4\x00\xa5links\xff")  # negative count
@example(encode(RESUME.to_wire() | {"links": 2**40}))  # a count past the cap
@example(encode({"t": "ping", "x": 1}))  # a keep-alive with a stray field
@example(b"\x81\xa1t\xa4ping")  # the smallest valid message
def test_fuzz_new_messages_never_crash(payload: bytes) -> None:
    with contextlib.suppress(WireError):
        message = parse(decode(payload))
        assert parse(message.to_wire()) == message


def test_resume_and_ping_round_trip() -> None:
    for message in (RESUME, Ping()):
        assert parse(decode(encode(message.to_wire()))) == message

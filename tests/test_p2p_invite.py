"""Reading an invite as docs/protocol.md, "Invite", words it."""

from __future__ import annotations

import pytest

from p2p.crypto import base32
from p2p.errors import InviteError
from p2p.invite import Invite

FINGERPRINT = "7j33u3l6rypiweqlbeiso7l7oiwizoth"
SECRET = bytes(range(20))
LINE = f"192.0.2.7:4711/{FINGERPRINT}/{base32(SECRET)}"


@pytest.mark.parametrize(
    "text",
    [LINE, f"  trumps join {LINE}\n", f"TRUMPS JOIN {LINE.upper()}", f"Trumps  Join\t{LINE}", LINE.upper()],
)
def test_a_leading_trumps_join_spaces_and_letter_case_are_ignored(text: str) -> None:
    """Issue 19, interop: "case is ignored" did not cover the ``trumps join`` in front: ``TRUMPS
    JOIN INVITE`` (a line shouted back over the phone, say) was not an invite."""
    invite = Invite.parse(text)
    assert (invite.addresses, invite.fingerprint, invite.secret) == ((("192.0.2.7", 4711),), FINGERPRINT, SECRET)


@pytest.mark.parametrize("text", [f"trumps joinx {LINE}", f"trumps {LINE}", f"join {LINE}"])
def test_only_the_whole_words_trumps_join_are_left_out(text: str) -> None:
    with pytest.raises(InviteError):
        Invite.parse(text)

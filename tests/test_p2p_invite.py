"""Reading an invite as docs/protocol.md, "Invite", words it."""

from __future__ import annotations

from pathlib import Path

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


@pytest.mark.parametrize("host", ["a" * 64 + ".example", "a..b"])
def test_an_invite_naming_an_impossible_host_is_not_an_invite(
    host: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack: an invite (text of anyone's choosing, pasted by the joiner) whose host name has a
    label longer than 63 characters, or an empty one. It parsed, and dialing it raised the IDNA
    codec's ``UnicodeError`` out of ``trumps join`` as a traceback. Now the invite is refused in
    one line before anything is dialed."""
    from cli import main as cli_main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    invite = f"{host}:47111/7j33u3l6rypiweqlbeiso7l7oiwizoth/aaaqeayeaudaocajbifqydiob4ibceqt"
    assert cli_main.main(["join", invite, "--bot", "easy", "--name", "bob"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("trumps join: ") and "is not an invite" in err and len(err.splitlines()) == 1

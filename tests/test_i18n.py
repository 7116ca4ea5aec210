"""The languages: catalogues complete and in step with the code, the screens at 80x24 in each
language, the choice of language, and the local rank letters."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from cli import config, i18n
from cli import main as cli_main
from cli.app import move_entry
from cli.app.cards import card_text, face_letters, move_text
from cli.app.completion import MoveCompleter, normalize
from cli.app.fragments import fragment_width
from cli.app.help import help_lines
from cli.app.replay import Replay
from cli.app.screen import GameScreen
from cli.app.widths import cell_width
from engine import Card, Game, Move, Position, Rules
from tests.catalogues import PLURAL_FORMS, compile_mo, extract, po_path, read_po
from tests.test_cli_app import ENTER, F1, SizedOutput, ai_session, replay_screens, run

LANGUAGES = tuple(PLURAL_FORMS)
SAME_AS_ENGLISH = {
    ("it", "J Q K A"),
    ("sq", "J Q K A"),
    ("hi", "J Q K A"),
    ("it", "no"),
    ("it", "n no"),
    ("it", "File"),
}
"""Translations that are rightly the English text: international rank letters, and words
Italian shares with English."""


@pytest.fixture(autouse=True)
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary home, no language from the environment, and English again afterwards."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    yield tmp_path
    i18n.use("en")


@pytest.fixture(scope="module")
def messages() -> dict[str, object]:
    return dict(extract())


# ------------------------------------------------------------------ catalogues


def _placeholders(text: str) -> list[str]:
    """The brace fields (``{name!r}``, ``{seconds:.0f}``) and %-placeholders (``%(prog)s``, ``%s``) of a message."""
    braces = [
        f"{name}!{conv}:{spec}" for _, name, spec, conv in string.Formatter().parse(text) if name is not None
    ]
    percents = re.findall(r"%(?:\(\w+\))?[sdrg]", text)
    return sorted(braces + percents)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_with_the_same_placeholders(
    language: str, messages: dict[str, object]
) -> None:
    header, catalogue = read_po(po_path(language))
    assert header["Plural-Forms"] == PLURAL_FORMS[language]
    nplurals = int(PLURAL_FORMS[language].split(";")[0].split("=")[1])
    assert set(catalogue) == set(messages), "run: python -m tests.catalogues"
    for msgid, message in catalogue.items():
        assert not message.fuzzy, msgid
        assert len(message.strings) == (1 if message.plural is None else nplurals), msgid
        for translation in message.strings:
            assert translation.strip(), f"{language}: {msgid!r} is not translated"
            assert _placeholders(translation) == _placeholders(msgid), f"{language}: {msgid!r}"
            assert translation.endswith("\n") == msgid.endswith("\n"), msgid
            if (language, msgid) not in SAME_AS_ENGLISH:
                assert translation != msgid, f"{language}: {msgid!r} is left in English"


@pytest.mark.parametrize("language", ["uk", "kk"])
def test_no_word_mixes_cyrillic_and_latin_letters(language: str) -> None:
    _, catalogue = read_po(po_path(language))
    for message in catalogue.values():
        for translation in message.strings:
            # A placeholder or an escape is no word; what is left must be one script per word.
            words = re.split(r"[\s\-/]+", re.sub(r"\{[^}]*\}|%\(\w+\)\w|\\n", " ", translation))
            for word in words:
                letters = {
                    ("cyrillic" if "\u0400" <= c <= "\u04ff" else "latin") for c in word if c.isalpha()
                }
                assert len(letters) <= 1, f"{language}: {word!r} in {translation!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_shipped_mo_files_are_compiled_from_the_po_files(language: str) -> None:
    path = po_path(language)
    assert path.with_suffix(".mo").read_bytes() == compile_mo(*read_po(path)), (
        "run: python -m tests.catalogues"
    )


def test_plural_forms_follow_each_language() -> None:
    counts = (0, 1, 2, 4, 5, 11, 21, 22, 25, 101)
    expected = {
        "en": "0 cards,1 card,2 cards,4 cards,5 cards,11 cards,21 cards,22 cards,25 cards,101 cards",
        "uk": "0 карт,1 карта,2 карти,4 карти,5 карт,11 карт,21 карта,22 карти,25 карт,101 карта",
        "it": "0 carte,1 carta,2 carte,4 carte,5 carte,11 carte,21 carte,22 carte,25 carte,101 carte",
        "sq": "0 letra,1 letër,2 letra,4 letra,5 letra,11 letra,21 letra,22 letra,25 letra,101 letra",
        "kk": "0 карта,1 карта,2 карта,4 карта,5 карта,11 карта,21 карта,22 карта,25 карта,101 карта",
        "hi": "0 कार्ड,1 कार्ड,2 कार्ड,4 कार्ड,5 कार्ड,11 कार्ड,21 कार्ड,22 कार्ड,25 कार्ड,101 कार्ड",
    }
    for language, texts in expected.items():
        i18n.use(language)
        shown = [i18n.ngettext("{count} card", "{count} cards", n).format(count=n) for n in counts]
        assert ",".join(shown) == texts
    i18n.use("uk")
    assert (
        i18n.ngettext("Took back {count} move.", "Took back {count} moves.", 2) == "Скасовано {count} ходи."
    )


def test_ukrainian_says_a_taken_card_in_a_grammatical_case() -> None:
    """Driven in tmux for issue 22: "Ви взяли 1 карта." (the nominative "1 карта" after a
    verb that wants "1 карту"); the count is said after a colon, where the nominative is right."""
    from cli.app.cards import count_cards

    i18n.use("uk")
    for count in (1, 3, 5, 21):
        mine = i18n.ngettext("You took {cards}.", "You took {cards}.", count).format(cards=count_cards(count))
        theirs = i18n.ngettext("{name} took {cards}.", "{name} took {cards}.", count)
        for said in (mine, theirs.format(name="Ann", cards=count_cards(count))):
            assert said.endswith(f": {count_cards(count)}."), said
    i18n.use("en")


# ------------------------------------------------------------- the screens


def _screens(language: str, columns: int = 80, rows: int = 24) -> tuple[str, str, GameScreen]:
    """The main screen (after one move) and the first page of help, rendered at 80x24."""
    i18n.use(language)
    session = ai_session(trump="H", games=3)
    shots: list[str] = []

    async def script(d: object) -> None:
        from tests.test_cli_app import Driver

        assert isinstance(d, Driver)
        await d.my_turn()
        await d.keys("\t" + ENTER)
        await d.my_turn()
        shots.append(d.screen())
        await d.keys(F1)
        await d.until(lambda: session.help.open)
        shots.append(d.screen())

    run(session, script, SizedOutput(columns, rows))
    return shots[0], shots[1], session


@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_the_main_screen_and_help_fit_80x24(language: str) -> None:
    main, help_page, session = _screens(language)
    _ = i18n._
    for line in main.splitlines() + help_page.splitlines():
        assert cell_width(line) <= 80, line
    # Nothing cut: the title, the key bar and the turn line show whole.
    rows = main.splitlines()
    assert rows[0].startswith(" " + _("Your trumps") + " │")
    assert (
        rows[0]
        .rstrip()
        .endswith(session.flow.match.score_text(_("You"), session.flow.their_name.split(" (")[0]))
    )
    key_bar = rows[-1]
    for word in (_("Help"), _("Hint"), _("Undo"), _("Hand"), _("New"), _("Quit")):
        assert word in key_bar
    assert _("Pile") in main and _("Moves") in main and _("trump") in main
    # The history column starts at the same cell on every row of the table.
    bars = {cell_width(row[: row.index("│")]) for row in rows[4:14] if "│" in row}
    assert bars == {52}, bars
    assert help_page.splitlines()[0].startswith(_("Your trumps: help"))


@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_the_compact_screen_fits_60x20_with_every_key(language: str) -> None:
    main, help_page, session = _screens(language, 60, 20)
    _ = i18n._
    rows = main.splitlines()
    assert len(rows) == 20 and all(cell_width(line) <= 60 for line in rows + help_page.splitlines())
    assert (
        rows[0]
        .rstrip()
        .endswith(session.flow.match.headline(_("You"), session.flow.their_name.split(" (")[0]))
    )
    for word in (_("Help"), _("Hint"), _("Undo"), _("Hand"), _("New"), _("Quit")):
        assert word in rows[-1]
    # The help's title says whole how to leave it, on a second line when the first has no room.
    title = " ".join(" ".join(help_page.splitlines()[:2]).split())
    assert title.startswith(_("Your trumps: help")), title
    assert " ".join(_("(any other key returns to the game)").split()) in title, title


@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_the_replay_at_60x20_shows_every_key_whole(language: str) -> None:
    i18n.use(language)
    game = Game.from_deal(bytes(32), 0, "SH", Players="You vs AI (hard)", Date="2026-11-30 10:02:11 UTC")
    rows = replay_screens(Replay(game, "1.txt"), [], size=(60, 20))[0].splitlines()
    keys = " ".join(rows[-2:])
    for key, what in Replay(game, "1.txt").bar_keys():
        assert f"{key} {what}" in keys, rows[-2:]


@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_help_wraps_within_the_screen_and_tells_the_rank_letters(language: str) -> None:
    i18n.use(language)
    lines = help_lines(Rules(), 80)
    texts = ["".join(t[1] for t in line) for line in lines]
    assert max(fragment_width(line) for line in lines) <= 79
    assert i18n._("The game") in texts
    letters = face_letters()
    if letters != "JQKA":
        assert any(" ".join(letters) in text for text in texts)
    words = " ".join(t.strip() for t in texts)
    assert "1000" in words  # the move cap, filled into the translated rules


# ------------------------------------------------------- choosing the language


def test_lang_option_speaks_and_is_remembered(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["--lang", "uk", "history"]) == 0
    assert "Збережених ігор ще немає" in capsys.readouterr().out
    assert config.load_config()["lang"] == "uk"
    assert cli_main.main(["history"]) == 0  # remembered
    assert "Збережених ігор" in capsys.readouterr().out
    assert cli_main.main(["history", "--lang=auto"]) == 0  # forgotten: the environment's (none: English)
    assert "No saved games yet" in capsys.readouterr().out
    assert config.load_config()["lang"] == ""


def test_unknown_language_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["--lang", "de", "history"]) == 2
    assert "unknown language 'de'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("LANG", "kk_KZ.UTF-8", "Сақталған ойындар әлі жоқ"),
        ("LANGUAGE", "fr:sq", "Ende asnjë lojë"),
        ("LC_ALL", "hi_IN.UTF-8", "अभी कोई सहेजा गया खेल नहीं"),
        ("LC_MESSAGES", "it_IT", "Ancora nessuna partita"),
    ],
)
def test_the_environment_chooses_the_language(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    expected: str,
) -> None:
    monkeypatch.setenv(variable, value)
    assert cli_main.main(["history"]) == 0
    assert expected in capsys.readouterr().out


def test_command_line_help_and_errors_are_translated(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main.main(["--lang", "uk", "play", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("використання: ") and "показати цю довідку й вийти" in out
    assert "чотири кольори мастей" in out
    with pytest.raises(SystemExit):
        cli_main.main(["--lang", "it", "play", "--games", "0"])
    assert "non è un numero di partite da 1 a 99" in capsys.readouterr().err


# ------------------------------------------------------------ rank letters


def test_ukrainian_and_kazakh_show_and_accept_their_rank_letters() -> None:
    i18n.use("uk")
    assert card_text(Card.parse("AS")) == "А♠" and card_text(Card.parse("QD")) == "Д♦"  # А: never read as T
    assert move_text(Move.parse("JH,TC")) == "В♥ 10♣" and move_text(Move.parse("take")) == "взяти"
    session = ai_session()
    assert session.line.parse("аs", ()) == session.line.parse("тs", ()) == Move.parse("AS")  # Т as before
    assert session.line.parse("Дh вc", ()) == Move.parse("QH,JC")
    assert session.line.parse("kd", ()) == Move.parse("KD")  # canonical notation always
    assert session.line.parse("ts", ()) == Move.parse("TS")  # the Latin T stays the ten
    assert session.line.parse("взяти", ()) == session.line.parse("take", ()) == Move.parse("take")
    assert normalize("тs к") == "AS,K"
    i18n.use("kk")
    assert card_text(Card.parse("KC")) == "К♣" and session.line.parse("Вs", ()) == Move.parse("JS")


def test_tab_completes_the_local_word_for_take() -> None:
    i18n.use("uk")
    session = ai_session()
    session.flow.game = Game(Position.from_notation("6S/7H/AC8C HS 0"))  # nothing beats 8♣: take
    completer = MoveCompleter(session)
    shown = [c.display_text for c in completer.get_completions(Document("вз"), CompleteEvent())]
    assert shown == ["взяти"]
    # the English word finds it too, and the line then says it as the screen does
    assert [c.text for c in completer.get_completions(Document("ta"), CompleteEvent())] == ["взяти"]
    assert session.line.parse("взяти", ()) == Move.parse("take")


def test_other_languages_keep_the_international_letters() -> None:
    for language in ("en", "it", "sq", "hi"):
        i18n.use(language)
        assert card_text(Card.parse("AS")) == "A♠" and face_letters() == "JQKA"
    i18n.use("it")
    session = ai_session()
    assert session.line.parse("prendi", ()) == Move.parse("take")
    with pytest.raises(ValueError, match="non è una carta"):
        session.line.parse("тs", ())


def test_a_game_is_played_in_ukrainian() -> None:
    i18n.use("uk")
    session = ai_session(trump="H")
    letters = str.maketrans("♠♥♦♣", "shdc")

    async def script(d: object) -> None:
        from tests.test_cli_app import Driver

        assert isinstance(d, Driver)
        await d.my_turn()
        await d.keys("zz" + ENTER)
        assert session.error and "не карта" in session.message
        game = session.flow.game
        assert game is not None
        ply = len(game.moves)
        move = game.position.legal_moves()[-1]
        await d.keys("\x15" + move_text(move).translate(letters) + ENTER)  # В Д К Т, взяти
        await d.until(lambda: len(game.moves) > ply)
        assert game.moves[ply] == move

    run(session, script)


def test_refused_moves_are_explained_in_the_language_in_use() -> None:
    i18n.use("uk")
    session = ai_session()
    # Player 0 (♥ trumps) holds 6♠ 7♥ 9♣; 8♣ is on top: 9♣ and 7♥ beat it.
    session.flow.game = Game(Position.from_notation("6S7H9C/7D/AC8C HS 0"))
    expected = {
        "take": "7♥ б'є 8♣, тож ви мусите бити (обов'язкове биття).",
        "6s,7h": "6♠ не б'є 8♣.",
        "9c": "Побивши картою 9♣, ви мусите покласти на неї другу карту.",
        "ас": "'ас' — не карта: ранг 6-10 В Д К А і масть S H D C.",
        "тd": "У вас немає А♦.",
    }
    for typed, message in expected.items():
        move_entry.submit(session, typed)
        assert (session.message, session.error) == (message, True), typed


# ------------------------------------------------------------ the network side


def test_network_text_is_translated_where_it_is_shown() -> None:
    from p2p.errors import ConnectionClosed, Forfeit
    from p2p.text import N_, Text, ntext

    i18n.use("uk")
    silent = Text(N_("{name} has been silent for {seconds:.0f} s"), name="Bob", seconds=20.4)
    assert str(silent) == "Bob has been silent for 20 s"  # records and the wire keep English
    forfeit = Forfeit(Text(N_("{why}: the game was claimed by forfeit"), why=silent))
    assert i18n.translated(forfeit) == "Bob мовчить уже 20 с: гру зараховано через неявку"
    dropped = ConnectionClosed(Text(N_("the connection dropped ({error})"), error=OSError("EOF")))
    assert i18n.translated(dropped) == "з'єднання обірвалося (EOF)"
    restored = ntext(
        "The connection was restored {count} time; nothing was lost.",
        "The connection was restored {count} times; nothing was lost.",
        3,
    )
    assert i18n.translated(restored) == "Зв'язок відновлювався 3 рази; нічого не втрачено."
    assert i18n.translated(ValueError("not from p2p")) == "not from p2p"


def test_network_commands_speak_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main.main(["--lang", "it", "host", "--help"])
    out = capsys.readouterr().out
    assert "porta TCP su cui ascoltare (predefinita 47111)" in out and "ospita un duello" in out
    assert "gioca un incontro di N partite" in out and "l'indirizzo o il nome da mettere nell'invito" in out
    with pytest.raises(SystemExit):
        cli_main.main(["--lang", "hi", "join", "--help"])
    assert "मेज़बान के नियम बिना पूछे स्वीकार करें" in capsys.readouterr().out
    assert cli_main.main(["--lang", "sq", "join", "nonsense", "--bot", "easy"]) == 1
    assert "nuk është ftesë: pritej ADRESA:PORTA/GJURMA/SEKRETI" in capsys.readouterr().err
    assert cli_main.main(["--lang", "kk", "peers"]) == 0
    assert "таныс қарсыластар әлі жоқ" in capsys.readouterr().out


@pytest.mark.parametrize("width", [60, 50, 40])
def test_ukrainian_history_results_are_whole_at_narrow_widths(width: int) -> None:
    """Issue 22, item 8: at 60 columns the Ukrainian history cut the result cell ("не завершена,
    можна про…"); now the year gives way once the file column has gone (and the shorter
    "незавершена" fits), and a result still too wide is wrapped within its column, never cut."""
    from cli.history import Row, table_lines

    i18n.use("uk")
    resumable = i18n._("unfinished, resumable")
    rows = [
        Row("2026-12-02 16:05", "ШІ (легкий)", "виграш (без карт)", "201", "2026-12-02T16-05-19Z.txt", "1"),
        Row("2026-12-02 16:08", "ШІ (легкий)", resumable, "2", "2026-12-02T16-08-55Z.txt", "2", True),
    ]
    lines = table_lines(rows, width)
    assert all(cell_width(line) <= width for line in lines), lines
    said = " ".join(" ".join(line.split()) for line in lines[1:])
    assert all(word in said.split() for word in resumable.split()), lines  # each word whole
    assert width < 50 or "…" not in said, lines  # at 40 the opponent is cut, to its floor
    assert lines[1].split()[0] == "1" and lines[1].rstrip().endswith("201")  # the moves stay on the row
    if width == 60:
        assert any(resumable in line for line in lines), lines  # whole, on one line


def test_joining_in_ukrainian_names_the_port_and_a_host_that_stopped_waiting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22: the joiner read "З'єднання з 127.0.0.1 port 35207…" ("port" in English), and
    one left 20 minutes at the rules question got "з'єднання обірвалося (Connection lost)": the
    system's English, and no word that the host had stopped waiting. No socket: the handshake is
    a stand-in that asks the question, lets 20 minutes pass and finds the connection gone."""
    import time

    from cli.net import joining
    from p2p import connect
    from p2p.errors import ConnectionClosed
    from p2p.handshake import Terms
    from p2p.text import N_, Text

    real = time.monotonic
    later = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: real() + later[0])

    async def answered_late(prompt: str, progress: object) -> str:
        later[0] = 20 * 60.0
        return "т\n"

    async def host_gone(invite: object, me: object, name: str, known: object, decide, **_: object) -> object:  # type: ignore[no-untyped-def]
        await decide(Terms(Rules(), 2), "Ann")
        raise ConnectionClosed(Text(N_("the connection dropped ({error})"), error=ConnectionResetError("Connection lost")))

    monkeypatch.setattr(joining, "read_line", answered_late)
    monkeypatch.setattr(connect, "join", host_gone)
    invite = "127.0.0.1:47111/7j33u3l6rypiweqlbeiso7l7oiwizoth/aaaqeayeaudaocajbifqydiob4ibceqt"
    i18n.use("uk")
    args = cli_main.build_parser().parse_args(["join", invite, "--name", "Bob"])
    assert joining.run_join(args, play=lambda *_: None) == 1  # type: ignore[arg-type]  # never reached
    said = capsys.readouterr().err
    assert "127.0.0.1 порт 47111…" in said and " port " not in said, said
    assert "хост перестав чекати на вашу відповідь щодо правил через 10 хвилин" in said, said
    assert "Connection lost" not in said


def test_analyze_names_the_players_in_the_language_in_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22, item 11: under --lang uk ``trumps analyze`` named the players "You" and
    "AI (easy)", as the record's headers keep them."""
    game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"), {"Players": "You vs AI (easy)"})
    for move in ("QH,KD", "take", "9H", "QH,TC", "take", "KD", "take", "8H"):
        game.play(move)
    path = tmp_path / "lost.txt"
    path.write_text(game.to_record(), encoding="utf-8")
    assert cli_main.main(["analyze", str(path), "--nodes", "20000", "--no-save", "--lang", "uk"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1. Ви: ") and lines[1].startswith("2. ШІ (легкий): "), lines
    assert not any("You" in line or "AI (" in line for line in lines), lines


@pytest.mark.usefixtures("quick_hints")  # the words, not the hint's strength
def test_the_ukrainian_hint_refers_to_the_move_as_masculine() -> None:
    """Issue 22, item 11: "Enter зіграє її" spoke of the move (хід, masculine) as feminine."""
    from tests.test_cli_app import F2, Driver

    i18n.use("uk")
    session = ai_session(trump="S")

    async def script(d: object) -> None:
        assert isinstance(d, Driver)
        await d.my_turn()
        await d.keys(F2)
        await d.until(lambda: session.message.startswith("Підказка"))

    run(session, script)
    assert session.message.endswith("Enter зіграє його."), session.message


def test_the_host_is_told_it_refused_someone_for_its_own_match() -> None:
    """Issue 22, item 3: the host read "refused a connection from …: someone else has the match",
    though the match is its own, with Bob."""
    from p2p.admission import Gate, RefusalLog

    gate = Gate("Ann")
    gate.bind("Bob", bytes(32))
    for refused in (gate.knocked("Eve"), gate.accepted("Bob", bytes(31) + b"x")):
        assert refused is not None
        line = RefusalLog().note(0.0, "127.0.0.1:52456", refused[1])
        assert line == "refused a connection from 127.0.0.1:52456: you are playing a match with Bob"
        i18n.use("uk")
        assert i18n.translated(line) == "відхилено з'єднання з 127.0.0.1:52456: ви граєте матч з Bob"
        i18n.use("en")

"""Readable cards: the WCAG AA contrast (4.5:1) for every card in every state, computed from the
colours the style makes prompt_toolkit write, in 256 and in 16 colours; and without colour."""

from __future__ import annotations

import io
import itertools

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.output.vt100 import ANSI_COLORS_TO_RGB, BG_ANSI_COLORS, FG_ANSI_COLORS, Vt100_Output

from cli.app.style import THEMES, game_style
from cli.commands import play
from engine.cards import SUITS

RGB = tuple[int, int, int]
AA = 4.5


def xterm_256() -> list[RGB]:
    """The 256-colour palette as xterm (and prompt_toolkit) define it."""
    basic = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205)]
    basic += [(229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255)]
    basic += [(255, 0, 255), (0, 255, 255), (255, 255, 255)]
    steps = (0, 95, 135, 175, 215, 255)
    cube = [(steps[i // 36], steps[i // 6 % 6], steps[i % 6]) for i in range(216)]
    return basic + cube + [(8 + 10 * i,) * 3 for i in range(24)]


PALETTE = xterm_256()
ANSI_FG = {code: ANSI_COLORS_TO_RGB[name] for name, code in FG_ANSI_COLORS.items() if name != "ansidefault"}
ANSI_BG = {code: ANSI_COLORS_TO_RGB[name] for name, code in BG_ANSI_COLORS.items() if name != "ansidefault"}


def written(style_str: str, depth: ColorDepth, theme: str, four_color: bool) -> list[int]:
    """The SGR parameters prompt_toolkit writes for a fragment's style."""
    out = io.StringIO()
    output = Vt100_Output(out, lambda: Size(24, 80), term="xterm-256color")
    attrs = game_style(four_color, theme, depth).get_attrs_for_style_str(style_str)
    output.set_attributes(attrs, depth)
    output.flush()
    text = out.getvalue()
    assert text.startswith("\x1b[") and text.endswith("m"), repr(text)
    return [int(p) for p in text[2:-1].replace("m\x1b[", ";").split(";") if p]


def colours(params: list[int]) -> tuple[RGB, RGB, set[int]]:
    """Foreground, background and the other attributes that SGR parameters set (reverse applied)."""
    fg = bg = None
    flags: set[int] = set()
    i = 0
    while i < len(params):
        p = params[i]
        if p in (38, 48) and params[i + 1] == 5:
            rgb = PALETTE[params[i + 2]]
            fg, bg = (rgb, bg) if p == 38 else (fg, rgb)
            i += 3
            continue
        if p in ANSI_FG:
            fg = ANSI_FG[p]
        elif p in ANSI_BG:
            bg = ANSI_BG[p]
        elif p:
            flags.add(p)
        i += 1
    assert fg is not None and bg is not None, params
    if 7 in flags:
        fg, bg = bg, fg
    return fg, bg, flags


def luminance(rgb: RGB) -> float:
    def linear(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = map(linear, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def card_styles() -> list[str]:
    """Every style a card can be drawn in (cli.app.board: hands, the pile, trump labels)."""
    styles = []
    for suit in SUITS:
        base = f"class:card class:suit-{suit.lower()}"
        styles += [base, f"{base} class:card.top", f"{base} class:card.under"]
        for trump, playable, picked, cursor in itertools.product(
            ("", "class:card.trump"),
            ("", "class:card.legal", "class:card.dim"),
            ("", "class:card.picked"),
            ("", "class:highlight"),
        ):
            styles.append(" ".join(filter(None, (base, trump, playable, picked, cursor))))
    return styles


@pytest.mark.parametrize("depth", [ColorDepth.DEPTH_8_BIT, ColorDepth.DEPTH_4_BIT])
@pytest.mark.parametrize("four_color", [False, True])
@pytest.mark.parametrize("theme", list(THEMES))
def test_every_card_in_every_state_meets_aa_contrast(depth: ColorDepth, four_color: bool, theme: str) -> None:
    worst = min(
        (contrast(*colours(written(style, depth, theme, four_color))[:2]), style) for style in card_styles()
    )
    assert worst[0] >= AA, worst


@pytest.mark.parametrize("depth", [ColorDepth.DEPTH_8_BIT, ColorDepth.DEPTH_4_BIT])
@pytest.mark.parametrize("theme", list(THEMES))
def test_playable_and_unplayable_cards_differ_in_chip_and_weight(depth: ColorDepth, theme: str) -> None:
    for suit in SUITS:
        base = f"class:card class:suit-{suit.lower()}"
        legal = colours(written(f"{base} class:card.legal", depth, theme, False))
        dim = colours(written(f"{base} class:card.dim", depth, theme, False))
        assert legal[1] != dim[1] and 1 in legal[2] and 1 not in dim[2]


def test_the_high_contrast_theme_reaches_aaa_in_256_colours() -> None:
    ratios = [
        contrast(*colours(written(style, ColorDepth.DEPTH_8_BIT, "high-contrast", four))[:2])
        for style in card_styles()
        for four in (False, True)
    ]
    assert min(ratios) >= 7.0


def test_without_colour_the_states_show_as_bold_italic_and_reverse() -> None:
    """NO_COLOR makes prompt_toolkit write no colour at all (1 bit); the states stay apart."""
    for theme in THEMES:
        style = game_style(False, theme, ColorDepth.DEPTH_1_BIT)
        legal = style.get_attrs_for_style_str("class:card class:suit-h class:card.legal")
        dim = style.get_attrs_for_style_str("class:card class:suit-h class:card.dim")
        picked = style.get_attrs_for_style_str("class:card class:suit-h class:card.picked")
        cursor = style.get_attrs_for_style_str("class:card class:suit-h class:card.dim class:highlight")
        assert legal.bold and not dim.bold and picked.italic and cursor.reverse


def test_no_color_reaches_the_terminal_as_no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    from prompt_toolkit.output import create_output

    monkeypatch.setenv("NO_COLOR", "1")
    with open("/dev/null", "w") as null:
        assert create_output(null).get_default_color_depth() == ColorDepth.DEPTH_1_BIT


def test_the_theme_names_of_the_command_line_are_the_styles() -> None:
    assert tuple(THEMES) == play.THEMES

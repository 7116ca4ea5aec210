"""An argument parser that speaks the game's languages, through argparse's public API.

argparse writes its own words — ``usage:``, the ``options`` heading, the help of ``-h``, its
errors — in English. The game's catalogues hold them (:data:`ARGPARSE_MESSAGES`), and
:class:`Parser` translates them where they leave argparse: the headings and the usage prefix in
its help formatter, ``-h``'s help where it is added, and an error in :meth:`Parser.error`,
matched against the English templates so that its fields (an option, a value) are kept.

>>> from cli import i18n
>>> i18n.use("it"), translated_message("argument --pickup: invalid choice: 'x' (choose from 'forced', 'voluntary')")
('it', "argomento --pickup: scelta non valida: 'x' (scegli tra 'forced', 'voluntary')")
>>> i18n.use("en"), translated_message("not one of argparse's")
('en', "not one of argparse's")
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from typing import Any, NoReturn

from cli.i18n import N_, _

ARGPARSE_MESSAGES = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("unrecognized arguments: %s"),
    N_("the following arguments are required: %s"),
    N_("expected one argument"),
    N_("invalid %(type)s value: %(value)r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"),
)
"""The messages of :mod:`argparse` that ``trumps`` users meet, as argparse writes them."""

_FIELD = re.compile(r"%\((\w+)\)[sr]|%s")


def _pattern(template: str) -> re.Pattern[str]:
    """A pattern that matches what ``template`` becomes once formatted, capturing each field."""
    parts, end = [], 0
    for field in _FIELD.finditer(template):
        parts += [re.escape(template[end : field.start()]), f"(?P<{field.group(1) or 'arg'}>.*?)"]
        end = field.end()
    return re.compile("".join([*parts, re.escape(template[end:])]), re.DOTALL)


_ERRORS = [(template, _pattern(template)) for template in ARGPARSE_MESSAGES if "%" in template]


def translated_message(message: str) -> str:
    """``message``, as argparse formatted it, in the language in use (a message inside another,
    as in ``argument --x: invalid choice…``, too); any other text as it is."""
    for template, pattern in _ERRORS:
        found = pattern.fullmatch(message)
        if found is None:
            continue
        fields = {
            name: translated_message(value) if name == "message" else value
            for name, value in found.groupdict().items()
        }
        text = re.sub(r"%\((\w+)\)r", r"%(\1)s", _(template))  # the values came already quoted
        return text % (fields["arg"],) if "arg" in fields else text % fields
    return message


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with its headings and usage prefix in the language in use."""

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[Any],
        prefix: str | None = None,
    ) -> None:
        """The usage, after argparse's ``usage:`` translated (unless a prefix is given)."""
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)

    def start_section(self, heading: str | None) -> None:
        """A section of the help, argparse's own headings translated (the game's are already)."""
        super().start_section(_(heading) if heading else heading)


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose help and errors speak the language in use (its
    sub-parsers are of this class too)."""

    def __init__(self, *args: Any, add_help: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        if add_help:  # argparse's own -h, with its help translated
            self.add_argument("-h", "--help", action="help", help=_("show this help message and exit"))

    def error(self, message: str) -> NoReturn:
        """Print the usage and ``message`` (translated) to stderr and exit with status 2."""
        self.print_usage(sys.stderr)
        text = _("%(prog)s: error: %(message)s\n") % {
            "prog": self.prog,
            "message": translated_message(message),
        }
        self.exit(2, text)

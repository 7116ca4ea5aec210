"""The one gettext entry point of the game: the language in use and the translating functions.

Every user-facing string of ``cli`` goes through :func:`_` (or :func:`ngettext`
for counts); a string that must stay as it is until it is shown (a module-level
table, a message raised by ``p2p``) is marked with :func:`N_` and translated
where it is shown. The catalogues live in ``cli/locale/<lang>/LC_MESSAGES/trumps.po``
and ship compiled (``trumps.mo``); at run time only the standard library reads them.

The language is, first found: ``--lang`` (remembered in the config), the one
remembered in the config, then the environment (``LANGUAGE``, ``LC_ALL``,
``LC_MESSAGES``, ``LANG``); English when none names a language of :data:`LANGUAGES`.

>>> use("uk")
'uk'
>>> _("Your trumps"), ngettext("{count} card", "{count} cards", 5).format(count=5)
('Свої козирі', '5 карт')
>>> use("en")
'en'
>>> _("Your trumps")
'Your trumps'
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from pathlib import Path

DOMAIN = "trumps"
LOCALE_DIR = Path(__file__).parent / "locale"
LANGUAGES = {
    "en": "English",
    "uk": "Українська",
    "it": "Italiano",
    "sq": "Shqip",
    "kk": "Қазақша",
    "hi": "हिन्दी",
}
"""The languages with a catalogue (English is the source), each named in itself."""
AUTO = "auto"
"""``--lang auto``: forget the remembered language and follow the environment."""
_ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_translations: gettext.NullTranslations = gettext.NullTranslations()
DECIMAL_SEPARATORS = {"uk": ",", "it": ",", "sq": ",", "kk": ","}
"""The decimal separator of each language that does not write a point (Unicode CLDR)."""
_decimal_separator = "."


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it yet (it is translated where shown)."""
    return message


def _(message: str) -> str:
    """``message`` in the language in use."""
    return _translations.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message for ``count``, by the plural rule of the language in use."""
    return _translations.ngettext(singular, plural, count)


def translated(message: object, instead: Mapping[str, str] | None = None) -> str:
    """``message`` in the language in use, when it is text from ``p2p`` that kept its English
    template and fields (:class:`p2p.text.Text`, also as an exception's message); anything else
    as it is. Fields that are such text or errors are translated too.

    >>> class Text(str):  # what p2p.text.Text looks like from here
    ...     template, fields, plural, amount = "the connection dropped ({error})", {"error": "EOF"}, None, 0
    >>> use("it"), translated(Text("the connection dropped (EOF)")), translated(ValueError("as it is"))
    ('it', 'la connessione è caduta (EOF)', 'as it is')
    >>> use("en")
    'en'
    """
    if isinstance(message, BaseException) and len(message.args) == 1:
        message = message.args[0] if hasattr(message.args[0], "template") else message
    template = getattr(message, "template", None)
    fields = getattr(message, "fields", None)
    if not isinstance(template, str) or not isinstance(fields, dict):
        return str(message)
    template = (instead or {}).get(template, template)
    plural = getattr(message, "plural", None)
    text = ngettext(template, plural, int(getattr(message, "amount", 0))) if plural else _(template)
    shown = {
        k: translated(v, instead) if isinstance(v, BaseException) or hasattr(v, "template") else v
        for k, v in fields.items()
    }
    return text.format(**shown)


def language_code(text: str) -> str | None:
    """The code of :data:`LANGUAGES` that a locale name or language tag means, if any.

    >>> language_code("uk_UA.UTF-8"), language_code("hi-IN"), language_code("C"), language_code("de")
    ('uk', 'hi', 'en', None)
    """
    base = text.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    if base in ("c", "posix"):
        return "en"
    return base if base in LANGUAGES else None


def environment_language(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for, the way gettext reads it; English by default.

    >>> environment_language({"LANGUAGE": "de:sq", "LANG": "uk_UA.UTF-8"})
    'sq'
    >>> environment_language({"LC_ALL": "", "LANG": "kk_KZ.UTF-8"})
    'kk'
    """
    env = os.environ if environ is None else environ
    for variable in _ENVIRONMENT:
        value = env.get(variable)
        if value:
            for name in value.split(":"):
                code = language_code(name)
                if code is not None:
                    return code
            if variable != "LANGUAGE":
                break
    return "en"


def use(code: str | None = None) -> str:
    """Speak language ``code`` from now on (``None``: the environment's); the code in use.

    A language without its compiled catalogue falls back to English.
    """
    global _translations, _decimal_separator
    chosen = environment_language() if code is None else (language_code(code) or "en")
    _translations = gettext.translation(DOMAIN, LOCALE_DIR, languages=[chosen], fallback=True)
    spoken = chosen if isinstance(_translations, gettext.GNUTranslations) else "en"
    _decimal_separator = DECIMAL_SEPARATORS.get(spoken, ".")
    return spoken


def decimal(value: float, places: int = 1) -> str:
    """``value`` with ``places`` decimals, as the language in use writes them.

    >>> use("uk"), decimal(1.25), decimal(-0.5)
    ('uk', '1,2', '-0,5')
    >>> use("en"), decimal(1.25)
    ('en', '1.2')
    """
    return f"{value:.{places}f}".replace(".", _decimal_separator)

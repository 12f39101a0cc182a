"""Text from outside: the one rule for bot and ladder names, and control characters made visible.

The arbiter checks every name where it enters (the commands, the tokens file and ``--bot``, the
store, JoinLadder/LeaveLadder/Challenge) with :func:`name_problem`; the arbiter's commands and the
SDK print any text they did not write themselves through :func:`visible`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import MutableMapping
from typing import Any

from .limits import MAX_BOT_VERSION_LENGTH

#: The longest bot or ladder name (names show in logs, records, URLs and the opponent's MatchStarted).
MAX_NAME_LENGTH = 64
#: The characters a name may hold besides letters, marks and digits.
NAME_PUNCTUATION = "-_."
#: Letters and marks that show as nothing (Unicode's default-ignorable code points of those
#: categories: Hangul fillers, variation selectors, the combining grapheme joiner...).
_INVISIBLE = frozenset(
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0}
    | set(range(0x180B, 0x1810))
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)


class BadName(ValueError):
    """A bot or ladder name the rule refuses."""


def is_name_character(char: str) -> bool:
    """Whether ``char`` may be in a name: a letter, mark or digit (not an invisible one), ``-_.``."""
    if char in NAME_PUNCTUATION:
        return True
    return unicodedata.category(char)[0] in "LMN" and ord(char) not in _INVISIBLE


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a bot or ladder name (None: nothing).

    A name is 1 to 64 letters, digits, ``-``, ``_`` and ``.`` (letters and digits of any script,
    with their accents, in Unicode NFC form), and starts with a letter or a digit. So it holds no
    control, format (bidi, zero-width) or space character, no ``/``, and it is never ``.`` or ``..``.
    """
    if not name:
        return "a name cannot be empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"at most {MAX_NAME_LENGTH} characters"
    wrong = next((char for char in name if not is_name_character(char)), None)
    if wrong is not None:
        return f"only letters, digits, '-', '_' and '.' (not {shown(wrong)}, U+{ord(wrong):04X})"
    if not name[0].isalnum():
        return "it must start with a letter or a digit"
    if not unicodedata.is_normalized("NFC", name):
        return "write it in Unicode NFC form (composed accents)"
    return None


def check_name(name: str, kind: str = "bot") -> str:
    """``name`` if the rule takes it as a ``kind`` (bot, ladder) name, else BadName."""
    problem = name_problem(name)
    if problem is not None:
        raise BadName(f"bad {kind} name {shown(name)}: {problem}")
    return name


def version_problem(version: str) -> str | None:
    """What is wrong with a bot version (None: nothing): 1 to 64 printable ASCII characters
    without spaces (gRPC metadata carries printable ASCII only)."""
    if not 0 < len(version) <= MAX_BOT_VERSION_LENGTH or not all(" " < c <= "~" for c in version):
        return f"a bot version is 1 to {MAX_BOT_VERSION_LENGTH} printable ASCII characters without spaces"
    return None


def text_problem(text: str, limit: int) -> str | None:
    """What is wrong with free text (a bot's owner): at most ``limit`` printable characters."""
    if len(text) > limit:
        return f"at most {limit} characters"
    if not text.isprintable():
        return "no control, format or line-break characters"
    return None


def shown(text: str, limit: int = 40) -> str:
    """``repr`` of outside text for a message (control characters escaped), cut to ``limit``."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[: limit - 3] + "..."


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, keep: str = "") -> str:
    """``text`` with every character that is not printable (controls such as ESC, BEL and DEL,
    bidi and zero-width format characters, line breaks other than those in ``keep``) written as
    its escape: ``\\x1b``, ``\\u202e``, ``\\U000e0001``."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char in keep else _escape(char) for char in text)


def visible_fields(_logger: Any, _method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """A structlog processor: every text value of a log line made :func:`visible`."""
    for key, value in event.items():
        if isinstance(value, str) and not value.isprintable():
            event[key] = visible(value)
    return event

"""Text from outside (questions, input files) checked before anything else touches it.

Two kinds of bad text reach Python as lone surrogates: bytes that are not UTF-8 (decoded with
``surrogateescape``, as the command line and the input readers do: U+DC80..U+DCFF) and JSON's
``"\\ud800"`` escapes. Neither can be encoded, stored or embedded, so they are refused with where
they are. Control characters (NUL, escape, DEL…) and invisible format characters carry no
meaning in a question or an abstract: they become spaces or go."""

from __future__ import annotations

import re

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_INVISIBLE = re.compile(r"[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")  # incl. bidi controls


def bad_text(text: str) -> str | None:
    """Why ``text`` cannot be used as text, or None when it can."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    code, where = ord(found.group()), found.start() + 1
    if 0xDC80 <= code <= 0xDCFF:
        return f"a byte that is not UTF-8 (0x{code - 0xDC00:02x}) at character {where}"
    return f"a lone surrogate (\\u{code:04x}) at character {where}, which is not text"


def tidy(text: str) -> str:
    """Control characters become spaces; invisible format characters are removed."""
    return _INVISIBLE.sub("", _CONTROL.sub(" ", text))

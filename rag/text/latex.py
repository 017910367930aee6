"""LaTeX made readable (pylatexenc): ``82.8\\%`` -> "82.8%", ``$\\times$`` -> "×",
``{\\"u}`` -> "ü", ``\\emph{x}`` -> "x", ``--`` -> "–". Used once, at ingest, for the text that
is shown, searched and embedded (the record keeps the original).

Abstracts from JSON or CSV are mostly plain text with some LaTeX residue, so what plain text
means is kept: a bare ``%`` is a percent sign (not a LaTeX comment), a bare ``&`` an ampersand,
``$5 to $10`` money (a ``$…$`` span is math only when it looks like math), a ``~`` between two
words a space but ``~2x`` "about 2x", and URLs are left exactly as written. Text without any
LaTeX marker is returned as it is, without being parsed."""

from __future__ import annotations

import logging
import re
from functools import lru_cache

log = logging.getLogger(__name__)

_MARKERS = re.compile(r"[\\{}$~]|--")
_URL = re.compile(r"(https?://[^\s{}]+)")
_URL_MACRO = re.compile(r"\\url\{([^{}]*)\}")
_HREF_MACRO = re.compile(r"\\href\{([^{}]*)\}\{([^{}]*)\}")
_MATH = re.compile(r"(?<!\\)\$(?!\s)([^$]{1,300}?)(?<![\s\\])\$")
_MATHLIKE = re.compile(r"[\\^_{}=<>]|^\S{1,12}$")
_TIE = re.compile(r"(?<=\S)~(?=\S)")
_SPACES = re.compile(r"\s+")
# What pylatexenc would read as LaTeX syntax but plain text means literally: kept aside as
# private-use characters and put back after the conversion.
_KEEP = {"%": "\ue000", "&": "\ue001", "$": "\ue002", "~": "\ue003", "#": "\ue004"}
_RESTORE = str.maketrans({v: k for k, v in _KEEP.items()})
_PRIVATE = re.compile("[\ue000-\ue011]")
_BARE = re.compile(r"(?<!\\)[%&#]")
_WORD_MACROS = {"eg": "e.g.", "ie": "i.e.", "etal": "et al.", "wrt": "w.r.t.", "etc": "etc.",
                "vs": "vs.", "cf": "cf.", "aka": "a.k.a."}
_PLAIN_ARGUMENT = ("mathcal", "mathbb", "mathbf", "mathrm", "mathit", "mathsf", "mathtt",
                   "mathfrak", "boldsymbol", "bm", "operatorname", "text", "textrm", "textnormal")
_FUNCTIONS = ("log", "exp", "max", "min", "sup", "inf", "lim", "arg", "sin", "cos", "tanh")


@lru_cache(maxsize=1)
def _converter():  # type: ignore[no-untyped-def]
    from pylatexenc import latexwalker
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    class Converter(LatexNodes2Text):  # type: ignore[misc]
        def apply_simplify_repl(self, node, simplify_repl, what):  # type: ignore[no-untyped-def]
            """A macro that lost its arguments (``\\frac`` at the end of a text) gives the
            arguments it has, not its "%s/%s" template and a warning."""
            if isinstance(simplify_repl, str) and "%" in simplify_repl and len(simplify_repl) > 1 \
                    and node.isNodeType(latexwalker.LatexMacroNode):
                args = list(node.nodeargd.argnlist or []) if node.nodeargd else []
                if not args or None in args:
                    return " ".join(self._groupnodecontents_to_text(a) for a in args if a is not None)
            return super().apply_simplify_repl(node, simplify_repl, what)

    db = get_default_latex_context_db().filter_context()
    macros = [MacroTextSpec(name, text) for name, text in _WORD_MACROS.items()]
    macros += [MacroTextSpec(name, "%s") for name in _PLAIN_ARGUMENT]
    macros += [MacroTextSpec(name, f" {name} ") for name in _FUNCTIONS]
    db.add_context_category("abstract-rag", prepend=True, macros=macros)
    # an unknown (user-defined) macro keeps its name: "\our" -> "our", never silently nothing
    db.set_unknown_macro_spec(MacroTextSpec("", simplify_repl=lambda node, *_: node.macroname))
    return Converter(latex_context=db, math_mode="text")


READABLE_FIELDS = frozenset({"title", "venue", "authors"})  # of a paper record, besides its abstract


def readable(value: object) -> object:
    """``latex_to_text`` for a text or each text of a tuple (author names), stripped; other
    values as they are."""
    if isinstance(value, str):
        return latex_to_text(value).strip() or None
    if isinstance(value, tuple):
        return tuple(t for t in (latex_to_text(v).strip() for v in value if isinstance(v, str)) if t)
    return value


def has_latex(text: str) -> bool:
    return bool(_MARKERS.search(text))


def latex_to_text(text: str) -> str:
    """Readable Unicode for text that may hold LaTeX; text without LaTeX comes back unchanged.
    Runs of white space in converted text become one space."""
    if not has_latex(text):
        return text
    text = _HREF_MACRO.sub(r"\2 (\1)", _URL_MACRO.sub(r"\1", text))
    parts = _URL.split(text)  # odd positions are URLs, kept as written
    out = "".join(part if i % 2 else _convert(part) for i, part in enumerate(parts))
    return _SPACES.sub(" ", out)


def _convert(text: str) -> str:
    if not has_latex(text) or _PRIVATE.search(text):  # (private-use characters: left alone)
        return text
    prepared = _protect(text)
    try:
        converted = _converter().latex_to_text(prepared)
    except Exception as exc:  # noqa: BLE001  pylatexenc's own specs can fail on broken input
        # (deep nesting, \href missing its arguments): that text is kept as written
        log.debug("LaTeX left as written (%s): %.60r", exc, text)
        converted = prepared
    return converted.replace("\u00a0", " ").translate(_RESTORE)


def _protect(text: str) -> str:
    """Mark what is plain text (bare %, &, #, money $, a free-standing ~) so the parser leaves it."""
    text = _BARE.sub(lambda m: _KEEP[m.group(0)], text)
    text = _TIE.sub(" ", text).replace("~", _KEEP["~"])
    spans: list[str] = []

    def math(match: re.Match[str]) -> str:
        if not _MATHLIKE.search(match.group(1)):
            return match.group(0)
        spans.append(match.group(0))
        return f"\ue010{len(spans) - 1}\ue011"

    text = _MATH.sub(math, text)
    text = re.sub(r"(?<!\\)\$", _KEEP["$"], text)  # what is left of $ is money
    return re.sub("\ue010(\\d+)\ue011", lambda m: spans[int(m.group(1))], text)

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

_MARKER_CHARS = re.compile(r"[\\{}$~]")
_URL = re.compile(r"(https?://[^\s{}]+)")
_URL_MACRO = re.compile(r"\\url\{([^{}]*)\}")
_HREF_MACRO = re.compile(r"\\href\{([^{}]*)\}\{([^{}]*)\}")
_MATH = re.compile(r"(?<!\\)\$(?!\s)([^$]{1,300}?)(?<![\s\\])\$")
_MATHLIKE = re.compile(r"[\\^_{}=<>]|^\S{1,12}$")
_TIE = re.compile(r"(?<=\S)~(?=\S)")
_SPACES = re.compile(r"\s+")
_SPLIT = re.compile(r"(\s+)")
# What pylatexenc would read as LaTeX syntax but plain text means literally: kept aside as
# private-use characters and put back after the conversion.
_KEEP = {"%": "\ue000", "&": "\ue001", "$": "\ue002", "~": "\ue003", "#": "\ue004",
         "```": "\ue005"}  # a Markdown fence, not two LaTeX open quotes
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
    return Converter(latex_context=db, math_mode="text"), latexwalker.get_default_latex_context_db()


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
    return "--" in text or "``" in text or _MARKER_CHARS.search(text) is not None


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
    out = [_parse(group) if has_latex(group) or "''" in group else group
           for group in _groups(_protect(text))]
    return "".join(out).translate(_RESTORE)


def _groups(text: str) -> list[str]:
    """The text cut at white space outside braces and math, so that only the pieces holding
    LaTeX are parsed (pylatexenc reads character by character: a whole abstract for one
    ``\\%`` made ingest twice as slow)."""
    groups: list[str] = []
    current, depth, math = "", 0, False
    for piece in _SPLIT.split(text):
        current += piece
        if piece.isspace():
            if depth <= 0 and not math:
                groups.append(current)
                current, depth = "", 0
        elif "{" in piece or "}" in piece or "$" in piece:
            depth += piece.count("{") - piece.count("\\{") - piece.count("}") + piece.count("\\}")
            math ^= (piece.count("$") - piece.count("\\$")) % 2 == 1
    return [*groups, current]


def _parse(text: str) -> str:
    from pylatexenc import latexwalker

    try:
        converter, context = _converter()  # (the walker's macro table built once, not per text)
        nodes = latexwalker.LatexWalker(text, latex_context=context, tolerant_parsing=True).get_latex_nodes()[0]
        converted = converter.nodelist_to_text(nodes)
    except Exception as exc:  # noqa: BLE001  pylatexenc's own specs can fail on broken input
        # (deep nesting, \href missing its arguments): that text is kept as written
        log.debug("LaTeX left as written (%s): %.60r", exc, text)
        converted = text
    # the parser drops the white space a piece ends with; keep it
    tail = text[len(text.rstrip()):]
    return converted.replace("\u00a0", " ").rstrip() + tail


def _protect(text: str) -> str:
    """Mark what is plain text (bare %, &, #, money $, a free-standing ~) so the parser leaves it."""
    text = text.replace("```", _KEEP["```"])
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

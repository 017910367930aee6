"""Year ranges as people write them: "2023", "2023-2025", "2023-" or "-2021"."""

from __future__ import annotations

import re

from rag.errors import InputError

_YEARS = re.compile(r"\s*(\d{4})?\s*(-)?\s*(\d{4})?\s*")


def parse_years(text: str | None) -> tuple[int | None, int | None]:
    """"2023", "2023-2025", "2023-" or "-2021" -> (from, to); None or "" -> (None, None)."""
    if not text:
        return None, None
    match = _YEARS.fullmatch(text)
    if not match or not (match[1] or match[3]):
        raise InputError(f"year {text!r} is not a year or range; use 2023, 2023-2025, 2023- or -2021.")
    start = int(match[1]) if match[1] else None
    end = int(match[3]) if match[3] else (start if not match[2] else None)
    if start is not None and end is not None and start > end:
        raise InputError(f"year range {text!r} runs backwards; did you mean {end}-{start}?")
    return start, end

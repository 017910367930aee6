"""Inline SVG charts for report.html, with every value printed on its bar (no script, no CDN)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

RUN_COLOURS = ("#2f6fde", "#d9822b", "#1c9a6b", "#8a4baf")


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def grouped_bars(title: str, groups: Sequence[str], runs: Sequence[str],
                 values: Sequence[Sequence[float | None]],
                 intervals: Sequence[Sequence[tuple[float, float] | None]]) -> str:
    """Bars per group (one per run) on a 0..1 scale, each with its interval as a whisker and its
    value printed above. ``values[run][group]``."""
    width, height, top, base = 860, 250, 24, 200
    group_w = (width - 40) / max(1, len(groups))
    bar_w = min(46.0, (group_w - 16) / max(1, len(runs)))
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">',
             f'<text x="10" y="16" font-size="13" font-weight="600">{escape(title)}</text>']
    for tick in (0.0, 0.5, 1.0):
        y = base - (base - top) * tick
        parts.append(f'<line x1="30" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e3e8ee"/>'
                     f'<text x="4" y="{y + 4:.1f}" font-size="10" fill="#5b6675">{tick:.1f}</text>')
    for g, group in enumerate(groups):
        x0 = 40 + g * group_w + 8
        for r, _ in enumerate(runs):
            value = values[r][g]
            if value is None:
                continue
            x = x0 + r * bar_w
            y = base - (base - top) * value
            parts.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar_w - 4:.1f}" '
                         f'height="{base - y:.1f}" fill="{RUN_COLOURS[r % 4]}"/>')
            ci = intervals[r][g]
            if ci:
                lo, hi = (base - (base - top) * v for v in ci)
                cx = x + (bar_w - 4) / 2
                parts.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{hi:.1f}" y2="{lo:.1f}" '
                             f'stroke="#1d2430" stroke-width="1.2"/>')
            parts.append(f'<text class="value" x="{x + (bar_w - 4) / 2:.1f}" y="{y - 4:.1f}" '
                         f'font-size="10" text-anchor="middle">{_fmt(value)}</text>')
        parts.append(f'<text x="{x0 + len(runs) * bar_w / 2:.1f}" y="{base + 16}" font-size="11" '
                     f'text-anchor="middle">{escape(group)}</text>')
    legend = "".join(f'<rect x="{40 + i * 140}" y="{height - 14}" width="10" height="10" '
                     f'fill="{RUN_COLOURS[i % 4]}"/><text x="{54 + i * 140}" y="{height - 5}" '
                     f'font-size="11">{escape(run)}</text>' for i, run in enumerate(runs))
    return "".join(parts) + legend + "</svg>"


def histogram(title: str, values: Sequence[float], unit: str = "ms", bins: int = 12) -> str:
    """Counts per bin, the count printed on each bar."""
    if not values:
        return ""
    top = max(values) or 1.0
    counts = [0] * bins
    for value in values:
        counts[min(bins - 1, int(value / top * bins))] += 1
    peak = max(counts)
    parts = [f'<svg class="chart" viewBox="0 0 860 200" role="img" aria-label="{escape(title)}">',
             f'<text x="10" y="16" font-size="13" font-weight="600">{escape(title)}</text>']
    for i, count in enumerate(counts):
        h = 130 * count / peak
        x = 20 + i * 68
        parts.append(f'<rect class="bar" x="{x}" y="{160 - h:.1f}" width="62" height="{h:.1f}" fill="#2f6fde"/>'
                     f'<text class="value" x="{x + 31}" y="{156 - h:.1f}" font-size="10" '
                     f'text-anchor="middle">{count}</text>'
                     f'<text x="{x}" y="176" font-size="10">{top * i / bins:.0f}</text>')
    return "".join(parts) + f'<text x="800" y="194" font-size="10">{escape(unit)}</text></svg>'

"""report.html: one self-contained file (inline CSS and SVG, no CDN) that people read: metric
bars per question type, a latency histogram, and every question with its answer, citations
and what failed."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

CHART_METRICS = ("recall@5", "mrr@10", "key_facts", "citation_recall", "support_rate", "accuracy")
COLOURS = {"single": "#2f6fde", "multi": "#1c9a6b", "metadata": "#b7791f", "unanswerable": "#8a4baf"}


def _bars(summary: dict[str, Any]) -> str:
    types = list(summary["by_type"])
    width, group = 760, 760 // len(CHART_METRICS)
    bar = max(6, (group - 20) // max(1, len(types)))
    parts = [f'<svg viewBox="0 0 {width} 230" role="img" aria-label="metrics by question type">']
    for i, metric in enumerate(CHART_METRICS):
        x0 = i * group + 10
        for j, kind in enumerate(types):
            value = summary["by_type"][kind].get(metric)
            if value is None:
                continue
            h = 170 * value
            x = x0 + j * bar
            parts.append(f'<rect x="{x}" y="{190 - h:.1f}" width="{bar - 2}" height="{h:.1f}" '
                         f'fill="{COLOURS.get(kind, "#666")}"><title>{kind} {metric}: {value:.2f}</title></rect>')
        parts.append(f'<text x="{x0}" y="210" font-size="11">{escape(metric)}</text>')
    parts.append('<line x1="0" y1="190" x2="760" y2="190" stroke="#999"/></svg>')
    legend = " ".join(f'<span class="key" style="background:{COLOURS.get(t, "#666")}"></span>{t}'
                      for t in types)
    return "".join(parts) + f'<p class="legend">{legend}</p>'


def _histogram(latencies: Sequence[float]) -> str:
    if not latencies:
        return ""
    top = max(latencies) or 1.0
    bins = [0] * 12
    for value in latencies:
        bins[min(11, int(value / top * 12))] += 1
    peak = max(bins)
    parts = ['<svg viewBox="0 0 760 170" role="img" aria-label="latency histogram">']
    for i, count in enumerate(bins):
        h = 130 * count / peak
        parts.append(f'<rect x="{i * 62 + 10}" y="{140 - h:.1f}" width="56" height="{h:.1f}" fill="#2f6fde">'
                     f'<title>{count} answers</title></rect>'
                     f'<text x="{i * 62 + 12}" y="158" font-size="10">{top * i / 12:.0f}</text>')
    return "".join(parts) + '<text x="700" y="168" font-size="10">ms</text></svg>'


def _row(r: dict[str, Any]) -> str:
    cites = "".join(f"<li>[{c['key']}] {escape(c['label'])}</li>" for c in r["citations"])
    failed = "".join(f"<li>{escape(f)}</li>" for f in r["failures"])
    scores = " ".join(f"{k} {v:.2f}" for k, v in r["scores"].items() if v is not None)
    state = "ok" if r["correct"] else "bad"
    return (f'<tr class="{state}"><td>{escape(r["id"])}<br><small>{escape(r["type"])}</small></td>'
            f'<td><b>{escape(r["question"])}</b><p>{escape(r["answer"])}</p><ul>{cites}</ul></td>'
            f'<td><ul class="fail">{failed}</ul><small>{escape(scores)}</small></td>'
            f'<td>{r["latency_ms"]:.0f}</td></tr>')


def write_report(path: Path, rows: Sequence[dict[str, Any]], summary: dict[str, Any]) -> None:
    overall = summary["overall"]
    headline = "".join(
        f"<div class='tile'><b>{'-' if overall.get(m) is None else f'{overall[m]:.2f}'}</b><span>{m}</span></div>"
        for m in ("recall@5", "mrr@10", "key_facts", "citation_recall", "citation_validity", "support_rate"))
    headline += (f"<div class='tile'><b>{summary['accuracy']:.2f}</b><span>accuracy</span></div>"
                 f"<div class='tile'><b>{summary['abstention_recall']:.2f}</b><span>abstention recall</span></div>"
                 f"<div class='tile'><b>{summary['latency_p50_ms']:.0f} ms</b><span>p50 latency</span></div>")
    html = f"""<!doctype html><html lang="en"><meta charset="utf-8"><title>abstract-rag eval</title>
<style>body{{font:14px system-ui,sans-serif;margin:24px;color:#1d2430;max-width:1100px}}
.tile{{display:inline-block;border:1px solid #dde3ea;border-radius:8px;padding:10px 14px;margin:4px;min-width:110px}}
.tile b{{display:block;font-size:20px}}.tile span{{color:#5b6675;font-size:12px}}
table{{border-collapse:collapse;width:100%}}td{{border-top:1px solid #e3e8ee;padding:8px;vertical-align:top}}
tr.bad td:first-child{{border-left:4px solid #d04545}}tr.ok td:first-child{{border-left:4px solid #2e9d63}}
ul{{margin:4px 0;padding-left:18px}}.fail{{color:#a33}}
.key{{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}}
p{{margin:4px 0;white-space:pre-line}}small{{color:#5b6675}}</style>
<h1>Eval: {len(rows)} questions</h1><p>generator: {escape(", ".join(summary["generators"]))}</p>
{headline}<h2>By question type</h2>{_bars(summary)}
<h2>Latency per answer</h2>{_histogram([r["latency_ms"] for r in rows])}
<h2>Questions</h2><table><tr><th>id</th><th>question, answer, citations</th><th>what failed</th><th>ms</th></tr>
{"".join(_row(r) for r in rows)}</table></html>"""
    path.write_text(html, encoding="utf-8")

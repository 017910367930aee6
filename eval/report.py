"""report.html: one self-contained page (inline CSS and SVG, no script, nothing loaded from the
network). Headline figures with 95% intervals for one run or two side by side (dev and test), a
per-type table, charts with their values printed, a failures gallery (the question, the answer,
the cited passage with the matched span highlighted, and why it failed), the questions that
flipped between two runs, and every question."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from eval.charts import RUN_COLOURS, grouped_bars, histogram
from eval.report_notes import notes
from rag.text.clean import split_sentences

Run = tuple[str, Sequence[Mapping[str, Any]], Mapping[str, Any]]  # (name, rows, summary)
HEADLINE = (("key facts stated", "key_facts"), ("gold paper cited, with a fact", "gold_cited"),
            ("list: answer precision", "answer_precision"), ("list: answer recall", "answer_recall"),
            ("list: figure recall", "figure_recall"), ("yes/no: verdict", "yes_no_verdict"),
            ("yes/no: verdict and its reason", "yes_no"), ("unanswerable declined", "unanswerable_abstained"),
            ("near-domain unanswerable declined", "near_domain_abstained"),
            ("false abstentions", "false_abstention"), ("citation precision (gold)", "citation_precision"),
            ("citation recall (gold)", "citation_recall"), ("judge: sentences supported", "judge_support"),
            ("accuracy", "accuracy"), ("recall@5", "recall@5"), ("MRR@10", "mrr@10"), ("nDCG@10", "ndcg@10"))
CHARTED = ("key_facts", "gold_cited", "yes_no_verdict", "unanswerable_abstained", "false_abstention",
           "answer_precision", "accuracy")
STYLE = """body{font:14px system-ui,sans-serif;margin:24px auto;color:#1d2430;max-width:1180px;padding:0 16px}
table{border-collapse:collapse;margin:8px 0 20px}td,th{border-top:1px solid #e3e8ee;padding:5px 9px;
text-align:left;vertical-align:top}th{background:#f5f7fa}td.num{text-align:right;white-space:nowrap}
small,.ci{color:#5b6675;font-size:11px}.run0{color:#2f6fde}.run1{color:#d9822b}
.chart{width:100%;max-width:860px;display:block;margin:8px 0 18px}
.card{border:1px solid #dde3ea;border-left:4px solid #d04545;border-radius:6px;padding:10px 14px;margin:10px 0}
.card .q{font-weight:600;margin:4px 0}.answer{white-space:pre-line;background:#f7f8fa;padding:6px 8px;border-radius:4px}
.reason{display:inline-block;background:#fbe9e9;color:#8c2323;border-radius:10px;padding:1px 8px;
margin:2px 4px 2px 0;font-size:12px}
blockquote{margin:6px 0;padding:6px 10px;border-left:3px solid #c9d3df;font-size:13px}
mark.used{background:#fff1a8}mark.fact{background:#b8efc9}figcaption{font-size:12px;color:#5b6675}
tr.flip-bad td:first-child{border-left:4px solid #d04545}tr.flip-good td:first-child{border-left:4px solid #2e9d63}
details{margin:12px 0}p.what{white-space:pre-line;margin:4px 0}"""


def _cell(value: float | None, ci: Sequence[float] | None, run: int) -> str:
    if value is None:
        return "<span>-</span>"
    spread = f' <span class="ci">[{ci[0]:.2f}, {ci[1]:.2f}]</span>' if ci else ""
    return f'<span class="run{run}">{value:.3f}</span>{spread}'


def words_cell(length: Mapping[str, Any] | None) -> str:
    """"p50 / p90" words of the answers given (runs made before the length was kept: "-")."""
    return f'{length["p50"]:.0f} / {length["p90"]:.0f}' if length and length.get("n") else "-"


def headline_table(runs: Sequence[Run]) -> str:
    head = "".join(f'<th class="run{i}">{escape(name)} <small>({s["questions"]} q)</small></th>'
                   for i, (name, _, s) in enumerate(runs))
    lines = []
    for label, key in HEADLINE:
        if all(s["overall"].get(key) is None for _, _, s in runs):
            continue
        cells = "".join(f'<td class="num">{_cell(s["overall"].get(key), s["ci"].get(key), i)}'
                        f'<br><small>n={s["n"].get(key, 0)}</small></td>' for i, (_, _, s) in enumerate(runs))
        if key == "yes_no_verdict":
            label += "<br><small>majority baseline: " + ", ".join(
                f'{s["yes_no_majority"]:.3f}' for _, _, s in runs if s.get("yes_no_majority") is not None) + "</small>"
        lines.append(f"<tr><td>{label}</td>{cells}</tr>")
        if key == "accuracy":
            words = "".join(f'<td class="num"><span class="run{i}">{words_cell(s.get("answer_words"))}</span></td>'
                            for i, (_, _, s) in enumerate(runs))
            lines.append(f"<tr><td>answer length, words p50 / p90</td>{words}</tr>")
    p50 = "".join(f'<td class="num"><span class="run{i}">{s["latency_p50_ms"]:.0f} ms</span>'
                  + (f' <span class="ci">[{s["latency_p50_ci"][0]:.0f}, {s["latency_p50_ci"][1]:.0f}]</span>'
                     if s.get("latency_p50_ci") else "") + "</td>" for i, (_, _, s) in enumerate(runs))
    lines.append(f"<tr><td>latency p50</td>{p50}</tr>")
    return f'<table id="headline"><tr><th>metric (95% interval)</th>{head}</tr>{"".join(lines)}</table>'


def per_type_table(runs: Sequence[Run]) -> str:
    types = sorted({t for _, _, s in runs for t in s["by_type"]})
    head = "".join(f"<th>{escape(t)}</th>" for t in types)
    lines = []
    for label, key in HEADLINE:
        cells = []
        for t in types:
            shown = [_cell(s["by_type"].get(t, {}).get(key), s["by_type_ci"].get(t, {}).get(key), i)
                     for i, (_, _, s) in enumerate(runs)]
            cells.append('<td class="num">' + "<br>".join(shown) + "</td>")
        if any("-</span>" not in c for c in cells):
            lines.append(f"<tr><td>{label}</td>{''.join(cells)}</tr>")
        if key == "accuracy":
            words = ['<td class="num">' + "<br>".join(
                f'<span class="run{i}">{words_cell(s.get("answer_words_by_type", {}).get(t))}</span>'
                for i, (_, _, s) in enumerate(runs)) + "</td>" for t in types]
            lines.append(f"<tr><td>answer length, words p50 / p90</td>{''.join(words)}</tr>")
    counts = "".join("<td class='num'>" + "<br>".join(
        f'<span class="run{i}">{sum(r["type"] == t for r in rows)}</span>' for i, (_, rows, _) in enumerate(runs))
        + "</td>" for t in types)
    lines.append(f"<tr><td>questions</td>{counts}</tr>")
    return f'<table id="per-type"><tr><th>metric</th>{head}</tr>{"".join(lines)}</table>'


def charts(runs: Sequence[Run]) -> str:
    names = [name for name, _, _ in runs]
    types = sorted({t for _, _, s in runs for t in s["by_type"]})
    by_type = grouped_bars("accuracy by question type (95% interval)", types, names,
                           [[s["by_type"].get(t, {}).get("accuracy") for t in types] for _, _, s in runs],
                           [[s["by_type_ci"].get(t, {}).get("accuracy") for t in types] for _, _, s in runs])
    keys = [k for k in CHARTED if any(s["overall"].get(k) is not None for _, _, s in runs)]
    labels = [k.replace("_", " ") for k in keys]
    headline = grouped_bars("headline figures (95% interval)", labels, names,
                            [[s["overall"].get(k) for k in keys] for _, _, s in runs],
                            [[s["ci"].get(k) for k in keys] for _, _, s in runs])
    latency = histogram(f"latency per answer, {names[0]}", [r["latency_ms"] for r in runs[0][1]])
    return by_type + headline + latency


def matched_span(claim: str, passage: str) -> str:
    """What of the passage the claim rests on: the claim itself when the passage says it word for
    word, else the passage's sentence sharing most of the claim's words (half of them at least)."""
    words = set(re.findall(r"\w+", claim.lower()))
    if not words or re.sub(r"\W+", " ", claim.lower()).strip() in re.sub(r"\W+", " ", passage.lower()):
        return claim
    best = max(split_sentences(passage), default="", key=lambda s: len(words & set(re.findall(r"\w+", s.lower()))))
    return best if len(words & set(re.findall(r"\w+", best.lower()))) >= len(words) / 2 else ""


def highlight(text: str, used: Sequence[str], facts: Sequence[str]) -> str:
    """The passage, escaped, with the answer's sentences (``used``) and the key facts marked."""
    spans: list[tuple[int, int, str]] = []
    for phrase, kind in [(u, "used") for u in used] + [(f, "fact") for f in facts]:
        words = re.findall(r"\w+", phrase)
        if not words:
            continue
        pattern = r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)"
        spans += [(m.start(), m.end(), kind) for m in re.finditer(pattern, text, re.IGNORECASE)]
    out, at = [], 0
    for start, end, kind in sorted(spans, key=lambda s: (s[0], s[2] != "fact")):
        if start < at:
            continue
        out.append(escape(text[at:start]) + f'<mark class="{kind}">{escape(text[start:end])}</mark>')
        at = end
    return "".join(out) + escape(text[at:])


def _card(row: Mapping[str, Any]) -> str:
    reasons = "".join(f'<span class="reason">{escape(f["code"])}{": " + escape(f["detail"]) if f["detail"] else ""}'
                      f"</span>" for f in row["failures"]) or '<span class="reason">not right</span>'
    facts = [a for f in row.get("facts", []) for a in f["alternatives"]]
    cited = [c["paper_id"] for c in row["citations"]]
    shown = list(dict.fromkeys(cited + [p for p in row["gold_papers"] if p not in cited]))[:4]
    figures = []
    for pid in shown:
        passage = row.get("passages", {}).get(pid)
        if not passage or not passage["text"]:
            continue
        used = [matched_span(c["text"].split(": ", 1)[-1] if c["text"].startswith(("- ", "**")) else c["text"],
                             passage["text"]) for c in row.get("claims", []) if pid in c["papers"]]
        role = ("cited" if pid in cited else "") + (", gold" if pid in row["gold_papers"] else "")
        figures.append(f"<figure><figcaption>{escape(passage['label'])} — {role.strip(', ')}</figcaption>"
                       f"<blockquote>{highlight(passage['text'], used, facts)}</blockquote></figure>")
    answer = escape(row["answer"]) if not row["abstained"] else f"(declined) {escape(row.get('abstain_reason') or '')}"
    return (f'<div class="card" id="fail-{escape(row["id"])}"><small>{escape(row["id"])} · {escape(row["type"])}'
            f'</small><p class="q">{escape(row["question"])}</p>{reasons}<div class="answer">{answer}</div>'
            f'{"".join(figures)}</div>')


def gallery(runs: Sequence[Run], most: int = 150) -> str:
    parts = []
    for name, rows, _ in runs:
        failed = [r for r in rows if not r["correct"]]
        cards = "".join(_card(r) for r in failed[:most])
        more = f"<p><small>{len(failed) - most} more in results.jsonl</small></p>" if len(failed) > most else ""
        parts.append(f'<h3>{escape(name)}: {len(failed)} of {len(rows)} not right</h3>{cards}{more}')
    return '<section id="gallery">' + "".join(parts) + "</section>"


def flips_table(flips: Sequence[Mapping[str, Any]], names: Sequence[str]) -> str:
    if not flips:
        return '<section id="flips"><p>No question changed between right and wrong.</p></section>'
    lines = "".join(
        f'<tr class="flip-{"good" if f["now_right"] else "bad"}"><td>{escape(f["id"])}</td>'
        f'<td>{escape(f["question"])}</td><td>{"wrong → right" if f["now_right"] else "right → wrong"}</td>'
        f'<td><p class="what">{escape(f["answer_a"][:400])}</p></td>'
        f'<td><p class="what">{escape(f["answer_b"][:400])}</p>'
        f'<small>{escape("; ".join(f["why"]))}</small></td></tr>' for f in flips)
    return (f'<section id="flips"><table><tr><th>id</th><th>question</th><th>change</th>'
            f'<th>{escape(names[0])}</th><th>{escape(names[-1])}</th></tr>{lines}</table></section>')


def _question_row(r: Mapping[str, Any]) -> str:
    cites = "".join(f"<li>[{c['key']}] {escape(c['label'])}</li>" for c in r["citations"])
    failed = "".join(f"<li>{escape(f['code'])} {escape(f['detail'])}</li>" for f in r["failures"])
    return (f'<tr class="{"ok" if r["correct"] else "bad"}"><td>{escape(r["id"])}<br><small>{escape(r["type"])}'
            f'</small></td><td><b>{escape(r["question"])}</b><p class="what">{escape(r["answer"])}</p>'
            f'<ul>{cites}</ul></td><td><ul>{failed}</ul></td><td class="num">{r["latency_ms"]:.0f}</td></tr>')


def write_report(path: Path, runs: Sequence[Run], flips: Sequence[Mapping[str, Any]] | None = None) -> None:
    """The page for one run, or several side by side (the first is the one the gallery and the
    question list are of when they share questions)."""
    names = [name for name, _, _ in runs]
    legend = " ".join(f'<span style="color:{RUN_COLOURS[i % 4]}">■ {escape(n)}</span>' for i, n in enumerate(names))
    generators = "; ".join(f"{escape(n)}: {escape(', '.join(s['generators']))}" for n, _, s in runs)
    flip_part = f"<h2>Flips: {escape(names[0])} → {escape(names[-1])}</h2>{flips_table(flips, names)}" \
        if flips is not None else ""
    questions = "".join(_question_row(r) for r in runs[0][1])
    html = f"""<!doctype html><html lang="en"><meta charset="utf-8"><title>abstract-rag eval</title>
<style>{STYLE}</style><h1>Eval: {' vs '.join(f'{escape(n)} ({len(rows)} questions)' for n, rows, _ in runs)}</h1>
<p>{legend}</p><p><small>generator — {generators}. Intervals: 95% percentile bootstrap over questions
(seeded).</small></p>{notes(runs)}<h2>Headline figures</h2>{headline_table(runs)}<h2>By question type</h2>
{per_type_table(runs)}<h2>Charts</h2>{charts(runs)}{flip_part}<h2>Failures</h2>{gallery(runs)}
<details><summary>Every question of {escape(names[0])}</summary><table id="questions"><tr><th>id</th>
<th>question, answer, citations</th><th>what failed</th><th>ms</th></tr>{questions}</table></details></html>"""
    path.write_text(html, encoding="utf-8")

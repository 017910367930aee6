// Answers as the page shows them: the engine's Markdown (paragraphs, "- " lists, **bold**, [n]
// keys) rendered with DOM nodes only, never innerHTML, so nothing in an abstract can inject HTML;
// and the evidence table of a list or comparison answer (sortable, copyable as Markdown or CSV).
"use strict";

window.RagRender = (function () {
  function node(tag, className, ...children) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    for (const c of children) if (c !== null && c !== undefined) n.append(c);
    return n;
  }

  // **bold** and [n]; cite(key) returns a node for a known key, or null to keep the text.
  function inline(container, text, cite) {
    const pattern = /\*\*(?=\S)(.+?)\*\*|\[(\d+)\]/g;
    let last = 0;
    let match;
    while ((match = pattern.exec(text)) !== null) {
      const replacement = match[1] !== undefined ? node("strong", null) : cite(match[2]);
      if (!replacement) continue;
      if (match[1] !== undefined) inline(replacement, match[1], cite);
      if (match.index > last) container.append(text.slice(last, match.index));
      container.append(replacement);
      last = match.index + match[0].length;
    }
    if (last < text.length) container.append(text.slice(last));
  }

  function markdown(container, text, cite) {
    container.replaceChildren();
    let list = null;
    let para = null;
    for (const raw of String(text || "").split("\n")) {
      const line = raw.trimEnd();
      const item = /^\s*[-*]\s+(.*)$/.exec(line);
      if (item) {
        if (!list) container.append(list = node("ul", "answer-list"));
        const li = node("li", null);
        inline(li, item[1], cite);
        list.append(li);
        para = null;
        continue;
      }
      list = null;
      if (!line.trim()) { para = null; continue; }
      if (para) para.append(" ");
      else container.append(para = node("p", null));
      inline(para, line, cite);
    }
  }

  const COLUMNS = [["paper", "Paper"], ["finding", "Figure or finding"], ["measures", "Measures"],
    ["on", "On"], ["passage", "Cited passage"]];

  function cellText(row, key) {
    return key === "paper" ? `[${row.key}] ${row.paper}` : (row[key] || "");
  }

  function tableMarkdown(rows) {
    const esc = (t) => String(t).replace(/\|/g, "\\|").replace(/\s+/g, " ");
    const head = `| ${COLUMNS.map((c) => c[1]).join(" | ")} | Link |`;
    const rule = `|${COLUMNS.map(() => " --- |").join("")} --- |`;
    const body = rows.map((r) => `| ${COLUMNS.map((c) => esc(cellText(r, c[0]))).join(" | ")} | ${r.link || ""} |`);
    return [head, rule, ...body].join("\n") + "\n";
  }

  function tableCsv(rows) {
    const esc = (t) => `"${String(t).replace(/"/g, '""')}"`;
    const lines = [[...COLUMNS.map((c) => c[1]), "Link", "Paper id"].map(esc).join(",")];
    for (const r of rows) lines.push([...COLUMNS.map((c) => cellText(r, c[0])), r.link || "", r.paper_id].map(esc).join(","));
    return lines.join("\r\n") + "\r\n";
  }

  // Figures sort by value ("63%" after "41%"), the rest as text.
  function sortKey(row, key) {
    const text = cellText(row, key);
    const number = key === "finding" ? parseFloat(text.replace(/,/g, "")) : NaN;
    return Number.isNaN(number) ? text.toLowerCase() : number;
  }

  function evidenceTable(rows, paperCell) {
    let order = rows.slice();
    const tbody = node("tbody", null);
    const headers = [];
    const fill = () => {
      tbody.replaceChildren(...order.map((r) => {
        const tr = node("tr", null);
        tr.dataset.paperId = r.paper_id;
        for (const [key, label] of COLUMNS) {
          const td = node("td", `col-${key}`, key === "paper" ? paperCell(r) : cellText(r, key));
          td.dataset.label = label; // a narrow screen shows each row as a card with labels
          tr.append(td);
        }
        return tr;
      }));
    };
    const sortBy = (key, th) => {
      const ascending = th.getAttribute("aria-sort") !== "ascending";
      order = rows.slice().sort((a, b) => {
        const x = sortKey(a, key);
        const y = sortKey(b, key);
        const cmp = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
        return ascending ? cmp : -cmp;
      });
      headers.forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      fill();
    };
    const headRow = node("tr", null);
    for (const [key, label] of COLUMNS) {
      const button = node("button", "sort", label);
      button.type = "button";
      const th = node("th", `col-${key}`, button);
      th.scope = "col";
      button.addEventListener("click", () => sortBy(key, th));
      headers.push(th);
      headRow.append(th);
    }
    fill();
    const status = node("span", "copy-status");
    status.setAttribute("role", "status");
    const copy = (label, make) => {
      const b = node("button", "secondary copy", label);
      b.type = "button";
      b.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(make(order));
          status.textContent = "Copied.";
        } catch (error) {
          status.textContent = `Could not copy (${error && error.message ? error.message : error}).`;
        }
      });
      return b;
    };
    const table = node("table", "evidence-table", node("caption", "visually-hidden", "Evidence table"),
      node("thead", null, headRow), tbody);
    return node("section", "evidence",
      node("div", "evidence-head", node("h3", null, "Evidence table"),
        copy("Copy as Markdown", tableMarkdown), copy("Copy as CSV", tableCsv), status),
      node("div", "table-scroll", table));
  }

  return { markdown, evidenceTable, tableMarkdown, tableCsv };
})();

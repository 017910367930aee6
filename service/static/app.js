// The chat page: POST /api/ask with stream=true, parse the Server-Sent Events by hand (EventSource
// cannot POST), render citation keys as buttons that open the source panel. No dependencies.
"use strict";

(function () {
  const ABSTAIN_TEXT = "The indexed abstracts do not answer this.";
  const $ = (selector) => document.querySelector(selector);

  const form = $("#ask-form");
  const question = $("#question");
  const askButton = $("#ask");
  const author = $("#author");
  const year = $("#year");
  const conversation = $("#conversation");
  const emptyState = $("#empty-state");
  const status = $("#conversation-status");
  const panel = $("#source-panel");
  const panelKind = $("#source-kind");
  const panelTitle = $("#source-title");
  const panelBody = $("#source-body");

  let conversationId = null;
  let turns = 0;
  let busy = false;
  let controller = null;
  let lastOpener = null;
  let collection = null; // null: the service's own; else a name from /api/collections
  const inCollection = (url) => (collection ? `${url}${url.includes("?") ? "&" : "?"}collection=${encodeURIComponent(collection)}` : url);
  let focusPaper = null; // the source the user opened last: a follow-up's "it"
  const papers = new Map(); // paper id -> Promise of the paper JSON

  // ---- small DOM helpers -------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "className") node.className = value;
      else if (name === "dataset") Object.assign(node.dataset, value);
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function byline(item) {
    const parts = [];
    if (item.authors && item.authors.length) {
      parts.push(item.authors.length > 3 ? item.authors.slice(0, 3).join(", ") + ", et al." : item.authors.join(", "));
    }
    if (item.venue) parts.push(item.venue);
    if (item.year) parts.push(String(item.year));
    return parts.join(" · ");
  }

  function scrollToEnd() {
    conversation.scrollTop = conversation.scrollHeight;
  }

  function setBusy(value) {
    busy = value;
    askButton.disabled = value;
    askButton.textContent = value ? "Answering…" : "Ask";
    conversation.setAttribute("aria-busy", value ? "true" : "false");
  }

  function updateStatus() {
    status.textContent = conversationId
      ? `Follow-ups continue this conversation (${turns} ${turns === 1 ? "question" : "questions"})`
      : "New conversation";
  }

  // ---- rendering answers -------------------------------------------------------------------

  // The answer's Markdown (lists, **bold**) with each known [n] key as a button (render.js).
  function renderAnswerText(container, text, citations) {
    const byKey = new Map(citations.map((c) => [String(c.key), c]));
    window.RagRender.markdown(container, text, (key) => (byKey.has(key) ? citeButton(byKey.get(key)) : null));
  }

  function renderTable(answer) {
    const byKey = new Map((answer.citations || []).map((c) => [c.key, c]));
    return window.RagRender.evidenceTable(answer.table, (row) => {
      const c = byKey.get(row.key);
      return el("span", {}, c ? citeButton(c) : `[${row.key}]`, " ", c ? labelNode(c) : row.paper);
    });
  }

  const FORMATS = [["bib", "BibTeX"], ["ris", "RIS"], ["csl", "CSL-JSON"]];

  function renderExport(citations) {
    const ids = citations.map((c) => c.paper_id).join(",");
    const links = FORMATS.map(([format, name]) => el("a", {
      className: "export-link", href: inCollection(`/api/export?format=${format}&ids=${encodeURIComponent(ids)}`),
      download: `cited.${format === "csl" ? "json" : format}`, dataset: { format },
    }, name));
    return el("p", { className: "export" }, "Export what this answer cited: ",
      ...links.flatMap((a, i) => (i ? [" · ", a] : [a])));
  }

  function citeButton(citation) {
    return el("button", {
      type: "button", className: "cite", dataset: { key: String(citation.key), paperId: citation.paper_id },
      "aria-label": `Source ${citation.key}: ${citation.label}`, title: citation.label,
      onclick: (event) => openPanel({ citation }, event.currentTarget),
    }, `[${citation.key}]`);
  }

  // Only http(s) addresses become links (a record's URL is data from a file, not trusted).
  function safeLink(url) {
    return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null;
  }

  function hasTitleLink(c) {
    return Boolean(safeLink(c.link) && c.title && c.label.startsWith(c.title));
  }

  // The label with its title linked to the paper (DOI, arXiv or URL) when both are known.
  function labelNode(c) {
    if (!hasTitleLink(c)) return document.createTextNode(c.label);
    return el("span", {},
      el("a", { className: "title-link", href: safeLink(c.link), target: "_blank", rel: "noopener noreferrer" }, c.title),
      c.label.slice(c.title.length));
  }

  function renderSources(citations) {
    const list = el("ol", { className: "source-list" });
    for (const c of citations) {
      const meta = byline(c);
      const linked = hasTitleLink(c); // a link cannot sit inside the button that opens the panel
      list.append(el("li", { className: "source-item" },
        el("button", {
          type: "button", className: "source-open", dataset: { key: String(c.key), paperId: c.paper_id },
          "aria-label": linked ? `Source ${c.key}: ${c.label}` : null,
          onclick: (event) => openPanel({ citation: c }, event.currentTarget),
        },
        el("span", { className: "source-key" }, `[${c.key}]`),
        linked ? null : el("span", { className: "source-label" }, c.label)),
        linked ? el("span", { className: "source-label" }, labelNode(c)) : null,
        meta ? el("span", { className: "source-meta" }, meta) : null));
    }
    return el("section", { className: "sources", "aria-label": "Sources" },
      el("h3", {}, "Sources"), list);
  }

  function renderSeeAlso(retrieved) {
    if (!retrieved || !retrieved.length) return null;
    const list = el("ul", { className: "see-also-list" });
    for (const r of retrieved) {
      list.append(el("li", {},
        el("button", {
          type: "button", className: "see-also-open", dataset: { paperId: r.paper_id },
          onclick: (event) => openPanel({ related: r }, event.currentTarget),
        }, r.label)));
    }
    return el("section", { className: "see-also", "aria-label": "See also" },
      el("h3", {}, "See also (not claimed to answer)"), list);
  }

  function renderMeta(answer) {
    const bits = [];
    if (answer.generator) bits.push(`answered by ${answer.generator}`);
    if (answer.timings && typeof answer.timings.total_ms === "number") {
      bits.push(`${Math.round(answer.timings.total_ms)} ms`);
    }
    if (answer.removed_sentences) {
      bits.push(`${answer.removed_sentences} unsupported ${answer.removed_sentences === 1 ? "sentence" : "sentences"} removed`);
    }
    const meta = el("p", { className: "meta" }, bits.join(" · "));
    if (answer.standalone_question && answer.standalone_question !== answer.question) {
      meta.append(el("span", { className: "read-as" }, `Read as: “${answer.standalone_question}”`));
    }
    return meta;
  }

  function finishAnswer(turn, answer) {
    const box = turn.answer;
    box.classList.remove("streaming");
    const citations = answer.citations || [];
    if (answer.abstained) {
      box.classList.add("abstained");
      turn.text.replaceChildren(el("strong", {}, answer.text || ABSTAIN_TEXT));
      const seeAlso = renderSeeAlso(answer.retrieved);
      if (seeAlso) box.append(seeAlso);
    } else {
      renderAnswerText(turn.text, answer.text || "", citations);
      if (answer.table && answer.table.length) box.append(renderTable(answer));
      if (citations.length) box.append(renderSources(citations), renderExport(citations));
    }
    box.append(renderMeta(answer));
    box.dataset.state = "done";
  }

  function failAnswer(turn, problem) {
    const box = turn.answer;
    box.classList.remove("streaming");
    box.classList.add("error");
    box.setAttribute("role", "alert");
    turn.text.replaceChildren(...[
      el("strong", {}, "Something went wrong: "),
      problem.message || "the server gave no reason.",
      problem.code ? el("span", { className: "error-code" }, ` (${problem.code})`) : null].filter(Boolean));
    box.dataset.state = "done";
  }

  function newTurn(text, filters) {
    emptyState.hidden = true;
    const applied = [];
    if (filters.author) applied.push(`author: ${filters.author}`);
    if (filters.year) applied.push(`year: ${filters.year}`);
    const answerText = el("div", { className: "answer-text" });
    const answerBox = el("div", { className: "answer streaming", dataset: { state: "streaming" } },
      el("h2", { className: "visually-hidden" }, "Answer"), answerText);
    const article = el("article", { className: "turn" },
      el("div", { className: "question-bubble" },
        el("span", { className: "visually-hidden" }, "You asked: "),
        el("p", { className: "question-text" }, text),
        applied.length ? el("p", { className: "filters-used" }, applied.join(" · ")) : null),
      answerBox);
    conversation.append(article);
    scrollToEnd();
    return { article, answer: answerBox, text: answerText, streamed: "" };
  }

  // ---- the request and the SSE parser ------------------------------------------------------

  // ---- API keys ------------------------------------------------------------------------------
  // With RAG_SERVICE__API_KEYS set, the page (which holds no data) loads without a key; the first
  // API call answered 401 asks for one, keeps it in this browser (localStorage) and sends it as
  // "Authorization: Bearer <key>" with every call after. A key refused later is asked for again.
  const KEY_STORE = "rag-api-key";

  function withKey(headers) {
    const key = window.localStorage.getItem(KEY_STORE);
    return key ? Object.assign({}, headers, { Authorization: `Bearer ${key}` }) : headers;
  }

  async function fetchWithKey(url, options) {
    const send = () => fetch(url, Object.assign({}, options, { headers: withKey(options.headers || {}) }));
    const response = await send();
    if (response.status !== 401) return response;
    const problem = await response.clone().json().catch(() => ({}));
    if (problem.code !== "missing_api_key" && problem.code !== "invalid_api_key") return response;
    const asked = window.prompt(problem.code === "invalid_api_key"
      ? "That API key was not accepted. API key for this service:"
      : "This service needs an API key (ask whoever runs it). It is kept in this browser only. API key:");
    if (!asked || !asked.trim()) return response;
    window.localStorage.setItem(KEY_STORE, asked.trim());
    return send();
  }

  async function readProblem(response) {
    try {
      const body = await response.json();
      if (body && (body.message || body.code)) return body;
    } catch (_) { /* not JSON */ }
    return { code: `http_${response.status}`, message: `the server answered ${response.status} ${response.statusText}.` };
  }

  // Calls onEvent(name, data) for each complete frame of a text/event-stream body.
  async function readEvents(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    const dispatch = (frame) => {
      let name = "message";
      const data = [];
      for (const line of frame.split("\n")) {
        if (!line || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") name = value;
        else if (field === "data") data.push(value);
      }
      if (!data.length) return;
      let parsed;
      try { parsed = JSON.parse(data.join("\n")); } catch (_) { parsed = { text: data.join("\n") }; }
      onEvent(name, parsed);
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += decoder.decode(value, { stream: true });
      if (done) buffer += decoder.decode();
      buffer = buffer.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
      if (done) break;
    }
    if (buffer.trim()) dispatch(buffer);
  }

  async function ask(text) {
    const filters = { author: author.value.trim() || null, year: year.value.trim() || null };
    const turn = newTurn(text, filters);
    setBusy(true);
    const opened = focusPaper;
    focusPaper = null;
    controller = new AbortController();
    let finished = false;
    try {
      const response = await fetchWithKey(inCollection("/api/ask"), {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify({ question: text, filters, conversation_id: conversationId, stream: true,
          focus_paper: conversationId ? opened : null }),
        signal: controller.signal,
      });
      if (!response.ok) {
        failAnswer(turn, await readProblem(response));
        return false;
      }
      const type = response.headers.get("Content-Type") || "";
      const onAnswer = (answer) => {
        if (answer.conversation_id) {
          conversationId = answer.conversation_id;
          turns += 1;
          updateStatus();
        }
        finishAnswer(turn, answer);
        finished = true;
      };
      if (type.includes("application/json")) {
        onAnswer(await response.json());
        return;
      }
      await readEvents(response, (name, data) => {
        if (finished && name !== "done") return;
        if (name === "delta") {
          turn.streamed = data.replace ? (data.text || "") : turn.streamed + (data.text || "");
          turn.text.textContent = turn.streamed;
          scrollToEnd();
        } else if (name === "citations") {
          onAnswer(data);
        } else if (name === "error") {
          failAnswer(turn, data);
          finished = true;
        }
      });
      if (!finished) {
        failAnswer(turn, { code: "stream_ended", message: "the answer stream ended before the answer was complete; please ask again." });
      }
    } catch (error) {
      if (error && error.name === "AbortError") {
        failAnswer(turn, { code: "cancelled", message: "the question was cancelled." });
      } else {
        failAnswer(turn, { code: "network_error", message: `could not reach the server (${error && error.message ? error.message : error}).` });
      }
    } finally {
      controller = null;
      setBusy(false);
      scrollToEnd();
    }
  }

  // ---- the source panel --------------------------------------------------------------------

  function fetchPaper(id) {
    if (!papers.has(id)) {
      const request = fetchWithKey(inCollection(`/api/papers/${encodeURIComponent(id)}`), { headers: { Accept: "application/json" } })
        .then(async (response) => {
          if (!response.ok) throw await readProblem(response);
          return response.json();
        });
      request.catch(() => papers.delete(id)); // let a later click retry
      papers.set(id, request);
    }
    return papers.get(id);
  }

  function detailsList(rows) {
    const dl = el("dl", { className: "paper-details" });
    for (const [name, value] of rows) {
      if (value === null || value === undefined || value === "" || (Array.isArray(value) && !value.length)) continue;
      dl.append(el("dt", {}, name), el("dd", {}, Array.isArray(value) ? value.join(", ") : String(value)));
    }
    return dl;
  }

  // The abstract with the cited passage marked, when the passage appears in it verbatim.
  function abstractWithPassage(abstract, passage) {
    const node = el("p", { className: "abstract" });
    const at = passage ? abstract.indexOf(passage) : -1;
    if (at === -1) {
      node.textContent = abstract;
    } else {
      node.append(abstract.slice(0, at), el("mark", {}, passage), abstract.slice(at + passage.length));
    }
    return node;
  }

  function openPanel(source, opener) {
    const citation = source.citation || null;
    const paperId = citation ? citation.paper_id : source.related.paper_id;
    const label = citation ? citation.label : source.related.label;
    lastOpener = opener || null;
    document.querySelectorAll(".cite.active, .source-open.active, .see-also-open.active")
      .forEach((b) => b.classList.remove("active"));
    if (opener) opener.classList.add("active");

    panel.dataset.paperId = paperId;
    if (citation) focusPaper = paperId;
    panelKind.textContent = citation ? `Source [${citation.key}]` : "Related paper (not cited)";
    panelTitle.replaceChildren(citation ? labelNode(citation) : label);
    const details = detailsList(citation
      ? [["ID", paperId], ["Authors", citation.authors], ["Venue", citation.venue], ["Year", citation.year]]
      : [["ID", paperId]]);
    const abstractSection = el("section", { className: "panel-section", "aria-label": "Abstract" },
      el("h3", {}, "Abstract"), el("p", { className: "loading" }, "Loading the abstract…"));
    panelBody.replaceChildren(...[
      details,
      citation ? el("section", { className: "panel-section", "aria-label": "Cited passage" },
        el("h3", {}, "Cited passage"), el("blockquote", { className: "passage" }, citation.passage)) : null,
      citation ? null : el("p", { className: "panel-note" },
        "This paper was retrieved as close to the question, but no answer was drawn from it."),
      abstractSection].filter(Boolean));
    panel.hidden = false;
    document.body.classList.add("panel-open");
    panel.focus({ preventScroll: true });

    fetchPaper(paperId).then((paper) => {
      if (panel.dataset.paperId !== paperId) return; // another source was opened meanwhile
      if (!(citation && hasTitleLink(citation))) panelTitle.textContent = paper.label || label;
      details.replaceWith(detailsList([
        ["ID", paper.id], ["Authors", paper.authors], ["Venue", paper.venue], ["Year", paper.year],
        ["Also known as", paper.aliases], ["Source file", paper.source]]));
      const body = [el("h3", {}, "Abstract")];
      if (paper.has_abstract && paper.abstract) {
        body.push(abstractWithPassage(paper.abstract, citation ? citation.passage : ""));
      } else {
        body.push(el("p", { className: "muted" }, "This record has no abstract (listed with metadata only)."));
      }
      const href = safeLink(citation && citation.link) || safeLink(paper.url);
      if (href) {
        body.push(el("p", { className: "paper-link" },
          el("a", { href, target: "_blank", rel: "noopener noreferrer" }, "Open the paper")));
      }
      abstractSection.replaceChildren(...body);
    }).catch((problem) => {
      if (panel.dataset.paperId !== paperId) return;
      abstractSection.replaceChildren(el("h3", {}, "Abstract"),
        el("p", { className: "error-text", role: "alert" },
          `Could not load the abstract: ${(problem && problem.message) || problem}`));
    });
  }

  function closePanel() {
    panel.hidden = true;
    delete panel.dataset.paperId;
    document.body.classList.remove("panel-open");
    document.querySelectorAll(".active").forEach((b) => b.classList.remove("active"));
    if (lastOpener && document.body.contains(lastOpener)) lastOpener.focus();
    lastOpener = null;
  }

  // ---- wiring ------------------------------------------------------------------------------

  // The question's length against the service's cap (from /openapi.json, as configured): the
  // box stops at the cap and says so, instead of sending a question the server must refuse.
  const counter = $("#question-count");
  let limit = null;
  function updateCount(note) {
    const n = question.value.length;
    counter.classList.toggle("over", Boolean(limit && n >= limit));
    if (note) counter.textContent = note;
    else if (limit && n >= limit * 0.8) counter.textContent = `${n} / ${limit} characters`;
    else counter.textContent = "";
  }
  fetch("/openapi.json").then((r) => (r.ok ? r.json() : null)).then((schema) => {
    const max = schema && schema.components.schemas.AskRequest.properties.question.maxLength;
    if (Number.isInteger(max) && max > 0) {
      limit = max;
      question.maxLength = max;
      updateCount();
    }
  }).catch(() => { /* the server still checks the length */ });
  question.addEventListener("input", () => updateCount());

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = question.value.trim();
    if (!text) {
      updateCount("Type a question first.");
      question.focus();
      return;
    }
    if (busy) return;
    question.value = "";
    updateCount();
    ask(text).then((kept) => {
      if (kept === false && !question.value) question.value = text; // a refused question is not lost
    });
  });

  question.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  for (const input of [author, year]) {
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        form.requestSubmit();
      }
    });
  }

  // The collection picker: shown when there is more than one collection with papers.
  const picker = $("#collection");
  fetch("/api/collections", { headers: withKey({}) }).then((r) => (r.ok ? r.json() : [])).then((found) => {
    const usable = found.filter((c) => c.papers > 0);
    if (usable.length < 2) return;
    picker.replaceChildren(...usable.map((c) => el("option", { value: c.name, selected: c.default },
      `${c.name} (${c.papers} papers)`)));
    $("#collection-field").hidden = false;
  }).catch(() => { /* one collection: no picker */ });
  // Facets: the years, venues and authors of the collection with their counts; a click fills
  // the filter (venues are shown for what they are; the page filters on author and year).
  function loadFacets() {
    fetch(inCollection("/api/facets"), { headers: withKey({}) }).then((r) => (r.ok ? r.json() : null)).then((found) => {
      const box = $("#facets");
      if (!found) { box.hidden = true; return; }
      const group = (title, items, input) => (items.length ? el("div", { className: "facet-group" },
        el("h4", {}, title), ...items.map((f) => el("button", {
          type: "button", className: "facet", dataset: { value: String(f.value) }, disabled: !input,
          onclick: input ? () => { input.value = String(f.value); input.focus(); } : null,
        }, `${f.value} (${f.papers})`))) : null);
      $("#facet-lists").replaceChildren(...[
        el("p", { className: "muted" }, `${found.papers} papers`),
        group("Years", found.years, year), group("Authors", found.authors, author),
        group("Venues", found.venues, null)].filter(Boolean));
      box.hidden = false;
    }).catch(() => { /* no facets: the filters still work */ });
  }
  loadFacets();

  picker.addEventListener("change", () => {
    collection = picker.value;
    papers.clear();
    loadFacets();
    $("#new-conversation").click();
  });

  $("#new-conversation").addEventListener("click", () => {
    if (controller) controller.abort();
    conversationId = null;
    focusPaper = null;
    turns = 0;
    updateStatus();
    conversation.querySelectorAll(".turn").forEach((t) => t.remove());
    emptyState.hidden = false;
    if (!panel.hidden) closePanel();
    question.value = "";
    question.focus();
  });

  document.querySelectorAll(".example-question").forEach((button) => {
    button.addEventListener("click", () => {
      question.value = button.textContent;
      form.requestSubmit();
    });
  });

  $("#close-panel").addEventListener("click", closePanel);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) closePanel();
  });

  updateStatus();
  question.focus();
})();

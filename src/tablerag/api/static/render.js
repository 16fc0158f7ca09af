// Builds one answer's part of the page from its events and envelope. Every piece of data goes
// into the page as a text node or an attribute value, never as markup: a cell, a passage or an
// answer holding <script> or <img onerror> shows as those characters.

export const ROWS_SHOWN = 100;
export const CELL_CHARS = 240;
export const ANSWER_CHARS = 1200;
export const FACT_CHARS = 300;

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "className") node.className = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function cellText(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" && !Number.isInteger(value)) return String(+value.toPrecision(12));
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function clipped(text, limit) {
  return text.length <= limit ? text : text.slice(0, limit - 1) + "…";
}

function asNumber(value) {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value.trim())) return Number(value);
  return null;
}

export function compareCells(a, b) {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;
  if (b === null || b === undefined) return -1;
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== null && y !== null) return x - y;
  return cellText(a).localeCompare(cellText(b));
}

export function toCsv(columns, rows) {
  const field = (value) => {
    let s = value === null || value === undefined ? "" : cellText(value);
    // a spreadsheet would run a cell starting with = + - @ as a formula
    if (typeof value === "string" && /^[=+\-@\t\r]/.test(s) && asNumber(s) === null) s = "'" + s;
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [columns.map(field).join(",")];
  for (const row of rows) lines.push(row.map(field).join(","));
  return "\ufeff" + lines.join("\r\n") + "\r\n";
}

// ---- the steps, as they stream -------------------------------------------------------------

export function stepLine(kind, data, t) {
  const n = (x) => (typeof x === "number" ? String(+x.toFixed(2)) : String(x ?? ""));
  switch (kind) {
    case "queued":
      return [t("ev_queued", { position: data.position })];
    case "started":
      return [t("ev_started", { generation: data.generation })];
    case "route": {
      const line = t(data.loop ? "ev_route_loop" : "ev_route", {
        intent: t(`intent_${data.intent}`),
        confidence: n(data.confidence),
      });
      const reasons = (data.reasons || []).join("; ");
      return reasons ? [line, el("span", { className: "why" }, reasons)] : [line];
    }
    case "retrieval":
      return [t("ev_retrieval", { mode: data.mode, n: (data.chunks || []).length })];
    case "schema":
      return [t("ev_schema", { source: data.source, ms: Math.round(data.ms || 0) })];
    case "model":
      return [
        t("ev_model", {
          model: fileName(data.model),
          prompt: data.prompt_tokens,
          completion: data.completion_tokens,
          ms: Math.round(data.ms || 0),
        }),
      ];
    case "sql": {
      const issues = (data.issues || []).join("; ");
      const line = data.error
        ? t(issues ? "ev_sql_refused" : "ev_sql_failed", { why: issues || data.error })
        : t("ev_sql_ran");
      const parts = [line, el("code", { className: "sql-inline" }, data.sql || "")];
      if (data.note) parts.push(el("span", { className: "why" }, data.note));
      return parts;
    }
    case "step": {
      const parts = [t("ev_step", { n: data.n, input: data.input || data.action })];
      if (data.observation) parts.push(el("span", { className: "why" }, "→ " + data.observation));
      return parts;
    }
    default:
      return [t("ev_other", { kind })];
  }
}

function steps(item, t) {
  const list = el("ol", { className: "steps-list", "aria-live": item.done ? null : "polite" });
  for (const ev of item.events) {
    list.append(el("li", { className: `ev ev-${ev.kind}` }, stepLine(ev.kind, ev.data, t)));
  }
  const total = item.envelope && item.envelope.timings_ms && item.envelope.timings_ms.total;
  if (total !== undefined && total !== null) {
    list.append(el("li", { className: "ev ev-answer" }, t("ev_answer", { s: (total / 1000).toFixed(2) })));
  }
  const label = item.done ? t("steps") : t("steps_live");
  const summary = el("summary", {}, label, " ", el("span", { className: "count" }, t("steps_count", { n: item.events.length })));
  const details = el("details", { className: "steps", open: item.stepsOpen ?? !item.done }, summary, list);
  // the reader's choice (a click or Enter on the summary) outlives the redraws while streaming
  summary.addEventListener("click", () => {
    item.stepsOpen = !details.open;
  });
  return details;
}

// ---- the answer ----------------------------------------------------------------------------

function answerText(env, ctx, item) {
  const whole = env.answer || ctx.t("no_answer_text");
  const long = whole.length > ANSWER_CHARS;
  const text = long && !item.fullText ? clipped(whole, ANSWER_CHARS) : whole;
  const known = new Set((env.citations || []).map((c) => c.n));
  const p = el("div", { className: "answer-text" });
  // "[2]" in the text becomes a button that opens citation 2; everything else stays text
  const parts = text.split(/(\[\d+\])/);
  for (const part of parts) {
    const m = /^\[(\d+)\]$/.exec(part);
    if (m && known.has(Number(m[1]))) {
      const n = Number(m[1]);
      p.append(
        el("button", {
          type: "button",
          className: "cite",
          "aria-label": ctx.t("cite_label", { n }),
          onclick: () => ctx.openCitation(item, n),
        }, `[${n}]`),
      );
    } else if (part) {
      p.append(document.createTextNode(part));
    }
  }
  if (long) {
    const label = item.fullText ? ctx.t("show_less") : ctx.t("show_all", { n: whole.length });
    p.append(" ", el("button", { type: "button", className: "more", "aria-expanded": item.fullText ? "true" : "false",
      onclick: () => ctx.toggleFullText(item) }, label));
  }
  return p;
}

function statusLine(env, t) {
  const status = env.status || "error";
  return el(
    "p",
    { className: `status status-${status}` },
    el("span", { className: "badge" }, status),
    " ",
    el("span", {}, t(`status_${status}`)),
  );
}

export function fileName(path) {
  const parts = String(path).split(/[\\/]/);
  return parts[parts.length - 1] || String(path);
}

// Which facts came from the database and which from which document: a fused (hybrid) answer
// lists its facts with their source; a one-path answer names its sources in one line.
function provenance(env, t) {
  const byN = new Map((env.citations || []).map((c) => [c.n, c]));
  const box = el("div", { className: "provenance" }, el("h3", {}, t("source_of_answer")));
  const tag = (source, label) => el("span", { className: `src src-${source}` }, label);
  if (env.path === "hybrid" && (env.facts || []).length) {
    const list = el("ul", { className: "facts" });
    for (const f of env.facts) {
      const c = f.citation ? byN.get(f.citation) : null;
      const label = f.source === "sql" ? t("from_db") : c ? t("from_doc", { source: fileName(c.source) }) : t("from_doc_plain");
      const marker = c ? `[${c.n}]` : "";
      const tail = marker && !f.text.includes(marker) ? ` ${marker}` : "";
      list.append(el("li", {}, tag(f.source, label), " ", clipped(f.text, FACT_CHARS) + tail));
    }
    box.append(list);
    return box;
  }
  const chips = el("p", { className: "chips" });
  if (env.sql && env.table) chips.append(tag("sql", t("from_db")), " ");
  const cited = new Set((env.facts || []).map((f) => f.citation).filter((n) => n));
  const files = new Map();
  for (const c of env.citations || []) {
    if (cited.size && !cited.has(c.n)) continue;
    if (!files.has(c.source)) files.set(c.source, []);
    files.get(c.source).push(`[${c.n}]`);
  }
  for (const [file, ns] of files) chips.append(tag("document", t("from_doc", { source: fileName(file) })), ` ${ns.join(" ")} `);
  if (!chips.children.length) return null;
  box.append(chips);
  return box;
}

function fallbackLine(fb, t) {
  if (!fb) return null;
  const vars = {
    to: t(`path_${fb.to_path}`),
    from: t(`path_${fb.from_path}`),
    reason: fb.reason,
    status: fb.to_status || "",
  };
  const key = fb.outcome === "answered" ? "fallback" : fb.outcome === "no_answer" ? "fallback_no" : "fallback_time";
  return el("p", { className: "fallback" }, t(key, vars));
}

function clarifications(env, ctx) {
  const options = env.clarifications || [];
  if (!options.length) return null;
  return el(
    "div",
    { className: "clarify" },
    el("p", {}, ctx.t("clarify_pick")),
    el("ul", {}, options.map((o) => el("li", {}, el("button", { type: "button", onclick: () => ctx.ask(o.question) }, o.label)))),
  );
}

function chartBox(env, ctx, item) {
  const chart = env.chart;
  if (!env.table || !chart) return null;
  const box = el("figure", { className: "chart" });
  if (!chart.svg) {
    box.append(el("figcaption", { className: "no-chart" }, ctx.t("no_chart", { why: ctx.t(`nochart_${chart.reason}`) })));
    return box;
  }
  const enc = (chart.spec && chart.spec.encoding) || {};
  const alt = ctx.t(`chart_alt_${chart.kind}`, {
    x: (enc.x && enc.x.title) || "",
    y: (enc.y && enc.y.title) || (chart.spec.title && chart.spec.title.text) || "",
  });
  // hidden until drawn, so a slow first drawing never shows as a broken image
  const img = el("img", { alt, className: "chart-img", "data-kind": chart.kind, hidden: true });
  img.addEventListener("load", () => {
    img.hidden = false;
  });
  box.append(img);
  ctx.loadChart(item, chart.svg, img, box);
  return box;
}

function resultTable(env, ctx, item) {
  const result = env.table;
  if (!result) return null;
  const t = ctx.t;
  const sort = item.sort || { col: -1, dir: 1 };
  let rows = result.rows.map((r, i) => [r, i]);
  if (sort.col >= 0) rows.sort((a, b) => sort.dir * compareCells(a[0][sort.col], b[0][sort.col]) || a[1] - b[1]);
  rows = rows.map(([r]) => r);
  const shown = rows.slice(0, ROWS_SHOWN);
  const head = el(
    "tr",
    {},
    result.columns.map((col, i) => {
      const state = sort.col === i ? (sort.dir > 0 ? "ascending" : "descending") : "none";
      const arrow = state === "ascending" ? " ▲" : state === "descending" ? " ▼" : "";
      return el(
        "th",
        { scope: "col", "aria-sort": state },
        el("button", {
          type: "button",
          className: "sort",
          title: t("sort_by", { col }),
          onclick: () => ctx.sortBy(item, i),
        }, col, el("span", { "aria-hidden": "true" }, arrow)),
      );
    }),
  );
  const body = el(
    "tbody",
    {},
    shown.map((r) =>
      el("tr", {}, r.map((v) => {
        const text = cellText(v);
        const numeric = asNumber(v) !== null;
        return el("td", { className: numeric ? "num" : null, title: text.length > CELL_CHARS ? text : null }, clipped(text, CELL_CHARS));
      })),
    ),
  );
  const count = result.row_count;
  const caption =
    shown.length < count ? t("rows_some", { n: count, shown: shown.length }) : count === 1 ? t("rows_one") : t("rows_all", { n: count });
  const partial = result.rows.length < count || result.truncated;
  const download = el("button", {
    type: "button",
    className: "csv",
    onclick: () => ctx.downloadCsv(item),
  }, t("download_csv"));
  const tools = el("div", { className: "table-tools" }, el("span", { className: "rows" }, caption), download,
    partial ? el("span", { className: "why" }, t("csv_partial")) : null);
  const wrap = el("div", { className: "table-wrap", tabindex: "0", role: "region", "aria-label": t("result") },
    el("table", {}, el("thead", {}, head), body));
  const section = el("section", { className: "result", "aria-label": t("result") }, tools, wrap);
  if (result.truncated) section.append(el("p", { className: "why" }, t("rows_capped", { n: result.rows.length })));
  return section;
}

function citations(env, ctx, item) {
  const list = env.citations || [];
  const t = ctx.t;
  const section = el("section", { className: "sources" }, el("h3", {}, t("sources")));
  if (!list.length) {
    if (env.path === "rag" || env.path === "hybrid") section.append(el("p", { className: "why" }, t("no_sources")));
    else return null;
    return section;
  }
  const ol = el("ol", { className: "cites" });
  for (const c of list) {
    const where = [fileName(c.source)];
    if (c.page !== null && c.page !== undefined) where.push(`p. ${c.page}`);
    if (c.heading_path && c.heading_path.length) where.push(c.heading_path.join(" › "));
    const facts = el("dl", {}, el("dt", {}, t("file")), el("dd", {}, c.source));
    if (c.page !== null && c.page !== undefined) facts.append(el("dt", {}, t("page")), el("dd", {}, String(c.page)));
    if (c.heading_path && c.heading_path.length) facts.append(el("dt", {}, t("section")), el("dd", {}, c.heading_path.join(" › ")));
    if (c.table) facts.append(el("dt", {}, t("table_of")), el("dd", {}, c.table));
    const details = el(
      "details",
      { id: `cite-${item.key}-${c.n}`, className: "cite-detail", open: item.openCites.has(c.n) },
      el("summary", {}, el("span", { className: "n" }, `[${c.n}]`), " ", where.join(" · ")),
      facts,
      el("blockquote", { "aria-label": t("passage") }, c.snippet || ""),
    );
    details.addEventListener("toggle", () => {
      if (details.open) item.openCites.add(c.n);
      else item.openCites.delete(c.n);
    });
    ol.append(el("li", {}, details));
  }
  section.append(ol);
  return section;
}

function sqlBlock(env, ctx, item) {
  if (!env.sql) return null;
  const t = ctx.t;
  const attempts = env.sql_attempts || [];
  const title = attempts.length > 1 ? t("sql_attempts", { n: attempts.length }) : t("sql");
  const status = el("span", { className: "copy-status", role: "status" });
  const copy = el("button", { type: "button", className: "copy", onclick: () => ctx.copySql(env.sql, status) }, t("copy"));
  const details = el("details", { className: "sql", open: item.sqlOpen },
    el("summary", {}, title),
    el("pre", {}, el("code", {}, env.sql)),
    el("div", { className: "sql-tools" }, copy, status));
  const earlier = attempts.slice(0, -1);
  if (earlier.length) {
    details.append(el("h4", {}, t("sql_earlier")), el("ol", { className: "attempts" }, earlier.map((a) =>
      el("li", {}, el("pre", {}, el("code", {}, a.sql)), el("p", { className: "why" }, a.error || (a.issues || []).join("; ") || a.note || "")))));
  }
  details.addEventListener("toggle", () => { item.sqlOpen = details.open; });
  return details;
}

function feedback(env, ctx, item) {
  if (!env.id) return null;
  const t = ctx.t;
  const commentId = `comment-${item.key}`;
  const status = el("p", { className: "fb-status", role: "status" }, item.feedbackNote || "");
  const comment = el("textarea", { id: commentId, rows: "2", maxlength: "4000" });
  comment.value = item.comment || "";
  comment.addEventListener("input", () => { item.comment = comment.value; });
  const button = (rating) =>
    el("button", {
      type: "button",
      className: `fb fb-${rating}`,
      "data-rating": rating,
      "aria-pressed": item.rating === rating ? "true" : "false",
      onclick: () => ctx.sendFeedback(item, rating, status),
    }, t(`fb_${rating}`));
  return el(
    "section",
    { className: "feedback", "aria-label": t("feedback") },
    el("h3", {}, t("feedback")),
    el("div", { className: "fb-buttons" }, button("right"), button("wrong"), button("not_in_data")),
    el("label", { for: commentId }, t("comment")),
    comment,
    status,
  );
}

function meta(env, t) {
  const total = (env.timings_ms || {}).total;
  const ms = total === undefined ? "" : total >= 1000 ? `${(total / 1000).toFixed(2)} s` : `${Math.round(total)} ms`;
  const llm = env.llm || {};
  return el("p", { className: "meta" }, t("meta", {
    path: env.path,
    ms,
    calls: llm.calls || 0,
    tokens: (llm.prompt_tokens || 0) + (llm.completion_tokens || 0),
  }));
}

function problem(item, ctx) {
  const t = ctx.t;
  const again = el("button", { type: "button", className: "again", onclick: () => ctx.ask(item.question) }, t("ask_again"));
  if (item.lost) return el("div", { className: "problem", role: "alert" }, el("p", {}, t(item.lost === "network" ? "err_network" : "err_lost")), again);
  const e = item.error;
  return el("div", { className: "problem", role: "alert" },
    el("p", { className: "err-title" }, t("err_title", { code: e.code })),
    el("p", {}, e.message || ""),
    e.code === "unauthorized" ? el("p", {}, t("token_needed")) : null,
    again);
}

export function renderItem(item, ctx) {
  const t = ctx.t;
  const article = el("article", { className: "answer", "aria-labelledby": `q-${item.key}`, "data-key": item.key });
  article.append(el("h2", { id: `q-${item.key}`, className: "question" }, item.question));
  if (item.events.length || !item.done) article.append(steps(item, t));
  const env = item.envelope;
  if (env) {
    article.append(statusLine(env, t), answerText(env, ctx, item));
    if (env.error) article.append(el("p", { className: "error-text" }, env.error));
    if ((env.checks || []).length) article.append(el("p", { className: "why" }, t("checks", { codes: env.checks.join(", ") })));
    for (const part of [clarifications(env, ctx), provenance(env, t), fallbackLine(env.fallback, t)]) if (part) article.append(part);
    const visuals = el("div", { className: "visuals" });
    for (const part of [chartBox(env, ctx, item), resultTable(env, ctx, item)]) if (part) visuals.append(part);
    if (visuals.children.length) article.append(visuals);
    for (const part of [citations(env, ctx, item), sqlBlock(env, ctx, item), feedback(env, ctx, item), meta(env, t)]) if (part) article.append(part);
  }
  if (item.error || item.lost) article.append(problem(item, ctx));
  return article;
}

// The page: ask box, earlier questions, answers streamed from POST /v1/ask, feedback.

import { askStream, getBlobUrl, getJson, postJson } from "./api.js";
import { pickLanguage, translate } from "./i18n.js";
import { el, renderItem, toCsv } from "./render.js";

const store = {
  get(area, key) {
    try {
      return window[area].getItem(key);
    } catch (_) {
      return null;
    }
  },
  set(area, key, value) {
    try {
      window[area].setItem(key, value);
    } catch (_) {
      /* storage off: the choice lasts until the page closes */
    }
  },
};

function newId() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Array.from({ length: 4 }, () => Math.random().toString(16).slice(2, 10)).join("");
}

const state = {
  lang: pickLanguage(store.get("localStorage", "tablerag.lang"), navigator.language),
  session: store.get("sessionStorage", "tablerag.session") || newId(),
  token: store.get("sessionStorage", "tablerag.token") || "",
  items: [],
  earlier: [],
  next: 1,
  busy: 0,
};
store.set("sessionStorage", "tablerag.session", state.session);

const $ = (id) => document.getElementById(id);
const t = (key, vars) => translate(state.lang, key, vars);

const ctx = {
  t,
  ask: (question) => ask(question),
  openCitation(item, n) {
    item.openCites.add(n);
    const details = document.getElementById(`cite-${item.key}-${n}`);
    if (details) {
      details.open = true;
      details.querySelector("summary").focus();
      details.scrollIntoView({ block: "nearest" });
    }
  },
  toggleFullText(item) {
    item.fullText = !item.fullText;
    redraw(item);
    item.node.querySelector(".answer-text button.more").focus();
  },
  sortBy(item, col) {
    const sort = item.sort || { col: -1, dir: 1 };
    item.sort = { col, dir: sort.col === col ? -sort.dir : 1 };
    redraw(item);
    const button = item.node.querySelectorAll("th button.sort")[col];
    if (button) button.focus();
  },
  downloadCsv(item) {
    const table = item.envelope.table;
    const blob = new Blob([toCsv(table.columns, table.rows)], { type: "text/csv;charset=utf-8" });
    const link = el("a", { href: URL.createObjectURL(blob), download: `tablerag-${item.envelope.id.slice(0, 8)}.csv` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  },
  async copySql(sql, status) {
    try {
      await navigator.clipboard.writeText(sql);
      status.textContent = t("copied");
    } catch (_) {
      status.textContent = t("copy_failed");
    }
  },
  async sendFeedback(item, rating, status) {
    try {
      await postJson("v1/feedback", { answer_id: item.envelope.id, rating, comment: item.comment || "" }, state.token);
      item.rating = rating;
      item.feedbackNote = t("fb_sent", { rating: t(`fb_${rating}`) });
    } catch (e) {
      item.feedbackNote = t("fb_failed", { why: e.message });
    }
    status.textContent = item.feedbackNote;
    for (const b of item.node.querySelectorAll("button.fb")) {
      b.setAttribute("aria-pressed", b.dataset.rating === item.rating ? "true" : "false");
    }
  },
  loadChart(item, url, img, box) {
    const show = (src) => {
      img.src = src;
    };
    if (item.chartUrl) return show(item.chartUrl);
    getBlobUrl(url, state.token)
      .then((src) => {
        item.chartUrl = src;
        show(src);
      })
      .catch(() => {
        img.remove();
        box.append(el("figcaption", { className: "no-chart" }, t("chart_failed")));
      });
  },
};

function redraw(item) {
  const node = renderItem(item, ctx);
  if (item.node && item.node.parentNode) item.node.replaceWith(node);
  else $("answers").prepend(node);
  item.node = node;
}

function appendStep(item) {
  // while streaming, redraw only the steps (the rest of the article does not exist yet)
  redraw(item);
}

function announce(text) {
  const live = $("live");
  live.textContent = "";
  setTimeout(() => {
    live.textContent = text;
  }, 30);
}

function remember(question) {
  state.earlier = [question, ...state.earlier.filter((q) => q !== question)].slice(0, 20);
  drawEarlier();
}

function drawEarlier() {
  const list = $("earlier-list");
  list.replaceChildren(
    ...state.earlier.map((q) => el("li", {}, el("button", { type: "button", className: "earlier-q", title: q.length > 120 ? q : null, onclick: () => ask(q) }, q.length > 120 ? q.slice(0, 119) + "…" : q))),
  );
  $("earlier").hidden = state.earlier.length === 0;
}

async function ask(question) {
  question = question.trim();
  if (!question) return;
  $("q").value = question;
  const url = new URL(window.location.href);
  url.searchParams.set("q", question);
  history.replaceState(null, "", url);
  const item = {
    key: state.next++,
    question,
    events: [],
    envelope: null,
    error: null,
    lost: false,
    done: false,
    openCites: new Set(),
  };
  state.items.unshift(item);
  redraw(item);
  remember(question);
  state.busy += 1;
  setBusy();
  try {
    await askStream({ question, session: state.session }, state.token, (kind, data) => {
      if (kind === "answer") item.envelope = data;
      else if (kind === "error") {
        item.error = data.error || { code: "internal", message: "" };
        if (item.error.detail && item.error.detail.answer) item.envelope = item.error.detail.answer;
      } else item.events.push({ kind, data });
      if (kind !== "answer" && kind !== "error") appendStep(item);
    });
    if (!item.envelope && !item.error) item.lost = "stream";
  } catch (e) {
    if (e.name === "ApiError" || e.status) {
      item.error = { code: e.code, message: e.message };
      if (e.status === 401) $("token-box").hidden = false;
    } else item.lost = item.events.length ? "stream" : "network";
  }
  item.done = true;
  redraw(item);
  state.busy -= 1;
  setBusy();
  announce(t("ready", { status: item.envelope ? item.envelope.status : item.error ? item.error.code : t("err_lost") }));
}

function setBusy() {
  const go = $("go");
  go.disabled = state.busy > 0;
  go.textContent = t(state.busy > 0 ? "asking" : "ask_button");
}

function applyLanguage() {
  document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
  document.title = t("title");
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  const button = $("lang");
  button.textContent = t("switch_to");
  button.lang = state.lang === "zh" ? "en" : "zh";
  button.setAttribute("aria-label", t("switch_label"));
  setBusy();
  for (const item of state.items) if (item.node) redraw(item);
}

async function loadEarlier() {
  try {
    const past = await getJson(`v1/history?session=${encodeURIComponent(state.session)}&limit=20`, state.token);
    for (const entry of past.reverse()) remember(entry.question);
  } catch (_) {
    /* no history yet, or a token is needed: the ask will say so */
  }
}

function start() {
  applyLanguage();
  $("lang").addEventListener("click", () => {
    state.lang = state.lang === "zh" ? "en" : "zh";
    store.set("localStorage", "tablerag.lang", state.lang);
    applyLanguage();
  });
  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    ask($("q").value);
  });
  $("q").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("ask").requestSubmit();
    }
  });
  $("token-save").addEventListener("click", () => {
    state.token = $("token").value.trim();
    store.set("sessionStorage", "tablerag.token", state.token);
    $("token-box").hidden = true;
    loadEarlier();
  });
  const first = new URLSearchParams(window.location.search).get("q");
  loadEarlier().then(() => {
    if (first && first.trim()) ask(first);
  });
  document.body.dataset.ready = "true";
}

start();

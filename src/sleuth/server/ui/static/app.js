// Sleuth web UI: small progressive enhancements over server-rendered pages. Nothing here is
// needed to read a page; it adds the live run view, the plan editor, the source panel, the
// editor's preview and the language/theme auto-submit. Text from the server is inserted with
// textContent, except the preview, which the server renders with raw HTML escaped.
"use strict";

document.documentElement.classList.add("js");

const S = (() => {
  try { return JSON.parse(document.body.dataset.strings || "{}"); } catch { return {}; }
})();
const t = (key) => S[key] || key;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function autosubmit() {
  document.querySelectorAll("select[data-autosubmit]").forEach((select) => {
    select.addEventListener("change", () => select.form.submit());
  });
}

function planEditor() {
  const list = document.querySelector("[data-plan]");
  if (!list) return;
  const form = list.closest("form");
  let count = list.children.length;
  const bindRemove = (button) => button.addEventListener("click", () => {
    const item = button.closest("li");
    const next = item.nextElementSibling || item.previousElementSibling;
    item.remove();
    const focus = next && next.querySelector("input");
    (focus || form.querySelector("[data-add]")).focus();
  });
  list.querySelectorAll("[data-remove]").forEach(bindRemove);
  form.querySelector("[data-add]").addEventListener("click", () => {
    count += 1;
    const item = el("li");
    const label = el("label", `${t("plan.query")} ${count}`, "visually-hidden");
    const input = el("input");
    input.type = "text"; input.name = "query"; input.maxLength = 200; input.id = `query-${count}`;
    label.htmlFor = input.id;
    const remove = el("button", t("plan.remove"), "secondary");
    remove.type = "button";
    bindRemove(remove);
    item.append(label, input, remove);
    list.append(item);
    input.focus();
  });
}

function describe(ev) {
  switch (ev.type) {
    case "plan.ready": return [`${t("live.round")} ${ev.round}: ${t("live.plan")} ${ev.queries.join(" · ")}`];
    case "search.done": return [`${t("live.search")} “${ev.query}” — ${ev.results} ${t("live.results")}`];
    case "search.failed": return [`${t("live.failed")} ${ev.backend}: ${ev.error}`, "failed"];
    case "read.start": return [`${t("live.read")} ${ev.pages}`];
    case "fetch.done": return [`✓ ${ev.title || ev.url}`];
    case "fetch.skipped": return [`${t("live.skipped")} ${ev.url} — ${ev.reason}`, "skipped"];
    case "fetch.duplicate": return [`${t("live.duplicate")} ${ev.url}`, "skipped"];
    case "passages.kept": return [`${t("live.kept")} ${ev.sources} / ${ev.passages}`];
    case "writer.start": return [`${t("live.writing")} (${ev.writer})`];
    case "critic.done": return [`${t("live.critic")} ${ev.round}: ${(ev.missing || []).join("; ")}`];
    case "notice": return [`${t("live.notice")} ${ev.message}`];
    case "failed": return [`${t("live.failed")} ${ev.error}`, "failed"];
    case "cancelled": return [t("live.cancelled"), "failed"];
    case "stage": return [t("live.done")];
    default: return null;
  }
}

function watch(job) {
  const live = document.getElementById("live");
  const log = document.getElementById("live-log");
  const draft = document.getElementById("live-draft");
  const status = document.getElementById("live-status");
  const cancel = document.getElementById("live-cancel");
  live.hidden = false;
  log.replaceChildren();
  draft.textContent = "";
  cancel.disabled = false;
  live.scrollIntoView({ block: "nearest" });
  cancel.focus();
  const source = new EventSource(job.events);
  const names = ["plan.ready", "search.done", "search.failed", "read.start", "fetch.done",
    "fetch.skipped", "fetch.duplicate", "passages.kept", "writer.start", "writer.delta",
    "critic.done", "verify.done", "notice", "stage", "failed", "cancelled"];
  const onEvent = (message) => {
    const ev = JSON.parse(message.data);
    if (ev.type === "writer.start") draft.textContent = "";
    if (ev.type === "writer.delta") { draft.textContent += ev.text; return; }
    const line = describe(ev);
    if (line) {
      const item = el("li", line[0], line[1]);
      item.dataset.type = ev.type;
      log.append(item);
      log.scrollTop = log.scrollHeight;
      status.textContent = line[0];
    }
    if (ev.type === "stage") {
      source.close();
      const kept = [...log.children].map((li) => ({ type: li.dataset.type, text: li.textContent, cls: li.className }));
      try { sessionStorage.setItem("sleuth-last-log", JSON.stringify(kept)); } catch { /* full */ }
      window.location.assign(ev.url);
    }
    if (ev.type === "failed" || ev.type === "cancelled") {
      source.close();
      cancel.disabled = true;
      document.querySelectorAll("form[data-job] button").forEach((b) => { b.disabled = false; });
    }
  };
  names.forEach((name) => source.addEventListener(name, onEvent));
  cancel.onclick = () => {
    cancel.disabled = true;
    fetch(job.cancel, { method: "POST", headers: { Accept: "application/json" } });
  };
}

// The progress of the round that just ended, shown on the page it led to.
function lastLog() {
  const box = document.getElementById("last-log");
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem("sleuth-last-log") || "null"); } catch { kept = null; }
  sessionStorage.removeItem("sleuth-last-log");
  if (!box || !Array.isArray(kept) || !kept.length) return;
  const list = box.querySelector("ol");
  kept.forEach((line) => {
    const item = el("li", String(line.text), String(line.cls || ""));
    item.dataset.type = String(line.type);
    list.append(item);
  });
  box.hidden = false;
}

function jobs() {
  document.querySelectorAll("form[data-job]").forEach((form) => {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      form.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      const response = await fetch(form.action, {
        method: "POST", body: new FormData(form), headers: { Accept: "application/json" },
      });
      if (response.redirected) {  // the server sent the page to open: open it, address and all
        window.location.assign(response.url);
        return;
      }
      if (!response.ok || !(response.headers.get("content-type") || "").includes("json")) {
        document.open(); document.write(await response.text()); document.close();
        return;
      }
      watch(await response.json());
    });
  });
  document.querySelectorAll("form[data-busy]").forEach((form) => {
    form.addEventListener("submit", () => {
      form.querySelectorAll("button[type=submit]").forEach((b) => {
        b.disabled = true; b.textContent = form.dataset.busy;
      });
    });
  });
}

function sourcePanel() {
  const answer = document.getElementById("answer");
  const panel = document.getElementById("source-panel");
  if (!answer || !panel) return;
  const show = (number) => {
    const item = document.getElementById(`src-${number}`);
    if (!item) return false;
    document.querySelectorAll(".sources li.current").forEach((li) => li.classList.remove("current"));
    item.classList.add("current");
    const d = item.dataset;
    document.getElementById("panel-empty").hidden = true;
    document.getElementById("panel-body").hidden = false;
    document.getElementById("panel-source-title").textContent = `[${number}] ${d.title}`;
    const badge = document.getElementById("panel-authority");
    badge.textContent = item.querySelector(".badge").textContent;
    badge.className = `badge badge-${d.authority}`;
    document.getElementById("panel-url").textContent = d.url;
    document.getElementById("panel-dates").textContent = item.querySelector(".dates").textContent.trim();
    document.getElementById("panel-quote").textContent = d.quote;
    panel.dataset.source = number;
    panel.focus();
    return true;
  };
  answer.addEventListener("click", (event) => {
    const link = event.target.closest(".cite a");
    if (!link) return;
    const number = (link.getAttribute("href") || "").replace("#src-", "");
    if (show(number)) event.preventDefault();
  });
}

function editor() {
  const form = document.getElementById("editor-form");
  if (!form) return;
  const text = document.getElementById("text");
  const preview = document.getElementById("preview");
  const status = document.getElementById("check-status");
  // After a translation, the text it was made from: the server checks the translated
  // sentences through it (their words cannot match the sources word for word).
  const basis = document.getElementById("basis");
  let timer = null;
  const render = async () => {
    const body = new FormData();
    body.append("text", text.value);
    body.append("basis", basis.value);
    const response = await fetch(form.dataset.preview, { method: "POST", body });
    const data = await response.json();
    if (!response.ok) { status.textContent = data.error; return; }
    preview.innerHTML = data.html;  // rendered by the server with raw HTML escaped
    status.textContent = `${t("edit.passed")}: ${data.supported}/${data.checked} · ${t("edit.failed")}: ${data.unsupported}`;
  };
  text.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(render, 250); });
  render();
  const run = document.getElementById("transform-run");
  run.addEventListener("click", async () => {
    const said = document.getElementById("transform-status");
    const body = new FormData();
    body.append("text", text.value);
    body.append("kind", document.getElementById("transform-kind").value);
    body.append("language", document.getElementById("transform-language").value);
    run.disabled = true;
    const response = await fetch(form.dataset.transform, { method: "POST", body });
    const data = await response.json();
    run.disabled = false;
    if (!response.ok) { said.textContent = data.error; return; }
    // the first translation's source text stays the basis through later rewrites
    if (document.getElementById("transform-kind").value === "translate" && !basis.value) {
      basis.value = text.value;
    }
    text.value = data.text;
    said.textContent = t("edit.transformed");
    render();
  });
}

if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}
autosubmit();
lastLog();
planEditor();
jobs();
sourcePanel();
editor();

// Sleuth web UI: the History, Knowledge base and knowledge-graph parts. Like app.js, only
// enhancements: every form works without it. Text from files and the server goes in with
// textContent; the graph panel is HTML the server rendered with every page-derived text escaped.
"use strict";

function confirmForms() {
  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  });
}

// -- knowledge base: drop or pick files; each one's upload and indexing shown, errors kept ----

function progressRow(list, file, text) {
  const item = document.createElement("li");
  const name = document.createElement("span");
  name.className = "file";
  name.textContent = file.name;
  const bar = document.createElement("progress");
  bar.max = 100; bar.value = 0;
  bar.setAttribute("aria-label", file.name);
  const state = document.createElement("span");
  state.className = "state";
  state.textContent = text;
  item.append(name, " ", bar, " ", state);
  list.append(item);
  return { item, bar, state };
}

function sendFile(form, file, row) {
  const d = form.dataset;
  return new Promise((resolve) => {
    const body = new FormData();
    body.append("kb", d.kb);
    body.append("file", file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", (e) => {
      if (!e.lengthComputable) return;
      row.bar.value = Math.round((e.loaded / e.total) * 90);
      row.state.textContent = `${d.uploading} ${Math.round((e.loaded / e.total) * 100)}%`;
    });
    xhr.upload.addEventListener("load", () => { row.state.textContent = d.indexing; row.bar.value = 95; });
    xhr.addEventListener("load", () => {
      let data = {};
      try { data = JSON.parse(xhr.responseText); } catch { data = { error: xhr.statusText }; }
      if (xhr.status === 201) {
        row.bar.value = 100;
        row.item.classList.add("ok");
        row.state.textContent = `${d.added} (${data.kind}, ${data.sections})`;
        resolve(true);
      } else {
        row.item.classList.add("failed");
        row.bar.remove();
        row.state.textContent = `${d.failed} ${data.error || data.detail || xhr.status}`;
        resolve(false);
      }
    });
    xhr.addEventListener("error", () => {
      row.item.classList.add("failed");
      row.state.textContent = `${d.failed} ${xhr.statusText || "network error"}`;
      resolve(false);
    });
    xhr.send(body);
  });
}

async function uploadAll(form, files) {
  const list = document.getElementById("kb-progress");
  const d = form.dataset;
  const max = Number(d.maxBytes || 0);
  const rows = files.map((file) => [file, progressRow(list, file, d.queued)]);
  let added = 0;
  for (const [file, row] of rows) {  // one at a time: the server indexes each as it arrives
    if (max && file.size > max) {
      row.item.classList.add("failed");
      row.bar.remove();
      row.state.textContent = `${d.failed} ${d.tooBig}`;
      continue;
    }
    if (await sendFile(form, file, row)) added += 1;
  }
  if (added) document.getElementById("kb-reload").hidden = false;
}

function knowledgeBase() {
  const form = document.getElementById("kb-upload");
  if (!form) return;
  const zone = document.getElementById("kb-drop");
  const input = document.getElementById("kb-file");
  input.addEventListener("change", () => {
    const files = Array.from(input.files || []);
    if (files.length) uploadAll(form, files);
    input.value = "";
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const files = Array.from(input.files || []);
    if (files.length) uploadAll(form, files);
  });
  ["dragenter", "dragover"].forEach((name) => zone.addEventListener(name, (event) => {
    event.preventDefault();
    zone.classList.add("over");
  }));
  ["dragleave", "drop"].forEach((name) => zone.addEventListener(name, () => zone.classList.remove("over")));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    const files = Array.from((event.dataTransfer && event.dataTransfer.files) || []);
    if (files.length) uploadAll(form, files);
  });
}

// -- knowledge graph: loaded after the answer; an edge opens its source like a citation ------

function openSource(number) {
  const cite = document.querySelector(`#answer .cite a[href="#src-${number}"]`);
  if (cite) { cite.click(); return; }
  const item = document.getElementById(`src-${number}`);
  if (item) item.scrollIntoView({ block: "center" });
}

function bindEdges(body) {
  const said = document.getElementById("graph-evidence");
  body.querySelectorAll("a.kg-edge").forEach((edge) => {
    edge.addEventListener("click", (event) => {
      event.preventDefault();
      const number = (edge.getAttribute("href") || "").replace("#src-", "");
      const title = edge.querySelector("title");
      said.textContent = title ? title.textContent : "";
      body.querySelectorAll("a.kg-edge.current").forEach((a) => a.classList.remove("current"));
      edge.classList.add("current");
      openSource(number);
    });
  });
}

async function graphPanel() {
  const panel = document.querySelector("[data-graph]");
  if (!panel || panel.dataset.loaded) return;
  panel.dataset.loaded = "1";
  const body = document.getElementById("graph-body");
  try {
    const response = await fetch(panel.dataset.graph, { headers: { Accept: "text/html" } });
    if (!response.ok) throw new Error(String(response.status));
    body.innerHTML = await response.text();  // rendered by the server, every text escaped
    bindEdges(body);
  } catch (error) {
    body.textContent = `${panel.dataset.failed} ${error.message}`;
  }
}

confirmForms();
knowledgeBase();
graphPanel();

// The preview page: draws the state of one game (state.json) and fetches it again whenever the server says,
// through server-sent events, that a saved file changed it. Every text from the game is set as text, never
// as HTML.
"use strict";

const game = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = `/g/${encodeURIComponent(game)}`;
let state = null;
let loading = null;
let again = false;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "onclick") node.addEventListener("click", value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function sourceLink(where) {
  if (!where) return el("span", { class: "where", text: "(no file)" });
  if (!where.file) return el("span", { class: "where", text: where.at });  // a file with no source page (a workbook)
  const href = `/source/${where.file.split("/").map(encodeURIComponent).join("/")}#L${where.line}`;
  return el("a", { class: "where", href, target: "_blank", text: where.at });
}

function imageOf(face, big) {
  if (!face.image) return el("div", { class: "noimage", text: `${face.side}: not drawn` });
  const img = el("img", {
    src: `${base}/${big ? "detail" : "img"}/${face.image}.png`,  // the detail view's is drawn larger, when asked
    alt: face.text || face.side, title: face.text || face.side,
    class: `shape-${face.shape}${face.stale ? " stale" : ""}`, loading: big ? null : "lazy",
    width: face.size ? face.size[0] : null, height: face.size ? face.size[1] : null,
    "data-side": face.side, "data-image": face.image,
  });
  return img;
}

function problemsOf(key) {
  return state.problems.filter((p) => p.card === key);
}

function drawHeader() {
  document.title = `${state.title} · pnp serve`;
  document.getElementById("title").textContent = state.title;
  const errors = state.problems.filter((p) => p.severity === "error").length;
  const warnings = state.problems.length - errors;
  const status = document.getElementById("status");
  status.className = `status ${state.status === "starting" ? "" : errors ? "bad" : warnings ? "warn" : "good"}`;
  status.textContent = state.status === "starting" ? "checking…"
    : errors ? `${errors} error${errors > 1 ? "s" : ""}` + (warnings ? `, ${warnings} warning${warnings > 1 ? "s" : ""}` : "")
    : warnings ? `valid, ${warnings} warning${warnings > 1 ? "s" : ""}` : "valid";
  if (state.status === "checking") {  // the edited cards are drawn; the whole game is being checked
    status.className = "status";
    status.textContent = `${errors ? status.textContent : "edited cards drawn"}; checking the rest…`;
  }
  document.getElementById("timing").textContent = state.status === "starting" ? ""
    : `${state.status === "checking" ? "edited cards" : "checked and"} drawn in ${state.seconds.toFixed(2)} s`;
  const build = document.getElementById("build-link");
  build.hidden = !state.build;
  if (state.build) build.href = `/files/${state.build.split("/").map(encodeURIComponent).join("/")}`;
  document.getElementById("nav-rulebook").hidden = !state.rulebook;
  document.getElementById("stale").hidden = !state.stale;
}

function drawProblems() {
  const box = document.getElementById("problems");
  box.replaceChildren();
  box.hidden = state.problems.length === 0;
  if (box.hidden) return;
  const errors = state.problems.filter((p) => p.severity === "error").length;
  box.className = errors ? "" : "only-warnings";
  box.append(el("h2", { text: errors ? `${errors} error${errors > 1 ? "s" : ""} to fix` : "Warnings" }));
  const list = el("ul", { class: "problems" });
  for (const p of state.problems) {
    const card = p.card && state.cards[p.card];
    list.append(el("li", { class: p.severity, "data-card": p.card || null },
      el("span", { class: "severity", text: p.severity }), " ", sourceLink(p.where), " ",
      el("span", { class: "message", text: p.message }),
      card ? el("a", { class: "card-link", href: `#card=${encodeURIComponent(p.card)}`, text: `→ ${card.name}` }) : null));
  }
  box.append(list);
}

function drawGallery() {
  const box = document.getElementById("gallery");
  box.replaceChildren();
  for (const component of state.components) {
    const keys = component.cards;
    const printed = keys.reduce((n, key) => n + state.cards[key].copies, 0);
    const section = el("section", { class: "component", id: `component-${component.id}`, "data-component": component.id });
    section.append(el("h2", {}, el("span", { text: component.name }),
      el("small", { text: ` ${component.kind} · ${printed} printed` + (keys.length !== printed ? ` · ${keys.length} design${keys.length > 1 ? "s" : ""}` : "") })));
    const grid = el("div", { class: `grid kind-${component.kind}` });
    for (const key of keys) {
      const card = state.cards[key];
      const bad = problemsOf(key);
      const stale = card.faces.some((f) => f.stale) || state.stale;
      const link = el("a", {
        class: `card${bad.some((p) => p.severity === "error") ? " has-error" : bad.length ? " has-warning" : ""}${stale ? " is-stale" : ""}`,
        href: `#card=${encodeURIComponent(key)}`, "data-key": key, title: card.name,
      }, imageOf(card.faces[0], false),
      el("span", { class: "name", text: card.name }),
      card.copies > 1 ? el("span", { class: "copies", text: `×${card.copies}` }) : null,
      stale && !state.stale ? el("span", { class: "stale-tag", text: "stale" }) : null,
      bad.length ? el("span", { class: `problem-tag ${bad.some((p) => p.severity === "error") ? "error" : "warning"}`,
        text: `${bad.length} ${bad.some((p) => p.severity === "error") ? "error" : "warning"}${bad.length > 1 ? "s" : ""}` }) : null);
      grid.append(link);
    }
    section.append(grid);
    box.append(section);
  }
}

function drawRulebook() {
  const box = document.getElementById("rulebook");
  box.replaceChildren();
  if (!state.rulebook) return;
  box.append(el("h2", { text: `Rulebook · ${state.rulebook.pages.length} pages` }));
  state.rulebook.pages.forEach((size, n) => {
    box.append(el("img", { class: "page", loading: "lazy", alt: `page ${n + 1}`, width: Math.round(size[0] * 110 / 72),
      height: Math.round(size[1] * 110 / 72), src: `${base}/book/${state.rulebook.digest}/${n}.png` }));
  });
}

function fieldValue(value) {
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function drawDetail() {
  const detail = document.getElementById("detail");
  const match = location.hash.match(/^#card=(.+)$/);
  const key = match ? decodeURIComponent(match[1]) : null;
  const card = key && state && state.cards[key];
  detail.hidden = !card;
  if (!card) return;
  detail.dataset.key = key;
  document.getElementById("detail-name").textContent = card.name + (card.copies > 1 ? ` ×${card.copies}` : "");
  const stale = state.stale || card.faces.some((f) => f.stale);
  document.getElementById("detail-source").replaceChildren("from ", sourceLink(card.source),
    stale ? el("span", { class: "stale-tag", text: "stale" }) : "",
    stale ? el("span", { class: "note", text: state.stale ? "the data and images of the last valid version"
      : "the last image drawn without errors" }) : "");
  const problems = document.getElementById("detail-problems");
  problems.replaceChildren(...problemsOf(key).map((p) => el("li", { class: p.severity },
    el("span", { class: "severity", text: p.severity }), " ", sourceLink(p.where), " ", el("span", { text: p.message }))));
  document.getElementById("detail-faces").replaceChildren(...card.faces.map((f) =>
    el("figure", {}, f.image ? el("a", { href: `${base}/detail/${f.image}.png`, target: "_blank", title: "full size" },
      imageOf(f, true)) : imageOf(f, true), el("figcaption", { text: f.side + (f.stale ? " (stale)" : "") }))));
  const rows = Object.entries(card.fields).map(([name, value]) =>
    el("tr", { "data-field": name }, el("th", { text: name }), el("td", { text: fieldValue(value) })));
  document.getElementById("detail-fields").replaceChildren(...rows);
}

function draw() {
  drawHeader();
  drawProblems();
  const book = location.hash === "#rulebook" && state.rulebook;
  document.getElementById("gallery").hidden = !!book;
  document.getElementById("rulebook").hidden = !book;
  if (book) drawRulebook(); else drawGallery();
  drawDetail();
  document.body.dataset.generation = state.generation;
}

async function load() {
  if (loading) { again = true; return loading; }
  loading = (async () => {
    do {
      again = false;
      const response = await fetch(`${base}/state.json`, { cache: "no-store" });
      if (response.ok) { state = await response.json(); draw(); }
    } while (again);
  })();
  try { await loading; } finally { loading = null; }
}

window.addEventListener("hashchange", () => { if (state) draw(); });
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !document.getElementById("detail").hidden) location.hash = "";
});
document.getElementById("detail-close").addEventListener("click", () => { location.hash = ""; });
document.getElementById("detail").addEventListener("click", (e) => {
  if (e.target.id === "detail") location.hash = "";
});

const events = new EventSource(`${base}/events`);
events.addEventListener("update", (e) => { if (!state || Number(e.data) !== state.generation) load(); });
load();

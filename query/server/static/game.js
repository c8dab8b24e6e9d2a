// The page of a game given as a Python class (docs/games.md): its position as the class's text
// (and its board where the class draws one: points.js), every move with its value, play by
// clicking a move, a perfect line and two charts. Every
// answer comes from the server (/api/class/NAME, /api/class/NAME/line, /api/games); this page
// knows nothing of the game's rules.
"use strict";

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
const NAME = decodeURIComponent(location.pathname.split("/").pop());
const SVG = "http://www.w3.org/2000/svg";
const COLOURS = { win: "rgb(40, 160, 70)", draw: "rgb(200, 160, 20)", loss: "rgb(150, 20, 35)" };
const state = { history: [null], at: 0, cache: new Map() };

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
}

async function api(path) {
  const response = await fetch(path);
  const data = await response.json();
  if (!response.ok) {
    showError(data.error || `the server answered ${response.status}`);
    throw new Error(data.error);
  }
  return data;
}

async function answer(text) {
  const key = text === null ? "" : text;
  if (!state.cache.has(key)) {
    const query = text === null ? "" : `?position=${enc(text)}`;
    state.cache.set(key, await api(`/api/class/${enc(NAME)}${query}`));
  }
  return state.cache.get(key);
}

function node(parent, tag, attrs = {}, text = "") {
  const el = document.createElementNS(parent.namespaceURI || SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text) el.textContent = text;
  parent.appendChild(el);
  return el;
}

const outcome = (value, depth) => depth === null ? `${value} (endless play)`
  : `${value} in ${depth} pl${depth === 1 ? "y" : "ies"}`;

function statusText(data) {
  if (data.terminal) return `game over: ${data.value === "draw" ? "a draw" : "the side to move has "
    + (data.value === "win" ? "won" : "lost")}`;
  return `side to move: ${outcome(data.value, data.depth)}`;
}

async function show() {
  const text = state.history[state.at];
  const data = await answer(text);
  $("error").hidden = true;
  $("position").textContent = data.position;
  $("text").value = data.position;
  $("status").textContent = statusText(data);
  drawPointBoard(data);
  $("share").href = `/game/${enc(NAME)}?position=${enc(data.position)}`;
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of data.moves) {
    const button = document.createElement("button");
    button.className = `${m.value}${m.best ? " best" : ""}`;
    button.textContent = `${m.move} ${m.value} ${m.depth === null ? "∞" : m.depth}`;
    button.title = `after ${m.move}: ${m.position}`;
    button.addEventListener("click", () => play(m.position));
    moves.appendChild(document.createElement("li")).appendChild(button);
  }
  drawPlayed();
  await drawHistory();
}

function play(position) {
  state.history = [...state.history.slice(0, state.at + 1), position];
  state.at += 1;
  $("line").replaceChildren();
  return show();
}

function drawPlayed() {
  const played = $("played");
  played.replaceChildren();
  state.history.forEach((text, i) => {
    if (i === 0) return;
    const button = document.createElement("button");
    button.textContent = `${i}. ${text}`;
    button.className = i === state.at ? "current" : i > state.at ? "undone" : "";
    button.addEventListener("click", () => { state.at = i; show(); });
    played.appendChild(document.createElement("li")).appendChild(button);
  });
}

// The value after each ply for the side that moved first: the side to move's, flipped on odd plies.
async function drawHistory() {
  const svg = $("history"), w = 400, h = 200, mid = h / 2;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.replaceChildren();
  node(svg, "line", { x1: 30, y1: mid, x2: w - 10, y2: mid, class: "axis" });
  const seen = state.history.slice(0, state.at + 1);
  const answers = await Promise.all(seen.map(answer));
  const step = (w - 50) / Math.max(1, seen.length - 1);
  let path = "";
  answers.forEach((a, i) => {
    const sign = { win: 1, draw: 0, loss: -1 }[a.value] * (i % 2 ? -1 : 1);
    const near = a.depth === null ? 0.3 : 1 / (1 + a.depth / 4);
    const x = 30 + i * step, y = mid - sign * near * (mid - 12);
    path += `${i ? "L" : "M"}${x},${y}`;
    node(svg, "circle", { cx: x, cy: y, r: 5, class: `point ${sign > 0 ? "win" : sign < 0 ? "loss" : "draw"}` });
  });
  node(svg, "path", { d: path, class: "trace" });
  node(svg, "text", { x: 2, y: 14 }, "first mover wins");
  node(svg, "text", { x: 2, y: h - 4 }, "first mover loses");
}

// Counts by ply, or for a table of ranked tiers by tier (the stones each side has on the
// board and still to place, in the order the game solves them): a stacked bar each.
function drawCounts(table) {
  const svg = $("counts"), w = 400, h = 200, tiered = Array.isArray(table.per_tier);
  const rows = tiered ? table.per_tier : table.per_ply;
  const label = (r) => (tiered ? `tier ${r.tier}` : `ply ${r.ply}`);
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.replaceChildren();
  svg.style.display = rows.length ? "" : "none";
  if (tiered) {
    $("counts-title").textContent = "positions by tier and value";
    $("counts-note").textContent = rows.length ? "Positions of each tier (the stones each side"
      + " has on the board, then + those still to place; the side to move's first), by their"
      + " value for the side to move." : "This table keeps no counts by tier: it was built"
      + " before tables kept them.";
  }
  if (!rows.length) return;
  const most = Math.max(1, ...rows.map((r) => r.win + r.draw + r.loss));
  const width = (w - 40) / Math.max(1, rows.length);
  rows.forEach((r, i) => {
    let y = h - 20;
    for (const kind of ["loss", "draw", "win"]) {
      const tall = (r[kind] / most) * (h - 40);
      y -= tall;
      node(svg, "rect", { x: 30 + i * width, y, width: Math.max(1, width - 1), height: tall,
                          fill: COLOURS[kind] }, "").appendChild(document.createElementNS(SVG,
        "title")).textContent = `${label(r)}: ${r[kind].toLocaleString()} ${kind}`;
    }
  });
  node(svg, "text", { x: 2, y: 14 }, `${most.toLocaleString()} positions`);
  const last = rows.at(-1);
  node(svg, "text", { x: 30, y: h - 4 }, `${label(rows[0])} … ${tiered ? last.tier : last.ply}`);
}

async function showLine() {
  const text = state.history[state.at];
  const query = text === null ? "" : `?position=${enc(text)}`;
  const data = await api(`/api/class/${enc(NAME)}/line${query}`);
  if (state.history[state.at] !== text) return;  // another position is shown by now
  const list = $("line");
  list.replaceChildren();
  for (const s of data.line) {
    list.appendChild(document.createElement("li")).textContent =
      `${s.move} → ${s.position}  (${outcome(s.value, s.depth)} for its mover)`;
  }
  if (data.repeats) {
    const li = list.appendChild(document.createElement("li"));
    li.className = "repeats";
    li.textContent = "the position repeats: perfect play goes on forever";
  }
}

async function main() {
  $("name").textContent = NAME;
  document.title = `${NAME}: tablebase`;
  const start = new URLSearchParams(location.search).get("position");
  state.history = [start];
  await loadPointBoard(NAME, play);
  $("new").addEventListener("click", () => { state.history = [start]; state.at = 0; show(); });
  $("undo").addEventListener("click", () => { if (state.at > 0) { state.at -= 1; show(); } });
  $("redo").addEventListener("click", () => {
    if (state.at + 1 < state.history.length) { state.at += 1; show(); }
  });
  $("line-button").addEventListener("click", showLine);
  $("goto").addEventListener("submit", (event) => {
    event.preventDefault();
    state.history = [$("text").value];
    state.at = 0;
    show().catch(() => {});
  });
  await show();
  const games = await api("/api/games");
  const table = games.find((g) => g.spec === NAME && !g.root) || games.find((g) => g.spec === NAME);
  if (table) drawCounts(table);
}

main().catch(() => { if ($("status").textContent === "loading…") $("status").textContent = ""; });

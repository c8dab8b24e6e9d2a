// The page of `tablebase serve`: a board whose open cells are coloured by their move's value,
// play against perfect play, the perfect line and two charts. Every answer comes from the
// JSON API of the same server; nothing is computed here but drawing.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const TIMEOUT_MS = 5000;   // a stopped server shows an error after this, never a hang
const COMPUTER_DELAY_MS = 250;
const $ = (id) => document.getElementById(id);

const state = {
  spec: null, geo: null, history: [], at: 0, side: "x",
  cache: new Map(),  // board text -> the /api/{spec} answer, for the current game
  token: 0,          // bumps on every change, so late answers for old positions are dropped
};

// --- talking to the server -------------------------------------------------------------

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
}

async function api(path) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  let response;
  try {
    response = await fetch(path, { signal: abort.signal });
  } catch (e) {
    const why = e.name === "AbortError" ? `no answer within ${TIMEOUT_MS / 1000} s` : e.message;
    showError(`cannot reach the server: ${why}`);
    throw e;
  } finally {
    clearTimeout(timer);
  }
  let data;
  try {
    data = await response.json();
  } catch (e) {
    showError(`the server answered ${response.status} without JSON`);
    throw e;
  }
  if (!response.ok) {
    showError(data.error || `the server answered ${response.status}`);
    throw new Error(data.error);
  }
  $("error").hidden = true;
  return data;
}

const enc = encodeURIComponent;

async function position(board) {
  let data = state.cache.get(board);
  if (!data) {
    data = await api(`/api/${enc(state.spec)}?board=${enc(board)}`);
    state.cache.set(board, data);
  }
  return data;
}

// --- the game's geometry ----------------------------------------------------------------

function geometry(spec) {
  const m = /^(\d+)x(\d+)k(\d+)/.exec(spec);
  return { width: +m[1], height: +m[2], cells: m[1] * m[2], gravity: spec.includes("gravity") };
}

function emptyBoard(geo) {
  return Array(geo.height).fill(".".repeat(geo.width)).join("/");
}

function cellOf(move, geo) {
  // Column letters a, b, ..., z, aa, ...; row number 1 is the bottom row.
  const m = /^([a-z]+)(\d+)$/.exec(move);
  let col = 0;
  for (const ch of m[1]) col = col * 26 + ch.charCodeAt(0) - 96;
  return (geo.height - +m[2]) * geo.width + col - 1;
}

function played(board, cell, stone, geo) {
  const flat = board.replaceAll("/", "").split("");
  flat[cell] = stone;
  const rows = [];
  for (let r = 0; r < geo.height; r++) rows.push(flat.slice(r * geo.width, (r + 1) * geo.width).join(""));
  return rows.join("/");
}

// Win green, draw yellow, loss dark red; t = depth after the move / cells: a fast win and a
// slow loss are the brightest.
function colour(value, depth, cells) {
  const t = Math.min(1, depth / cells);
  const mix = (a, b, s) => a.map((x, i) => Math.round(x + (b[i] - x) * s));
  const rgb = value === "win" ? mix([60, 220, 90], [20, 95, 40], t)
    : value === "loss" ? mix([70, 0, 10], [190, 30, 45], t)
      : [235, 200, 40];
  return `rgb(${rgb.join(", ")})`;
}

// --- drawing ----------------------------------------------------------------------------

function node(parent, tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  parent.appendChild(el);
  return el;
}

function drawBoard(data) {
  const geo = state.geo, svg = $("board"), size = 100;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${geo.width * size} ${geo.height * size}`);
  const flat = data.board.replaceAll("/", "");
  const moves = new Map(data.moves.map((m) => [cellOf(m.move, geo), m]));
  for (let cell = 0; cell < geo.cells; cell++) {
    const x = (cell % geo.width) * size, y = Math.floor(cell / geo.width) * size;
    const move = moves.get(cell), stone = flat[cell];
    const rect = node(svg, "rect", { x, y, width: size, height: size, class: "cell",
      "data-cell": cell, fill: move ? colour(move.value, move.depth, geo.cells) : "#56667a" });
    if (stone !== ".") {
      node(svg, "text", { x: x + size / 2, y: y + size * 0.68, "text-anchor": "middle",
        "font-size": size * 0.6, class: "stone" }, stone.toUpperCase());
    } else if (move) {
      rect.classList.add("open");
      Object.assign(rect.dataset, { move: move.move, value: move.value, depth: move.depth });
      node(svg, "text", { x: x + size / 2, y: y + size * 0.6, "text-anchor": "middle",
        "font-size": size * 0.28, class: "depth" }, move.depth);
    }
    rect.addEventListener("click", () => clicked(cell));
  }
}

function statusText(data) {
  if (data.terminal) {
    const other = data.to_move === "x" ? "o" : "x";
    const result = data.value === "draw" ? "a draw"
      : `${data.value === "win" ? data.to_move : other} wins`;
    return `game over: ${result}`;
  }
  const who = state.side === "both" ? "" : data.to_move === state.side ? " (you)" : " (computer)";
  const plies = `${data.depth} pl${data.depth === 1 ? "y" : "ies"}`;
  return `${data.to_move} to move${who}: ${data.value} in ${plies} with perfect play`;
}

function drawHistory(answers) {
  const svg = $("history"), w = 400, h = 200, cells = state.geo.cells;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const left = 30, x = (ply) => left + (ply * (w - left - 10)) / cells;
  const y = (d) => h / 2 - (d * (h / 2 - 12)) / cells;
  node(svg, "line", { x1: left, x2: w - 10, y1: h / 2, y2: h / 2, stroke: "#999" });
  node(svg, "text", { x: 2, y: 12 }, "x wins");
  node(svg, "text", { x: 2, y: h - 4 }, "o wins");
  node(svg, "text", { x: 2, y: h / 2 + 3 }, "draw");
  const points = answers.map((a) => {
    const forX = a.to_move === "x" ? a.value : { win: "loss", loss: "win", draw: "draw" }[a.value];
    return [x(a.ply), y(forX === "win" ? a.depth : forX === "loss" ? -a.depth : 0), forX, a];
  });
  node(svg, "polyline", { points: points.map((p) => `${p[0]},${p[1]}`).join(" "),
    fill: "none", stroke: "#24303c", "stroke-width": 1.5 });
  for (const [px, py, forX, a] of points) {
    node(svg, "circle", { cx: px, cy: py, r: 4, class: "point", "data-ply": a.ply,
      "data-value-x": forX, "data-depth": a.depth,
      fill: forX === "draw" ? colour("draw", 0, 1) : forX === "win" ? "rgb(40, 160, 70)" : "rgb(150, 20, 35)" });
  }
}

function drawCounts(stats) {
  // An endgame table starts at its root's ply: leave out the empty plies before it.
  const first = stats.per_ply.findIndex((r) => r.win + r.draw + r.loss > 0);
  const rows = stats.per_ply.slice(Math.max(first, 0)), from = rows.length ? rows[0].ply : 0;
  const svg = $("counts"), w = 400, h = 200;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const top = Math.max(1, ...rows.map((r) => r.win + r.draw + r.loss));
  const left = 40, bar = (w - left - 10) / rows.length, scale = (h - 30) / top;
  node(svg, "text", { x: 2, y: 12 }, top.toLocaleString());
  node(svg, "text", { x: 2, y: h - 18 }, "0");
  for (const r of rows) {
    let base = h - 20;
    for (const [word, fill] of [["loss", "rgb(150, 20, 35)"], ["draw", colour("draw", 0, 1)],
      ["win", "rgb(40, 160, 70)"]]) {
      const height = r[word] * scale;
      node(svg, "rect", { x: left + (r.ply - from) * bar + 1, y: base - height, width: bar - 2, height,
        fill }).appendChild(document.createElementNS(SVG, "title")).textContent =
        `ply ${r.ply}: ${r[word].toLocaleString()} ${word}`;
      base -= height;
    }
    node(svg, "text", { x: left + (r.ply - from + 0.5) * bar, y: h - 6, "text-anchor": "middle" },
      r.ply);
  }
}

// --- playing ----------------------------------------------------------------------------

function shareLink() {
  const link = `/?spec=${enc(state.spec)}&board=${enc(state.history[state.at])}`;
  $("share").href = link;
  history.replaceState(null, "", link);
}

// body[data-busy] is "no" once the position is drawn and no computer move is pending.
async function show() {
  const token = ++state.token, board = state.history[state.at];
  document.body.dataset.busy = "yes";
  shareLink();
  $("line").replaceChildren();
  const data = await position(board);
  if (token !== state.token) return;
  drawBoard(data);
  $("status").textContent = statusText(data);
  const answers = [];
  for (const b of state.history.slice(0, state.at + 1)) answers.push(await position(b));
  if (token !== state.token) return;
  drawHistory(answers);
  if (!data.terminal && state.side !== "both" && data.to_move !== state.side) {
    setTimeout(() => { if (token === state.token) computerMove(data); }, COMPUTER_DELAY_MS);
  } else {
    document.body.dataset.busy = "no";
  }
}

async function play(move, data) {
  const board = played(data.board, cellOf(move.move, state.geo), data.to_move, state.geo);
  const before = { history: state.history, at: state.at };
  state.history = state.history.slice(0, state.at + 1);
  state.history.push(board);
  state.at += 1;
  try {
    await show();
  } catch (e) {
    // The server did not answer: stay on the position still drawn, so the move can be tried
    // again (the computer's by choosing a side again); the error stays on screen.
    Object.assign(state, before);
    state.token += 1;
    shareLink();
    document.body.dataset.busy = "no";
  }
}

function computerMove(data) {
  // The first of the best moves (best first, ties in cell order), as `tablebase line` plays.
  play(data.moves.find((m) => m.best), data);
}

async function clicked(cell) {
  const data = state.cache.get(state.history[state.at]);
  if (!data || data.terminal) return;
  if (state.side !== "both" && data.to_move !== state.side) return;
  const column = cell % state.geo.width;
  const move = data.moves.find((m) => {
    const c = cellOf(m.move, state.geo);
    return c === cell || (state.geo.gravity && c % state.geo.width === column);
  });
  if (move) await play(move, data);
}

function step(direction) {
  // Against the computer, undo and redo move to the player's own turns.
  let at = state.at;
  do {
    at += direction;
  } while (at > 0 && at < state.history.length - 1 && state.side !== "both"
           && state.cache.get(state.history[at])?.to_move !== state.side);
  if (at < 0 || at >= state.history.length) return;
  state.at = at;
  show();
}

async function showLine() {
  const board = state.history[state.at];
  const data = await api(`/api/${enc(state.spec)}/line?board=${enc(board)}`);
  $("line").replaceChildren(...data.line.map((s) => {
    const li = document.createElement("li");
    li.textContent = `${s.player} ${s.move} (${s.value}, ${s.depth} left)`;
    return li;
  }));
}

// A table is a spec and a root (board text; null for the whole board): an endgame table
// starts from its root, and its counts come from that table.
async function startGame(spec, board, root) {
  state.spec = spec;
  state.root = root || null;
  state.geo = geometry(spec);
  state.cache = new Map();
  state.history = [board || state.root || emptyBoard(state.geo)];
  state.at = 0;
  const index = state.games.findIndex((g) => g.spec === spec && g.root === state.root);
  if (index >= 0) $("game").value = String(index);
  await show();
  const query = state.root ? `?root=${enc(state.root)}` : "";
  drawCounts(await api(`/api/${enc(spec)}/stats${query}`));
}

async function main() {
  const params = new URLSearchParams(location.search);
  const games = state.games = await api("/api/games");
  games.forEach((g, i) => {
    const option = document.createElement("option");
    option.value = String(i);
    option.textContent = g.root ? `${g.spec} from ${g.root}` : g.spec;
    $("game").appendChild(option);
  });
  $("game").addEventListener("change", () => {
    const g = games[Number($("game").value)];
    startGame(g.spec, null, g.root);
  });
  $("side").addEventListener("change", () => { state.side = $("side").value; show(); });
  $("new").addEventListener("click", () => startGame(state.spec, null, state.root));
  $("undo").addEventListener("click", () => step(-1));
  $("redo").addEventListener("click", () => step(1));
  $("line-button").addEventListener("click", showLine);
  const spec = params.get("spec") || (games.find((g) => g.spec === "3x3k3") || games[0] || {}).spec;
  if (!spec) {
    showError("this database holds no games yet; build one, e.g.: tablebase build tictactoe");
    return;
  }
  // Opening a shared position: the visitor plays both sides until they choose one.
  if (params.get("board")) {
    state.side = "both";
    $("side").value = "both";
  }
  // An alias such as "tictactoe" is answered under its full name: ask the server for it.
  const name = games.some((g) => g.spec === spec) ? spec : (await api(`/api/${enc(spec)}`)).spec;
  const table = games.find((g) => g.spec === name && !g.root) || games.find((g) => g.spec === name);
  await startGame(name, params.get("board"), table ? table.root : null);
}

main().catch(() => {});

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

// An error stays on screen until the next thing the visitor does.
function clearError() {
  $("error").hidden = true;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
}

// A position no table holds is searched for up to the server's budget (from /health): a
// position of a game without a whole-board table is awaited that much longer.
let searchMs = 0;

function mightSearch(path) {
  const m = /^\/api\/([^/?]+)(\?|$)/.exec(path);
  if (!m || m[1] === "games") return false;
  const spec = decodeURIComponent(m[1]);
  return !(state.games || []).some((g) => g.spec === spec && !g.root);
}

async function api(path) {
  const abort = new AbortController();
  const wait = TIMEOUT_MS + (mightSearch(path) ? searchMs : 0);
  const timer = setTimeout(() => abort.abort(), wait);
  let response;
  try {
    response = await fetch(path, { signal: abort.signal });
  } catch (e) {
    const why = e.name === "AbortError" ? `no answer within ${wait / 1000} s` : e.message;
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
  return data;
}

const enc = encodeURIComponent;

// A query parameter as typed: URLSearchParams reads '+' as a space, but a spec's '+' is a '+'.
function param(name) {
  const m = new RegExp(`[?&]${name}=([^&]*)`).exec(location.search);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch (e) {
    return m[1];
  }
}

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
  return { width: +m[1], height: +m[2], cells: m[1] * m[2], k: +m[3],
    gravity: spec.includes("gravity"), stones: stonesOf(spec), square: spec.includes("square") };
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

// Win green, draw yellow, loss dark red; t = depth after the move / cells: a fast win and a
// slow loss are the brightest.
function colour(value, depth, cells) {
  if (value === null) return "#8a94a3";  // searched, not proved within the search's time
  const t = Math.min(1, depth / cells);
  const mix = (a, b, s) => a.map((x, i) => Math.round(x + (b[i] - x) * s));
  const rgb = value === "win" ? mix([60, 220, 90], [20, 95, 40], t)
    : value === "loss" ? mix([70, 0, 10], [190, 30, 45], t)
      : [235, 200, 40];
  return `rgb(${rgb.join(", ")})`;
}

// --- drawing ----------------------------------------------------------------------------

// A move's value in words and as the board's short mark, the same number in both: plies to
// the end with that move (its depth after, plus the move), a draw without one (every draw
// fills the board, or where stones move goes on forever); a searched move shows what is
// proved: "?" nothing, ">= draw" a bound.
function moveText(m) {
  if (m.value === null) {
    const bound = m.at_least === "draw" ? ["\u2265", "\u2265 draw"]
      : m.at_most === "draw" ? ["\u2264", "\u2264 draw"] : null;
    return bound ? { mark: `${bound[0]}=`, words: bound[1] } : { mark: "?", words: "?" };
  }
  const sign = { win: "+", draw: "=", loss: "\u2212" }[m.value];
  if (m.value === "draw") return { mark: sign, words: m.depth === null ? "draw (endless play)" : "draw" };
  const plies = m.depth === null ? "?" : m.depth + 1;
  return { mark: `${sign}${plies}`, words: `${m.value} in ${plies}` };
}

function node(parent, tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  parent.appendChild(el);
  return el;
}

// Black or white, whichever reads better on `rgb` (WCAG contrast; the better is always at
// least 4.58:1, above AA's 4.5).
function textOn(rgb) {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const [r, g, b] = rgb.match(/\d+/g).map(Number);
  const light = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  return (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) ? "#000" : "#fff";
}

// The k in a row through `cell` for the stone on it, if there is one (the game's end).
function winningLine(flat, cell, geo) {
  const stone = flat[cell], w = geo.width;
  for (const [dr, dc] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
    const line = [cell];
    for (const sign of [1, -1]) {
      let r = Math.floor(cell / w) + sign * dr, c = (cell % w) + sign * dc;
      while (r >= 0 && r < geo.height && c >= 0 && c < w && flat[r * w + c] === stone) {
        line.push(r * w + c);
        r += sign * dr;
        c += sign * dc;
      }
    }
    if (line.length >= geo.k) return line;
  }
  return null;
}

function drawBoard(data) {
  const geo = state.geo, svg = $("board"), size = 100;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${geo.width * size} ${geo.height * size}`);
  svg.classList.toggle("gravity", geo.gravity);
  const flat = flatOf(data.board), { targets, stones } = boardMoves(data, geo);
  const last = lastMove(), from = lastFrom(), over = last !== null && data.terminal;
  const row = over ? winningLine(flat, last, geo) : null;
  const square = over && !row && geo.square ? winningSquare(flat, last, geo) : null;  // Teeko's
  const line = row || square;
  for (let cell = 0; cell < geo.cells; cell++) {
    const x = (cell % geo.width) * size, y = Math.floor(cell / geo.width) * size;
    const move = targets.get(cell), stone = flat[cell];
    const fill = move ? colour(move.value, move.depth, geo.cells) : "#56667a";
    const rect = node(svg, "rect", { x, y, width: size, height: size, class: "cell",
      "data-cell": cell, fill });
    if (stones.has(cell)) {
      drawMovable(svg, rect, cell, stone, stones.get(cell), size);
    } else if (stone !== ".") {
      const cls = `stone ${stone}${cell === last ? " last" : ""}${line && line.includes(cell) ? " won" : ""}`;
      if (geo.gravity) {
        node(svg, "circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.4, class: cls,
          style: cell === last ? `--drop: ${-(y + size)}px` : "" });
      } else {
        node(svg, "text", { x: x + size / 2, y: y + size * 0.7, "text-anchor": "middle",
          "font-size": size * 0.62, class: cls }, stone.toUpperCase());
      }
    } else if (move) {
      rect.classList.add("open");
      Object.assign(rect.dataset, { move: move.move, value: move.value, depth: move.depth ?? "" });
      if (geo.gravity) node(svg, "circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.4, class: "hole" });
      // The value as a sign as well as a colour: + win, = draw, − loss (and the plies).
      node(svg, "text", { x: x + size / 2, y: y + size * 0.6, "text-anchor": "middle",
        "font-size": size * 0.28, class: "depth", fill: textOn(fill) }, moveText(move).mark);
    } else if (geo.gravity) {
      node(svg, "circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.4, class: "hole" });
    }
    if (cell === last) node(svg, "rect", { x: x + 3, y: y + 3, width: size - 6, height: size - 6, class: "last-mark" });
    if (cell === from) node(svg, "circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.12, class: "from-mark" });
    rect.addEventListener("click", () => clicked(cell));
  }
  if (line) {
    const centre = (c) => [(c % geo.width) * size + size / 2, Math.floor(c / geo.width) * size + size / 2];
    if (square) {
      node(svg, "polygon", { points: square.map((c) => centre(c).join(",")).join(" "), class: "win-line" });
      return;
    }
    const ends = line.map(centre).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    node(svg, "line", { x1: ends[0][0], y1: ends[0][1], x2: ends.at(-1)[0], y2: ends.at(-1)[1],
      class: "win-line" });
  }
}

// The cell the last move played, or null at the start of the game.
function lastMove() {
  return state.at === 0 ? null : moveAt(state.at).to;
}

// The cell the last move's stone left (a step, where stones move), or null.
function lastFrom() {
  return state.at === 0 ? null : moveAt(state.at).from;
}

// The move that made the game's i-th position: the cell a stone went `to` and, for a step,
// the cell it came `from` (else null).
function moveAt(i) {
  const before = flatOf(state.history[i - 1]), now = flatOf(state.history[i]);
  const move = { from: null, to: null };
  for (let c = 0; c < now.length; c++) {
    if (before[c] !== now[c]) move[now[c] === "." ? "from" : "to"] = c;
  }
  return move;
}

function statusText(data) {
  if (data.terminal) {
    const other = data.to_move === "x" ? "o" : "x";
    const result = data.value === "draw" ? "a draw"
      : `${data.value === "win" ? data.to_move : other} wins`;
    return `game over: ${result}`;
  }
  const who = state.side === "both" ? "" : data.to_move === state.side ? " (you)" : " (computer)";
  if (data.source === "search" && (data.value === null || data.depth === null)) {
    return `${data.to_move} to move${who}: ${data.proved} (no table holds it; by search)`;
  }
  const plies = `${data.depth} pl${data.depth === 1 ? "y" : "ies"}`;
  const by = data.source === "search" ? " (no table holds it; by search)" : "";
  if (data.depth === null) return `${data.to_move} to move${who}: draw (endless play) with perfect play`;
  return `${data.to_move} to move${who}: ${data.value} in ${plies} with perfect play${by}`;
}

// Each ply's value as a signed score for x: +(top - depth) when x wins, the same below the
// axis when o wins, 0 for a draw; so a nearer win is farther from the axis and a won game
// ends at the edge. The top is past the longest game, cells + 1 plies where stones are only
// placed; where they move, past the deepest position of the game. Ply i is the game's i-th
// position (where stones move, their count stops growing once every stone is down).
function drawHistory(answers) {
  const svg = $("history"), w = 400, h = 220, cells = state.geo.cells;
  const top = Math.max(cells, ...answers.map((a) => a.depth || 0)) + 1;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const left = 52, bottom = 22, mid = (h - bottom) / 2;
  const first = answers.length ? answers[0].ply : 0;
  const span = Math.max(1, cells - first, answers.length - 1), lastPly = first + span;
  const x = (ply) => left + ((ply - first) * (w - left - 12)) / span;
  const y = (score) => mid - (score * (mid - 10)) / top;
  node(svg, "line", { x1: left, x2: w - 12, y1: mid, y2: mid, class: "axis" });
  node(svg, "text", { x: 4, y: 16, class: "label" }, "x wins");
  node(svg, "text", { x: 4, y: h - bottom - 4, class: "label" }, "o wins");
  node(svg, "text", { x: 4, y: mid + 4, class: "label" }, "draw");
  for (let ply = first; ply <= lastPly; ply += Math.max(1, Math.ceil(span / 8))) {
    node(svg, "text", { x: x(ply), y: h - 6, "text-anchor": "middle", class: "label" }, ply);
  }
  // A searched position whose value or depth is not proved has no place on the chart; a
  // draw by endless play (stones that move) has no depth and sits on the axis.
  const placed = answers.map((a, i) => [first + i, a]).filter(([, a]) => a.value !== null
    && (a.depth !== null || (state.geo.stones && a.value === "draw")));
  const points = placed.map(([ply, a]) => {
    const forX = a.to_move === "x" ? a.value : { win: "loss", loss: "win", draw: "draw" }[a.value];
    const score = forX === "win" ? top - a.depth : forX === "loss" ? a.depth - top : 0;
    return [x(ply), y(score), forX, a, ply];
  });
  node(svg, "polyline", { points: points.map((p) => `${p[0]},${p[1]}`).join(" "), class: "trace" });
  for (const [px, py, forX, a, ply] of points) {
    const dot = node(svg, "circle", { cx: px, cy: py, r: 5, class: `point ${forX}`,
      "data-ply": ply, "data-value-x": forX, "data-depth": a.depth ?? "" });
    const rest = a.depth === null ? "by endless play" : `${a.depth} to the end`;
    node(dot, "title", {}, `after ply ${ply}: ${forX === "draw" ? "a draw" : forX === "win" ? "x wins" : "o wins"}, ${rest}`);
  }
  const end = answers.at(-1);
  if (end && end.terminal && points.length) {
    const [px, py, forX] = points.at(-1);
    node(svg, "text", { x: Math.min(px, w - 60), y: py + (py < mid ? 18 : -10), class: "label result" },
      forX === "draw" ? "draw" : forX === "win" ? "x won" : "o won");
  }
}

// Where stones move, the rows past the placements are both of 2N stones, x then o to move:
// bars go by row, labelled "6x", "6o".
function drawCounts(stats) {
  // An endgame table starts at its root's ply: leave out the empty plies before it.
  const first = stats.per_ply.findIndex((r) => r.win + r.draw + r.loss > 0);
  const rows = stats.per_ply.slice(Math.max(first, 0));
  const moving = (r) => state.geo.stones && r.ply === 2 * state.geo.stones;
  const label = (r) => (moving(r) ? `${r.ply}${r.to_move}` : `${r.ply}`);
  const svg = $("counts"), w = 400, h = 200;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const top = Math.max(1, ...rows.map((r) => r.win + r.draw + r.loss));
  const left = 40, bar = (w - left - 10) / rows.length, scale = (h - 30) / top;
  const labelEvery = Math.max(1, Math.ceil(rows.length / 10));  // ply labels that do not touch
  node(svg, "text", { x: 2, y: 12 }, top.toLocaleString());
  node(svg, "text", { x: 2, y: h - 18 }, "0");
  rows.forEach((r, i) => {
    let base = h - 20;
    for (const [word, fill] of [["loss", "rgb(150, 20, 35)"], ["draw", colour("draw", 0, 1)],
      ["win", "rgb(40, 160, 70)"]]) {
      const height = r[word] * scale;
      const who = moving(r) ? `, ${r.to_move} to move` : "";
      node(svg, "rect", { x: left + i * bar + 1, y: base - height, width: bar - 2, height,
        fill }).appendChild(document.createElementNS(SVG, "title")).textContent =
        `ply ${r.ply}${who}: ${r[word].toLocaleString()} ${word}`;
      base -= height;
    }
    if (i % labelEvery === 0) {
      node(svg, "text", { x: left + (i + 0.5) * bar, y: h - 6, "text-anchor": "middle" }, label(r));
    }
  });
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
  state.picked = null;  // where stones move: the stone picked for a step, by its cell
  document.body.dataset.busy = "yes";
  shareLink();
  $("line").replaceChildren();
  const data = await position(board);
  if (token !== state.token) return;
  drawBoard(data);
  $("status").textContent = statusText(data);
  $("hint").textContent = hintText(data);
  drawMoves(data);
  const answers = [];
  for (const b of state.history.slice(0, state.at + 1)) answers.push(await position(b));
  if (token !== state.token) return;
  drawHistory(answers);
  drawPlayed();
  if (!data.terminal && state.side !== "both" && data.to_move !== state.side) {
    setTimeout(() => { if (token === state.token) computerMove(data); }, COMPUTER_DELAY_MS);
  } else {
    document.body.dataset.busy = "no";
  }
}

// Every legal move, best first, with its value for the player making it; a click plays it.
function drawMoves(data) {
  const list = $("moves");
  list.replaceChildren(...data.moves.map((m) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.className = `move ${m.value}${m.best ? " best" : ""}`;
    button.textContent = `${m.move}  ${moveText(m).words}`;
    button.title = m.value === null
      ? `${data.to_move} plays ${m.move}: ${moveText(m).words === "?" ? "not proved" : moveText(m).words} for ${data.to_move} (by search)`
      : m.depth === null ? `${data.to_move} plays ${m.move}: a draw by endless play (no end, so no plies)`
        : `${data.to_move} plays ${m.move}: ${m.value} for ${data.to_move}, ${m.depth} plies left after it`;
    button.addEventListener("click", () => { clearError(); play(m, data); });
    item.appendChild(button);
    return item;
  }));
  $("moves-head").textContent = data.terminal ? "no moves: the game is over" : `moves for ${data.to_move}, best first`;
}

// The moves played so far, in notation; a click goes back to the position after one.
function drawPlayed() {
  const items = [];
  for (let i = 1; i < state.history.length; i++) {
    const { from, to } = moveAt(i), geo = state.geo;
    const item = document.createElement("li");
    const button = document.createElement("button");
    const name = (from === null ? "" : `${moveName(from, geo)}-`) + moveName(to, geo);
    button.textContent = `${flatOf(state.history[i])[to]} ${name}`;
    button.className = i === state.at ? "played current" : i > state.at ? "played undone" : "played";
    button.addEventListener("click", () => { clearError(); state.at = i; show(); });
    item.appendChild(button);
    items.push(item);
  }
  $("played").replaceChildren(...items);
  const data = state.cache.get(state.history[state.at]);
  $("result").textContent = data && data.terminal ? statusText(data) : "";
}

function moveName(cell, geo) {
  let col = cell % geo.width + 1, letters = "";
  while (col > 0) {
    letters = String.fromCharCode(97 + ((col - 1) % 26)) + letters;
    col = Math.floor((col - 1) / 26);
  }
  return `${letters}${geo.height - Math.floor(cell / geo.width)}`;
}

async function play(move, data) {
  const board = childBoard(data, move, state.geo);
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
  clearError();
  const data = state.cache.get(state.history[state.at]);
  if (!data || data.terminal) return;
  if (state.side !== "both" && data.to_move !== state.side) return;
  if (data.moves.some((m) => m.from)) {  // stones move: the stone, then its cell
    const chosen = stepClicked(data, cell);
    if (chosen) await play(chosen, data);
    return;
  }
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
  clearError();
  state.at = at;
  show();
}

async function showLine() {
  const board = state.history[state.at];
  const data = await api(`/api/${enc(state.spec)}/line?board=${enc(board)}`);
  const items = data.line.map((s) => {
    const li = document.createElement("li");
    li.textContent = `${s.player} ${s.move} (${s.value}, ${s.depth === null ? "endless play" : `${s.depth} left`})`;
    return li;
  });
  if (data.repeats) {  // where stones move, a drawn line stops where a position comes back
    const li = document.createElement("li");
    li.className = "repeats";
    li.textContent = repeatNote(data);
    items.push(li);
  }
  $("line").replaceChildren(...items);
}

// --- tables and links -------------------------------------------------------------------

function gameName(spec) {
  const geo = geometry(spec);
  const misere = (spec.includes("misere") ? " misère" : "") +
    (spec.includes("exact") ? `, exactly ${geo.k}` : "");
  if (spec === "5x5k4+stones4+square") return "Teeko";
  const moving = geo.stones ? `, ${geo.stones} ${spec.includes("jump") ? "jumping" : "moving"} stones`
    + (geo.square ? ", squares win" : "") : "";
  if (spec.startsWith("3x3k3") && !geo.gravity) return `tic-tac-toe${misere}${moving}`;
  if (geo.gravity && geo.k === 4) return `Connect Four ${geo.width}x${geo.height}${misere}`;
  if (!geo.gravity && geo.k === 5) return `Gomoku ${geo.width}x${geo.height}${misere}`;
  return moving ? `${geo.width}x${geo.height}, ${geo.k} in a row${misere}${moving}` : spec;
}

// "Connect Four 7x6 endgame, 22 stones, x to move: win in 7": readable, of bounded width.
function tableLabel(g) {
  const stones = g.root ? (flatOf(g.root).match(/[xo]/g) || []).length : 0;
  const said = g.root ? g.root.split(" ")[1] : null;  // where stones move and all are down
  const mover = said || (stones % 2 ? "o" : "x"), name = gameName(g.spec);
  const outcome = `${mover} to move: ${g.root_value}`
    + (g.root_depth === null ? " (endless play)" : ` in ${g.root_depth}`);
  return g.root ? `${name} endgame, ${stones} stones, ${outcome}` : `${name}, ${outcome}`;
}

const keyOf = (spec, root) => (root ? `${spec}@${root}` : spec);
const COUNTS_NOTE = "Stored positions (one per symmetry orbit) per ply, by their value for the"
  + " side to move.";
// Where stones move, the last two bars are both of 2N stones.
const countsMoving = (n) => n ? ` Once every stone is down, the positions with x to move (${2 * n}x)`
  + ` and with o to move (${2 * n}o) are counted apart.` : "";

// The menu names a game no table holds too (opened by a link), marked as answered by search.
function searchedOption(spec) {
  const menu = $("game");
  if ([...menu.options].some((o) => o.value === spec)) return;
  let group = $("searched-games");
  if (!group) {
    group = document.createElement("optgroup");
    group.id = "searched-games";
    group.label = "no table: by search";
    menu.appendChild(group);
  }
  const option = document.createElement("option");
  option.value = spec;
  option.textContent = `${gameName(spec)} (${spec}), by search`;
  option.title = `no table of ${spec} in this database: every position is searched`;
  group.appendChild(option);
}

function fillMenu(games) {
  const menu = $("game"), groups = new Map();
  for (const g of games) {
    if (g.layout === "keyed") continue;  // a game class has a page of its own (game.js)
    if (!groups.has(g.spec)) {
      const group = document.createElement("optgroup");
      group.label = g.spec;
      groups.set(g.spec, group);
      menu.appendChild(group);
    }
    const option = document.createElement("option");
    option.value = keyOf(g.spec, g.root);
    option.textContent = tableLabel(g);
    option.title = g.root ? `${g.spec} from ${g.root}` : `${g.spec}, from the empty board`;
    groups.get(g.spec).appendChild(option);
  }
}

// A table is a spec and a root (board text; null for the whole board): a game starts at
// `board` or at the table's root, new game returns to the root, the counts are the table's.
async function startGame(spec, board, root, known = null) {
  state.spec = spec;
  state.root = root || null;
  state.geo = geometry(spec);
  state.cache = new Map(known ? [[known.board, known]] : []);  // an answer already fetched
  state.history = [board || state.root || emptyBoard(state.geo)];
  state.at = 0;
  const tabled = (state.games || []).some((g) => g.spec === spec);
  if (!tabled) searchedOption(spec);
  $("game").value = keyOf(spec, state.root);
  $("counts").style.display = tabled ? "" : "none";
  $("legend-moving").hidden = !state.geo.stones;
  document.body.classList.toggle("moving", state.geo.stones > 0);
  $("counts-note").textContent = tabled ? COUNTS_NOTE + countsMoving(state.geo.stones)
    : `No table of ${gameName(spec)} in this database: its positions are answered by search,`
      + " so there are no stored positions to count.";
  await show();
  if (!tabled) return;
  // The list of games holds each table's counts by ply: no need to read a whole table (the
  // stats of Teeko's 21 million positions take seconds).
  const table = state.games.find((g) => g.spec === spec && (g.root || null) === state.root);
  const query = state.root ? `?root=${enc(state.root)}` : "";
  drawCounts(table || await api(`/api/${enc(spec)}/stats${query}`));
}

// A link: the server names the game (an alias such as "tictactoe" too) and says which table
// holds the board; without a board, the spec's whole-board table or else its first table.
async function openLink(games, spec, board) {
  if (board) {
    const data = await api(`/api/${enc(spec)}?board=${enc(board)}`);
    return startGame(data.spec, data.board, data.table, data);
  }
  const name = games.some((g) => g.spec === spec) ? spec : (await api(`/api/${enc(spec)}`)).spec;
  const table = games.find((g) => g.spec === name && !g.root) || games.find((g) => g.spec === name);
  return startGame(name, null, table ? table.root : null);
}

async function main() {
  const health = await api("/health");
  searchMs = health.search ? health.search.seconds * 1000 : 0;
  const games = state.games = await api("/api/games");
  fillMenu(games);
  const classes = games.filter((t) => t.layout === "keyed" && !t.root);
  for (const g of classes) {  // a game class's page: a link in the header
    const a = document.querySelector("header").appendChild(document.createElement("a"));
    a.href = `/game/${enc(g.spec)}`;
    a.textContent = g.spec;
  }
  $("game").addEventListener("change", () => {
    const g = games.find((t) => keyOf(t.spec, t.root) === $("game").value)
      || { spec: $("game").value, root: null };  // a game by search
    clearError();
    startGame(g.spec, null, g.root);
  });
  $("side").addEventListener("change", () => { clearError(); state.side = $("side").value; show(); });
  $("new").addEventListener("click", () => { clearError(); startGame(state.spec, null, state.root); });
  $("undo").addEventListener("click", () => step(-1));
  $("redo").addEventListener("click", () => step(1));
  $("line-button").addEventListener("click", () => { clearError(); showLine(); });
  const grids = games.filter((g) => g.layout !== "keyed");
  const fallback = grids.find((g) => g.spec === "3x3k3" && !g.root) || grids[0];
  if (!fallback && classes.length) {
    location.href = `/game/${enc(classes[0].spec)}`;
    return;
  }
  if (!fallback) {
    $("status").textContent = "";
    showError("this database holds no games yet; build one, e.g.: tablebase build tictactoe");
    return;
  }
  const spec = param("spec"), board = param("board");
  if (board) {  // a shared position: the visitor plays both sides until they choose one
    state.side = "both";
    $("side").value = "both";
  }
  if (spec || board) {
    try {
      await openLink(games, spec || fallback.spec, board);
      return;
    } catch (e) {
      // The link's error stays on screen; a game to play is shown beside it.
    }
  }
  await startGame(fallback.spec, null, fallback.root);
}

main().catch(() => { if ($("status").textContent === "loading…") $("status").textContent = ""; });

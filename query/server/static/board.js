// The board page's drawing (app.js): a spec's geometry, the board with every move's value, the
// status line and the two charts. Loaded before app.js, whose state and helpers it uses when
// its functions run.

// --- the game's geometry ----------------------------------------------------------------

// The layout names and places every point (a cell); the page parses no names of its own.
function cellOf(name, geo) {
  geo.named ??= new Map(geo.points.map((p, cell) => [p.name, cell]));
  return geo.named.get(name);
}

function pointAt(cell, geo, size) {
  return [geo.points[cell].x * size, geo.points[cell].y * size];
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

// The line through `cell` that its stone made (the game's end), from the layout's lines:
// every cell the player's and no end cell (+exact: a run of exactly k). A run longer than k
// is drawn whole (each of its windows joined); a 2x2 square (Teeko's) is a closed line.
function winningLine(flat, cell, geo) {
  const stone = flat[cell];
  const made = (l) => l.cells.every((c) => flat[c] === stone)
    && l.ends.every((e) => e < 0 || flat[e] !== stone);
  const through = geo.lines.filter((l) => l.cells.includes(cell) && made(l));
  const first = through.find((l) => !l.closed);
  if (!first) return through.length ? through[0] : null;
  const step = (l) => l.cells[1] - l.cells[0];  // a window's direction
  const same = geo.lines.filter((l) => !l.closed && step(l) === step(first) && made(l));
  const cells = new Set(first.cells);
  for (let grew = true; grew;) {  // windows of one direction that share a cell: one run
    grew = false;
    for (const l of same) {
      if (l.cells.some((c) => cells.has(c)) && !l.cells.every((c) => cells.has(c))) {
        l.cells.forEach((c) => cells.add(c));
        grew = true;
      }
    }
  }
  return { cells: [...cells], closed: false };
}

function drawBoard(data) {
  const geo = state.geo, svg = $("board"), size = 100;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${geo.width * size} ${geo.height * size}`);
  svg.classList.toggle("gravity", geo.drops);
  const flat = flatOf(data.board), { targets, stones } = boardMoves(data, geo);
  const last = lastMove(), from = lastFrom(), over = last !== null && data.terminal;
  const won = over ? winningLine(flat, last, geo) : null;
  const line = won ? won.cells : null, square = won && won.closed ? won.cells : null;
  for (let cell = 0; cell < geo.cells; cell++) {
    const [x, y] = pointAt(cell, geo, size);
    const move = targets.get(cell), stone = flat[cell];
    const fill = move ? colour(move.value, move.depth, geo.cells) : "#56667a";
    const rect = node(svg, "rect", { x, y, width: size, height: size, class: "cell",
      "data-cell": cell, fill });
    if (stones.has(cell)) {
      drawMovable(svg, rect, cell, stone, stones.get(cell), size);
    } else if (stone !== ".") {
      const cls = `stone ${stone}${cell === last ? " last" : ""}${line && line.includes(cell) ? " won" : ""}`;
      if (geo.drops) {
        node(svg, "circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.4, class: cls,
          style: cell === last ? `--drop: ${-(y + size)}px` : "" });
      } else {
        node(svg, "text", { x: x + size / 2, y: y + size * 0.7, "text-anchor": "middle",
          "font-size": size * 0.62, class: cls }, stone.toUpperCase());
      }
    } else if (move) {
      rect.classList.add("open");
      Object.assign(rect.dataset, { move: move.move, value: move.value, depth: move.depth ?? "" });
      if (geo.drops) node(svg, "circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.4, class: "hole" });
      // The value as a sign as well as a colour: + win, = draw, − loss (and the plies).
      node(svg, "text", { x: x + size / 2, y: y + size * 0.6, "text-anchor": "middle",
        "font-size": size * 0.28, class: "depth", fill: textOn(fill) }, moveText(move).mark);
    } else if (geo.drops) {
      node(svg, "circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.4, class: "hole" });
    }
    if (cell === last) node(svg, "rect", { x: x + 3, y: y + 3, width: size - 6, height: size - 6, class: "last-mark" });
    if (cell === from) node(svg, "circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.12, class: "from-mark" });
    rect.addEventListener("click", () => clicked(cell));
  }
  if (line) {
    const centre = (c) => pointAt(c, geo, size).map((v) => v + size / 2);
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
// The move that led to history[i], as the API named it: the cell a stone left (null for a
// placement), the cell it went to, and its name.
function moveAt(i) {
  const m = state.played[i];
  return { from: m.from ? cellOf(m.from, state.geo) : null, to: cellOf(m.to || m.move, state.geo),
           name: m.move };
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
    && (a.depth !== null || (state.geo.stones_each && a.value === "draw")));
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
  const moving = (r) => state.geo.stones_each && r.ply === 2 * state.geo.stones_each;
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


// The board of a game that draws one (its class's layout(): points and the lines between them,
// /api/class/NAME/layout): what stands on each point, and a move played by clicking its points
// in turn (a placement one click, a step two, a capture one more). It knows no rules: the
// server's answer says what stands where (`marks`) and which points each move is clicked on
// (`points`); a point the next click may take is ringed in the best value it leads to.
"use strict";

const pointBoard = { layout: null, clicked: [], data: null, play: null };
const RANK = { win: 3, draw: 2, loss: 1 };
const UNIT = 100;  // drawing units between neighbouring grid places

async function loadPointBoard(name, play) {
  const response = await fetch(`/api/class/${encodeURIComponent(name)}/layout`);
  if (!response.ok) return false;
  const layout = await response.json();
  if (!layout.points || layout.points.length === 0) return false;
  pointBoard.layout = layout;
  if (layout.title && layout.title !== name) {
    document.getElementById("name").textContent = `${layout.title} (${name})`;
    document.title = `${layout.title}: tablebase`;
  }
  pointBoard.play = play;
  document.getElementById("drawn-board").hidden = false;
  document.getElementById("board-note").hidden = false;
  return true;
}

// The moves that begin with the points clicked so far.
function continuing(clicked) {
  return pointBoard.data.moves.filter((m) => clicked.every((p, i) => m.points[i] === p));
}

function clickPoint(index) {
  let clicked = [...pointBoard.clicked, index];
  if (continuing(clicked).length === 0) clicked = [index];  // start the move again here
  const moves = continuing(clicked);
  if (moves.length === 0) { pointBoard.clicked = []; drawPointBoard(pointBoard.data); return; }
  const whole = moves.find((m) => m.points.length === clicked.length);
  if (whole && moves.length === 1) {
    pointBoard.clicked = [];
    pointBoard.play(whole.position);
    return;
  }
  pointBoard.clicked = clicked;
  drawPointBoard(pointBoard.data);
}

function drawPointBoard(data) {
  if (!pointBoard.layout) return;
  if (pointBoard.data !== data) pointBoard.clicked = [];
  pointBoard.data = data;
  const { points, edges } = pointBoard.layout;
  const svg = document.getElementById("drawn-board");
  const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
  const left = Math.min(...xs), top = Math.min(...ys);
  const w = (Math.max(...xs) - left + 1) * UNIT, h = (Math.max(...ys) - top + 1) * UNIT;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.replaceChildren();
  const at = (p) => [(p.x - left + 0.5) * UNIT, (p.y - top + 0.5) * UNIT];
  for (const [a, b] of edges) {
    const [x1, y1] = at(points[a]), [x2, y2] = at(points[b]);
    node(svg, "line", { x1, y1, x2, y2, class: "edge" });
  }
  // The best value of a move through each point the next click may take.
  const next = new Map();
  const clicked = pointBoard.clicked;
  for (const m of continuing(clicked)) {
    const p = m.points[clicked.length];
    if (p === undefined) continue;
    if (!next.has(p) || RANK[m.value] > RANK[next.get(p)]) next.set(p, m.value);
  }
  points.forEach((p, i) => {
    const [cx, cy] = at(p);
    const mark = (data.marks || "")[i] || ".";
    const group = node(svg, "g", { class: "point", "data-point": p.name, tabindex: next.has(i) ? 0 : -1 });
    node(group, "circle", { cx, cy, r: UNIT * 0.36, class: "target" });
    if (next.has(i)) node(group, "circle", { cx, cy, r: UNIT * 0.3, class: `ring ${next.get(i)}` });
    if (mark !== ".") node(group, "circle", { cx, cy, r: UNIT * 0.24, class: `stone ${mark}` });
    else node(group, "circle", { cx, cy, r: UNIT * 0.07, class: "spot" });
    if (clicked.includes(i)) node(group, "circle", { cx, cy, r: UNIT * 0.33, class: "chosen" });
    node(group, "title", {}, p.name);
    group.addEventListener("click", () => clickPoint(i));
    group.addEventListener("keydown", (e) => { if (e.key === "Enter") clickPoint(i); });
  });
}

// The page's part for games whose stones move (`+stonesN`, Teeko): each side places its N
// stones as in tic-tac-toe, then moves one a turn. A step is played by two clicks, the stone
// and then its cell; before a pick each movable stone shows the value of its best step,
// after it the stone's cells show theirs. A draw there is by endless play: it has no depth.
// Loaded before app.js, whose helpers (state, node, colour, cellOf, ...) it calls.
"use strict";

// Board text without the side-to-move suffix (` x`, ` o`), as one string of cells.
function flatOf(board) {
  return board.split(" ")[0].replaceAll("/", "");
}

// The moves drawn on the board, by cell: `targets` the empty cells a move goes to (every
// placement; the picked stone's steps), `stones` each movable stone's best step (the API
// lists moves best first, so the first step of a stone is its best).
function boardMoves(data, geo) {
  const targets = new Map(), stones = new Map();
  for (const m of data.moves) {
    if (!m.from) {
      targets.set(cellOf(m.to || m.move, geo), m);
      continue;
    }
    const from = cellOf(m.from, geo);
    if (!stones.has(from)) stones.set(from, m);
    if (from === state.picked) targets.set(cellOf(m.to, geo), m);
  }
  return { targets, stones };
}

// A movable stone: its cell coloured by its best step, the stone, and that step's mark
// under it; the picked stone is outlined.
function drawMovable(svg, rect, cell, stone, best, size) {
  const x = +rect.getAttribute("x"), y = +rect.getAttribute("y");
  const fill = colour(best.value, best.depth, state.geo.cells);
  rect.setAttribute("fill", fill);
  rect.classList.add("movable");
  if (cell === state.picked) rect.classList.add("picked");
  Object.assign(rect.dataset, { best: best.move, value: best.value, depth: best.depth ?? "" });
  node(svg, "text", { x: x + size / 2, y: y + size * 0.58, "text-anchor": "middle",
    "font-size": size * 0.5, class: `stone ${stone}` }, stone.toUpperCase());
  node(svg, "text", { x: x + size / 2, y: y + size * 0.9, "text-anchor": "middle",
    "font-size": size * 0.22, class: "depth", fill: textOn(fill) }, moveText(best).mark);
  if (cell === state.picked) {
    node(svg, "rect", { x: x + 4, y: y + 4, width: size - 8, height: size - 8, class: "picked-mark" });
  }
}

// A click on the board in the movement phase: on one's own stone it picks it (again: lets
// go), on a cell the picked stone can step to it returns that step, to be played.
function stepClicked(data, cell) {
  const geo = state.geo;
  if (state.picked !== null) {
    const step = data.moves.find((m) => m.from && cellOf(m.from, geo) === state.picked
      && cellOf(m.to, geo) === cell);
    if (step) {
      state.picked = null;
      return step;
    }
  }
  const movable = data.moves.some((m) => m.from && cellOf(m.from, geo) === cell);
  state.picked = movable && state.picked !== cell ? cell : null;
  drawBoard(data);
  $("hint").textContent = hintText(data);
  return null;
}

// What a click does now, for a game whose stones move ("" for other games, or when the
// visitor is not to move).
function hintText(data) {
  const geo = state.geo, side = data.to_move;
  if (!geo.stones_each || data.terminal || (state.side !== "both" && side !== state.side)) return "";
  if (!data.moves.some((m) => m.from)) {
    return `${side} places a stone: click a cell (${geo.stones_each} each, then they move)`;
  }
  if (state.picked === null) {
    return `${side} moves a stone: click one (it shows its best step), then the cell it goes to`;
  }
  return `${side} moves the stone on ${moveName(state.picked, geo)}: click its cell`
    + " (or another stone)";
}

// A line's last words where stones move: it stopped because a position came back.
function repeatNote(data) {
  const boards = [data.board, ...data.line.map((s) => s.board)];
  const first = boards.indexOf(boards.at(-1));
  const where = first === 0 ? "the starting position" : `the position after move ${first}`;
  return `${where} comes back: perfect play goes round forever (a draw by endless play)`;
}

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
  played: [],        // played[i]: the API's move that led to history[i] (none for the first)
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
    const { to, name } = moveAt(i);
    const item = document.createElement("li");
    const button = document.createElement("button");
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
  return geo.points[cell].name;
}

async function play(move, data) {
  const before = { history: state.history, played: state.played, at: state.at };
  document.body.dataset.busy = "yes";
  try {
    // The server plays the move (the game's rules, written once there): the answer of the
    // position after it, whose board text names that position from then on.
    const child = await api(`/api/${enc(state.spec)}?board=${enc(data.board)}&moves=${enc(move.move)}`);
    state.cache.set(child.board, child);
    state.history = [...state.history.slice(0, state.at + 1), child.board];
    state.played = [...state.played.slice(0, state.at + 1), move];
    state.at += 1;
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
  const column = (c) => state.geo.points[c].x;
  const move = data.moves.find((m) => {
    const c = cellOf(m.move, state.geo);
    return c === cell || (state.geo.drops && column(c) === column(cell));
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
  const token = state.token, board = state.history[state.at];
  const data = await api(`/api/${enc(state.spec)}/line?board=${enc(board)}`);
  if (token !== state.token) return;  // another position is shown by now: this line is not its
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

// Each game's layout (its size, how stones land, its title), from the server: the page reads
// no spec. Fetched once a spec.
const layouts = new Map();
async function layoutOf(spec) {
  if (!layouts.has(spec)) layouts.set(spec, await api(`/api/${enc(spec)}/layout`));
  return layouts.get(spec);
}
const gameName = (spec) => layouts.get(spec).title;

// "Connect Four 7x6 endgame, 22 stones, x to move: win in 7": readable, of bounded width.
function tableLabel(g) {
  const stones = g.root ? (flatOf(g.root).match(/[xo]/g) || []).length : 0;
  const name = gameName(g.spec), side = g.to_move ? `${g.to_move} to move: ` : "";
  const outcome = `${side}${g.root_value}`
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

// A game given as a class (stored by its positions' text, or by ranked tiers: the layouts
// db/facts.py calls GAME_LAYOUTS) has a page of its own (game.js); the rest are grid games.
const CLASS_LAYOUTS = ["keyed", "tiered-8192", "tiered-ids", "tiered"];
const isClassGame = (g) => CLASS_LAYOUTS.includes(g.layout);

function fillMenu(games) {
  const menu = $("game"), groups = new Map();
  for (const g of games) {
    if (isClassGame(g)) continue;
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
  state.geo = await layoutOf(spec);
  state.cache = new Map(known ? [[known.board, known]] : []);  // an answer already fetched
  state.history = [board || state.root || state.geo.start];
  state.played = [null];
  state.at = 0;
  const tabled = (state.games || []).some((g) => g.spec === spec);
  if (!tabled) searchedOption(spec);
  $("game").value = keyOf(spec, state.root);
  $("counts").style.display = tabled ? "" : "none";
  $("legend-moving").hidden = !state.geo.stones_each;
  document.body.classList.toggle("moving", state.geo.stones_each > 0);
  $("counts-note").textContent = tabled ? COUNTS_NOTE + countsMoving(state.geo.stones_each)
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
  const specs = new Set(games.filter((g) => !isClassGame(g)).map((g) => g.spec));
  await Promise.all([...specs].map(layoutOf));  // the menu names each game by its title
  fillMenu(games);
  const classes = games.filter((t) => isClassGame(t) && !t.root);
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
  const grids = games.filter((g) => !isClassGame(g));
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

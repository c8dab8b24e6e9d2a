"""Smallest winning strategies where stones move (`+stonesN`): every tree is checked to be a
strategy (the rules kernel's moves, the table's values), and its size against a least fixed
point computed here by plain iteration over the positions as they are, with no symmetry; a
draw by endless play is refused in one line."""
from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Callable
from typing import Any

import pytest

from tablebase.builder.games.grid import Spec, Value, parse_spec
from tablebase.builder.games.registry import grid_game
from tablebase.builder.games.stones import rules
from tablebase.builder.games.stones.notation import parse_moving
from tablebase.query import Tablebase, open_tablebase
from tablebase.query.cli import main
from tablebase.query.play.strategy import NoStrategyError, find_strategy
from tablebase.query.shapes import strategy_json

Position = tuple[int, ...]


def _for(tb: Tablebase, spec: Spec, position: Position, side: int) -> Value:
    """The table's value of `position` for `side` (X or O)."""
    probe = tb.probe(spec, position)
    return probe.value if rules.split(spec, position)[1] == side else Value(-probe.value)


def stored_values(tb: Tablebase, spec: Spec) -> Callable[[Position], Value]:
    """Position -> its value in the table's rows, read whole once (each position's canonical
    code found once: many parents share a child)."""
    rows = tb.table(spec).load()
    stored = dict(zip(rows.codes.tolist(), rows.value.tolist()))
    known: dict[Position, Value] = {}

    def value(position: Position) -> Value:
        if position not in known:
            known[position] = stored[grid_game(spec).canonical_code(position)]
        return known[position]
    return value


def least_sizes(value: Callable[[Position], Value], spec: Spec, roots: list[Position],
                side: int) -> dict[Position, int]:
    """The smallest strategy's size for `side` to win from every position its winning moves
    and every reply reach from `roots`: the least fixed point of 1 + min (the side's winning
    moves) and 1 + sum (every reply), iterated from zero until nothing changes. Values come
    from the table's rows (`value`, from stored_values). Each position is worked out again
    only when a child's size has changed since (what a full pass would find changed)."""
    children: dict[Position, list[Position]] = {}
    mine: dict[Position, bool] = {}
    stack = list(roots)
    while stack:
        position = stack.pop()
        if position in children:
            continue
        ours = rules.split(spec, position)[1] == side
        below = [rules.after(spec, position, m) for m in rules.legal(spec, position)]
        if ours:  # the side's winning moves: the opponent, to move after them, loses
            below = [c for c in below if value(c) == Value.LOSS]
        children[position], mine[position] = below, ours
        stack.extend(below)
    # The positions numbered, children before parents mostly (found depth first), so that
    # each is worked out with its children's sizes read by number.
    found = list(children)[::-1]
    number = {position: i for i, position in enumerate(found)}
    kids_of = [[number[c] for c in children[position]] for position in found]
    parents: list[list[int]] = [[] for _ in found]
    for i, kids in enumerate(kids_of):
        for kid in kids:
            parents[kid].append(i)
    size = [0] * len(found)
    pending, queued = deque(range(len(found))), set(range(len(found)))
    while pending:
        i = pending.popleft()
        queued.discard(i)
        if not kids_of[i]:
            new = 1
        elif mine[found[i]]:
            new = 1 + min(map(size.__getitem__, kids_of[i]))
        else:
            new = 1 + sum(map(size.__getitem__, kids_of[i]))
        if new != size[i]:
            size[i] = new
            for parent in parents[i]:
                if parent not in queued:
                    pending.append(parent)
                    queued.add(parent)
    return dict(zip(found, size))


def check_tree(tb: Tablebase, spec: Spec, data: dict[str, Any]) -> None:
    """Assert the exported tree is a winning strategy for data['side'], with `nodes` nodes,
    `positions` distinct positions and a longest path of `depth` plies."""
    side = rules.X if data["side"] == "x" else rules.O
    seen: set[Position] = set()

    def walk(node: dict[str, Any], position: Position) -> tuple[int, int]:
        assert parse_moving(spec, node["board"]) == position
        assert node["to_move"] == grid_game(spec).side(position)
        assert _for(tb, spec, position, side) == Value.WIN  # every node keeps the win
        seen.add(position)
        legal = {grid_game(spec).name(m): m for m in rules.legal(spec, position)}
        kids = node["children"]
        if not legal:
            assert kids == {} and rules.outcome_of(spec, position) is not None
            return 1, 0
        if rules.split(spec, position)[1] == side:
            assert len(kids) == 1 and set(kids) <= set(legal)
        else:
            assert set(kids) == set(legal)  # every reply of the opponent
        count, longest = 1, 0
        for name, child in kids.items():
            n, d = walk(child, rules.after(spec, position, legal[name]))
            count, longest = count + n, max(longest, d + 1)
        return count, longest

    count, longest = walk(data["tree"], parse_moving(spec, data["board"]))
    assert (count, len(seen), longest) == (data["nodes"], data["positions"], data["depth"])


def _won(tb: Tablebase, spec: Spec, n: int, seed: int) -> list[Position]:
    """`n` won (or lost) unfinished positions met along random games."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < n:
        position = grid_game(spec).start()
        for _ in range(rng.randrange(1, 14)):
            moves = rules.legal(spec, position)
            if not moves:
                break
            position = rules.after(spec, position, rng.choice(moves))
        probe = tb.probe(spec, position)
        if not probe.terminal and probe.value != Value.DRAW and position not in found:
            found.append(position)
    return found


@pytest.mark.parametrize("name", ["3x3k3+stones3", "3x3k3+stones3+jump",
                                  pytest.param("4x3k3+stones3", marks=pytest.mark.slow)])
def test_sizes_equal_the_least_fixed_point(name: str, table_db: Callable[[str], str]) -> None:
    spec = parse_spec(name)
    with open_tablebase(table_db(name)) as tb:
        by_winner: dict[int, list[Position]] = {rules.X: [], rules.O: []}
        sample = _won(tb, spec, 12 if spec.cells == 9 else 3, seed=len(name))
        for position in sample:
            mover = rules.split(spec, position)[1]
            won = tb.probe(spec, position).value == Value.WIN
            by_winner[mover if won else rules.X + rules.O - mover].append(position)
        sizes, first_moves, value = [], 0, stored_values(tb, spec)
        for winner, positions in by_winner.items():
            least = least_sizes(value, spec, positions, winner)
            for position in positions:
                (s,) = find_strategy(tb, spec, position)
                assert s.side == "xo"[winner - 1] and s.goal == Value.WIN
                assert s.nodes == least[position]
                check_tree(tb, spec, strategy_json(s))
                sizes.append(s.nodes)
                with pytest.raises(NoStrategyError, match="is a loss for"):
                    find_strategy(tb, spec, position, "xo"[2 - winner])
                if rules.split(spec, position)[1] == winner:  # its first move wins, as stored
                    assert s.first_move in {m.move for m in tb.moves(spec, position)
                                            if m.value == Value.WIN}
                    first_moves += 1
        assert len(set(sizes)) >= 3 and first_moves > 0  # the sample is not all alike


def test_cli_refuses_a_draw_by_endless_play(table_db: Callable[[str], str], tmp_path: Any,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = table_db("3x3k3+stones3")
    for extra in ([], ["--side", "x"], ["--moves", "b2 a1"]):
        assert main(["strategy", "3x3k3+stones3", "--db", db, "--quiet", *extra]) == 2
        err = capsys.readouterr().err
        assert "is a draw by endless play: no finite strategy proves it" in err
        assert err.count("\n") == 1 and err.startswith("tablebase: error: ")
    # o wins by b3-c3: the text, the JSON tree and the graph.
    args = ["strategy", "3x3k3+stones3", "xo./.xo/x.o o", "--db", db, "--quiet"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "o's smallest strategy for a win: 2 nodes" in out and "first move b3-c3" in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["to_move"] == "o" and data["first_move"] == "b3-c3"
    assert list(data["tree"]["children"]) == ["b3-c3"]
    dot = tmp_path / "o.dot"
    assert main([*args, "--dot", str(dot)]) == 0
    assert 'label="b3-c3", style=bold' in dot.read_text()
    assert main([*args, "--side", "x"]) == 2
    assert "x has no strategy" in capsys.readouterr().err
    assert main(["strategy", "3x3k3+stones3", "--root", "x.o/.../...", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "no endgame table of" in err and err.count("\n") == 1
    # Past --max-explored positions the search stops, in one line. (From 3x3k3+stones4's
    # empty board, won for x, it reads some 200 positions: 4x3k3+stones3's took seconds.)
    db = table_db("3x3k3+stones4")
    args = ["strategy", "3x3k3+stones4", "--db", db, "--quiet", "--max-explored"]
    assert main([*args, "100"]) == 2
    err = capsys.readouterr().err
    assert "would search more than 100 positions" in err and err.count("\n") == 1
    assert main([*args, "20000"]) == 0 and "smallest strategy for a win" in capsys.readouterr().out

"""Many positions read at once (position_text.py reads one): the usual board text with numpy,
the other forms in one compiled call where the batch is large (position_texts_kernel.py), and each
position that fails there, and every position of a game whose stones move, in Python, which
names the fault. A face that reads a list (a file of positions, a bulk request) calls this."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tablebase.builder.games.grid import Spec
from tablebase.builder.games.grid.position_text import Reading, read_position, reading_of

# Batches of at least this many positions in other forms than plain board text are read by
# the compiled reader (whose first use in a process loads numba and the kernel).
COMPILED_BATCH = 32


@dataclass(frozen=True)
class Readings:
    """Many positions read at once, in the order given: row i of `cells` (uint8, zeros where
    position i could not be read; where stones move, the cells then the side to move, as a
    Reading's board holds them) and `played[i]`, or `errors[i]`, the error that position
    gives (NotationError, IllegalMoveError or InvalidPositionError, without its place)."""

    cells: np.ndarray
    played: np.ndarray
    errors: dict[int, ValueError]
    moving: bool = False

    def __len__(self) -> int:
        return len(self.cells)

    def reading(self, i: int) -> Reading:
        """Position i as a Reading (raises its error if it has one)."""
        if i in self.errors:
            raise self.errors[i]
        row = self.cells[i].tolist()
        if self.moving:  # the side to move follows the cells
            return Reading(tuple(row), row[-1], bool(self.played[i]))
        return reading_of(row, bool(self.played[i]))


_CELL_BYTES = np.full(256, 255, dtype=np.uint8)
for _ch, _v in ((".", 0), ("x", 1), ("X", 1), ("o", 2), ("O", 2)):
    _CELL_BYTES[ord(_ch)] = _v


def read_positions(spec: Spec, positions: Sequence[Any], compiled: bool | None = None
                   ) -> Readings:
    """Every position of `positions` (each in a form `read_position` takes) at once: board text
    of the usual form ('x.o/.x./...') with numpy; other text in one compiled call when
    `compiled` (None: when there are at least COMPILED_BATCH of it); the rest, and each
    position the compiled reader leaves, in Python, which names the fault."""
    n = len(positions)
    cells = np.zeros((n, spec.cells + spec.moving), dtype=np.uint8)
    played = np.zeros(n, dtype=bool)
    errors: dict[int, ValueError] = {}
    texts = [isinstance(p, str) for p in positions] if not spec.moving else [False] * n
    plain = _plain_boards(spec, positions, texts, cells, played)  # where stones move: Python
    rest = np.flatnonzero(~plain).tolist()
    other = [i for i in rest if texts[i]]
    if other and (compiled or (compiled is None and len(other) >= COMPILED_BATCH)):
        from tablebase.builder.games.grid.position_texts_kernel import read_texts

        done = read_texts(spec, [positions[i] for i in other], cells, played, other)
        left = {i for i, read in zip(other, done) if not read}
        rest = [i for i in rest if not texts[i] or i in left]
    for i in rest:
        try:
            found = read_position(spec, positions[i])
        except ValueError as e:
            errors[i] = e
            continue
        cells[i] = found.board
        played[i] = found.played
    return Readings(cells, played, errors, spec.moving)


def _plain_boards(spec: Spec, positions: Sequence[Any], texts: list[bool], cells: np.ndarray,
                  played: np.ndarray) -> np.ndarray:
    """Read the positions that are board text of the usual form ('x.o/.x./...', rows joined by
    '/', ASCII) with numpy, into `cells` and `played`; whether each was."""
    w, h = spec.width, spec.height
    length = spec.cells + h - 1
    plain = np.array([t and len(p) == length and p.isascii() for t, p in zip(texts, positions)],
                     dtype=bool)
    if not plain.any():
        return plain
    chosen = np.flatnonzero(plain)
    raw = np.frombuffer("".join(positions[int(i)] for i in chosen).encode("ascii"),
                        dtype=np.uint8).reshape(len(chosen), length)
    slashes = np.array([r * (w + 1) + w for r in range(h - 1)], dtype=np.int64)
    values = _CELL_BYTES[raw[:, np.delete(np.arange(length), slashes)]]
    ok = (values != 255).all(axis=1) & (raw[:, slashes] == ord("/")).all(axis=1)
    cells[chosen[ok]] = values[ok]
    played[chosen[ok]] = ~values[ok].any(axis=1)
    plain[chosen[~ok]] = False
    return plain

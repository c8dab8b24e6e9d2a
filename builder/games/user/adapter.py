"""A user's game class behind the `Game` protocol: loaded from `PATH.py:Class` or
`package.module:Class`, made with no arguments, and every call checked.

The class (docs/games.md): `name`, `start()`, `moves(p)` -> (move name, position after it)
pairs, `outcome(p)` -> +1/0/-1 for the side to move or None, `text(p)`, `read(text)`, and
optionally `symmetries(p)`. A fault of its code (an exception, a result of the wrong shape, a
position that is not hashable, text that does not read back) raises GameFault: one line naming
the class, the method and the position's text. Text the class cannot read (its `read` raises
ValueError) is the user's input error, InvalidPositionError.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tablebase.builder.games.errors import InvalidPositionError, InvalidSpecError
from tablebase.builder.games.protocol import NUMBER_KEYS_BELOW, GameFault, Position

if TYPE_CHECKING:
    from tablebase.builder.games.ranked_tiers import RankedGame

# The catalogue's spec column holds a game's name: at most this many characters.
MAX_NAME = 64
OUTCOMES = (-1, 0, 1)
_INT = {int}
_UNASKED = object()  # a drawing not asked of the class yet


def load_class_game(module: str, name: str) -> ClassGame:
    """The game class `name` of `module` (a path ending in .py, or a dotted module name found
    from the current directory), made with no arguments and wrapped; InvalidSpecError naming
    why it cannot be."""
    spec_text = f"{module}:{name}"
    try:
        loaded = _load_module(module)
    except InvalidSpecError:
        raise
    except Exception as e:  # the user's module failed while it was imported
        raise InvalidSpecError(f"{spec_text}: importing {module} raised"
                               f" {type(e).__name__}: {e}") from e
    cls = getattr(loaded, name, None)
    if not isinstance(cls, type):
        raise InvalidSpecError(f"{spec_text}: {module} has no class {name}")
    try:
        instance = cls()
    except Exception as e:
        raise InvalidSpecError(f"{spec_text}: {name}() raised {type(e).__name__}: {e}"
                               " (a game class is made with no arguments)") from e
    missing = [m for m in ("start", "moves", "outcome", "text", "read")
               if not callable(getattr(instance, m, None))]
    if missing:
        raise InvalidSpecError(f"{spec_text}: the class has no method {', '.join(missing)}"
                               " (a game class has start, moves, outcome, text and read)")
    game_name = getattr(instance, "name", None)
    if not isinstance(game_name, str) or not game_name.strip() or len(game_name) > MAX_NAME \
            or not game_name.isprintable():
        raise InvalidSpecError(f"{spec_text}: its `name` must be one line of 1 to {MAX_NAME}"
                               f" printable characters, found {game_name!r:.80}")
    return ClassGame(instance, name, spec_text)


def _load_module(module: str) -> Any:
    if module.endswith(".py"):
        path = Path(module)
        if not path.is_file():
            raise InvalidSpecError(f"{module}: no such file (a class spec is PATH.py:Class)")
        # One module per file, named after its resolved path: a second load is the first.
        key = "tablebase_user_game_" + str(abs(hash(str(path.resolve()))))
        if key in sys.modules:
            return sys.modules[key]
        found = importlib.util.spec_from_file_location(key, path)
        if found is None or found.loader is None:
            raise InvalidSpecError(f"{module}: cannot load it as a Python module")
        loaded = importlib.util.module_from_spec(found)
        sys.modules[key] = loaded
        try:
            found.loader.exec_module(loaded)
        except BaseException:
            del sys.modules[key]
            raise
        return loaded
    # A module name is looked for from the current directory too, as `python -m` would.
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.startswith(e.name):
            raise InvalidSpecError(f"{module}: no such module (a class spec is PATH.py:Class"
                                   " or package.module:Class)") from e
        raise
    finally:
        if added:
            sys.path.remove(here)


def _plain(value: object) -> bool:
    """Whether `value` is made of ints (not bools), strs, bytes, None and tuples alone."""
    kind = type(value)
    if kind is int or kind is str or kind is bytes or value is None:
        return True
    return kind is tuple and all(_plain(v) for v in value)  # type: ignore[attr-defined]


class ClassGame:
    """The `Game` protocol over an instance of a user's class, each call checked."""

    def __init__(self, instance: Any, class_name: str, spec_text: str) -> None:
        self.instance = instance
        self.class_name = class_name
        self.spec_text = spec_text
        self.name: str = instance.name.strip()
        # The class's own methods, unchecked, for a hot loop that checks their results itself.
        self.fast_moves: Callable[[Any], Iterable[tuple[str, Any]]] = instance.moves
        self.fast_outcome: Callable[[Any], object] = instance.outcome
        self.fast_text: Callable[[Any], str] = instance.text
        symmetries = getattr(instance, "symmetries", None)
        self.has_symmetries = callable(symmetries)
        self._symmetries: Callable[[Any], Iterable[Any]] | None = \
            symmetries if callable(symmetries) else None
        self._drawing: object = _UNASKED
        self._tiers: object = _UNASKED

    # --- faults --------------------------------------------------------------------

    def shown(self, position: Any) -> str:
        """The position as a message names it: its text, else its repr (where text fails)."""
        try:
            text = self.instance.text(position)
            if isinstance(text, str):
                return repr(text[:80])
        except Exception:
            pass
        return f"{position!r:.80}"

    def fault(self, method: str, position: Any, problem: str) -> GameFault:
        """The GameFault of `method` at `position`: one line naming the class and the method."""
        where = "" if method == "start" else f" at position {self.shown(position)}"
        return GameFault(f"{self.spec_text}: {self.class_name}.{method}(){where}: {problem}")

    def raised(self, method: str, position: Any, error: Exception) -> GameFault:
        """The GameFault of an exception raised by `method` at `position`."""
        return self.fault(method, position, f"raised {type(error).__name__}: {error}")

    # --- the protocol, checked ------------------------------------------------------

    def start(self) -> Position:
        """The class's start position, checked hashable."""
        try:
            position = self.instance.start()
        except Exception as e:
            raise self.raised("start", None, e) from e
        self.check_hashable("start", position, position)
        return position

    def check_hashable(self, method: str, at: Any, position: Any) -> None:
        """GameFault unless `position` (returned by `method` at `at`) is hashable."""
        if type(position) is int:  # the commonest position, hashable for sure
            return
        if not isinstance(position, Hashable):
            raise self.fault(method, at, f"returned a position that is not hashable"
                                         f" ({type(position).__name__})")
        try:
            hash(position)
        except Exception as e:
            raise self.fault(method, at, f"returned a position that is not hashable ({e})") from e

    def moves(self, position: Position) -> list[tuple[str, Position]]:
        """The class's moves at `position`, checked: (name, hashable position) pairs."""
        try:
            found = list(self.instance.moves(position))
        except Exception as e:
            raise self.raised("moves", position, e) from e
        for pair in found:
            if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
                raise self.fault("moves", position, f"gave {pair!r:.60}, not a pair (move"
                                                    " name, position after it)")
            self.check_hashable("moves", position, pair[1])
        return found

    def outcome(self, position: Position) -> int | None:
        """The class's outcome at `position`, checked: None, or -1, 0 or +1."""
        try:
            found = self.instance.outcome(position)
        except Exception as e:
            raise self.raised("outcome", position, e) from e
        return self.checked_outcome(position, found)

    def checked_outcome(self, position: Position, found: object) -> int | None:
        """`found` as an outcome, or GameFault: None or one of -1, 0, +1 (ints, not bools)."""
        if found is None:
            return None
        if type(found) is not int or found not in OUTCOMES:
            raise self.fault("outcome", position, f"returned {found!r:.40}; an outcome is +1"
                                                  " (won), 0 (drawn), -1 (lost) or None")
        return found

    def text(self, position: Position) -> str:
        """The class's text of `position`, checked: one line."""
        try:
            found = self.instance.text(position)
        except Exception as e:
            raise self.raised("text", position, e) from e
        if not isinstance(found, str) or not found or "\n" in found or "\r" in found:
            raise self.fault("text", position, f"returned {found!r:.60}; a position's text is"
                                               " one non-empty line")
        return found

    def read(self, text: str) -> Position:
        """The position `text` names: InvalidPositionError with the class's message where its
        `read` raises ValueError; GameFault for any other exception or a position whose text
        is not `text` again (the class must read what it writes)."""
        try:
            position = self.instance.read(text)
        except ValueError as e:
            raise InvalidPositionError(f"{self.name}: cannot read {text!r:.80}: {e}") from e
        except Exception as e:
            raise self.fault("read", None, f"raised {type(e).__name__}: {e} reading"
                                           f" {text!r:.80}") from e
        self.check_hashable("read", position, position)
        return position

    def check_reads_back(self, position: Position, text: str) -> None:
        """GameFault unless reading `text` (the position's own text) gives the position back."""
        try:
            again = self.instance.read(text)
        except Exception as e:
            raise self.fault("read", position, f"cannot read its own text {text!r:.80}"
                                               f" ({type(e).__name__}: {e})") from e
        if again != position:
            raise self.fault("read", position, f"reading its text {text!r:.80} gives another"
                                               f" position ({again!r:.60})")

    def refusal(self, position: Position, said: str, names: list[str]) -> str:
        """Why `said` is not one of the moves `names` at `position`: the class's own line where
        it has a `why_not(position, move)` method (its fault, where it fails, is the class's),
        else the moves there are."""
        why_not = getattr(self.instance, "why_not", None)
        if callable(why_not):
            try:
                found = why_not(position, said)
            except Exception as e:
                raise self.raised("why_not", position, e) from e
            if isinstance(found, str) and found and "\n" not in found:
                return found
        return "the moves here are " + (", ".join(names) if names else "none: the game is over")

    def positions_at_most(self) -> int | None:
        """The class's `positions_at_most()` where it has one (a bound on the positions its
        start reaches: a build too large refuses before it starts), checked; else None."""
        bound = getattr(self.instance, "positions_at_most", None)
        if not callable(bound):
            return None
        try:
            found = bound()
        except Exception as e:
            raise self.raised("positions_at_most", None, e) from e
        if type(found) is not int or found < 1:
            raise self.fault("positions_at_most", None, f"returned {found!r:.40}; a bound is a"
                                                        " positive int")
        return found

    def tiers(self) -> RankedGame | None:
        """The game as ranked tiers where the class gives them (`ranked()`: compiled kernels
        of each tier, builder/games/ranked_tiers.py; a build solves them tier by tier rather
        than walking the positions), else None. Asked of the class once: its tables are
        made once."""
        if self._tiers is _UNASKED:
            self._tiers = self._checked_tiers()
        return self._tiers  # type: ignore[return-value]

    def _checked_tiers(self) -> RankedGame | None:
        ranked = getattr(self.instance, "ranked", None)
        if not callable(ranked):
            return None
        try:
            found = ranked()
        except Exception as e:
            raise self.raised("ranked", None, e) from e
        if not (callable(getattr(found, "ranked_tiers", None))
                and callable(getattr(found, "locate", None))):
            raise self.fault("ranked", None, "returned no ranked tiers (ranked_tiers, locate)")
        return found

    def drawing(self) -> dict[str, Any] | None:
        """What the page draws the board from where the class has a `layout()`: its points
        (each `name`, `x` from the left, `y` from the top) and the `edges` between them (pairs
        of the points' indices), checked; None where it has none. Asked of the class once:
        a board does not change."""
        if self._drawing is _UNASKED:
            self._drawing = self._checked_drawing()
        return self._drawing  # type: ignore[return-value]

    def _checked_drawing(self) -> dict[str, Any] | None:
        layout = getattr(self.instance, "layout", None)
        if not callable(layout):
            return None
        try:
            found = layout()
            points = [{"name": str(p["name"]), "x": float(p["x"]), "y": float(p["y"])}
                      for p in found["points"]]
            edges = [[int(a), int(b)] for a, b in found.get("edges", [])]
        except Exception as e:
            raise self.fault("layout", None, f"gave no points and edges ({type(e).__name__}:"
                                             f" {e}); a layout is {{'points': [{{'name', 'x',"
                                             " 'y'}, ...], 'edges': [[i, j], ...]}") from e
        if not points or any(not 0 <= i < len(points) for e in edges for i in e):
            raise self.fault("layout", None, "gave no points, or an edge to a point it lacks")
        return {"title": str(found.get("title", self.name)), "points": points, "edges": edges}

    def marks(self, position: Position, points: int) -> str:
        """What stands on each of the layout's `points` points at `position`, one character
        a point ('.' empty), from the class's `marks(position)`, checked."""
        try:
            found = self.instance.marks(position)
        except Exception as e:
            raise self.raised("marks", position, e) from e
        if not isinstance(found, str) or len(found) != points:
            raise self.fault("marks", position, f"returned {found!r:.60}; marks are one"
                                                f" character for each of the {points} points")
        return found

    def images(self, position: Position) -> list[Position]:
        """The class's symmetries of `position` (none where it has no such method), checked."""
        if self._symmetries is None:
            return []
        try:
            found = list(self._symmetries(position))
        except Exception as e:
            raise self.raised("symmetries", position, e) from e
        if not set(map(type, found)) <= _INT:  # ints are hashable: one pass in C for them
            for image in found:
                self.check_hashable("symmetries", position, image)
        return found

    def orbit(self, position: Position) -> list[Position]:
        """`position` and its images, each once, itself first."""
        if self._symmetries is None:
            return [position]
        # A dict keeps the first of equal images in order, in one pass in C.
        return list(dict.fromkeys([position, *self.images(position)]))

    def fast_key(self, position: Position) -> str:
        """What a table stores one position under, unchecked: its repr where the position is
        made of plain values alone (ints, strs, bytes, None and tuples of them: their reprs are
        the same in every process and equal values have equal reprs), else '~' and its text
        (no repr starts with '~'). A repr costs a tenth of most classes' `text`."""
        if type(position) is int or type(position) is str or _plain(position):
            return repr(position)
        return "~" + self.instance.text(position)

    def plain_keys(self, positions: list[Position]) -> list[str] | None:
        """`fast_key` of every position where all are ints or strs (their reprs: one line each,
        none alike, none starting with '~', so nothing about them needs checking), else None.
        One pass of `repr` over the list: a build's keys at the cost of a type check each."""
        if not set(map(type, positions)) <= {int, str}:
            return None
        return list(map(repr, positions))

    def root_key(self, position: Position) -> str:
        """What names a table that starts at `position`: the smallest text of its orbit (the
        catalogue's root, as users read it)."""
        return min(self.text(p) for p in self.orbit(position))

    def plain_numbers(self, positions: list[Position]) -> np.ndarray | None:
        """The positions as int64 where all are ints from 0 to below NUMBER_KEYS_BELOW (their
        keys are their reprs: decimal digits), else None."""
        if not set(map(type, positions)) <= _INT:
            return None
        try:
            numbers = np.array(positions, dtype=np.int64)
        except OverflowError:
            return None
        if len(numbers) and not (0 <= int(numbers.min()) and int(numbers.max()) < NUMBER_KEYS_BELOW):
            return None
        return numbers

    def position_of(self, key: str) -> Position:
        """The position a stored key names (`fast_key`'s inverse on its orbit): a repr read
        back (plain values only: literal_eval builds no other object), or after '~' the class's
        own text read."""
        return self.read(key[1:]) if key.startswith("~") else ast.literal_eval(key)

    def key(self, position: Position) -> str:
        """The smallest key of the position's orbit (`fast_key`): what a table stores it
        under."""
        return self.key_of(self.orbit(position))

    def key_of(self, orbit: list[Position]) -> str:
        """The smallest key of `orbit`, a position's orbit (`orbit`'s list)."""
        if set(map(type, orbit)) <= _INT:  # in C: ints' keys are their reprs
            return min(map(repr, orbit))
        return min(repr(p) if _plain(p) else "~" + self.text(p) for p in orbit)

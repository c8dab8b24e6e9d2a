"""`make bench`, section serve: `tablebase serve` answering the 4x4k4 table on loopback (or, by
hand, any built table: `python tests/bench_serve.py --spec 7x4k4+gravity --db c4.db`).

The server runs as its own process (`python -m tablebase serve`); the load comes from this one,
over keep-alive connections of the standard library's http.client, one per client thread.
Figures: one connection's p50 and p99; 8 concurrent clients for 10 s (requests per second,
p50, p99, errors, server memory before and after); a batch of 10,000 boards in one POST; then
8 clients asking 7x7k5 positions no table holds (each searched for up to 2 s on the server's
bounded pool, or refused with 503) while 8 others ask the table: the table answers' rate and
p99, the searched answers' times and refusals, other errors, memory.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
SPEC = "4x4k4"
CLIENTS, SECONDS, SINGLE_REQUESTS, BATCH = 8, 10.0, 2000, 10_000
SEARCH, SEARCH_SPEC = 2.0, "7x7k5"  # the server's --search budget and the searched game


def _rss_mib(pid: int) -> float:
    """Resident memory of a process, in MiB (Linux)."""
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", text).group(1)) / 1024  # type: ignore[union-attr]


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _boards(path: str, spec: str, n: int) -> list[str]:
    """`n` stored positions of the table, as board text: chosen at random among its codes, or
    for a table too large to load, reached by random play (any orientation: the server finds
    the stored one)."""
    import random

    import numpy as np

    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import board_text, board_texts
    from tablebase.query import open_tablebase
    from tablebase.query.tables import LOAD_LIMIT
    from tests.reference import Game
    from tests.sample_check import random_position

    rules = parse_spec(spec)
    with open_tablebase(path) as tb:
        if tb.table(spec).count <= LOAD_LIMIT:
            codes = tb.table(spec).load().codes
            picks = codes[np.random.default_rng(1).integers(0, len(codes), n)]
            return board_texts(rules, picks)
    game, rng = Game(spec), random.Random(1)
    return [board_text(rules, random_position(game, rng.randint(0, game.n), rng))
            for _ in range(n)]


def _get(conn: http.client.HTTPConnection, path: str) -> int:
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return response.status


def _start(path: str) -> tuple[subprocess.Popen[str], str, int]:
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", "--db", path, "--port", "0",
                             "--search", f"{SEARCH:g}"],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    found = re.search(r"http://(127\.0\.0\.1):(\d+)/", line)
    if found is None:
        proc.kill()
        raise RuntimeError(f"serve did not start: {line!r}")
    return proc, found.group(1), int(found.group(2))


def _searched_paths(n: int) -> list[str]:
    """`n` different 7x7k5 positions of 4 to 6 stones, none held by a table: searched."""
    import random

    rng, cells = random.Random(7), [f"{c}{r}" for c in "abcdefg" for r in range(1, 8)]
    return [f"/api/{SEARCH_SPEC}?moves=" + "%20".join(rng.sample(cells, rng.randint(4, 6)))
            for _ in range(n)]


def _mixed(host: str, port: int, proc: subprocess.Popen[str], paths: list[str]) -> None:
    """CLIENTS asking searched positions and CLIENTS asking table positions for SECONDS."""
    searched_paths = _searched_paths(4000)
    table_ms: list[float] = []
    searched_s: list[float] = []
    refused_s: list[float] = []
    other: list[int] = []
    lock = threading.Lock()
    def warm(path: str) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        _get(conn, path)
        conn.close()

    # As many searches at once as the server runs (one a core): each search thread has made
    # its searcher before memory is read.
    _together([threading.Thread(target=warm, args=(p,))
               for p in searched_paths[:os.cpu_count() or 1]])
    rss_before = _rss_mib(proc.pid)
    deadline = time.perf_counter() + SECONDS

    def asker(i: int, searching: bool) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        j = i
        while time.perf_counter() < deadline:
            path = searched_paths[j % len(searched_paths)] if searching else paths[j % len(paths)]
            start = time.perf_counter()
            try:
                status = _get(conn, path)
            except (OSError, http.client.HTTPException):
                status = 0
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=30)
            took = time.perf_counter() - start
            with lock:
                if status == 200:
                    (searched_s if searching else table_ms).append(
                        took if searching else took * 1000)
                elif status == 503 and searching:
                    refused_s.append(took)
                else:
                    other.append(status)
            if status == 503:
                time.sleep(0.25)  # a polite client waits a little before it asks again
            j += CLIENTS
        conn.close()

    elapsed = _together([threading.Thread(target=asker, args=(i, searching))
                         for searching in (True, False) for i in range(CLIENTS)])
    rss_after = _rss_mib(proc.pid)
    print(f"serve with searches: {CLIENTS} clients ask {SEARCH_SPEC} positions no table holds"
          f" (searched for up to {SEARCH:g} s, or 503) while {CLIENTS} ask the table, {SECONDS:g} s")
    _row("table answers a second", f"{len(table_ms) / elapsed:,.0f} req/s", ">= 500 req/s")
    _row("table answers p99", f"{_percentile(table_ms, 0.99):.2f} ms", "<= 25 ms")
    _row("searched answers, slowest", f"{max(searched_s, default=0):.2f} s ({len(searched_s)})",
         f"<= {SEARCH + 1:g} s")
    _row("refused with 503, slowest", f"{max(refused_s, default=0) * 1000:.1f} ms"
         f" ({len(refused_s)})", "at once")
    _row("other errors", f"{len(other)}", "0")
    _row("server memory after warm-up / after the load", f"{rss_before:.0f} / {rss_after:.0f}"
         " MiB", "flat")


def _together(threads: list[threading.Thread]) -> float:
    """Run the threads at once; the seconds until the last has finished."""
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started


def _row(name: str, figure: str, target: str = "") -> None:
    print(f"  {name:<44}{figure:>16}" + (f"   target {target}" if target else ""))


def bench_serve(spec: str = SPEC, db: str | None = None) -> None:
    """Print the serving figures against their targets: on `spec` built here, or on the
    database `db` that holds it."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.pipeline import build

    with tempfile.TemporaryDirectory() as tmp:
        path = db or os.path.join(tmp, "bench.db")
        if db is None:
            build(parse_spec(spec), path)
        boards = _boards(path, spec, 20_000)
        paths = [f"/api/{spec}?board={quote(b)}" for b in boards]
        proc, host, port = _start(path)
        try:
            conn = http.client.HTTPConnection(host, port)
            for p in paths[:200]:  # warm up: the table opens, the code paths are hot
                _get(conn, p)
            single = []
            for p in paths[:SINGLE_REQUESTS]:
                start = time.perf_counter()
                assert _get(conn, p) == 200
                single.append((time.perf_counter() - start) * 1000)
            conn.close()

            rss_before = _rss_mib(proc.pid)
            latencies: list[list[float]] = [[] for _ in range(CLIENTS)]
            errors = [0] * CLIENTS
            deadline = time.perf_counter() + SECONDS

            def client(i: int) -> None:
                conn = http.client.HTTPConnection(host, port, timeout=10)
                j = i
                while time.perf_counter() < deadline:
                    start = time.perf_counter()
                    try:
                        ok = _get(conn, paths[j % len(paths)]) == 200
                    except (OSError, http.client.HTTPException):
                        ok = False
                        conn.close()
                        conn = http.client.HTTPConnection(host, port, timeout=10)
                    latencies[i].append((time.perf_counter() - start) * 1000)
                    errors[i] += not ok
                    j += CLIENTS
                conn.close()

            elapsed = _together([threading.Thread(target=client, args=(i,))
                                 for i in range(CLIENTS)])
            rss_after = _rss_mib(proc.pid)
            loaded = [x for lat in latencies for x in lat]

            body = json.dumps(boards[:BATCH]).encode()
            conn = http.client.HTTPConnection(host, port, timeout=30)
            batch_ms = []
            for _ in range(6):  # the first loads the whole table into memory, once per game
                start = time.perf_counter()
                conn.request("POST", f"/api/{spec}/probe", body,
                             {"Content-Type": "application/json"})
                response = conn.getresponse()
                answer = json.loads(response.read())
                batch_ms.append((time.perf_counter() - start) * 1000)
                assert response.status == 200 and len(answer) == BATCH
            conn.close()
            _report(spec, single, loaded, elapsed, errors, rss_before, rss_after, batch_ms)
            _mixed(host, port, proc, paths)
        finally:
            proc.terminate()
            proc.wait()


def _report(spec: str, single: list[float], loaded: list[float], elapsed: float,
            errors: list[int], rss_before: float, rss_after: float, batch_ms: list[float]) -> None:
    """The table-only figures."""
    row = _row
    print(f"serve: `tablebase serve` on loopback, GET /api/{spec}?board=... (the moves object)"
          " on random stored positions; load from a second process")
    row("one connection p50", f"{_percentile(single, 0.5):.2f} ms", "<= 5 ms")
    row("one connection p99", f"{_percentile(single, 0.99):.2f} ms", "<= 25 ms")
    row(f"{CLIENTS} clients, {SECONDS:.0f} s: requests per second",
        f"{len(loaded) / elapsed:,.0f} req/s", ">= 1,000 req/s")
    row(f"{CLIENTS} clients: p50", f"{_percentile(loaded, 0.5):.2f} ms")
    row(f"{CLIENTS} clients: p99", f"{_percentile(loaded, 0.99):.2f} ms")
    row(f"{CLIENTS} clients: errors", f"{sum(errors)} of {len(loaded):,}", "0")
    row("server memory before / after the load", f"{rss_before:.0f} / {rss_after:.0f} MiB",
        "flat")
    row(f"POST {BATCH:,} boards, first (loads a small table)", f"{batch_ms[0]:.0f} ms")
    row(f"POST {BATCH:,} boards, median of the next 5",
        f"{sorted(batch_ms[1:])[2]:.0f} ms", "<= 100 ms")


if __name__ == "__main__":
    import argparse

    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default=SPEC)
    parser.add_argument("--db", help="a database that holds the table (default: build it)")
    args = parser.parse_args()
    bench_serve(args.spec, args.db)

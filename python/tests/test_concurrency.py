"""Threads, asyncio and processes: the GIL is released while Rust works, so queries on one
handle overlap in time; a read-only handle reads beside a writer in another process."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Tuple

import pytest

import cairn

# Three hops from a prolific author: long enough (milliseconds) for calls to overlap.
HEAVY = (
    'EXPLORE "papers near co-authors" FROM Author "a1" VIA AUTHORED -> <AUTHORED -> AUTHORED '
    "TARGET Paper BEAM 16 BUDGET 5000 RETURN NODES LIMIT 20"
)


def overlapping(a: List[Tuple[float, float]], b: List[Tuple[float, float]]) -> int:
    """How many pairs of intervals, one of each list, overlap."""
    return sum(1 for s1, e1 in a for s2, e2 in b if s1 < e2 and s2 < e1)


def test_two_threads_query_while_a_third_writes(academic) -> None:
    rounds = 15
    spans: List[List[Tuple[float, float]]] = [[], [], []]
    counts: List[List[int]] = [[], []]
    errors: List[BaseException] = []
    start = threading.Barrier(3)

    def reader(i: int) -> None:
        try:
            start.wait()
            for _ in range(rounds):
                t0 = time.perf_counter()
                found = academic.explore(HEAVY)
                spans[i].append((t0, time.perf_counter()))
                counts[i].append(len(found))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def writer() -> None:
        try:
            start.wait()
            for k in range(rounds):
                t0 = time.perf_counter()
                with academic.transaction() as tx:
                    p = tx.upsert_node("Paper", f"new{k}", {"title": f"Fresh paper {k}"})
                    tx.add_edge(("Author", "a1"), "AUTHORED", p)
                spans[2].append((t0, time.perf_counter()))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=reader, args=(0,)), threading.Thread(target=reader, args=(1,)),
               threading.Thread(target=writer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    assert all(len(s) == rounds for s in spans)
    assert all(c > 0 for c in counts[0] + counts[1])
    # With the GIL held while Rust works, no call of one thread could start while another
    # thread's call runs: overlapping calls show it is released.
    assert overlapping(spans[0], spans[1]) > 0
    assert overlapping(spans[0] + spans[1], spans[2]) > 0
    a1 = academic.node("Author", "a1")
    papers = {n.key for n in academic.neighbors(a1, direction="out", limit=10_000)}
    assert {f"new{k}" for k in range(rounds)} <= papers


def test_asyncio_run_in_executor_does_not_serialise(academic) -> None:
    async def main() -> List[Tuple[float, float]]:
        loop = asyncio.get_running_loop()
        spans: List[Tuple[float, float]] = []

        def timed() -> None:
            t0 = time.perf_counter()
            academic.explore(HEAVY)
            spans.append((t0, time.perf_counter()))

        with ThreadPoolExecutor(max_workers=2) as pool:
            await asyncio.gather(*(loop.run_in_executor(pool, timed) for _ in range(12)))
        return spans

    spans = asyncio.run(main())
    assert len(spans) == 12
    assert overlapping(spans, spans) > len(spans)  # more than each span with itself


WRITER = textwrap.dedent(
    """
    import sys, cairn
    db = cairn.open(sys.argv[1])
    for line in sys.stdin:
        key = line.strip()
        if key == "quit":
            break
        with db.transaction() as tx:
            tx.upsert_node("Author", key, {"name": "Written by the other process"})
        print("committed", key, flush=True)
    db.close()
    """
)


def test_read_only_beside_a_writer_process(tmp_path: Path) -> None:
    path = tmp_path / "shared.cairn"
    with cairn.open(path) as db:
        with db.transaction() as tx:
            tx.upsert_node("Author", "first", {"name": "Before the writer"})
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        def write(key: str) -> None:
            assert writer.stdin and writer.stdout
            writer.stdin.write(key + "\n")
            writer.stdin.flush()
            assert writer.stdout.readline().split() == ["committed", key]

        write("w1")
        # the writer holds the database: a second writer is refused, a reader is not
        with pytest.raises(cairn.DatabaseLockedError, match="read_only=True"):
            cairn.open(path)
        reader = cairn.open(path, read_only=True)
        assert reader.node("Author", "w1").name == "Written by the other process"
        write("w2")
        assert reader.node("Author", "w2") is None  # as of the open
        assert reader.catch_up()
        assert reader.node("Author", "w2") is not None
        assert not reader.catch_up()
        with pytest.raises(cairn.ReadOnlyError):
            with reader.transaction():
                pass
        with pytest.raises(cairn.ReadOnlyError):
            reader.execute('UPSERT Author "r1"')
        with pytest.raises(cairn.ReadOnlyError):
            reader.import_records([{"type": "node", "label": "Author", "key": "r1"}])
        found = reader.explore('EXPLORE "authors" FROM Author "w2"')
        assert found.stop
        reader.close()
    finally:
        if writer.stdin:
            writer.stdin.write("quit\n")
            writer.stdin.close()
        assert writer.wait(timeout=60) == 0
    with cairn.open(path, read_only=True) as db:
        assert db.node("Author", "r1") is None
        assert db.node("Author", "w2") is not None

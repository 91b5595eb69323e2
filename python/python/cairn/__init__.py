"""Cairn, an embedded graph database with an agent query language, from Python.

    import cairn

    db = cairn.open("academic.cairn")                # read-write; read_only=True beside a writer
    db.import_files(["./dump"])                      # a `cairn generate` dump, or your own
    found = db.explore('EXPLORE "co-authors" FROM Author "a1" VIA AUTHORED -> <AUTHORED TARGET Author')
    for r in found:
        print(r.score, r.label, r.name)
    found.to_pandas()                                # one row per result (pandas installed)
    found.to_networkx()                              # the evidence paths as a graph

    with db.transaction() as tx:                     # commits on exit, rolls back on an exception
        a = tx.upsert_node("Author", "a9", {"name": "Ann Lee"})
        tx.add_edge(a, "AUTHORED", ("Paper", "p1"))

The work runs in Rust with the GIL released: threads (and asyncio's ``run_in_executor``) run
queries at the same time. Errors are the exceptions of :mod:`cairn.errors`. The statement
language is docs/LANGUAGE.md of the repository; the API is docs/PYTHON.md.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from os import PathLike
from typing import (
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _native
from .errors import (
    AskError,
    ClosedError,
    DatabaseError,
    DatabaseLockedError,
    DatabaseNotFoundError,
    Error,
    ImportDataError,
    InvalidInputError,
    QueryError,
    ReadOnlyError,
    TransactionError,
    WriterBusyError,
)

__version__: str = _native.__version__

__all__ = [
    "open",
    "Database",
    "Transaction",
    "LLM",
    "Exploration",
    "ResultNode",
    "PathStep",
    "Answer",
    "AnswerItem",
    "Node",
    "Neighbor",
    "Neighbors",
    "SearchHit",
    "Schema",
    "ImportSummary",
    "Error",
    "QueryError",
    "DatabaseError",
    "DatabaseNotFoundError",
    "DatabaseLockedError",
    "ReadOnlyError",
    "WriterBusyError",
    "ClosedError",
    "InvalidInputError",
    "ImportDataError",
    "TransactionError",
    "AskError",
]

Value = Union[None, bool, int, float, str, List[Any]]
"""A property value: None, bool, int (64-bit), float, str, or a list of them."""

NodeRef = Union[int, Tuple[str, str]]
"""A node named by its id, or by its (label, key)."""


# ---- results ------------------------------------------------------------------------------


class PathStep(NamedTuple):
    """One edge of an evidence path, in the direction it was followed."""

    source: int
    relation: str
    reversed: bool
    """True when the edge was followed against its direction (``<R`` in a VIA path)."""
    target: int


class ResultNode(NamedTuple):
    """A result of an exploration with the path that reached it (its evidence)."""

    id: int
    label: str
    key: str
    name: str
    """Display name: the name or title property, else the key."""
    score: float
    """The relevance it was reached with (higher is better)."""
    semantic: float
    """Its similarity to the goal, in [0, 1]."""
    hops: int
    path: List[PathStep]
    """Entry → … → this node."""


def _result(t: Tuple[Any, ...]) -> ResultNode:
    return ResultNode(t[0], t[1], t[2], t[3], t[4], t[5], t[6], [PathStep._make(s) for s in t[7]])


class _Paths:
    """What explorations and answers share: a graph of their evidence paths."""

    _db: "Database"

    def _paths(self) -> Iterable[Tuple[Optional[int], List[PathStep], Dict[str, Any]]]:
        raise NotImplementedError

    def to_networkx(self) -> Any:
        """The evidence as a ``networkx.MultiDiGraph``: every node on a path (attributes
        ``label``, ``key``, ``name``; results also ``score`` or ``value``) and every edge once,
        in its stored direction, with its ``relation`` (the edge key). Needs networkx."""
        import networkx as nx

        g = nx.MultiDiGraph()
        ids: List[int] = []
        for node, steps, _ in self._paths():
            if node is not None:
                ids.append(node)
            for s in steps:
                ids.extend((s.source, s.target))
        unique = list(dict.fromkeys(ids))
        for n in self._db.nodes(unique):
            if n is not None:
                g.add_node(n.id, label=n.label, key=n.key, name=n.name)
        for node, steps, attrs in self._paths():
            if node is not None and node in g:
                g.nodes[node].update(attrs)
            for s in steps:
                a, b = (s.target, s.source) if s.reversed else (s.source, s.target)
                if not g.has_edge(a, b, key=s.relation):
                    g.add_edge(a, b, key=s.relation, relation=s.relation)
        return g


class Exploration(_Paths):
    """What an EXPLORE statement found: the results best first, why the search stopped, how
    sufficient the evidence was, and counters. Iterating, ``len`` and indexing go over the
    results."""

    results: List[ResultNode]
    stop: str
    """Why the search stopped: ``sufficient``, ``stale``, ``exhausted``, ``budget cap``, …"""
    sufficiency: float
    stats: Dict[str, Any]
    returns: str
    """What the statement asked for: ``NODES``, ``PATHS``, ``SUBGRAPH``, ``COUNT``, …"""
    count: Optional[int]
    """The exact count of a ``RETURN COUNT`` statement (then ``results`` is empty)."""
    trace: List[Dict[str, Any]]
    """Every search decision, with ``trace=True`` or ``RETURN TRACE``."""

    def __init__(self, raw: Tuple[Any, ...], db: "Database") -> None:
        results, self.stop, self.sufficiency, self.stats, self.returns, self.count, self.trace = raw
        self.results = [_result(r) for r in results]
        self._db = db

    columns: Sequence[str] = ("id", "label", "key", "name", "score", "semantic", "hops", "path")
    """The columns of :meth:`to_pandas` (a result's fields)."""

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[ResultNode]:
        return iter(self.results)

    def __getitem__(self, i: int) -> ResultNode:
        return self.results[i]

    def __repr__(self) -> str:
        return (
            f"<Exploration {len(self.results)} result(s), stopped: {self.stop}, "
            f"sufficiency {self.sufficiency:.2f}>"
        )

    def rows(self) -> List[Dict[str, Any]]:
        """The results as dicts, one per result, keyed by :attr:`columns`."""
        return [r._asdict() for r in self.results]

    def to_pandas(self) -> Any:
        """The results as a ``pandas.DataFrame`` (one row per result, best first)."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(self.columns))

    def evidence(self, result: ResultNode) -> str:
        """A result's path in words: ``Ann -AUTHORED-> Paper X <-AUTHORED- Bo``."""
        return _path_text(self._db, result.path, result.id)

    def _paths(self) -> Iterable[Tuple[Optional[int], List[PathStep], Dict[str, Any]]]:
        for r in self.results:
            yield r.id, r.path, {"score": r.score}


def _path_text(db: "Database", steps: List[PathStep], end: Optional[int]) -> str:
    ids = [s.source for s in steps] + ([end] if end is not None else [])
    if not ids:
        return ""
    names = [n.name if n is not None else f"#{i}" for i, n in zip(ids, db.nodes(ids))]
    out = names[0]
    for s, name in zip(steps, names[1:]):
        out += f" <-{s.relation}- {name}" if s.reversed else f" -{s.relation}-> {name}"
    return out


class AnswerItem(NamedTuple):
    """One item of an answer with its evidence path."""

    id: Optional[int]
    """The node the item is about (``None``: it names nothing in the graph)."""
    label: str
    key: str
    name: str
    value: Optional[str]
    """For attribute questions: the property value, as text."""
    support: Optional[float]
    path: List[PathStep]


class Answer(_Paths):
    """An ASK answer: its text, items with evidence, how the validator judged it, and the plan
    that found it. ``id`` names it to :meth:`Database.feedback`."""

    def __init__(self, raw: Dict[str, Any], db: "Database") -> None:
        self._db = db
        self.question: str = raw["question"]
        self.type: str = raw["type"]
        self.text: str = raw["text"]
        self.values: List[str] = raw["values"]
        self.count: Optional[int] = raw["count"]
        self.items: List[AnswerItem] = [
            AnswerItem(
                i["id"], i["label"], i["key"], i["name"], i["value"], i["support"],
                [PathStep._make(s) for s in i["path"]],
            )
            for i in raw["items"]
        ]
        self.uncertain: bool = raw["uncertain"]
        self.partial: bool = raw["partial"]
        self.by_llm: bool = raw["by_llm"]
        self.validation: Dict[str, Any] = raw["validation"]
        self.plan: str = raw["plan"]
        self.judge: str = raw["judge"]
        self.expansions: int = raw["expansions"]
        self.regenerations: int = raw["regenerations"]
        self.id: Optional[int] = raw["answer_id"]

    def __repr__(self) -> str:
        flag = " (uncertain)" if self.uncertain else ""
        return f"<Answer {self.type}{flag}: {self.text!r}>"

    def __str__(self) -> str:
        return self.text

    def to_pandas(self) -> Any:
        """The items as a ``pandas.DataFrame``."""
        import pandas as pd

        return pd.DataFrame([i._asdict() for i in self.items], columns=list(AnswerItem._fields))

    def evidence(self, item: AnswerItem) -> str:
        """An item's path in words."""
        return _path_text(self._db, item.path, item.id)

    def _paths(self) -> Iterable[Tuple[Optional[int], List[PathStep], Dict[str, Any]]]:
        for i in self.items:
            yield i.id, i.path, ({"value": i.value} if i.value is not None else {})


@dataclass(frozen=True)
class Node:
    """A node as an agent reads it: what it is, its one-sentence description (its own, else
    "Label: name."), its degrees and its properties."""

    id: int
    label: str
    key: str
    name: str
    description: str
    out_degree: int
    in_degree: int
    properties: Dict[str, Value] = field(default_factory=dict)

    def __getitem__(self, prop: str) -> Value:
        """A property's value (``KeyError`` when the node has none)."""
        return self.properties[prop]

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def _node(raw: Optional[Dict[str, Any]]) -> Optional[Node]:
    return None if raw is None else Node(**raw)


class Neighbor(NamedTuple):
    """One edge seen from a node: its relation type, which way it points (``"out"``: it leaves
    the node listed from), and the node at the other end."""

    relation: str
    direction: str
    id: int
    label: str
    key: str
    name: str


class Neighbors(List[Neighbor]):
    """A node's neighbours (a list), at most the limit asked for; ``total`` is how many edges
    matched before the limit, ``by_relation`` (relation, direction, edges) counts them all by
    relation type, most first."""

    total: int
    by_relation: List[Tuple[str, str, int]]

    def __init__(
        self, items: Iterable[Neighbor], total: int, by_relation: List[Tuple[str, str, int]]
    ) -> None:
        super().__init__(items)
        self.total = total
        self.by_relation = by_relation

    def to_pandas(self) -> Any:
        import pandas as pd

        return pd.DataFrame([n._asdict() for n in self], columns=list(Neighbor._fields))


class SearchHit(NamedTuple):
    """A node a search found, with its score (an order: higher is better)."""

    node: Node
    score: float


@dataclass(frozen=True)
class Schema:
    """Labels and relation types (with their annotations, endpoints and parents), property
    keys, the embedder, and RocksDB's estimates of the numbers of nodes and edges."""

    labels: List[Dict[str, Any]]
    relations: List[Dict[str, Any]]
    properties: List[str]
    embedder: Optional[str]
    approx_nodes: int
    approx_edges: int

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ImportSummary:
    """What an import did. ``skipped`` lists (file, line, reason) of bad lines it skipped
    under ``max_errors``."""

    records: int
    nodes_created: int
    nodes_updated: int
    nodes_unchanged: int
    edges_created: int
    edges_updated: int
    edges_unchanged: int
    vectors_computed: int
    seconds: float
    skipped: List[Tuple[str, int, str]]


@dataclass(frozen=True)
class LLM:
    """Which OpenAI-compatible chat endpoint ``ask`` may use, and for which agents.

    Without ``base_url`` the settings come from the environment as for ``cairn ask --llm``
    (``CAIRN_LLM_BASE_URL``, ``CAIRN_LLM_MODEL``, ``CAIRN_LLM_API_KEY``, …). ``agents`` are
    any of ``"planner"``, ``"judge"``, ``"answerer"``; a failing endpoint falls back to the
    offline agent with a warning (docs/AGENTS.md).
    """

    base_url: Optional[str] = None
    model: Optional[str] = None
    api_key: Optional[str] = None
    timeout: Optional[float] = None
    """Seconds per request (default 60)."""
    retries: Optional[int] = None
    agents: Sequence[str] = ("planner", "judge", "answerer")


def _output(kind: str, payload: Any, db: "Database") -> Union[Exploration, Answer, str]:
    if kind == "exploration":
        return Exploration(payload, db)
    if kind == "answer":
        return Answer(payload, db)
    return str(payload)


# ---- the database -------------------------------------------------------------------------


class Database:
    """An open Cairn database. ``cairn.open(path)`` opens one.

    One process writes a database at a time; other processes open it with ``read_only=True``
    and see the writer's last commit as of the open or the last :meth:`catch_up`. Within a
    process one handle serves every thread. Use it as a context manager to close it.
    """

    def __init__(
        self,
        path: Union[str, "PathLike[str]"],
        *,
        read_only: bool = False,
        create: bool = True,
    ) -> None:
        """Opens the database at ``path``, creating it unless ``create=False`` or
        ``read_only=True`` (a missing one is then :class:`DatabaseNotFoundError`)."""
        self._native = _native.Database(path, read_only, create)

    # -- the handle --

    @property
    def path(self) -> str:
        return str(self._native.path)

    @property
    def read_only(self) -> bool:
        return self._native.read_only

    @property
    def closed(self) -> bool:
        return self._native.closed

    def close(self) -> None:
        """Closes the handle: later calls raise :class:`ClosedError`. Calls still running
        finish first; an open transaction of this handle keeps the store open until it ends."""
        self._native.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("read-only" if self.read_only else "read-write")
        return f"<cairn.Database {self.path!r} {state}>"

    def warm(self) -> float:
        """Builds the in-memory node table and loads the vector index now (a service does this
        at start; otherwise the first queries start the build in the background and read the
        store until it is ready). Returns the seconds it took."""
        return self._native.warm()

    def catch_up(self) -> bool:
        """Brings a read-only handle up to the writer's latest commit; whether anything
        changed."""
        return self._native.catch_up()

    # -- loading --

    def import_files(
        self,
        paths: Union[str, "PathLike[str]", Sequence[Union[str, "PathLike[str]"]]],
        *,
        max_errors: int = 0,
        embedder: str = "database",
    ) -> ImportSummary:
        """Bulk-imports dump files (JSON Lines, CSV, triples, gzipped or not; a directory means
        the files in it). All or nothing: a bad line aborts with :class:`ImportDataError` and
        the database unchanged, unless ``max_errors`` lets that many be skipped. ``embedder``:
        ``"database"`` (the one the database records; a new database records none and stores
        only supplied vectors, SEARCH's words being the full-text index's), ``"hash"`` or
        ``"none"``."""
        if isinstance(paths, (str, PathLike)):
            paths = [paths]
        return ImportSummary(**self._native.import_files(list(paths), max_errors, embedder))

    def import_records(
        self,
        records: Iterable[Dict[str, Any]],
        *,
        max_errors: int = 0,
        embedder: str = "database",
    ) -> ImportSummary:
        """Bulk-imports records built in memory, each a dict as one line of a JSON Lines dump:

            {"type": "node", "label": "Author", "key": "a1", "props": {"name": "Ann"}}
            {"type": "edge", "rel": "AUTHORED", "from": {"label": "Author", "key": "a1"},
             "to": {"label": "Paper", "key": "p1"}}

        The same path and guarantees as :meth:`import_files`."""
        lines = [json.dumps(r) for r in records]
        return ImportSummary(**self._native.import_records(lines, max_errors, embedder))

    # -- statements --

    def explore(self, statement: str, *, trace: bool = False) -> Exploration:
        """Runs an EXPLORE statement; ``trace=True`` records every search decision in
        :attr:`Exploration.trace`. A bad statement is :class:`QueryError` with its position."""
        return Exploration(self._native.explore(statement, trace), self)

    def execute(self, statement: str) -> Union[Exploration, Answer, str]:
        """Runs any one statement: an EXPLORE gives an :class:`Exploration`, an ASK an
        :class:`Answer`, the rest (data statements, SHOW, DESCRIBE, CREATE INDEX, …) the text
        the REPL prints. A data statement commits alone; ``BEGIN`` is refused: use
        :meth:`transaction`."""
        kind, payload = self._native.execute(statement)
        return _output(kind, payload, self)

    def explain(self, statement: str) -> str:
        """The compiled plan of a statement with every default filled in."""
        return self._native.explain(statement)

    def ask(self, question: str, *, llm: Union[LLM, None] = None) -> Answer:
        """Answers a question in plain language (plan, explore, judge, answer, validate);
        offline unless ``llm`` names a chat endpoint (:class:`LLM`)."""
        settings = None
        if llm is not None:
            settings = {k: v for k, v in asdict(llm).items() if v is not None}
            settings["agents"] = list(llm.agents)
        return Answer(self._native.ask(question, settings), self)

    def feedback(self, answer: Union[Answer, int], correct: bool) -> None:
        """Says whether an answer of this handle was right; the planner learns from it and the
        record is saved (docs/AGENTS.md)."""
        answer_id = answer.id if isinstance(answer, Answer) else answer
        if answer_id is None:
            raise InvalidInputError("this answer has no id to give feedback on")
        self._native.feedback(answer_id, correct)

    def search(self, text: str, *, label: Optional[str] = None, k: int = 10) -> List[SearchHit]:
        """The ``k`` nodes (of ``label``, if given) that ``FROM SEARCH "text"`` enters at, best
        first: the full-text index's ranking of the words, with the vectors fused in or filling
        in (docs/SEARCH.md). The scores order the hits; they are not similarities."""
        return [SearchHit(Node(**n), score) for n, score in self._native.search(text, label, k) or []]

    def vector_search(
        self, vector: Sequence[float], *, label: Optional[str] = None, k: int = 10
    ) -> List[SearchHit]:
        """:meth:`search` for a vector computed elsewhere: on a database whose vectors were
        supplied with the data (``import_records`` with ``"vector"`` and
        ``embedder="none"``), by the same model. The dimension must match."""
        hits = self._native.vector_search(list(vector), label, k)
        if hits is None:
            raise DatabaseError("the database has no usable vector index for search")
        return [SearchHit(Node(**n), score) for n, score in hits]

    # -- the primitive operations --

    def find(self, label: str, prop: str, value: Value) -> List[Node]:
        """Nodes of ``label`` whose property ``prop`` equals ``value``: an index lookup when
        ``CREATE INDEX ON label(prop)`` declared one, else a scan of the label's nodes."""
        return [Node(**n) for n in self._native.find(label, prop, value)]

    def node(self, node: Union[int, str], key: Optional[str] = None) -> Optional[Node]:
        """A node by id (``db.node(42)``) or by label and key (``db.node("Author", "a1")``),
        with its description, degrees and properties; ``None`` when there is none."""
        if key is None:
            if not isinstance(node, int):
                raise TypeError("node(id) takes an int; node(label, key) two str")
            return _node(self._native.node(node))
        if not isinstance(node, str):
            raise TypeError("node(label, key) takes two str; node(id) an int")
        return _node(self._native.node_by_key(node, key))

    def nodes(self, ids: Iterable[int]) -> List[Optional[Node]]:
        """Details of several nodes at once (``None`` for an id without a node)."""
        return [_node(n) for n in self._native.nodes(list(ids))]

    def neighbors(
        self,
        node: Union[int, Node, ResultNode],
        *,
        direction: str = "both",
        relations: Optional[Sequence[str]] = None,
        limit: int = 100,
    ) -> Neighbors:
        """A node's edges with their relation types and the nodes at their other ends, at most
        ``limit``: ``direction`` is ``"out"``, ``"in"`` or ``"both"``; ``relations`` keeps those
        types only (an unknown one is :class:`InvalidInputError`)."""
        node_id = node if isinstance(node, int) else node.id
        items, total, by_relation = self._native.neighbors(
            node_id, direction, list(relations) if relations is not None else None, limit
        )
        return Neighbors((Neighbor._make(n) for n in items), total, by_relation)

    def schema(self) -> Schema:
        """Labels, relation types, property keys, the embedder and size estimates."""
        return Schema(**self._native.schema())

    # -- transactions --

    def transaction(self, *, sync: Optional[bool] = None, wait: Optional[float] = None) -> "Transaction":
        """Opens a transaction holding the database's single writer; use it in ``with``:
        commits when the block ends, rolls back when it raises. ``sync`` fsyncs the commit;
        ``wait`` bounds (in seconds) the wait for another thread's writer, then
        :class:`WriterBusyError`. Readers see none of its writes until the commit."""
        return Transaction(self._native.begin(sync, wait), self)


class Transaction:
    """An open transaction (:meth:`Database.transaction`). Its reads see the graph as of its
    start plus its own writes; nothing else commits meanwhile.

    As a context manager it commits when the block ends and rolls back when an exception
    leaves it (the exception goes on). :meth:`commit` and :meth:`rollback` end it explicitly;
    a transaction dropped unfinished rolls back.
    """

    def __init__(self, native: "_native.Transaction", db: Database) -> None:
        self._native = native
        self._db = db

    def __enter__(self) -> "Transaction":
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self._native.closed:
            return
        if exc_type is None:
            self._native.commit()
        else:
            self._native.rollback()

    @property
    def closed(self) -> bool:
        return self._native.closed

    def upsert_node(
        self,
        label: str,
        key: str,
        properties: Optional[Dict[str, Value]] = None,
        description: Optional[str] = None,
    ) -> int:
        """Adds or updates node (label, key), setting ``properties`` (others it has stay) and
        its one-sentence description; returns its id."""
        return self._native.upsert_node(label, key, properties, description)

    def add_edge(
        self,
        source: NodeRef,
        relation: str,
        target: NodeRef,
        properties: Optional[Dict[str, Value]] = None,
        weight: Optional[float] = None,
    ) -> bool:
        """Adds (or updates) the edge ``source -relation-> target``; nodes are ids or
        (label, key). Whether the edge is new."""
        return self._native.add_edge(source, relation, target, properties, weight)

    def remove_node(self, node: NodeRef) -> bool:
        """Removes a node and its edges; whether it existed."""
        return self._native.remove_node(node)

    def remove_edge(self, source: NodeRef, relation: str, target: NodeRef) -> bool:
        """Removes an edge; whether it existed."""
        return self._native.remove_edge(source, relation, target)

    def lookup(self, label: str, key: str) -> Optional[int]:
        """The id of node (label, key) as this transaction would leave it."""
        return self._native.lookup(label, key)

    def execute(self, statement: str) -> Union[Exploration, str]:
        """A data statement (UPSERT, ADD EDGE, REMOVE …) or an EXPLORE inside the transaction;
        a failed data statement leaves the transaction as it was."""
        kind, payload = self._native.execute(statement)
        return _output(kind, payload, self._db)  # type: ignore[return-value]

    def explore(self, statement: str) -> Exploration:
        """EXPLORE on the graph as this transaction would leave it (a private copy per call:
        slower than outside a transaction)."""
        out = self.execute(statement)
        if not isinstance(out, Exploration):
            raise QueryError("expected an EXPLORE statement", code="query::syntax")
        return out

    def commit(self) -> None:
        """Commits: readers see all of it at once."""
        self._native.commit()

    def rollback(self) -> None:
        """Drops everything the transaction wrote."""
        self._native.rollback()


def open(  # noqa: A001 - the package's one entry point, as sqlite3.connect or duckdb.connect
    path: Union[str, "PathLike[str]"], *, read_only: bool = False, create: bool = True
) -> Database:
    """Opens (or creates) the database at ``path``; see :class:`Database`."""
    return Database(path, read_only=read_only, create=create)

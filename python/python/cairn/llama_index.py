"""Cairn as the graph store of LlamaIndex's ``PropertyGraphIndex`` (``pip install
llama-index-core``).

    from llama_index.core import PropertyGraphIndex
    from cairn.llama_index import CairnPropertyGraphStore

    store = CairnPropertyGraphStore("kg.cairn")
    index = PropertyGraphIndex.from_documents(docs, property_graph_store=store, ...)

Why LlamaIndex's ``PropertyGraphStore`` rather than LangChain's ``GraphStore``: its model is
Cairn's — labelled nodes with properties and a vector each, typed relations, and retrieval that
starts from nodes near the query and expands their neighbourhoods (``vector_query`` then
``get_rel_map``), which is what Cairn's SEARCH entries and neighbour lists do. LangChain's
``GraphStore`` is a Cypher endpoint (``query(cypher)``, answered by chains that write Cypher),
a language Cairn does not speak.

How the two models meet:

- A LlamaIndex node is the Cairn node (``label``, ``key``) with its ``id`` as the key. An
  ``EntityNode`` keeps its ``name`` as a property (a node Cairn has from elsewhere comes back
  with its key as the name and its ``name`` among its properties); a ``ChunkNode`` its ``text`` property (and the
  text's first sentence as its description). Properties are Cairn values; a dict value is
  stored as its JSON text.
- An entity's ``embedding`` is stored as its vector (the database then records "vectors
  supplied", as ``cairn import`` with ``--embedder none`` does) and ``vector_query`` searches
  those vectors with the HNSW index, so it finds entities; chunks are stored without vectors. A database that Cairn embeds itself answers a query's ``query_str`` with
  :meth:`cairn.Database.search` instead.
- ``get_rel_map`` walks both directions of every edge breadth-first (``depth``, ``limit``);
  ``structured_query`` runs one statement of Cairn's language (not Cypher), so
  ``supports_structured_queries`` is false and LlamaIndex does not send it Cypher.
- Ids are looked up under every label: LlamaIndex ids carry no label.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from llama_index.core.graph_stores.types import (
    ChunkNode,
    EntityNode,
    LabelledNode,
    PropertyGraphStore,
    Relation,
    Triplet,
)
from llama_index.core.vector_stores.types import VectorStoreQuery

import cairn

__all__ = ["CairnPropertyGraphStore"]


def _value(v: Any) -> Any:
    """A LlamaIndex property value as a Cairn value (dicts, and lists holding them, as JSON)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)) and all(
        x is None or isinstance(x, (bool, int, float, str)) for x in v
    ):
        return list(v)
    return json.dumps(v, default=str)


def _first_sentence(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    for end in (". ", "? ", "! "):
        at = text.find(end)
        if 0 < at < limit:
            return text[: at + 1]
    return text[:limit]


class CairnPropertyGraphStore(PropertyGraphStore):
    """A LlamaIndex property graph store on a Cairn database (a path, or an open
    :class:`cairn.Database`)."""

    supports_structured_queries: bool = False
    supports_vector_queries: bool = True

    def __init__(self, db: Union[str, "cairn.Database", Any], *, read_only: bool = False) -> None:
        self._db = db if isinstance(db, cairn.Database) else cairn.open(db, read_only=read_only)

    @property
    def client(self) -> "cairn.Database":
        """The Cairn database."""
        return self._db

    # -- reading --

    def _labels(self) -> List[str]:
        return [label["name"] for label in self._db.schema().labels]

    def _find(self, ids: Iterable[str]) -> List["cairn.Node"]:
        labels = self._labels()
        found = []
        for key in ids:
            for label in labels:
                node = self._db.node(label, key)
                if node is not None:
                    found.append(node)
        return found

    def _matching(self, properties: Optional[Dict[Any, Any]], ids: Optional[List[str]]) -> List["cairn.Node"]:
        """Nodes with one of `ids` (all of them when None) and all of `properties`."""
        if ids is not None:
            nodes = self._find(ids)
        elif properties:
            (first, value), *_ = properties.items()
            nodes = [n for label in self._labels() for n in self._db.find(label, first, _value(value))]
        else:
            return []
        want = {k: _value(v) for k, v in (properties or {}).items()}
        return [n for n in nodes if all(n.properties.get(k) == v for k, v in want.items())]

    @staticmethod
    def _labelled(node: "cairn.Node") -> LabelledNode:
        props = dict(node.properties)
        if "text" in props and "name" not in props:
            text = props.pop("text")
            return ChunkNode(text=str(text), id_=node.key, label=node.label, properties=props)
        # The LlamaIndex id is the Cairn key: the name when it is the key (nodes LlamaIndex
        # made), else the key, with the name kept as a property.
        if props.get("name") == node.key:
            del props["name"]
        return EntityNode(name=node.key, label=node.label, properties=props)

    def get(self, properties: Optional[Dict[Any, Any]] = None, ids: Optional[List[str]] = None) -> List[LabelledNode]:
        """Nodes with the given ids and/or properties (none without either)."""
        return [self._labelled(n) for n in self._matching(properties, ids)]

    def get_triplets(
        self,
        entity_names: Optional[List[str]] = None,
        relation_names: Optional[List[str]] = None,
        properties: Optional[Dict[Any, Any]] = None,
        ids: Optional[List[str]] = None,
    ) -> List[Triplet]:
        """The edges (in their stored direction) at the nodes named by ``entity_names`` or
        ``ids`` or having ``properties``, of ``relation_names`` when given. Without a node
        filter, none: a whole graph is not a retrieval result."""
        names = list(entity_names or []) + list(ids or [])
        if names:
            nodes = self._find(names)
            if properties:
                want = {k: _value(v) for k, v in properties.items()}
                nodes = [n for n in nodes if all(n.properties.get(k) == v for k, v in want.items())]
        elif properties:
            nodes = self._matching(properties, None)
        else:
            return []
        return self._edges_of(nodes, relation_names)

    def _edges_of(self, nodes: Sequence["cairn.Node"], relations: Optional[List[str]]) -> List[Triplet]:
        """Every edge at `nodes` (of `relations` when given), once, in its stored direction."""
        rels = None
        if relations is not None:
            known = {r["name"] for r in self._db.schema().relations}
            rels = [r for r in relations if r in known]
            if not rels:
                return []
        seen: Set[Tuple[int, str, int]] = set()
        found: List[Tuple[int, str, int]] = []
        for node in nodes:
            for n in self._db.neighbors(node.id, relations=rels, limit=1_000_000):
                edge = (node.id, n.relation, n.id) if n.direction == "out" else (n.id, n.relation, node.id)
                if edge not in seen:
                    seen.add(edge)
                    found.append(edge)
        return self._triplets(found)

    def _triplets(self, edges: List[Tuple[int, str, int]]) -> List[Triplet]:
        ids = list({i for s, _, t in edges for i in (s, t)})
        nodes = {n.id: n for n in self._db.nodes(ids) if n is not None}
        out = []
        for s, rel, t in edges:
            if s in nodes and t in nodes:
                a, b = self._labelled(nodes[s]), self._labelled(nodes[t])
                out.append((a, Relation(label=rel, source_id=a.id, target_id=b.id), b))
        return out

    def get_rel_map(
        self,
        graph_nodes: List[LabelledNode],
        depth: int = 2,
        limit: int = 30,
        ignore_rels: Optional[List[str]] = None,
    ) -> List[Triplet]:
        """The edges within ``depth`` hops of ``graph_nodes`` (either direction), breadth
        first, at most ``limit``, without the relations in ``ignore_rels``."""
        ignore = set(ignore_rels or [])
        frontier = self._find(n.id for n in graph_nodes)
        visited = {n.id for n in frontier}
        edges: List[Tuple[int, str, int]] = []
        seen: Set[Tuple[int, str, int]] = set()
        for _ in range(depth):
            next_ids: List[int] = []
            for node in frontier:
                for n in self._db.neighbors(node.id, limit=limit * 4):
                    if n.relation in ignore:
                        continue
                    edge = (node.id, n.relation, n.id) if n.direction == "out" else (n.id, n.relation, node.id)
                    if edge not in seen:
                        seen.add(edge)
                        edges.append(edge)
                    if n.id not in visited:
                        visited.add(n.id)
                        next_ids.append(n.id)
                    if len(edges) >= limit:
                        return self._triplets(edges)
            frontier = [n for n in self._db.nodes(next_ids) if n is not None]
            if not frontier:
                break
        return self._triplets(edges)

    def vector_query(self, query: VectorStoreQuery, **kwargs: Any) -> Tuple[List[LabelledNode], List[float]]:
        """The nodes nearest to the query's embedding (supplied vectors), or to its
        ``query_str`` by Cairn's own search."""
        k = query.similarity_top_k or 10
        if query.query_embedding is not None and self._db.schema().embedder == "supplied":
            hits = self._db.vector_search(query.query_embedding, k=k)
        elif query.query_str:
            hits = self._db.search(query.query_str, k=k)
        else:
            return [], []
        return [self._labelled(h.node) for h in hits], [h.score for h in hits]

    # -- writing --

    def upsert_nodes(self, nodes: Sequence[LabelledNode]) -> None:
        """Adds or updates nodes in one import (all or nothing)."""
        # LlamaIndex's model embeds: its vectors are stored as given ("vectors supplied"). A
        # database that Cairn embeds itself (imported with an embedder chosen, e.g.
        # `cairn import --embedder hash`) keeps doing so instead.
        recorded = self._db.schema().embedder
        own = recorded is not None and recorded != "supplied"
        records = []
        for node in nodes:
            props = {k: _value(v) for k, v in node.properties.items()}
            if isinstance(node, ChunkNode):
                props["text"] = node.text
                description = _first_sentence(node.text)
            else:
                props["name"] = getattr(node, "name", node.id)
                description = None
            record: Dict[str, Any] = {"type": "node", "label": node.label, "key": node.id, "props": props}
            if description:
                record["description"] = description
            # Entities carry vectors; chunks do not, so `vector_query` finds entities (as the
            # stores of Neo4j and Kuzu do) and a chunk's text stays in LlamaIndex's vector store.
            if node.embedding is not None and not isinstance(node, ChunkNode) and not own:
                record["vector"] = list(node.embedding)
            records.append(record)
        if records:
            self._db.import_records(records, embedder="database" if own else "none")

    def upsert_relations(self, relations: List[Relation]) -> None:
        """Adds or updates edges in one transaction; an endpoint that is no node yet becomes an
        ``entity`` node named by its id."""
        if not relations:
            return
        ends = {i for r in relations for i in (r.source_id, r.target_id)}
        labels = self._labels()
        where: Dict[str, Tuple[str, str]] = {}
        for key in ends:
            for label in labels:
                if self._db.node(label, key) is not None:
                    where[key] = (label, key)
                    break
        with self._db.transaction() as tx:
            for key in ends - set(where):
                tx.upsert_node("entity", key, {"name": key})
                where[key] = ("entity", key)
            for r in relations:
                props = {k: _value(v) for k, v in r.properties.items()}
                tx.add_edge(where[r.source_id], r.label, where[r.target_id], props or None)

    def delete(
        self,
        entity_names: Optional[List[str]] = None,
        relation_names: Optional[List[str]] = None,
        properties: Optional[Dict[Any, Any]] = None,
        ids: Optional[List[str]] = None,
    ) -> None:
        """Removes the matching triplets' edges, then the nodes with ``ids`` or
        ``properties`` (with their edges), in one transaction."""
        triplets = self.get_triplets(entity_names, relation_names, properties, ids)
        nodes = self._matching(properties, ids) if (ids is not None or properties) else []
        where = {n.key: (n.label, n.key) for n in nodes}
        with self._db.transaction() as tx:
            for a, rel, b in triplets:
                tx.remove_edge((a.label, a.id), rel.label, (b.label, b.id))
            for ref in where.values():
                tx.remove_node(ref)

    # -- queries and schema --

    def structured_query(self, query: str, param_map: Optional[Dict[str, Any]] = None) -> Any:
        """Runs one statement of Cairn's language (docs/LANGUAGE.md): an EXPLORE gives its
        results as dicts, other statements their text. ``param_map`` is not supported (the
        language has no parameters)."""
        if param_map:
            raise ValueError("Cairn statements take no parameters; write the values in the statement")
        out = self._db.execute(query)
        if isinstance(out, cairn.Exploration):
            return out.rows()
        if isinstance(out, cairn.Answer):
            return [i._asdict() for i in out.items]
        return out

    def get_schema(self, refresh: bool = False) -> Any:
        return self._db.schema().to_dict()

    def get_schema_str(self, refresh: bool = False) -> str:
        s = self._db.schema()
        lines = ["Node labels: " + ", ".join(l["name"] for l in s.labels)]
        for r in s.relations:
            ends = ", ".join(f"({a})-[{r['name']}]->({b})" for a, b in r["endpoints"])
            lines.append(f"Relation {r['name']}: {ends}")
        lines.append("Properties: " + ", ".join(s.properties))
        return "\n".join(lines)

    def close(self) -> None:
        self._db.close()

"""Cairn as LlamaIndex's property graph store: the store's contract on a real database, and the
example (examples/python/llama_index_graph.py) run as a user would run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core", reason="LlamaIndex (pip install llama-index-core)")
from llama_index.core.graph_stores.types import ChunkNode, EntityNode, Relation  # noqa: E402
from llama_index.core.vector_stores.types import VectorStoreQuery  # noqa: E402

import cairn  # noqa: E402
from cairn.llama_index import CairnPropertyGraphStore  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def unit(*xs: float) -> list:
    norm = sum(x * x for x in xs) ** 0.5
    return [x / norm for x in xs]


@pytest.fixture
def store(tmp_path: Path):
    s = CairnPropertyGraphStore(str(tmp_path / "kg.cairn"))
    s.upsert_nodes([
        EntityNode(name="Ann Lee", label="PERSON", properties={"age": 41, "meta": {"a": 1}},
                   embedding=unit(1, 0, 0, 0)),
        EntityNode(name="Acme", label="ORGANIZATION", embedding=unit(0, 1, 0, 0)),
        EntityNode(name="Oslo", label="CITY", embedding=unit(0, 0, 1, 0)),
        EntityNode(name="Bo Chen", label="PERSON", embedding=unit(0.9, 0.1, 0, 0)),
        ChunkNode(text="Ann Lee works at Acme. It is in Oslo.", id_="c1",
                  properties={"doc": "d1"}, embedding=unit(1, 1, 1, 1)),
    ])
    s.upsert_relations([
        Relation(label="WORKS_AT", source_id="Ann Lee", target_id="Acme", properties={"since": 2020}),
        Relation(label="LOCATED_IN", source_id="Acme", target_id="Oslo"),
        Relation(label="KNOWS", source_id="Bo Chen", target_id="Ann Lee"),
        Relation(label="MENTIONS", source_id="c1", target_id="Zed"),  # Zed: no node yet
    ])
    yield s
    s.close()


def test_nodes_round_trip(store: CairnPropertyGraphStore) -> None:
    [ann] = store.get(ids=["Ann Lee"])
    assert isinstance(ann, EntityNode) and ann.label == "PERSON"
    assert ann.properties == {"age": 41, "meta": '{"a": 1}'}
    [chunk] = store.get(ids=["c1"])
    assert isinstance(chunk, ChunkNode) and chunk.text.startswith("Ann Lee works")
    assert store.client.node("text_chunk", "c1").description == "Ann Lee works at Acme."
    [zed] = store.get(ids=["Zed"])
    assert zed.label == "entity"
    assert [n.id for n in store.get(properties={"age": 41})] == ["Ann Lee"]
    assert store.get(properties={"age": 40}) == []
    assert store.get() == []


def test_triplets_and_rel_map(store: CairnPropertyGraphStore) -> None:
    got = {(a.id, r.label, b.id) for a, r, b in store.get_triplets(entity_names=["Acme"])}
    assert got == {("Ann Lee", "WORKS_AT", "Acme"), ("Acme", "LOCATED_IN", "Oslo")}
    got = store.get_triplets(entity_names=["Ann Lee"], relation_names=["WORKS_AT"])
    assert [(a.id, r.label, b.id, r.source_id) for a, r, b in got] == [
        ("Ann Lee", "WORKS_AT", "Acme", "Ann Lee")]
    assert store.get_triplets(entity_names=["Ann Lee"], relation_names=["NOPE"]) == []
    assert store.get_triplets() == []

    [bo] = store.get(ids=["Bo Chen"])
    two = {(a.id, r.label, b.id) for a, r, b in store.get_rel_map([bo], depth=2)}
    assert two == {("Bo Chen", "KNOWS", "Ann Lee"), ("Ann Lee", "WORKS_AT", "Acme")}
    three = {(a.id, r.label, b.id) for a, r, b in store.get_rel_map([bo], depth=3)}
    assert ("Acme", "LOCATED_IN", "Oslo") in three
    assert len(store.get_rel_map([bo], depth=3, limit=2)) == 2
    assert all(r.label != "WORKS_AT" for _, r, _ in store.get_rel_map([bo], depth=3, ignore_rels=["WORKS_AT"]))


def test_vector_query_finds_entities(store: CairnPropertyGraphStore) -> None:
    nodes, scores = store.vector_query(VectorStoreQuery(query_embedding=unit(1, 0.05, 0, 0), similarity_top_k=2))
    assert [n.id for n in nodes] == ["Ann Lee", "Bo Chen"]
    assert scores[0] >= scores[1] > 0.8
    with pytest.raises(cairn.Error, match="dimensions"):
        store.vector_query(VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=2))


def test_delete_and_structured_query(store: CairnPropertyGraphStore) -> None:
    rows = store.structured_query('EXPLORE "where" FROM PERSON "Ann Lee" VIA WORKS_AT -> LOCATED_IN TARGET CITY')
    assert [r["key"] for r in rows] == ["Oslo"]
    with pytest.raises(ValueError, match="parameters"):
        store.structured_query("SHOW LABELS", {"x": 1})
    assert "PERSON" in store.get_schema_str() and "(PERSON)-[WORKS_AT]->(ORGANIZATION)" in store.get_schema_str()

    store.delete(entity_names=["Ann Lee"], relation_names=["WORKS_AT"])
    assert store.get_triplets(entity_names=["Acme"], relation_names=["WORKS_AT"]) == []
    assert store.get(ids=["Ann Lee"])  # the node stays
    store.delete(ids=["Oslo"])
    assert store.get(ids=["Oslo"]) == []
    assert store.get_triplets(entity_names=["Acme"]) == []


def test_a_database_cairn_embeds_answers_query_text(tmp_path: Path) -> None:
    with cairn.open(tmp_path / "own.cairn") as db:
        db.import_records([{"type": "node", "label": "Topic", "key": "t1", "props": {"name": "data mining"}},
                           {"type": "node", "label": "Topic", "key": "t2", "props": {"name": "compilers"}}],
                          embedder="hash")
    s = CairnPropertyGraphStore(str(tmp_path / "own.cairn"))
    s.upsert_nodes([EntityNode(name="t3", label="Topic", properties={}, embedding=[0.1] * 8)])
    assert s.client.node("Topic", "t3").name == "t3"  # embedded by Cairn, the vector not taken
    nodes, _ = s.vector_query(VectorStoreQuery(query_str="data mining", similarity_top_k=1))
    assert [n.id for n in nodes] == ["t1"]
    s.close()


def test_the_example_runs(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, str(REPO / "examples" / "python" / "llama_index_graph.py"), str(tmp_path / "kg")],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    out = p.stdout
    ann = out.split("Where does Ann Lee work?")[1].split("\n\n")[0]
    assert "Ann Lee -> WORKS_AT -> Acme" in ann
    initech = out.split("Which city is Initech in?")[1].split("\n\n")[0]
    assert "Initech -> LOCATED_IN -> Lyon" in initech
    assert "EXPLORE from Ann Lee via WROTE -> CITES: ['Beam Search for Agents']" in out

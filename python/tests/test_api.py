"""The Python package's API on real databases in temporary directories: every call, with
results checked against what was written or generated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cairn

COAUTHORS = 'EXPLORE "co-authors" FROM Author "a1" VIA AUTHORED -> <AUTHORED TARGET Author'


# ---- open and close -----------------------------------------------------------------------


def test_open_creates_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / "new.cairn"
    with cairn.open(path) as db:
        assert not db.read_only and not db.closed
        with db.transaction() as tx:
            tx.upsert_node("Author", "a1", {"name": "Ann"})
    assert db.closed
    with cairn.open(path, create=False) as db:
        assert db.node("Author", "a1").name == "Ann"
    with cairn.Database(path, read_only=True) as db:
        assert db.read_only
        assert db.node("Author", "a1").properties == {"name": "Ann"}


def test_a_missing_database_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(cairn.DatabaseNotFoundError, match="does not exist"):
        cairn.open(tmp_path / "nothing", read_only=True)
    with pytest.raises(FileNotFoundError):
        cairn.open(tmp_path / "nothing", create=False)
    assert not (tmp_path / "nothing").exists()


def test_every_call_on_a_closed_database_raises(small) -> None:
    small.close()
    small.close()  # twice is fine
    calls = [
        lambda: small.explore(COAUTHORS),
        lambda: small.execute("SHOW LABELS"),
        lambda: small.explain(COAUTHORS),
        lambda: small.ask("Who wrote Graph exploration at scale?"),
        lambda: small.search("graph"),
        lambda: small.node(0),
        lambda: small.node("Author", "a1"),
        lambda: small.nodes([0]),
        lambda: small.neighbors(0),
        lambda: small.schema(),
        lambda: small.transaction(),
        lambda: small.import_records([]),
        lambda: small.feedback(1, True),
        lambda: small.catch_up(),
    ]
    for call in calls:
        with pytest.raises(cairn.ClosedError, match="closed"):
            call()
    assert "closed" in repr(small)


# ---- import ------------------------------------------------------------------------------


def test_import_files_of_a_generated_dump(academic) -> None:
    schema = academic.schema()
    assert {l["name"] for l in schema.labels} == {"Author", "Paper", "Venue", "Topic"}
    rels = {r["name"]: r for r in schema.relations}
    assert set(rels) == {"AUTHORED", "PUBLISHED_IN", "HAS_TOPIC", "CITES"}
    assert ["Author", "Paper"] in [list(e) for e in rels["AUTHORED"]["endpoints"]]
    assert schema.embedder is None  # no vectors unless an embedder is chosen: SEARCH is full-text
    assert schema.approx_nodes > 2000


def test_import_with_the_hash_embedder_records_it(tmp_path: Path, dump: Path) -> None:
    with cairn.open(tmp_path / "h.cairn") as db:
        db.import_files(dump, embedder="hash")
        assert (db.schema().embedder or "").startswith("cairn-hash-v1/")
        # a later import embeds with what the database records
        db.import_records([{"type": "node", "label": "Topic", "key": "tx", "props": {"name": "x"}}])
        assert (db.schema().embedder or "").startswith("cairn-hash-v1/")
        hits = db.search("data mining", label="Topic", k=1)
        assert hits and "data mining" in (hits[0].node.name or "").lower()


def test_import_records_in_memory(tmp_path: Path) -> None:
    records = [
        {"type": "node", "label": "Author", "key": "a1", "props": {"name": "Ann", "tags": ["x", 1]}},
        {"type": "node", "label": "Paper", "key": "p1", "props": {"title": "On graphs"},
         "description": "A paper on graphs."},
        {"type": "edge", "rel": "AUTHORED", "from": {"label": "Author", "key": "a1"},
         "to": {"label": "Paper", "key": "p1"}, "weight": 0.5},
    ]
    with cairn.open(tmp_path / "r.cairn") as db:
        s = db.import_records(records)
        assert (s.records, s.nodes_created, s.edges_created, s.skipped) == (3, 2, 1, [])
        assert db.node("Author", "a1").properties == {"name": "Ann", "tags": ["x", 1]}
        assert db.node("Paper", "p1").description == "A paper on graphs."
        [n] = db.neighbors(db.node("Author", "a1"), direction="out")
        assert (n.relation, n.key) == ("AUTHORED", "p1")
        # Again: nothing new, nothing changed.
        s = db.import_records(records)
        assert (s.nodes_created, s.nodes_unchanged, s.edges_unchanged) == (0, 2, 1)


def test_a_bad_record_imports_nothing(tmp_path: Path) -> None:
    with cairn.open(tmp_path / "r.cairn") as db:
        good = {"type": "node", "label": "Author", "key": "a1"}
        with pytest.raises(cairn.ImportDataError, match="record 2"):
            db.import_records([good, {"type": "node", "label": "Author"}])
        edge = {"type": "edge", "rel": "R", "from": {"label": "Author", "key": "a1"},
                "to": {"label": "Paper", "key": "nowhere"}}
        with pytest.raises(cairn.ImportDataError) as e:
            db.import_records([good, edge])
        assert e.value.lines and e.value.lines[0][1] == 2 and "nowhere" in e.value.lines[0][2]
        assert db.node("Author", "a1") is None
        # skipped under max_errors, and said so
        s = db.import_records([good, edge], max_errors=1)
        assert s.nodes_created == 1 and len(s.skipped) == 1


def test_a_bad_dump_file_names_its_line(tmp_path: Path) -> None:
    f = tmp_path / "nodes.jsonl"
    f.write_text('{"type":"node","label":"A","key":"1"}\n{"type":"node","label":"A"\n')
    with cairn.open(tmp_path / "d.cairn") as db:
        with pytest.raises(cairn.ImportDataError) as e:
            db.import_files([f])
        [(file, line, _)] = e.value.lines
        assert file.endswith("nodes.jsonl") and line == 2
        assert db.schema().labels == []


# ---- statements ---------------------------------------------------------------------------


def test_explore_results_pandas_and_networkx(academic) -> None:
    found = academic.explore(COAUTHORS)
    assert 0 < len(found) <= 10
    assert found.stop and 0 <= found.sufficiency <= 1
    assert found.stats["nodes_expanded"] > 0
    for r in found:
        assert r.label == "Author" and r.key != "a1" and r.hops == 2
        [first, second] = r.path
        assert (first.relation, first.reversed) == ("AUTHORED", False)
        assert (second.relation, second.reversed, second.target) == ("AUTHORED", True, r.id)
    assert found.results == sorted(found.results, key=lambda r: -r.score)
    text = found.evidence(found[0])
    assert text.count("-AUTHORED->") == 1 and text.count("<-AUTHORED-") == 1

    df = found.to_pandas()
    assert list(df.columns) == list(found.columns)
    assert len(df) == len(found) and df["label"].eq("Author").all()

    g = found.to_networkx()
    entry = academic.node("Author", "a1")
    assert g.nodes[entry.id]["label"] == "Author"
    for r in found:
        assert g.nodes[r.id]["score"] == r.score
        paper = r.path[0].target
        assert g.has_edge(entry.id, paper, key="AUTHORED")
        assert g.has_edge(r.id, paper, key="AUTHORED")  # stored direction: author -> paper


def test_explore_trace(small) -> None:
    found = small.explore(
        'EXPLORE "papers" FROM Author "a1" VIA AUTHORED TARGET Paper', trace=True
    )
    events = {e["event"] for e in found.trace}
    assert {"entry", "expand", "scored", "stop"} <= events


def test_execute_runs_every_kind_of_statement(small) -> None:
    assert small.execute("SHOW LABELS") == "Author\nPaper\nVenue"
    assert isinstance(small.execute(COAUTHORS), cairn.Exploration)
    assert "added" in small.execute('UPSERT Author "a3" SET name = "Cy Dee"')
    assert small.node("Author", "a3").name == "Cy Dee"
    answer = small.execute('ASK "Who wrote Graph exploration at scale?"')
    assert isinstance(answer, cairn.Answer)
    assert "created" in small.execute("CREATE INDEX ON Author(name)")
    with pytest.raises(cairn.TransactionError, match="session"):
        small.execute("BEGIN")
    plan = small.explain(COAUTHORS)
    assert "BEAM" in plan and "DEPTH" in plan


def test_ask_and_feedback(small) -> None:
    answer = small.ask("Who wrote Graph exploration at scale?")
    assert {i.key for i in answer.items} == {"a1", "a2"}
    assert set(answer.values) == {"a1", "a2"}
    assert answer.type and answer.plan and answer.id is not None
    assert not answer.uncertain
    for item in answer.items:
        assert small.node(item.id).label == "Author"
        assert "Graph exploration at scale" in answer.evidence(item)
    assert set(answer.to_pandas()["key"]) == {"a1", "a2"}
    assert len(answer.to_networkx()) == 3
    assert "wrote -> AUTHORED: 1 / 0 / 0" in small.execute("SHOW STRATEGIES")
    small.feedback(answer, True)
    assert "wrote -> AUTHORED: 1 / 1 / 0" in small.execute("SHOW STRATEGIES")
    small.feedback(answer.id, False)
    assert "wrote -> AUTHORED: 1 / 1 / 1" in small.execute("SHOW STRATEGIES")
    with pytest.raises(cairn.Error, match="answer"):
        small.feedback(10**9, True)


class ChatServer:
    """An OpenAI-compatible chat endpoint on loopback that plays the three agents."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.requests: list = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((self.path, self.headers.get("Authorization"), body))
                system = body["messages"][0]["content"]
                if system.startswith("You classify"):
                    content = '{"type": "relation", "target": "Author"}'
                elif system.startswith("You judge"):
                    content = '{"enough": true}'
                else:
                    content = json.dumps({"answer": ["Ann Lee", "Bo Chen"], "text": "Ann and Bo."})
                reply = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_ask_with_an_llm(small) -> None:
    chat = ChatServer()
    try:
        llm = cairn.LLM(base_url=chat.url, model="test-model", api_key="k-123", timeout=10, retries=0)
        answer = small.ask("Who wrote Graph exploration at scale?", llm=llm)
        assert answer.by_llm and answer.text == "Ann and Bo."
        assert set(answer.values) == {"a1", "a2"}
        assert len(chat.requests) == 3  # planner, judge, answerer
        for path, auth, body in chat.requests:
            assert path == "/v1/chat/completions" and auth == "Bearer k-123"
            assert body["model"] == "test-model"
        only = cairn.LLM(base_url=chat.url, model="m", agents=("judge",))
        assert not small.ask("Who wrote Graph exploration at scale?", llm=only).by_llm
        assert len(chat.requests) == 4
    finally:
        chat.close()
    # An endpoint that is down: the agents fall back to offline answers.
    down = cairn.LLM(base_url=chat.url, model="m", retries=0, timeout=2)
    assert set(small.ask("Who wrote Graph exploration at scale?", llm=down).values) == {"a1", "a2"}
    with pytest.raises(ValueError, match="agents"):
        small.ask("Who?", llm=cairn.LLM(base_url=chat.url, model="m", agents=("oracle",)))


def test_search(small) -> None:
    hits = small.search("graph exploration", k=3)
    assert hits and hits[0].node.key == "p1"
    assert all(isinstance(h.node, cairn.Node) for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.node.label for h in small.search("Ann Lee", label="Author")} == {"Author"}
    assert small.search("graph", label="NoSuchLabel") == []


# ---- the primitive operations -------------------------------------------------------------


def test_node_neighbors_and_details(small) -> None:
    ann = small.node("Author", "a1")
    assert (ann.label, ann.key, ann.name) == ("Author", "a1", "Ann Lee")
    assert ann.description == "Author: Ann Lee."
    assert (ann.out_degree, ann.in_degree) == (2, 0)
    assert ann["h_index"] == 12
    assert small.node(ann.id) == ann
    assert small.node("Author", "nobody") is None
    assert small.node(10**12) is None
    assert small.node("Venue", "v1").description == "A database venue."

    out = small.neighbors(ann, direction="out")
    assert {(n.relation, n.direction, n.key) for n in out} == {
        ("AUTHORED", "out", "p1"), ("AUTHORED", "out", "p2")}
    p1 = small.node("Paper", "p1")
    both = small.neighbors(p1.id)
    assert {(n.relation, n.direction, n.key) for n in both} == {
        ("AUTHORED", "in", "a1"), ("AUTHORED", "in", "a2"),
        ("PUBLISHED_IN", "out", "v1"), ("CITES", "in", "p2")}
    assert small.neighbors(p1, direction="in", relations=["CITES"])[0].key == "p2"
    limited = small.neighbors(p1, limit=1)
    assert len(limited) == 1 and limited.total == 4
    assert ("AUTHORED", "in", 2) in limited.by_relation
    assert len(small.neighbors(p1).to_pandas()) == 4
    with pytest.raises(cairn.InvalidInputError, match="NOPE"):
        small.neighbors(p1, relations=["NOPE"])
    with pytest.raises(ValueError, match="direction"):
        small.neighbors(p1, direction="sideways")

    details = small.nodes([n.id for n in out] + [10**12])
    assert {d.properties["title"] for d in details[:2]} == {
        "Graph exploration at scale", "Beam search over property graphs"}
    assert details[2] is None


def test_schema(small) -> None:
    s = small.schema()
    assert [l["name"] for l in s.labels] == ["Author", "Paper", "Venue"]
    rels = {r["name"]: r for r in s.relations}
    assert rels["CITES"]["endpoints"] == [("Paper", "Paper")]
    assert {"name", "title", "year", "h_index", "context"} <= set(s.properties)
    assert json.dumps(s.to_dict())


# ---- transactions -------------------------------------------------------------------------


def test_transaction_commits_on_exit(small) -> None:
    with small.transaction() as tx:
        d = tx.upsert_node("Author", "a4", {"name": "Di"})
        tx.add_edge(d, "AUTHORED", ("Paper", "p2"))
        # the transaction reads its own writes; the database does not yet
        assert tx.lookup("Author", "a4") == d
        assert small.node("Author", "a4") is None
        seen = tx.explore('EXPLORE "papers" FROM Author "a4" VIA AUTHORED TARGET Paper')
        assert [r.key for r in seen] == ["p2"]
        assert "added" in tx.execute('UPSERT Topic "t1" SET name = "Graphs"')
    assert tx.closed
    assert small.node("Author", "a4").out_degree == 1
    assert small.node("Topic", "t1").name == "Graphs"


def test_an_exception_rolls_the_transaction_back(small) -> None:
    before = small.node("Paper", "p1")
    with pytest.raises(RuntimeError, match="boom"):
        with small.transaction() as tx:
            tx.upsert_node("Author", "a5", {"name": "Eve"})
            tx.add_edge(("Author", "a5"), "AUTHORED", ("Paper", "p1"))
            tx.remove_node(("Venue", "v1"))
            raise RuntimeError("boom")
    assert small.node("Author", "a5") is None
    assert small.node("Venue", "v1") is not None
    assert small.node("Paper", "p1") == before
    # the writer is free again
    with small.transaction() as tx:
        tx.upsert_node("Author", "a5", {"name": "Eve"})
    assert small.node("Author", "a5").name == "Eve"


def test_explicit_commit_rollback_and_removal(small) -> None:
    tx = small.transaction()
    assert tx.remove_edge(("Author", "a1"), "AUTHORED", ("Paper", "p2"))
    assert not tx.remove_edge(("Author", "a1"), "AUTHORED", ("Paper", "p2"))
    tx.rollback()
    assert small.node("Author", "a1").out_degree == 2
    with pytest.raises(cairn.ClosedError):
        tx.upsert_node("Author", "x")
    with pytest.raises(cairn.ClosedError):
        tx.commit()

    tx = small.transaction(sync=True, wait=5)
    assert tx.remove_node(("Paper", "p2"))
    assert not tx.remove_node(("Paper", "nothing"))
    tx.commit()
    assert small.node("Paper", "p2") is None
    assert small.node("Author", "a1").out_degree == 1


def test_bad_input_inside_a_transaction_leaves_it_usable(small) -> None:
    with small.transaction() as tx:
        tx.upsert_node("Author", "a6", {"name": "Fay"})
        with pytest.raises(cairn.QueryError) as e:
            tx.execute('UPSERT Author "a7" SET name = ')
        assert e.value.position is not None
        with pytest.raises(cairn.InvalidInputError, match="no node"):
            tx.add_edge(("Author", "a6"), "AUTHORED", ("Paper", "missing"))
        with pytest.raises(cairn.InvalidInputError, match="no node"):
            tx.execute('ADD EDGE Author "a6" -[AUTHORED]-> Paper "missing"')
        with pytest.raises(TypeError, match="property value"):
            tx.upsert_node("Author", "a7", {"bad": {"nested": 1}})
        with pytest.raises(OverflowError):
            tx.upsert_node("Author", "a7", {"big": 2**70})
        with pytest.raises(TypeError, match="node"):
            tx.add_edge(1.5, "AUTHORED", ("Paper", "p1"))
        with pytest.raises(cairn.TransactionError):
            tx.execute("SHOW LABELS")
    assert small.node("Author", "a6").name == "Fay"
    assert small.node("Author", "a7") is None


def test_one_thread_cannot_wait_for_its_own_transaction(small) -> None:
    with small.transaction() as tx:
        tx.upsert_node("Author", "a8")
        with pytest.raises(cairn.WriterBusyError, match="this thread"):
            small.transaction()
        with pytest.raises(cairn.WriterBusyError):
            small.execute('UPSERT Author "a9"')
        with pytest.raises(cairn.WriterBusyError):
            small.import_records([{"type": "node", "label": "Author", "key": "a9"}])
        # reads go on, and see the last commit
        assert small.node("Author", "a8") is None
        assert len(small.explore(COAUTHORS)) == 1
    assert small.node("Author", "a8") is not None
    assert small.node("Author", "a9") is None


def test_a_dropped_transaction_rolls_back(small) -> None:
    import gc

    tx = small.transaction()
    tx.upsert_node("Author", "gone")
    del tx
    gc.collect()
    with small.transaction(wait=10) as tx:
        tx.upsert_node("Author", "kept")
    assert small.node("Author", "gone") is None
    assert small.node("Author", "kept") is not None


# ---- bad statements -----------------------------------------------------------------------


def test_a_syntax_error_carries_its_position(small) -> None:
    statement = 'EXPLORE "x"\n  FRM Author "a1"'
    with pytest.raises(cairn.QueryError) as e:
        small.explore(statement)
    err = e.value
    assert err.code == "query::syntax"
    assert (err.line, err.column) == (2, 3)
    assert statement[err.position:err.end] == "FRM"
    assert err.help == "did you mean `FROM`?"
    assert "FRM" in err.rendered and "^" in err.rendered
    assert "line 2, column 3" in str(err)
    assert err.statement == statement
    assert isinstance(err, ValueError)


def test_a_name_error_points_at_the_name(small) -> None:
    statement = 'EXPLORE "é" FROM Autor "a1"'
    with pytest.raises(cairn.QueryError) as e:
        small.explore(statement)
    assert e.value.code == "query::unknown_name"
    assert statement[e.value.position:e.value.end] == "Autor"  # character offsets, not bytes
    assert "Author" in e.value.help


def test_explore_refuses_other_statements(small) -> None:
    with pytest.raises(cairn.Error, match="EXPLORE"):
        small.explore("SHOW LABELS")

"""Cairn as the graph store of a LlamaIndex PropertyGraphIndex, with no LLM and no network.

A small rule extractor turns sentences like "Ann Lee works at Acme." into entities and
relations, a word-hashing embedding model embeds them, and Cairn stores the graph (nodes,
relations and vectors) and answers the retriever: the entities nearest to the question, then
their neighbourhood.

    pip install ./python llama-index-core
    python examples/python/llama_index_graph.py [DB_DIR]
"""

import hashlib
import math
import re
import sys
import tempfile
from typing import Any, List, Sequence

from llama_index.core import Document, PropertyGraphIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.graph_stores.types import KG_NODES_KEY, KG_RELATIONS_KEY, EntityNode, Relation
from llama_index.core.indices.property_graph import VectorContextRetriever
from llama_index.core.llms import MockLLM
from llama_index.core.schema import BaseNode, TransformComponent

from cairn.llama_index import CairnPropertyGraphStore

DOCS = [
    "Ann Lee works at Acme. Ann Lee wrote Graph Search at Scale. Acme is located in Oslo.",
    "Bo Chen works at Initech. Bo Chen wrote Beam Search for Agents. Initech is located in Lyon.",
    "Graph Search at Scale cites Beam Search for Agents.",
]
RULES = [  # (pattern, subject label, relation, object label)
    (r"([A-Z][\w ]+?) works at ([A-Z]\w+)", "PERSON", "WORKS_AT", "ORGANIZATION"),
    (r"([A-Z][\w ]+?) wrote ([A-Z][\w ]+)", "PERSON", "WROTE", "PAPER"),
    (r"([A-Z]\w+) is located in ([A-Z]\w+)", "ORGANIZATION", "LOCATED_IN", "CITY"),
    (r"([A-Z][\w ]+?) cites ([A-Z][\w ]+)", "PAPER", "CITES", "PAPER"),
]


class RuleExtractor(TransformComponent):
    """Entities and relations from fixed sentence patterns (an LLM extractor's stand-in)."""

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        for node in nodes:
            entities, relations = {}, []
            for sentence in re.split(r"(?<=\.)\s+", node.get_content()):
                for pattern, a_label, rel, b_label in RULES:
                    m = re.fullmatch(pattern + r"\.", sentence.strip())
                    if m:
                        a = EntityNode(name=m.group(1), label=a_label)
                        b = EntityNode(name=m.group(2), label=b_label)
                        entities[a.id], entities[b.id] = a, b
                        relations.append(Relation(label=rel, source_id=a.id, target_id=b.id))
            node.metadata[KG_NODES_KEY] = list(entities.values())
            node.metadata[KG_RELATIONS_KEY] = relations
        return nodes


class WordHashEmbedding(BaseEmbedding):
    """Each word hashed into one of 64 dimensions, normalised: texts sharing words are near.
    LlamaIndex embeds an entity as "name ({properties})", whose properties hold a random chunk
    id: this stand-in for a real model reads the name only."""

    def _embed(self, text: str) -> List[float]:
        v = [0.0] * 64
        for word in re.findall(r"[a-z]+", text.split(" ({")[0].lower()):
            v[int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1.0
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / norm for x in v]

    def _get_query_embedding(self, query: str) -> List[float]:
        return self._embed(query)

    def _get_text_embedding(self, text: str) -> List[float]:
        return self._embed(text)

    async def _aget_query_embedding(self, query: str) -> List[float]:
        return self._embed(query)


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp() + "/kg.cairn"
    store = CairnPropertyGraphStore(path)
    embed = WordHashEmbedding()
    index = PropertyGraphIndex.from_documents(
        [Document(text=t) for t in DOCS],
        llm=MockLLM(),
        kg_extractors=[RuleExtractor()],
        property_graph_store=store,
        embed_model=embed,
        use_async=False,
    )
    print(store.get_schema_str())
    retriever = index.as_retriever(
        sub_retrievers=[
            VectorContextRetriever(store, embed_model=embed, similarity_top_k=2, path_depth=1, include_text=False)
        ]
    )
    for question in ["Where does Ann Lee work?", "Which city is Initech in?"]:
        print(f"\n{question}")
        for hit in retriever.retrieve(question):
            print(f"  {hit.score:.3f}  {hit.node.get_content()}")
    # The same graph through Cairn's own language.
    found = store.client.explore('EXPLORE "papers" FROM PERSON "Ann Lee" VIA WROTE -> CITES TARGET PAPER')
    print("\nEXPLORE from Ann Lee via WROTE -> CITES:", [r.name for r in found])
    store.close()


if __name__ == "__main__":
    main()

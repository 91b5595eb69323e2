//! Applying a staged import: resolve names and endpoints, plan the writes, write the store's
//! bulk parts (SST files on RocksDB) and make them part of the store, commit the final batch.
//! See `docs/FORMAT.md` ("Bulk import") for the rule that decides what goes where; the store's
//! bulk loader builds every key. The phases, in order: [`merge`] (nodes), [`resolve`] (edge
//! endpoints), [`embed`] (which embedder computes missing vectors), [`write`] (the files, with
//! [`sort`]), then the final batch here.

mod embed;
mod merge;
mod resolve;
mod sort;
mod write;

use self::merge::{Ids, Merged};
use self::resolve::Resolver;
use self::write::{EdgeFiles, FilePlan};
use super::nodes::NodeList;
use super::spill;
use super::stage::Staging;
use super::{report, ImportError, ImportOptions, ImportSummary, LineError, Phase};
use cairn_embed::Embedder;
use cairn_storage_format::{EdgeProps, LabelId, NodeId, NodeRecord, PropKeyId, RelId, Value};
use cairn_store::describe;
use cairn_store::graph::Reader;
use cairn_store::{BulkLoad, Catalog, EngineError, Graph, GraphRead};
use std::sync::Arc;

/// An edge resolved to ids. `props` indexes `EdgeTable::props` (`NO_PROPS`: none).
#[derive(Clone, Copy)]
struct EdgeIn {
    src: NodeId,
    dst: NodeId,
    rel: RelId,
    props: u32,
}

/// Properties of the edges that have any, decoded and encoded once.
struct PropsTable {
    encoded: Vec<Vec<u8>>,
    values: Vec<EdgeProps>,
}

impl PropsTable {
    fn new(values: Vec<EdgeProps>) -> Result<Self, EngineError> {
        let encoded = (values.iter().map(EdgeProps::encode))
            .collect::<Result<_, _>>()
            .map_err(EngineError::encode("edge properties"))?;
        Ok(PropsTable { encoded, values })
    }
    fn bytes(&self, e: &EdgeIn) -> &[u8] {
        self.encoded
            .get(e.props as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
    fn value(&self, e: &EdgeIn) -> EdgeProps {
        self.values
            .get(e.props as usize)
            .cloned()
            .unwrap_or_default()
    }
}

/// Catalog ids for staged name ids, interned on first use.
pub(super) struct NameMap {
    labels: Vec<Option<LabelId>>,
    rels: Vec<Option<RelId>>,
    props: Vec<Option<PropKeyId>>,
}

impl NameMap {
    fn new(n: usize) -> Self {
        NameMap {
            labels: vec![None; n],
            rels: vec![None; n],
            props: vec![None; n],
        }
    }
    pub(super) fn label(
        &mut self,
        catalog: &mut Catalog,
        staging: &Staging,
        id: u32,
    ) -> Result<LabelId, EngineError> {
        if let Some(l) = self.labels[id as usize] {
            return Ok(l);
        }
        let l = catalog.intern_label(staging.names.name(id))?.0;
        self.labels[id as usize] = Some(l);
        Ok(l)
    }
    /// The catalog relation of each staged name the edges use as a relation type (None for
    /// the other names), interned in order of first use.
    fn edge_rels(
        &mut self,
        catalog: &mut Catalog,
        staging: &Staging,
    ) -> Result<Vec<Option<RelId>>, EngineError> {
        for part in &staging.parts {
            for rel in part.rels() {
                if self.rels.get(rel as usize).is_some_and(Option::is_none) {
                    let r = catalog.intern_relation(staging.names.name(rel))?.0;
                    self.rels[rel as usize] = Some(r);
                }
            }
        }
        Ok(self.rels.clone())
    }
    /// The staged edge properties with catalog ids, in their staged order.
    fn edge_props(
        &mut self,
        catalog: &mut Catalog,
        staging: &mut Staging,
    ) -> Result<Vec<EdgeProps>, EngineError> {
        let staged = std::mem::take(&mut staging.edge_props);
        let mut out = Vec::with_capacity(staged.len());
        for p in staged {
            let props = self.props(catalog, staging, p.props)?;
            out.push(EdgeProps {
                weight: p.weight,
                props,
            });
        }
        Ok(out)
    }
    fn props(
        &mut self,
        catalog: &mut Catalog,
        staging: &Staging,
        props: Vec<(u32, Value)>,
    ) -> Result<Vec<(PropKeyId, Value)>, EngineError> {
        let mut out = Vec::with_capacity(props.len());
        for (k, v) in props {
            out.push((self.prop(catalog, staging, k)?, v));
        }
        Ok(last_value_wins(out))
    }
    pub(super) fn prop(
        &mut self,
        catalog: &mut Catalog,
        staging: &Staging,
        id: u32,
    ) -> Result<PropKeyId, EngineError> {
        if let Some(p) = self.props[id as usize] {
            return Ok(p);
        }
        let p = catalog.intern_prop(staging.names.name(id))?.0;
        self.props[id as usize] = Some(p);
        Ok(p)
    }
}

/// Properties sorted by key; of a property named twice, the last value (stable sort, keep the
/// first after reversing).
fn last_value_wins(mut props: Vec<(PropKeyId, Value)>) -> Vec<(PropKeyId, Value)> {
    props.reverse();
    props.sort_by_key(|(k, _)| *k);
    props.dedup_by_key(|(k, _)| *k);
    props
}

pub(super) fn apply(
    graph: &Graph,
    mut staging: Staging,
    mut errors: Vec<LineError>,
    options: &ImportOptions,
) -> Result<ImportSummary, ImportError> {
    staging.seal();
    cairn_store::failpoint!("import.staged");
    if staging.spilled_bytes() > 0 {
        tracing::debug!(
            "import: {} edges staged, {} MiB of them spilled",
            staging.edge_count(),
            staging.spilled_bytes() >> 20
        );
    }
    let mut bulk = graph.bulk_load()?;
    let base_catalog = graph.catalog();
    let mut catalog: Catalog = (*base_catalog).clone();
    let reader = graph.reader();
    let mut summary = ImportSummary {
        records: (staging.node_count() + staging.edge_count()) as u64,
        ..Default::default()
    };
    report(options, Phase::Resolve, 0, Some(summary.records));
    let mut step = Step::start();
    let mut names = NameMap::new(staging.names.names.len());

    // ---- nodes: intern names, merge duplicate lines (the later wins), assign ids ----
    let merged = merge::merge_nodes(&mut staging, &mut catalog, &mut names, &mut errors)?;
    let ids = Ids::assign(&mut bulk, &base_catalog, &merged.nodes)?;
    tracing::debug!(
        "import: {} nodes hold {} MiB",
        merged.nodes.len(),
        merged.nodes.bytes_held() >> 20
    );
    step.done("nodes merged and looked up");

    // ---- edges: resolve endpoints ----
    // Names first (interning writes the catalog), then the lookups, which only read.
    let rels = names.edge_rels(&mut catalog, &staging)?;
    // The nodes stay in memory to the end: the sort gets what they leave of the budget (a
    // quarter at least).
    let sort_budget = (options.budget())
        .saturating_sub(merged.nodes.bytes_held())
        .max(options.budget() / 4);
    let plan = spill::Plan::new(
        ids.new_range(),
        staging.edge_count() as u64,
        <EdgeIn as spill::Fixed>::LEN as u64,
        sort_budget,
    );
    let spill_dir = match plan.spills() {
        true => Some(graph.spill_dir()?),
        false => None,
    };
    let spill_path = spill_dir.as_ref().map(|d| d.path());
    let base = (&*base_catalog, &reader);
    let resolver = Resolver::new(&staging, rels, &catalog, (&merged, &ids), base);
    let edges = resolver.resolve_all(&plan, spill_path)?;
    drop(resolver);
    let edge_count = staging.edge_count();
    // The staged edges are resolved: their keys and lines are no longer needed.
    staging.parts.clear();
    step.done("edge endpoints resolved");
    errors.extend(edges.errors);
    errors.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    if errors.len() > options.max_errors {
        errors.truncate(options.max_errors + 1);
        return Err(ImportError::BadLines {
            errors,
            max: options.max_errors,
        });
    }
    summary.skipped = errors;
    for (rel, s, d) in edges.labels {
        catalog.note_endpoints(rel, s, d);
    }
    let edge_props = names.edge_props(&mut catalog, &mut staging)?;
    annotate(&mut catalog, &staging, &mut summary, options)?;
    let Merged {
        table,
        nodes,
        vector_dim,
    } = merged;
    drop(table);
    // Vectors: computed by the configured embedder for new nodes that bring none; a dump that
    // says which embedder made its vectors decides instead of a default one.
    let has_vectors = nodes.has_vectors();
    let embedder =
        embed::choose_embedder(&mut catalog, &staging, options, vector_dim, has_vectors)?;
    drop(staging);
    let props_table = PropsTable::new(edge_props)?;

    // ---- plan the writes ----
    report(
        options,
        Phase::Write,
        0,
        Some((nodes.len() + edge_count) as u64),
    );
    let embedding = (embedder, options);
    let new_nodes = plan_node_writes(
        &mut bulk,
        &reader,
        &catalog,
        (&nodes, &ids),
        &mut summary,
        embedding,
    )?;
    step.done("node writes planned");

    // ---- write the files while planning the rest ----
    let has_files = !new_nodes.is_empty();
    let files = FilePlan {
        sst: EdgeFiles {
            files: bulk.files(ids.new_range())?,
            props: &props_table,
        },
        plan: &plan,
        spill_path,
        new_nodes: &new_nodes,
        nodes: &nodes,
        ids: &ids,
        catalog: &catalog,
        options,
        embedder: embedder.map(|e| &**e),
        reader: &reader,
    };
    let files = write::write_files(&files, &mut bulk, edges.written, &mut summary, &mut step)?;
    drop(spill_dir);
    step.done("SST files written");

    // ---- ingest the files ----
    cairn_store::failpoint!("import.files_written");
    if has_files {
        report(options, Phase::Commit, 0, None);
        bulk.ingest(files)?;
        step.done("SST files ingested");
        #[cfg(feature = "test-hooks")]
        test_hook_pause();
    }
    report(options, Phase::Commit, 0, None);
    bulk.commit(catalog, ids.next)?;
    step.done("final batch committed");
    Ok(summary)
}

/// Plans the nodes' writes: new ones (returned as id and position in `nodes`, in id order) go
/// to files with their keys and index entries; each existing one is updated in the batch as a
/// Writer would, and its vector embedded anew (or dropped, without an embedder) when the import
/// changed its description without supplying one.
fn plan_node_writes(
    bulk: &mut BulkLoad<'_>,
    reader: &Reader<'_>,
    catalog: &Catalog,
    (nodes, ids): (&NodeList, &Ids),
    summary: &mut ImportSummary,
    (embedder, options): (Option<&Arc<dyn Embedder>>, &ImportOptions),
) -> Result<Vec<(NodeId, u32)>, ImportError> {
    let mut new_nodes: Vec<(NodeId, u32)> = Vec::with_capacity(ids.new_range().count());
    let mut reembed: Vec<(NodeId, NodeRecord)> = Vec::new();
    for (i, id) in ids.ids.iter().copied().enumerate() {
        if ids.is_new(id) {
            summary.nodes_created += 1;
            new_nodes.push((id, i as u32));
            continue;
        }
        let Some(old) = reader.node(id)? else {
            continue;
        };
        let n = nodes.record(i)?;
        let mut rec = (*old).clone();
        merge_props(&mut rec.props, n.props);
        if n.description.is_some() {
            rec.description = n.description;
        }
        let vector = nodes.vector(i);
        if let Some(v) = vector {
            bulk.put_vector(id, v)?;
        } else if describe::description(&old, catalog) != describe::description(&rec, catalog) {
            // Its vector embeds the old text: embedded anew below (or dropped, with no embedder).
            reembed.push((id, rec.clone()));
        }
        if rec == *old {
            if vector.is_none() {
                summary.nodes_unchanged += 1;
            } else {
                summary.nodes_updated += 1;
            }
            continue;
        }
        summary.nodes_updated += 1;
        bulk.update_node(catalog, id, &old, &rec)?;
    }
    embed::refresh_vectors(bulk, &reembed, embedder, options, catalog)?;
    Ok(new_nodes)
}

/// Logs (at debug level, `CAIRN_LOG=debug`) how long each step of an import took.
struct Step(std::time::Instant);

impl Step {
    fn start() -> Self {
        Step(std::time::Instant::now())
    }
    fn done(&mut self, what: &str) {
        let ms = self.0.elapsed().as_secs_f64() * 1e3;
        let rss = crate::budget::rss_note();
        tracing::debug!("import: {what} in {ms:.0} ms{rss}");
        self.0 = std::time::Instant::now();
    }
}

/// Applies the schema records to the import's catalog (which has its new names by now): an
/// element no one defined is a bad line, under `--max-errors` like the others.
fn annotate(
    catalog: &mut Catalog,
    staging: &Staging,
    summary: &mut ImportSummary,
    options: &ImportOptions,
) -> Result<(), ImportError> {
    use crate::dump::SchemaKind;
    use cairn_store::Element;
    for (record, origin) in &staging.schema {
        let element = match record.kind {
            SchemaKind::Label => catalog.label_id(&record.name).map(Element::Label),
            SchemaKind::Relation => catalog.relation_id(&record.name).map(Element::Relation),
            SchemaKind::Property => catalog.prop_id(&record.name).map(Element::Property),
        };
        let Some(element) = element else {
            let kind = match record.kind {
                SchemaKind::Label => "label",
                SchemaKind::Relation => "relation",
                SchemaKind::Property => "property",
            };
            summary.skipped.push(staging.error(
                *origin,
                format!(
                    "unknown {kind} `{}`: neither the database nor this import has it",
                    record.name
                ),
            ));
            if summary.skipped.len() > options.max_errors {
                return Err(ImportError::BadLines {
                    errors: std::mem::take(&mut summary.skipped),
                    max: options.max_errors,
                });
            }
            continue;
        };
        catalog.annotate(
            element,
            record.description.clone(),
            record.aliases.clone(),
            record.linking,
        )?;
    }
    Ok(())
}

/// The number of threads for the parallel phases.
fn workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .max(1)
}

/// Runs per core that [`par_chunks`] splits its items into.
const RUNS_PER_CORE: usize = 4;

/// Applies `f` to contiguous chunks of `items` on every core and returns the results in order.
/// There are a few chunks per core, each core taking the next when it is done: with one chunk
/// per core, a core whose half was cheaper (edges listed in node order resolve from the memo,
/// random ones need table lookups) sat idle while the other finished, and a phase used 1.3 of
/// the 2 cores.
fn par_chunks<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let size = items.len().div_ceil(workers() * RUNS_PER_CORE).max(1);
    let chunks: Vec<&[T]> = items.chunks(size).collect();
    par_each(&chunks, |chunk| f(chunk))
}

/// Applies `f` to every chunk on up to [`workers`] threads, each taking the next chunk not yet
/// taken, and returns the results in chunk order. A worker's panic reaches the caller.
fn par_each<C: Sync, R: Send>(chunks: &[C], f: impl Fn(&C) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers().min(chunks.len()))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(chunk) = chunks.get(c) else { break };
                        mine.push((c, f(chunk)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_unstable_by_key(|(c, _)| *c);
    done.into_iter().map(|(_, r)| r).collect()
}

/// A pause between ingesting files and committing, so that the kill test can hit that window.
/// Only in builds with the `test-hooks` feature, and only when `CAIRN_TEST_IMPORT_PAUSE_MS` is
/// set.
#[cfg(feature = "test-hooks")]
fn test_hook_pause() {
    if let Some(ms) = std::env::var("CAIRN_TEST_IMPORT_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        eprintln!("import: files ingested, pausing {ms} ms before commit");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

fn merge_props(into: &mut Vec<(PropKeyId, Value)>, from: Vec<(PropKeyId, Value)>) {
    for (k, v) in from {
        match into.binary_search_by_key(&k, |(pk, _)| *pk) {
            Ok(i) => into[i].1 = v,
            Err(i) => into.insert(i, (k, v)),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// `par_chunks` covers every item once and returns the chunks' results in item order, for
    /// fewer items than chunks, uneven work, and none.
    #[test]
    fn par_chunks_keeps_item_order() {
        for n in [0usize, 1, 3, 7, 1000, 12_345] {
            let items: Vec<usize> = (0..n).collect();
            let runs = par_chunks(&items, |chunk| {
                // Uneven work: later chunks finish first.
                let spin: u64 = (0..(n - chunk[0]) as u64 * 100).sum();
                (chunk.to_vec(), spin)
            });
            let joined: Vec<usize> = runs.into_iter().flat_map(|(c, _)| c).collect();
            assert_eq!(joined, items, "{n} items");
        }
    }
}

//! Vectors in an import: which embedder computes the missing ones (the dump's embedder
//! records, the database's, the caller's), and computing them on every core.

use super::{par_each, workers};
use crate::nodes::NodeList;
use crate::stage::Staging;
use crate::{report, ImportError, ImportOptions, Phase};
use cairn_embed::Embedder;
use cairn_storage_format::{EmbedderDef, NodeId, NodeRecord};
use cairn_store::{describe, BulkLoad, Catalog, VectorSink};
use std::sync::Arc;

/// The embedder that computes the import's missing vectors ([`dump_embedder`]), recorded in
/// the catalog: it must be the database's and give the supplied vectors' dimension. Without
/// one, vectors the dump supplied are recorded as supplied (of that dimension).
pub(super) fn choose_embedder<'o>(
    catalog: &mut Catalog,
    staging: &Staging,
    options: &'o ImportOptions,
    vector_dim: Option<usize>,
    has_vectors: bool,
) -> Result<Option<&'o Arc<dyn Embedder>>, ImportError> {
    let embedder = dump_embedder(catalog, staging, options, vector_dim)?;
    if let Some(embedder) = embedder {
        match catalog.embedder() {
            Some(def) if def.id != embedder.id() => {
                return Err(ImportError::EmbedderMismatch {
                    recorded: def.id.clone(),
                    given: embedder.id().to_owned(),
                })
            }
            _ => catalog.set_embedder(Some(EmbedderDef {
                id: embedder.id().to_owned(),
                dim: embedder.dim() as u32,
            })),
        }
        if let Some(d) = vector_dim.filter(|d| *d != embedder.dim()) {
            return Err(ImportError::EmbedderMismatch {
                recorded: format!("supplied vectors of dimension {d}"),
                given: embedder.id().to_owned(),
            });
        }
        // The vectors are computed while their SST file is written (`write_vectors`).
    } else if let Some(dim) = vector_dim {
        if catalog.embedder().is_none() && has_vectors {
            catalog.set_embedder(Some(EmbedderDef {
                id: crate::SUPPLIED_EMBEDDER.into(),
                dim: dim as u32,
            }));
        }
    }
    Ok(embedder)
}

type EmbedResult = Result<Vec<Vec<f32>>, ImportError>;

/// What [`write_vectors`] computed: vectors, and the time embedding them took.
#[derive(Default)]
pub(super) struct Embedded {
    pub(super) count: u64,
    pub(super) time: std::time::Duration,
}

/// Descriptions per embedding batch: large enough for a model embedder to pack thousands of
/// tokens per forward (MiniLM: ~20 tokens a description), small enough for progress every few
/// seconds.
const EMBED_BATCH: usize = 256;

/// Writes the vectors of `new_nodes` (in ascending id order) to the vector file: those the dump
/// supplied, and for the others (with an embedder) their descriptions' embeddings, computed a
/// group of batches at a time and written at once. Only one group's vectors are ever held
/// (holding all of them took 7.7 GB for 5M nodes at 384 dimensions).
pub(super) fn write_vectors(
    sink: &mut VectorSink<'_>,
    (new_nodes, nodes): (&[(NodeId, u32)], &NodeList),
    embedder: Option<&dyn Embedder>,
    catalog: &Catalog,
    options: &ImportOptions,
    embedded: &mut Embedded,
) -> Result<(), ImportError> {
    // A few batches per core: the cores wait for each other once per group.
    let group = workers() * EMBED_BATCH * 4;
    let supplied = |i: u32| nodes.vector(i as usize);
    let total = match embedder {
        Some(_) => new_nodes
            .iter()
            .filter(|(_, i)| supplied(*i).is_none())
            .count() as u64,
        None => 0,
    };
    if embedder.is_some() {
        report(options, Phase::Embed, 0, Some(total));
    }
    for group in new_nodes.chunks(group) {
        let mut computed = match embedder {
            Some(embedder) => {
                let todo: Vec<u32> = group
                    .iter()
                    .map(|&(_, i)| i)
                    .filter(|&i| supplied(i).is_none())
                    .collect();
                let started = std::time::Instant::now();
                let text = |k: usize| {
                    let rec = nodes.record(todo[k] as usize)?;
                    Ok(describe::description(&rec, catalog))
                };
                let vectors =
                    embed_nodes(embedder, todo.len(), text, options, (embedded.count, total))?;
                embedded.time += started.elapsed();
                embedded.count += vectors.len() as u64;
                vectors
            }
            None => Vec::new(),
        }
        .into_iter();
        for &(id, i) in group {
            let computed = match supplied(i) {
                Some(_) => None,
                None => computed.next(),
            };
            if let Some(v) = supplied(i).or(computed.as_deref()) {
                sink.put(id, v)?;
            }
        }
    }
    Ok(())
}

/// The vectors of existing nodes whose description this import changed without supplying a
/// vector: embedded anew in the final batch with the import's embedder, or dropped without one
/// (a vector of the old text would answer SEARCH for what the node no longer says).
pub(super) fn refresh_vectors(
    bulk: &mut BulkLoad<'_>,
    changed: &[(NodeId, NodeRecord)],
    embedder: Option<&Arc<dyn Embedder>>,
    options: &ImportOptions,
    catalog: &Catalog,
) -> Result<(), ImportError> {
    if changed.is_empty() {
        return Ok(());
    }
    match embedder.map(|e| &**e) {
        Some(embedder) => {
            let records: Vec<&NodeRecord> = changed.iter().map(|(_, r)| r).collect();
            let n = records.len() as u64;
            let text = |k: usize| Ok(describe::description(records[k], catalog));
            let vectors = embed_nodes(embedder, records.len(), text, options, (0, n))?;
            for ((id, _), v) in changed.iter().zip(&vectors) {
                bulk.put_vector(*id, v)?;
            }
        }
        None => {
            for (id, _) in changed {
                bulk.drop_vector(*id)?;
            }
        }
    }
    Ok(())
}

/// The embedder that computes the import's missing vectors, after the dump's embedder records
/// (`{"type":"embedder",…}`, which `cairn export` writes) are checked: they must agree with
/// each other, with the database's embedder and with its vectors' dimension, and are recorded
/// in the catalog. An import whose embedder is only the default then computes nothing: the
/// dump carries the vectors its database had, and nodes it gives none had none.
fn dump_embedder<'o>(
    catalog: &mut Catalog,
    staging: &Staging,
    options: &'o ImportOptions,
    vector_dim: Option<usize>,
) -> Result<Option<&'o Arc<dyn Embedder>>, ImportError> {
    let Some((declared, origin)) = staging.embedders.first() else {
        return Ok(options.embedder.as_ref());
    };
    let bad = |origin, reason: String| ImportError::BadLines {
        errors: vec![staging.error(origin, reason)],
        max: options.max_errors,
    };
    if let Some((other, at)) = staging.embedders.iter().find(|(e, _)| e != declared) {
        return Err(bad(
            *at,
            format!(
                "embedder `{}` ({} dimensions) differs from `{}` ({}) of an earlier embedder record",
                other.id, other.dim, declared.id, declared.dim
            ),
        ));
    }
    let dumped = format!("{} (the dump's embedder record)", declared.id);
    if declared.id == crate::dump::NO_EMBEDDER {
        // A database without an embedder: nothing is computed unless this database records one
        // or the caller chose one.
        if vector_dim.is_some() && catalog.embedder().is_none() {
            return Err(bad(
                *origin,
                "the embedder record says none, but the dump has vectors".into(),
            ));
        }
        let computes = catalog.embedder().is_some() || !options.embedder_is_default;
        return Ok(options.embedder.as_ref().filter(|_| computes));
    }
    if let Some(d) = vector_dim.filter(|d| *d != declared.dim as usize) {
        return Err(bad(
            *origin,
            format!(
                "the embedder record says {} dimensions, the vectors have {d}",
                declared.dim
            ),
        ));
    }
    match catalog.embedder() {
        Some(def) if def.id != declared.id || def.dim != declared.dim => {
            return Err(ImportError::EmbedderMismatch {
                recorded: def.id.clone(),
                given: dumped,
            })
        }
        Some(_) => {}
        None => catalog.set_embedder(Some(EmbedderDef {
            id: declared.id.clone(),
            dim: declared.dim,
        })),
    }
    match &options.embedder {
        Some(_) if options.embedder_is_default => Ok(None),
        Some(e) if e.id() != declared.id => Err(ImportError::EmbedderMismatch {
            recorded: dumped,
            given: e.id().to_owned(),
        }),
        e => Ok(e.as_ref()),
    }
}

/// Embeds `count` descriptions, the `k`-th given by `text(k)`, on every core, in batches,
/// reporting [`Phase::Embed`] progress after each batch (a model embedder can take minutes
/// here); `progress` is the number of descriptions embedded before these, and the total. Each
/// worker makes its batch's texts, so records are decoded where they are embedded.
///
/// One worker per core pulls the next batch, which keeps single-threaded embedders (hash, HTTP)
/// on every core. An embedder that is itself parallel inside a batch (MiniLM) then runs two
/// threads per core; measured on 10,000 descriptions, that took the same CPU time (60–65 s) as
/// one calling thread, so no embedder needs to say how it parallelises.
fn embed_nodes(
    embedder: &dyn Embedder,
    count: usize,
    text: impl Fn(usize) -> Result<String, ImportError> + Sync,
    options: &ImportOptions,
    progress: (u64, u64),
) -> Result<Vec<Vec<f32>>, ImportError> {
    let (before, total) = progress;
    let done = std::sync::atomic::AtomicU64::new(before);
    let texts = |chunk: &std::ops::Range<usize>| -> Result<Vec<String>, ImportError> {
        chunk.clone().map(&text).collect()
    };
    let chunks: Vec<std::ops::Range<usize>> = (0..count)
        .step_by(EMBED_BATCH)
        .map(|start| start..(start + EMBED_BATCH).min(count))
        .collect();
    let parts = par_each(&chunks, |chunk| {
        let result: EmbedResult = texts(chunk).and_then(|t| {
            let refs: Vec<&str> = t.iter().map(String::as_str).collect();
            Ok(embedder.embed_batch(&refs)?)
        });
        let now = done.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed)
            + chunk.len() as u64;
        report(options, Phase::Embed, now, Some(total));
        result
    });
    let mut vectors = Vec::with_capacity(count);
    for part in parts {
        vectors.extend(part?);
    }
    Ok(vectors)
}

//! What [`crate::Cairn::import`] and [`crate::Cairn::import_records`] take: the import crate's
//! options, with the embedder said in the facade's terms (the database's, a given one, or none),
//! which the import crate cannot say because it does not know the database's embedder.

use cairn_embed::Embedder;
use cairn_import::triples::TriplesOptions;
use cairn_import::ProgressFn;
use std::fmt;
use std::sync::Arc;

/// Which embedder computes vectors for the new nodes of an import that bring none.
#[derive(Clone, Debug, Default)]
pub enum ImportEmbedder {
    /// The one the database records, which its queries embed with; none for a database
    /// without vectors (a new one: SEARCH's words are the full-text index's, docs/SEARCH.md),
    /// which stores only vectors supplied with the data. A database whose vectors were supplied
    /// with the data stays that way: only supplied vectors are stored.
    #[default]
    Database,
    /// This one, recorded in the catalog; refused ([`crate::ImportError::EmbedderMismatch`])
    /// when the database records another, since vectors of two embedders cannot be compared.
    Use(Arc<dyn Embedder>),
    /// None: only vectors supplied in the dump are stored.
    None,
}

/// How to import through the facade.
#[derive(Clone, Default)]
pub struct ImportOptions {
    /// Bad lines to skip (each reported in the summary) before the import aborts. Default 0:
    /// the first bad line aborts and the database stays unchanged.
    pub max_errors: usize,
    /// Called with the phase and bytes or records done, for a progress display.
    pub progress: Option<ProgressFn>,
    pub embedder: ImportEmbedder,
    /// How triples files are recognised and labelled (docs/IMPORT.md).
    pub triples: TriplesOptions,
    /// Bytes the import's staged and sorted edges may hold in memory before they spill to the
    /// database directory (`cairn_import::DEFAULT_MEMORY_BUDGET` when `None`; docs/IMPORT.md).
    pub memory_budget: Option<u64>,
}

impl fmt::Debug for ImportOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImportOptions")
            .field("max_errors", &self.max_errors)
            .field("embedder", &self.embedder)
            .field("triples", &self.triples)
            .field("memory_budget", &self.memory_budget)
            .finish()
    }
}

impl ImportOptions {
    /// The import crate's options, with `embedder` resolved by the caller.
    pub(crate) fn resolve(
        self,
        embedder: Option<Arc<dyn Embedder>>,
    ) -> cairn_import::ImportOptions {
        cairn_import::ImportOptions {
            max_errors: self.max_errors,
            progress: self.progress,
            embedder,
            embedder_is_default: matches!(self.embedder, ImportEmbedder::Database),
            triples: self.triples,
            memory_budget: self.memory_budget,
        }
    }
}

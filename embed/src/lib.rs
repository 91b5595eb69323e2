//! Text embedders: turn a node's one-sentence description (or a query goal) into a unit vector for the
//! HNSW entry-node lookup (DESIGN.md §5).
//!
//! Every embedder reports a stable [`Embedder::id`] and [`Embedder::dim`]. The catalog records both when
//! the first vector is written, and refuses a later embedder whose id differs: cosine scores between
//! vectors of two different models are meaningless, and mixing them would silently degrade every search.
//!
//! Implementations:
//! - [`HashEmbedder`]: deterministic, model-free (hashed word and character n-grams); the default for
//!   tests and the zero-setup path.
//! - [`HttpEmbedder`]: an OpenAI-compatible `/v1/embeddings` endpoint.
//! - `MiniLmEmbedder` (cargo feature `minilm`): all-MiniLM-L6-v2 run in-process from local files.
//! - Vectors supplied with the data need no embedder at import; queries against them still need one
//!   with the same id, which the import records.

mod hash;
mod http;
mod kernel;
#[cfg(feature = "minilm")]
mod minilm;

pub use hash::HashEmbedder;
pub use http::{HttpEmbedder, HttpEmbedderConfig};
pub use kernel::{dot, dot_i8};
#[cfg(feature = "minilm")]
pub use minilm::MiniLmEmbedder;

use std::path::PathBuf;
use std::sync::Arc;

/// The id all-MiniLM-L6-v2 records in the catalog. Known in every build, so that a binary without
/// the `minilm` feature recognises a MiniLM database and refuses it by name instead of embedding
/// its queries with another model.
pub const MINILM_ID: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// Dimension of all-MiniLM-L6-v2's vectors.
pub const MINILM_DIM: usize = 384;

/// Environment variable naming the MiniLM model directory (with `model.safetensors`,
/// `tokenizer.json`, `config.json`); `scripts/fetch-minilm.sh` creates one and prints its path.
pub const MINILM_DIR_ENV: &str = "CAIRN_MINILM_DIR";

/// What a user does to get a working MiniLM embedder; part of every error that says it is missing.
pub const MINILM_FIX: &str =
    "build cairn with `--features minilm` (e.g. `cargo build --release -p cairn-cli --features minilm`), \
run `bash scripts/fetch-minilm.sh` and set CAIRN_MINILM_DIR to the directory it prints";

/// all-MiniLM-L6-v2 loaded from `CAIRN_MINILM_DIR`, in every build: without the `minilm` cargo
/// feature this is [`EmbedError::NotCompiled`], so callers (the CLI, the facade) need no `cfg` of
/// their own and a missing feature is an error the user can read, never a silent substitute.
pub fn minilm_from_env() -> Result<Arc<dyn Embedder>, EmbedError> {
    #[cfg(feature = "minilm")]
    {
        Ok(Arc::new(MiniLmEmbedder::from_env()?))
    }
    #[cfg(not(feature = "minilm"))]
    {
        Err(EmbedError::NotCompiled {
            id: MINILM_ID,
            feature: "minilm",
            fix: MINILM_FIX,
        })
    }
}

/// Why an embedding could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A setting (environment variable) is missing or unusable.
    #[error(transparent)]
    Setting(#[from] cairn_http::settings::SettingError),
    /// The endpoint answered with a non-success HTTP status.
    #[error("embedding endpoint {url} answered HTTP {status}: {message}")]
    HttpStatus {
        /// The URL that was called.
        url: String,
        /// The HTTP status code.
        status: u16,
        /// The error message from the body, or the body itself.
        message: String,
    },
    /// The request did not complete in time.
    #[error("embedding endpoint {url} did not answer within {secs} s")]
    Timeout {
        /// The URL that was called.
        url: String,
        /// The timeout that elapsed.
        secs: u64,
    },
    /// Connecting or transferring failed.
    #[error("cannot reach embedding endpoint {url}: {message}")]
    Transport {
        /// The URL that was called.
        url: String,
        /// The transport error.
        message: String,
    },
    /// The endpoint answered, but not with the expected embeddings.
    #[error("bad answer from embedding endpoint {url}: {message}")]
    BadResponse {
        /// The URL that was called.
        url: String,
        /// What was wrong.
        message: String,
    },
    /// A vector of the wrong length was produced.
    #[error("embedder {id} produced a {got}-dimensional vector, expected {expected}")]
    Dimension {
        /// The embedder's id.
        id: String,
        /// The dimension the embedder declared.
        expected: usize,
        /// The dimension it produced.
        got: usize,
    },
    /// A vector was zero or not finite, so it cannot be normalised.
    #[error("embedder {id} produced a zero or non-finite vector")]
    Degenerate {
        /// The embedder's id.
        id: String,
    },
    /// A model file could not be read.
    #[error("cannot read model file {path}: {source}")]
    ModelIo {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The embedder needs a cargo feature this build was compiled without.
    #[error("embedder {id} is not in this build of cairn (compiled without the cargo feature `{feature}`); to use it, {fix}")]
    NotCompiled {
        /// The embedder's id.
        id: &'static str,
        /// The cargo feature that provides it.
        feature: &'static str,
        /// What to do about it.
        fix: &'static str,
    },
    /// A model file was read but is not usable.
    #[error("model {path}: {message}")]
    Model {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Text → unit-length vector.
///
/// Implementations must be deterministic for a given `id()` (same text, same vector up to float noise),
/// because stored node vectors and later query vectors are compared with each other.
pub trait Embedder: Send + Sync + std::fmt::Debug {
    /// Stable identifier recorded in the catalog, e.g. `cairn-hash-v1/384`. Two embedders with the same
    /// id must produce comparable vectors.
    fn id(&self) -> &str;

    /// Length of every produced vector.
    fn dim(&self) -> usize;

    /// Embeds many texts at once (one model call / one HTTP request per batch where possible). The
    /// result has one unit vector per input, in input order.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// Whether nearby vectors mean nearby meanings ("spouse" near "husband"), so that the
    /// planner may match question phrases to schema names by cosine. False unless an embedder
    /// says so: a hash of words and character n-grams is near only for shared spellings, which
    /// the planner's stemmer already sees, and its cosines would only add noise.
    fn is_semantic(&self) -> bool {
        false
    }

    /// Embeds one text.
    fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut v = self.embed_batch(&[text])?;
        v.pop().ok_or_else(|| EmbedError::Degenerate {
            id: self.id().to_owned(),
        })
    }
}

/// Scales `v` to unit length in place. Fails on zero or non-finite vectors, which no cosine index can
/// place meaningfully.
pub fn normalize(v: &mut [f32]) -> bool {
    let norm = v
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if !norm.is_finite() || norm <= f64::MIN_POSITIVE {
        return false;
    }
    let inv = (1.0 / norm) as f32;
    v.iter_mut().for_each(|x| *x *= inv);
    true
}

/// Cosine of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    dot(a, b)
}

/// Checks an embedder's output against its declared dimension and normalises it.
pub(crate) fn finish(id: &str, dim: usize, mut v: Vec<f32>) -> Result<Vec<f32>, EmbedError> {
    if v.len() != dim {
        return Err(EmbedError::Dimension {
            id: id.to_owned(),
            expected: dim,
            got: v.len(),
        });
    }
    if !normalize(&mut v) {
        return Err(EmbedError::Degenerate { id: id.to_owned() });
    }
    Ok(v)
}

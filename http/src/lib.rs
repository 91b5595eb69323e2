//! The one OpenAI-compatible HTTP client (chat completions for the LLM backend, embeddings for
//! the HTTP embedder) and the reader of `CAIRN_*` settings that configures them and MiniLM.
//!
//! One client so that timeouts, retries with backoff, error classification and the redaction
//! of keys in messages (`redact`) are the same for every endpoint Cairn calls.

pub mod client;
pub mod redact;
pub mod settings;
#[cfg(feature = "testing")]
pub mod testing;

pub use client::{Client, ClientConfig, EnvVars, HttpError};
pub use redact::{redact_url, Redactor};

//! Client for OpenAI-compatible `POST {base}/embeddings` endpoints (OpenAI, vLLM, llama.cpp server,
//! Ollama's OpenAI layer, text-embeddings-inference, ...).

use crate::{finish, EmbedError, Embedder};
use cairn_http::settings::Settings;
use cairn_http::{Client, ClientConfig, EnvVars, HttpError};
use serde::{Deserialize, Serialize};

/// Base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`.
pub const ENV_URL: &str = "CAIRN_EMBED_URL";
/// Model name sent in each request.
pub const ENV_MODEL: &str = "CAIRN_EMBED_MODEL";
/// Bearer token; `OPENAI_API_KEY` is used when this is unset. Local servers usually need none.
pub const ENV_KEY: &str = "CAIRN_EMBED_API_KEY";
/// Optional: the vector length (sent as `dimensions` for models that can shorten their output).
pub const ENV_DIM: &str = "CAIRN_EMBED_DIM";
/// Optional: per-request timeout in seconds (default 60).
pub const ENV_TIMEOUT: &str = "CAIRN_EMBED_TIMEOUT_SECS";
/// Optional: retries after a failed request (default 2), as for the LLM backend.
pub const ENV_RETRIES: &str = "CAIRN_EMBED_RETRIES";

/// Where and how to call the endpoint.
#[derive(Clone, Debug)]
pub struct HttpEmbedderConfig {
    /// Base URL (`/embeddings` is appended), key, timeout and retries.
    pub endpoint: ClientConfig,
    /// Model name.
    pub model: String,
    /// Requested dimension; `None` asks the endpoint once at connect time.
    pub dim: Option<usize>,
    /// Inputs per request; larger batches are split.
    pub max_batch: usize,
}

/// Where [`HttpEmbedderConfig::from_env`] reads the endpoint from.
const ENV_VARS: EnvVars = EnvVars {
    url: ENV_URL,
    url_help: "base URL of an OpenAI-compatible embeddings API, e.g. http://127.0.0.1:8080/v1",
    key: ENV_KEY,
    timeout: ENV_TIMEOUT,
    retries: ENV_RETRIES,
};

impl HttpEmbedderConfig {
    /// The client defaults ([`ClientConfig::new`]) and batches of 128.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        HttpEmbedderConfig {
            endpoint: ClientConfig::new(base_url),
            model: model.into(),
            dim: None,
            max_batch: 128,
        }
    }

    /// Reads `CAIRN_EMBED_URL`, `CAIRN_EMBED_MODEL`, `CAIRN_EMBED_API_KEY` (or `OPENAI_API_KEY`),
    /// `CAIRN_EMBED_DIM`, `CAIRN_EMBED_TIMEOUT_SECS` and `CAIRN_EMBED_RETRIES`.
    pub fn from_env() -> Result<Self, EmbedError> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Like [`from_env`](Self::from_env) with an injectable lookup (tests must not mutate the process
    /// environment, which other threads read).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, EmbedError> {
        let env = Settings(get);
        let endpoint = ClientConfig::from_settings(&env, &ENV_VARS)?;
        let model = env.required(ENV_MODEL, "embedding model name")?;
        let dim = env.parsed(ENV_DIM, |d: &usize| *d > 0, "expected a positive integer")?;
        Ok(HttpEmbedderConfig {
            endpoint,
            model,
            dim,
            max_batch: 128,
        })
    }
}

/// Embedder backed by an OpenAI-compatible HTTP endpoint. Blocking; one request per batch of up to
/// `max_batch` inputs.
pub struct HttpEmbedder {
    client: Client,
    config: HttpEmbedderConfig,
    dim: usize,
    id: String,
}

impl std::fmt::Debug for HttpEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEmbedder")
            .field("id", &self.id)
            .field("url", &self.client.url())
            .finish()
    }
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    input: &'a [&'a str],
    encoding_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<usize>,
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    index: usize,
    embedding: Vec<f32>,
}

impl HttpEmbedder {
    /// Builds the client; when `config.dim` is `None`, embeds one probe text to learn the dimension,
    /// so a wrong URL, model or key fails here rather than in the middle of an import.
    pub fn connect(config: HttpEmbedderConfig) -> Result<Self, EmbedError> {
        let client = Client::new(ENV_URL, "embeddings", config.endpoint.clone())?;
        let mut e = HttpEmbedder {
            client,
            dim: config.dim.unwrap_or(0),
            id: String::new(),
            config,
        };
        if e.dim == 0 {
            let probe = e.request(&["dimension probe"])?;
            e.dim = probe.first().map(Vec::len).unwrap_or(0);
            if e.dim == 0 {
                return Err(e.bad("the probe embedding is empty"));
            }
        }
        e.id = format!("openai-http/{}/{}", e.config.model, e.dim);
        Ok(e)
    }

    fn bad(&self, message: impl Into<String>) -> EmbedError {
        EmbedError::BadResponse {
            url: self.client.url().to_owned(),
            message: message.into(),
        }
    }

    /// One POST; returns raw (not yet normalised) vectors in input order.
    fn request(&self, input: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = Request {
            model: &self.config.model,
            input,
            encoding_format: "float",
            dimensions: self.config.dim,
        };
        let json = serde_json::to_vec(&body)
            .map_err(|e| self.bad(format!("cannot encode request: {e}")))?;
        let text = self.client.post_json(&json).map_err(|e| match e {
            HttpError::Timeout { url, secs, .. } => EmbedError::Timeout { url, secs },
            HttpError::Transport { url, message, .. } => EmbedError::Transport { url, message },
            HttpError::Status {
                url,
                status,
                message,
                ..
            } => EmbedError::HttpStatus {
                url,
                status,
                message,
            },
        })?;
        // serde's message may quote the body: redacted like every text about the request.
        let parsed: Response = serde_json::from_str(&text).map_err(|e| {
            self.bad(format!(
                "not an embeddings response: {}",
                self.client.redact(&e.to_string())
            ))
        })?;
        if parsed.data.len() != input.len() {
            return Err(self.bad(format!(
                "{} embeddings for {} inputs",
                parsed.data.len(),
                input.len()
            )));
        }
        // the protocol tags each item with its input index; servers may reorder
        let mut out: Vec<Option<Vec<f32>>> = vec![None; input.len()];
        for item in parsed.data {
            match out.get_mut(item.index) {
                Some(slot @ None) => *slot = Some(item.embedding),
                _ => {
                    return Err(self.bad(format!("duplicate or out-of-range index {}", item.index)))
                }
            }
        }
        out.into_iter()
            .map(|v| v.ok_or_else(|| self.bad("missing index")))
            .collect()
    }
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    /// A sentence-embedding model: cosine follows meaning.
    fn is_semantic(&self) -> bool {
        true
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(self.config.max_batch.max(1)) {
            for v in self.request(chunk)? {
                out.push(finish(&self.id, self.dim, v)?);
            }
        }
        Ok(out)
    }
}

//! The blocking client for OpenAI-compatible endpoints (`POST {base}/{path}` with a JSON body and
//! an optional bearer token), with one policy for every caller: a whole-request timeout, retries
//! with doubling backoff after a transport error, a timeout, HTTP 429 or 5xx (never after another
//! 4xx, which a retry would not fix), and the server's error message taken from its JSON body —
//! as a bounded excerpt with the keys masked (`redact.rs`), like every URL the errors name.

use crate::redact::Redactor;
use crate::settings::{endpoint, Endpoint, SettingError, Settings};
use serde::Deserialize;
use std::time::Duration;

/// The longest whole-request timeout a setting may ask for: an hour.
pub const MAX_TIMEOUT_SECS: u64 = 3600;
/// The most retries a setting may ask for (with doubling backoff from 500 ms, 10 retries already
/// wait over 8 minutes).
pub const MAX_RETRIES: u32 = 10;

/// How to call one endpoint.
#[derive(Clone)]
pub struct ClientConfig {
    /// Base URL up to and including `/v1`.
    pub base_url: String,
    /// Bearer token, if the endpoint needs one.
    pub api_key: Option<String>,
    /// Whole-request timeout (connect, send, receive).
    pub timeout: Duration,
    /// Retries after a transport error, a timeout, HTTP 429 or 5xx.
    pub retries: u32,
    /// First backoff; doubled after each retry.
    pub backoff: Duration,
}

impl std::fmt::Debug for ClientConfig {
    // never print the key
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &crate::redact::redact_url(&self.base_url))
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .finish()
    }
}

impl ClientConfig {
    /// Defaults every endpoint shares: a 60 s timeout and 2 retries starting at 500 ms.
    pub fn new(base_url: impl Into<String>) -> Self {
        ClientConfig {
            base_url: base_url.into(),
            api_key: None,
            timeout: Duration::from_secs(60),
            retries: 2,
            backoff: Duration::from_millis(500),
        }
    }

    /// Reads the base URL (required), the key (else `OPENAI_API_KEY`), the timeout in seconds
    /// (1 to [`MAX_TIMEOUT_SECS`]) and the retries (0 to [`MAX_RETRIES`]) from the variables
    /// `vars` names; a value out of range is refused, not clamped.
    pub fn from_settings<F: Fn(&str) -> Option<String>>(
        env: &Settings<F>,
        vars: &EnvVars,
    ) -> Result<Self, SettingError> {
        let mut c = ClientConfig::new(env.required(vars.url, vars.url_help)?);
        c.api_key = env.api_key(vars.key);
        if let Some(s) = env.parsed(
            vars.timeout,
            |s: &u64| (1..=MAX_TIMEOUT_SECS).contains(s),
            &format!("expected a whole number of seconds from 1 to {MAX_TIMEOUT_SECS}"),
        )? {
            c.timeout = Duration::from_secs(s);
        }
        if let Some(r) = env.parsed(
            vars.retries,
            |r: &u32| *r <= MAX_RETRIES,
            &format!("expected a whole number from 0 to {MAX_RETRIES}"),
        )? {
            c.retries = r;
        }
        Ok(c)
    }
}

/// The environment variables one client's [`ClientConfig`] is read from.
#[derive(Debug, Clone, Copy)]
pub struct EnvVars {
    /// Base URL, up to and including `/v1`.
    pub url: &'static str,
    /// What the URL is for, shown when it is missing.
    pub url_help: &'static str,
    pub key: &'static str,
    pub timeout: &'static str,
    pub retries: &'static str,
}

/// Why a request failed, after the retries it was worth. Every variant carries the URL and the
/// attempts made, so callers can word their own error without losing either.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The server could not be reached or the connection broke.
    #[error("{url} is unreachable after {attempts} attempt(s): {message}")]
    Transport {
        url: String,
        attempts: u32,
        message: String,
    },
    /// No complete answer within the timeout.
    #[error("{url} did not answer within {secs} s (after {attempts} attempt(s))")]
    Timeout {
        url: String,
        secs: u64,
        attempts: u32,
    },
    /// A non-2xx status, with the server's message.
    #[error("{url} answered HTTP {status}: {message}")]
    Status {
        url: String,
        status: u16,
        message: String,
        attempts: u32,
    },
}

/// A client for one endpoint.
pub struct Client {
    agent: ureq::Agent,
    endpoint: Endpoint,
    redactor: Redactor,
    config: ClientConfig,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.endpoint.shown)
            .finish()
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: ErrorDetail,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ErrorDetail {
    Object { message: String },
    Text(String),
}

impl Client {
    /// A client for `{config.base_url}/{path}`; `setting` names the variable the base URL came
    /// from, for the error when it is not an http(s) URL. No request is made yet.
    pub fn new(setting: &str, path: &str, config: ClientConfig) -> Result<Self, SettingError> {
        let endpoint = endpoint(setting, &config.base_url, path)?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        let redactor = Redactor::new(
            config
                .api_key
                .iter()
                .cloned()
                .chain(endpoint.secrets.iter().cloned()),
        );
        Ok(Client {
            agent,
            endpoint,
            redactor,
            config,
        })
    }

    /// The endpoint's URL as it may be shown: query values masked (the request goes to the
    /// full one, which is never handed out).
    #[allow(clippy::misnamed_getters)]
    pub fn url(&self) -> &str {
        &self.endpoint.shown
    }

    /// `text` (a response, a library's error) as a message may quote it: this client's secrets
    /// masked, on one line, at most [`crate::redact::EXCERPT_CHARS`] characters.
    pub fn redact(&self, text: &str) -> String {
        self.redactor
            .excerpt(&text.replace(&self.endpoint.url, &self.endpoint.shown))
    }

    /// POSTs the JSON `body` and returns the 2xx response body, retrying as the module says.
    pub fn post_json(&self, body: &[u8]) -> Result<String, HttpError> {
        let mut backoff = self.config.backoff;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let (err, retry) = match self.attempt(body, attempts) {
                Ok(text) => return Ok(text),
                Err(e) => e,
            };
            if !retry || attempts > self.config.retries {
                return Err(err);
            }
            tracing::warn!(error = %err, attempt = attempts, "HTTP request failed; retrying");
            std::thread::sleep(backoff);
            backoff = backoff.saturating_mul(2);
        }
    }

    /// One request: the body, or the error and whether a retry may help.
    fn attempt(&self, body: &[u8], attempts: u32) -> Result<String, (HttpError, bool)> {
        let mut req = self
            .agent
            .post(&self.endpoint.url)
            .header("Content-Type", "application/json");
        if let Some(key) = &self.config.api_key {
            req = req.header("Authorization", &format!("Bearer {key}"));
        }
        let mut resp = req
            .send(body)
            .map_err(|e| (self.transport(e, attempts), true))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| (self.transport(e, attempts), true))?;
        if (200..300).contains(&status) {
            return Ok(text);
        }
        // The server's words, never raw: a bounded excerpt with the keys masked.
        let message = serde_json::from_str::<ErrorBody>(&text)
            .map(|b| match b.error {
                ErrorDetail::Object { message } | ErrorDetail::Text(message) => message,
            })
            .unwrap_or(text);
        let err = HttpError::Status {
            url: self.url().to_owned(),
            message: self.redact(&message),
            status,
            attempts,
        };
        Err((err, status == 429 || status >= 500))
    }

    fn transport(&self, e: ureq::Error, attempts: u32) -> HttpError {
        let timed_out = matches!(&e, ureq::Error::Timeout(_))
            || matches!(&e, ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut);
        if timed_out {
            HttpError::Timeout {
                url: self.url().to_owned(),
                secs: self.config.timeout.as_secs().max(1),
                attempts,
            }
        } else {
            HttpError::Transport {
                url: self.url().to_owned(),
                attempts,
                message: self.redact(&e.to_string()),
            }
        }
    }
}

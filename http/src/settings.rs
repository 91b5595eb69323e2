//! Settings read from `CAIRN_*` environment variables, shared by the clients that need them (the
//! HTTP embedder and MiniLM in cairn-embed, the LLM backend in cairn-agent), so that every
//! variable is checked and reported the same way.
//!
//! Reads go through a lookup function rather than `std::env` directly: tests pass a map, since
//! mutating the process environment races with other threads reading it.

use crate::redact::{authority_span, redact_url};
use std::str::FromStr;

/// A setting that is missing or cannot be used. Both name the variable, which is what the user
/// has to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    #[error("environment variable {var} is not set ({why})")]
    Missing {
        /// The variable's name.
        var: &'static str,
        /// What it is for.
        why: &'static str,
    },
    #[error("invalid setting {name}={value:?}: {reason}")]
    Invalid {
        /// The setting's name.
        name: String,
        /// Its value.
        value: String,
        /// Why it was rejected.
        reason: String,
    },
}

impl SettingError {
    pub fn invalid(name: &str, value: &str, reason: impl Into<String>) -> Self {
        SettingError::Invalid {
            name: name.to_owned(),
            value: value.to_owned(),
            reason: reason.into(),
        }
    }
}

/// Reads settings through a lookup (`|k| std::env::var(k).ok()` in production).
#[derive(Debug, Clone, Copy)]
pub struct Settings<F>(pub F);

impl<F: Fn(&str) -> Option<String>> Settings<F> {
    /// The variable's value as set (possibly blank).
    pub fn get(&self, var: &str) -> Option<String> {
        (self.0)(var)
    }

    /// The variable's value; unset and blank are both missing.
    pub fn required(&self, var: &'static str, why: &'static str) -> Result<String, SettingError> {
        self.get(var)
            .filter(|v| !v.trim().is_empty())
            .ok_or(SettingError::Missing { var, why })
    }

    /// A bearer token: `var`, else `OPENAI_API_KEY` (what OpenAI-compatible tools share); empty
    /// counts as unset, since local servers usually need none.
    pub fn api_key(&self, var: &str) -> Option<String> {
        self.get(var)
            .or_else(|| self.get("OPENAI_API_KEY"))
            .filter(|k| !k.is_empty())
    }

    /// The variable parsed as `T` when set; rejected (as `expected` says) when it does not parse
    /// or `accept` refuses it.
    pub fn parsed<T: FromStr>(
        &self,
        var: &str,
        accept: impl Fn(&T) -> bool,
        expected: &str,
    ) -> Result<Option<T>, SettingError> {
        let Some(raw) = self.get(var) else {
            return Ok(None);
        };
        match raw.trim().parse::<T>() {
            Ok(v) if accept(&v) => Ok(Some(v)),
            _ => Err(SettingError::invalid(var, &raw, expected)),
        }
    }
}

/// Where requests go, and how that URL may be shown.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The URL requests go to: `{base}/{path}`, with the base's query (if any) after the path.
    pub url: String,
    /// The same with every query value masked ([`crate::redact::redact_url`]): for messages.
    pub shown: String,
    /// The base URL's query values, which may be keys (`?api_key=…`).
    pub secrets: Vec<String>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.shown)
            .finish()
    }
}

/// `{base}/{path}` for an HTTP API whose base URL the setting `name` gave. Only http(s) is
/// accepted, so a typo fails here, naming the setting, rather than at the first request. A
/// query (`?api_key=…`, `?api-version=…`) stays after the appended path. Credentials in the
/// authority (`user:password@host`) are refused: the key belongs in the key's setting, where
/// it is never shown, and the client would not send them. Errors show the URL redacted.
pub fn endpoint(name: &str, base: &str, path: &str) -> Result<Endpoint, SettingError> {
    let base = base.trim();
    let invalid = |reason: &str| SettingError::invalid(name, &redact_url(base), reason);
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(invalid("must start with http:// or https://"));
    }
    let (base, fragment) = base.split_once('#').unwrap_or((base, ""));
    if !fragment.is_empty() {
        return Err(invalid("must not have a #fragment"));
    }
    let (location, query) = match base.split_once('?') {
        Some((l, q)) => (l, Some(q)),
        None => (base, None),
    };
    if let Some((start, end)) = authority_span(location) {
        if location[start..end].contains('@') {
            return Err(invalid(
                "must not carry credentials (user:password@host): give the key in its own setting",
            ));
        }
        if start == end {
            return Err(invalid("has no host"));
        }
    }
    let mut url = format!("{}/{path}", location.trim_end_matches('/'));
    let mut secrets = Vec::new();
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        url.push('?');
        url.push_str(q);
        secrets.extend(
            q.split('&')
                .filter_map(|p| p.split_once('=').map(|(_, v)| v.to_owned())),
        );
    }
    Ok(Endpoint {
        shown: redact_url(&url),
        url,
        secrets,
    })
}

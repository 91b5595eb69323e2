//! Settings read from `CAIRN_*` environment variables, shared by the clients that need them (the
//! HTTP embedder and MiniLM in cairn-embed, the LLM backend in cairn-agent), so that every
//! variable is checked and reported the same way.
//!
//! Reads go through a lookup function rather than `std::env` directly: tests pass a map, since
//! mutating the process environment races with other threads reading it.

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

/// `{base}/{path}` for an HTTP API whose base URL the setting `name` gave; only http(s) is
/// accepted, so a typo fails here, naming the setting, rather than at the first request.
pub fn endpoint(name: &str, base: &str, path: &str) -> Result<String, SettingError> {
    let url = format!("{}/{path}", base.trim_end_matches('/'));
    if url.starts_with("http://") || url.starts_with("https://") {
        Ok(url)
    } else {
        Err(SettingError::invalid(
            name,
            base,
            "must start with http:// or https://",
        ))
    }
}

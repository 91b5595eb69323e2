//! Keeping secrets out of messages: what a server sends back and what a URL carries never
//! reaches an error message or a log line raw.
//!
//! A server's error body may quote the request's key (OpenAI's 401 names the key it refused, a
//! proxy's 500 may echo the `Authorization` header), and a base URL may carry one in its query
//! (`?api_key=…`). So every text about a request goes through a [`Redactor`] built from the
//! client's secrets: each secret, and every 8-character piece of a long one (a partial echo),
//! is replaced by `***`, as is anything after `Bearer ` and any `sk-…` token; control
//! characters become spaces (the text is one line of a message); and a body is quoted only as
//! an excerpt of at most [`EXCERPT_CHARS`] characters.

/// The most characters of a server's text an error message quotes.
pub const EXCERPT_CHARS: usize = 200;

/// What replaces a secret.
const MASK: &str = "***";

/// A secret shorter than this is not searched for in text (a query value such as `v=1` is not
/// a key); URLs are still redacted by their structure ([`redact_url`]).
const MIN_SECRET: usize = 6;

/// Pieces of a long secret this long are masked wherever they appear.
const PIECE: usize = 8;

/// Masks the secrets of one client in text about its requests.
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("secrets", &self.secrets.len())
            .finish()
    }
}

impl Redactor {
    /// A redactor for these secrets (empty ones are ignored).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        Redactor {
            secrets: secrets
                .into_iter()
                .filter(|s| s.len() >= MIN_SECRET)
                .collect(),
        }
    }

    /// `text` on one line with the secrets masked (no length bound).
    pub fn clean(&self, text: &str) -> String {
        let mut hidden = vec![false; text.len()];
        let bytes = text.as_bytes();
        for secret in &self.secrets {
            let s = secret.as_bytes();
            for piece in s.windows(s.len().min(PIECE)) {
                mark_all(bytes, piece, &mut hidden);
            }
        }
        mark_tokens(text, &mut hidden);
        let mut out = String::with_capacity(text.len());
        let mut masking = false;
        for (i, c) in text.char_indices() {
            if hidden[i..i + c.len_utf8()].iter().any(|h| *h) {
                if !masking {
                    out.push_str(MASK);
                }
                masking = true;
                continue;
            }
            masking = false;
            out.push(if c.is_control() { ' ' } else { c });
        }
        out
    }

    /// A bounded excerpt of `text` (a response body, a library's error), masked: at most
    /// [`EXCERPT_CHARS`] characters, with `…` when cut.
    pub fn excerpt(&self, text: &str) -> String {
        // Masked on a longer prefix first, so that a secret across the cut is masked whole.
        let prefix: String = text.chars().take(EXCERPT_CHARS * 4).collect();
        let clean = self.clean(prefix.trim());
        if clean.chars().count() <= EXCERPT_CHARS && prefix.len() == text.len() {
            return clean;
        }
        let mut cut: String = clean.chars().take(EXCERPT_CHARS).collect();
        cut.push('…');
        cut
    }
}

/// Marks every occurrence of `piece` in `bytes`.
fn mark_all(bytes: &[u8], piece: &[u8], hidden: &mut [bool]) {
    if piece.is_empty() || piece.len() > bytes.len() {
        return;
    }
    for start in 0..=bytes.len() - piece.len() {
        if &bytes[start..start + piece.len()] == piece {
            hidden[start..start + piece.len()].fill(true);
        }
    }
}

/// Marks the token after every `Bearer ` (any case) and every `sk-` key of 8 or more key
/// characters, whatever the secrets: an echoed header or a key of another client.
fn mark_tokens(text: &str, hidden: &mut [bool]) {
    let lower = text.to_ascii_lowercase();
    let token_end = |from: usize| {
        text[from..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ';' | '}'))
            .map_or(text.len(), |n| from + n)
    };
    let mut at = 0;
    while let Some(n) = lower[at..].find("bearer ") {
        let start = at + n + "bearer ".len();
        let end = token_end(start);
        hidden[start..end].fill(true);
        at = start.max(end);
    }
    let mut at = 0;
    while let Some(n) = lower[at..].find("sk-") {
        let start = at + n;
        let end = token_end(start);
        let body = &text[start + 3..end];
        if body.len() >= PIECE
            && body
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '*' | '.'))
        {
            hidden[start + 3..end].fill(true);
        }
        at = start + 3;
    }
}

/// A URL as it may be shown: a user name and password (`user:pass@`) and every query value
/// (`?api_key=…`) replaced by `***`.
pub fn redact_url(url: &str) -> String {
    let (before_query, query) = match url.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (url, None),
    };
    let mut out = match authority_span(before_query) {
        Some((start, end)) => match before_query[start..end].rfind('@') {
            Some(at) => format!(
                "{}{MASK}{}",
                &before_query[..start],
                &before_query[start + at..]
            ),
            None => before_query.to_owned(),
        },
        None => before_query.to_owned(),
    };
    if let Some(q) = query {
        let q = q.split('#').next().unwrap_or("");
        let pairs: Vec<String> = q
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, _)) => format!("{k}={MASK}"),
                None if pair.is_empty() => String::new(),
                None => MASK.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

/// The byte range of a URL's authority (`user:pass@host:port`), after `scheme://`.
pub(crate) fn authority_span(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |n| start + n);
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_their_pieces_are_masked() {
        let r = Redactor::new(["sk-proj-abcdefghijklmnopqrstuvwxyz0123".to_owned()]);
        let body = r#"{"error":{"message":"Incorrect API key provided: sk-proj-abcdefgh**********yz0123. See docs."}}"#;
        let shown = r.clean(body);
        assert!(!shown.contains("abcdefgh"), "{shown}");
        assert!(!shown.contains("yz0123"), "{shown}");
        assert!(shown.contains("Incorrect API key provided"), "{shown}");
        let echoed = "upstream said: authorization: Bearer tok_0123456789abcdef\nbye";
        let shown = Redactor::default().clean(echoed);
        assert_eq!(shown, "upstream said: authorization: Bearer *** bye");
        // A key of another client, by its shape.
        assert_eq!(
            Redactor::default().clean("key sk-live_ABCDEFGH12345678 refused"),
            "key sk-*** refused"
        );
        assert_eq!(Redactor::default().clean("a\u{1b}[2Jb"), "a [2Jb");
    }

    #[test]
    fn an_excerpt_is_bounded_and_masked_across_the_cut() {
        let key = "0123456789ABCDEFGHIJ".to_owned();
        let r = Redactor::new([key.clone()]);
        let text = format!(
            "{}{key}{}",
            "x".repeat(EXCERPT_CHARS - 5),
            "y".repeat(10_000)
        );
        let shown = r.excerpt(&text);
        assert!(shown.chars().count() <= EXCERPT_CHARS + 1, "{shown}");
        assert!(shown.ends_with('…'));
        assert!(!shown.contains("01234"), "{shown}");
        assert_eq!(r.excerpt("short"), "short");
    }

    #[test]
    fn urls_lose_their_credentials() {
        assert_eq!(
            redact_url("http://user:KEY123@host:8080/v1"),
            "http://***@host:8080/v1"
        );
        assert_eq!(
            redact_url("https://host/v1?api_key=KEY123&x=1"),
            "https://host/v1?api_key=***&x=***"
        );
        assert_eq!(redact_url("http://host/v1"), "http://host/v1");
        assert_eq!(redact_url("http://host/a@b"), "http://host/a@b");
    }
}

//! The OpenAI-compatible embeddings client against a real HTTP server on loopback (tiny_http), which
//! speaks the actual `/v1/embeddings` protocol: JSON request with `model` and `input`, bearer auth,
//! `data[].index/embedding` answers, OpenAI-style error bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_embed::{EmbedError, Embedder, HashEmbedder, HttpEmbedder, HttpEmbedderConfig};
use cairn_http::settings::SettingError;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

const KEY: &str = "sk-test-123";
const DIM: usize = 12;

/// What the server does with each request.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Embeds with a 12-d hash embedder scaled by 3 (so the client must normalise) and answers the
    /// items in reverse order (so the client must sort by `index`).
    Good,
    /// Sleeps past the client's timeout.
    Slow,
    /// Answers with one embedding too few.
    Short,
    /// Answers HTTP 503 to the first request, then like `Good`.
    FlakyOnce,
}

struct Server {
    base: String,
    requests: Arc<AtomicUsize>,
    _handle: thread::JoinHandle<()>,
}

fn serve(mode: Mode) -> Server {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let requests = Arc::new(AtomicUsize::new(0));
    let count = requests.clone();
    let handle = thread::spawn(move || {
        let hash = HashEmbedder::new(DIM);
        // bounded: the test process ends the thread at exit; no request loops forever
        while let Ok(Some(mut req)) = server.recv_timeout(Duration::from_secs(20)) {
            let seen = count.fetch_add(1, Ordering::SeqCst);
            let json = |status: u16, body: String| {
                tiny_http::Response::from_string(body)
                    .with_status_code(status)
                    .with_header(
                        tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap(),
                    )
            };
            let auth = req
                .headers()
                .iter()
                .find(|h| h.field.equiv("Authorization"))
                .map(|h| h.value.as_str().to_owned());
            if req.url() != "/v1/embeddings" || *req.method() != tiny_http::Method::Post {
                let _ = req.respond(json(404, r#"{"error":{"message":"no such route"}}"#.into()));
                continue;
            }
            if auth.as_deref() != Some(&format!("Bearer {KEY}")) {
                let body = r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#;
                let _ = req.respond(json(401, body.into()));
                continue;
            }
            let mut body = String::new();
            req.as_reader().read_to_string(&mut body).unwrap();
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["model"], "test-embed-small");
            let inputs: Vec<String> = v["input"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_owned())
                .collect();
            if mode == Mode::FlakyOnce && seen == 0 {
                let _ = req.respond(json(503, r#"{"error":{"message":"overloaded"}}"#.into()));
                continue;
            }
            if mode == Mode::Slow {
                thread::sleep(Duration::from_millis(2500));
            }
            let n = if mode == Mode::Short {
                inputs.len() - 1
            } else {
                inputs.len()
            };
            let mut data: Vec<serde_json::Value> = (0..n)
                .map(|i| {
                    let e: Vec<f32> = hash
                        .embed(&inputs[i])
                        .unwrap()
                        .iter()
                        .map(|x| x * 3.0)
                        .collect();
                    serde_json::json!({"object": "embedding", "index": i, "embedding": e})
                })
                .collect();
            data.reverse();
            let answer = serde_json::json!({
                "object": "list", "data": data, "model": "test-embed-small",
                "usage": {"prompt_tokens": 1, "total_tokens": 1}
            });
            let _ = req.respond(json(200, answer.to_string()));
        }
    });
    Server {
        base: format!("http://127.0.0.1:{port}/v1"),
        requests,
        _handle: handle,
    }
}

fn config(base: &str) -> HttpEmbedderConfig {
    let mut c = HttpEmbedderConfig::new(base, "test-embed-small");
    c.endpoint.api_key = Some(KEY.into());
    c.endpoint.timeout = Duration::from_secs(5);
    c
}

#[test]
fn embeds_in_order_normalised_and_batched() {
    let srv = serve(Mode::Good);
    let mut c = config(&srv.base);
    c.max_batch = 2;
    let e = HttpEmbedder::connect(c).unwrap();
    // the dimension was learnt from one probe request
    assert_eq!(e.dim(), DIM);
    assert_eq!(e.id(), "openai-http/test-embed-small/12");
    assert_eq!(srv.requests.load(Ordering::SeqCst), 1);

    let texts = [
        "graph neural networks",
        "neural graph learning",
        "medieval poetry",
        "a",
        "b",
    ];
    let got = e.embed_batch(&texts).unwrap();
    assert_eq!(
        srv.requests.load(Ordering::SeqCst),
        1 + 3,
        "5 inputs in batches of 2"
    );
    let local = HashEmbedder::new(DIM);
    for (t, v) in texts.iter().zip(&got) {
        let want = local.embed(t).unwrap();
        let n: f32 = v.iter().map(|x| x * x).sum();
        assert!((n - 1.0).abs() < 1e-5);
        assert!(
            v.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-5),
            "{t}: order or scale wrong"
        );
    }
    assert_eq!(e.embed("medieval poetry").unwrap(), got[2]);
}

#[test]
fn declared_dimension_skips_the_probe() {
    let srv = serve(Mode::Good);
    let mut c = config(&srv.base);
    c.dim = Some(DIM);
    let e = HttpEmbedder::connect(c).unwrap();
    assert_eq!(srv.requests.load(Ordering::SeqCst), 0);
    assert_eq!(e.embed("x").unwrap().len(), DIM);
    // a server answering another dimension than declared is an error, not a silent mix
    let mut c = config(&srv.base);
    c.dim = Some(DIM + 1);
    let e = HttpEmbedder::connect(c).unwrap();
    assert!(matches!(
        e.embed("x"),
        Err(EmbedError::Dimension {
            expected: 13,
            got: 12,
            ..
        })
    ));
}

#[test]
fn wrong_key_is_a_clear_error() {
    let srv = serve(Mode::Good);
    let mut c = config(&srv.base);
    c.endpoint.api_key = Some("sk-wrong".into());
    let err = HttpEmbedder::connect(c).unwrap_err();
    match &err {
        EmbedError::HttpStatus {
            status: 401,
            message,
            ..
        } => assert!(message.contains("Incorrect API key")),
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("HTTP 401"), "{err}");
    // wrong path
    let err = HttpEmbedder::connect(config(&format!("{}/nope", srv.base))).unwrap_err();
    assert!(
        matches!(err, EmbedError::HttpStatus { status: 404, .. }),
        "{err}"
    );
}

#[test]
fn slow_server_times_out() {
    let srv = serve(Mode::Slow);
    let mut c = config(&srv.base);
    c.endpoint.timeout = Duration::from_secs(1);
    c.endpoint.retries = 0;
    let t = std::time::Instant::now();
    let err = HttpEmbedder::connect(c).unwrap_err();
    assert!(matches!(err, EmbedError::Timeout { .. }), "{err:?}");
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_server_error_is_retried_and_a_client_error_is_not() {
    let srv = serve(Mode::FlakyOnce);
    let mut c = config(&srv.base);
    c.endpoint.backoff = Duration::from_millis(10);
    let e = HttpEmbedder::connect(c.clone()).unwrap();
    assert_eq!(e.dim(), DIM);
    assert_eq!(srv.requests.load(Ordering::SeqCst), 2, "one 503, one retry");

    let srv = serve(Mode::Good);
    c.endpoint.base_url = srv.base.clone();
    c.endpoint.api_key = Some("wrong".into());
    let err = HttpEmbedder::connect(c).unwrap_err();
    assert!(
        matches!(err, EmbedError::HttpStatus { status: 401, .. }),
        "{err:?}"
    );
    assert_eq!(
        srv.requests.load(Ordering::SeqCst),
        1,
        "a 401 is not retried"
    );
}

#[test]
fn short_answer_and_unreachable_server_are_errors() {
    let srv = serve(Mode::Short);
    let err = HttpEmbedder::connect(config(&srv.base)).unwrap_err();
    assert!(matches!(err, EmbedError::BadResponse { .. }), "{err:?}");

    // a reserved port on which nothing listens
    let refused = cairn_http::testing::RefusedPort::new().unwrap();
    let port = refused.port().unwrap();
    let err = HttpEmbedder::connect(config(&format!("http://127.0.0.1:{port}/v1"))).unwrap_err();
    assert!(matches!(err, EmbedError::Transport { .. }), "{err:?}");

    let err = HttpEmbedder::connect(config("ftp://example.invalid/v1")).unwrap_err();
    assert!(
        matches!(err, EmbedError::Setting(SettingError::Invalid { .. })),
        "{err:?}"
    );
}

#[test]
fn settings_come_from_the_environment() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        }
    };
    let err = HttpEmbedderConfig::from_lookup(env(&[])).unwrap_err();
    assert!(
        matches!(
            err,
            EmbedError::Setting(SettingError::Missing {
                var: "CAIRN_EMBED_URL",
                ..
            })
        ),
        "{err}"
    );
    let err =
        HttpEmbedderConfig::from_lookup(env(&[("CAIRN_EMBED_URL", "http://x/v1")])).unwrap_err();
    assert!(matches!(
        err,
        EmbedError::Setting(SettingError::Missing {
            var: "CAIRN_EMBED_MODEL",
            ..
        })
    ));
    let c = HttpEmbedderConfig::from_lookup(env(&[
        ("CAIRN_EMBED_URL", "http://x/v1"),
        ("CAIRN_EMBED_MODEL", "m"),
        ("OPENAI_API_KEY", "k"),
        ("CAIRN_EMBED_DIM", "256"),
        ("CAIRN_EMBED_TIMEOUT_SECS", "7"),
    ]))
    .unwrap();
    assert_eq!(
        (c.endpoint.api_key.as_deref(), c.dim, c.endpoint.timeout),
        (Some("k"), Some(256), Duration::from_secs(7))
    );
    assert!(
        !format!("{c:?}").contains("\"k\""),
        "the key is never printed"
    );
    let err = HttpEmbedderConfig::from_lookup(env(&[
        ("CAIRN_EMBED_URL", "http://x/v1"),
        ("CAIRN_EMBED_MODEL", "m"),
        ("CAIRN_EMBED_DIM", "zero"),
    ]))
    .unwrap_err();
    assert!(matches!(
        err,
        EmbedError::Setting(SettingError::Invalid { .. })
    ));
}

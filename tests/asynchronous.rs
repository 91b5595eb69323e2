//! The async face on a real runtime: statements run on the blocking pool, concurrently, and
//! give the same answers as the synchronous handle.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{AsyncCairn, Cairn, CancelToken, ImportOptions};
use cairn_generate::{Academic, AcademicConfig};

#[test]
fn concurrent_async_explorations_match_the_sync_handle() {
    let dir = tempfile::tempdir().unwrap();
    let graph = Academic::generate(&AcademicConfig::small(9));
    {
        let db = Cairn::open(dir.path()).unwrap();
        let records = graph.records();
        db.import_records(records, ImportOptions::default())
            .unwrap();
    }
    let statements: Vec<String> = (0..8)
        .map(|a| {
            format!(
                r#"EXPLORE "co-authors" FROM Author "a{a}" VIA AUTHORED -> <AUTHORED TARGET Author"#
            )
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (db, async_results) = runtime.block_on(async {
        let db = AsyncCairn::open(dir.path().to_path_buf()).await.unwrap();
        // All eight at once: a current-thread runtime would serialise them if they blocked it.
        let handles: Vec<_> = statements
            .iter()
            .map(|s| {
                let db = db.clone();
                let s = s.clone();
                tokio::spawn(async move { db.explore(s).await })
            })
            .collect();
        let mut out = Vec::new();
        for h in handles {
            out.push(h.await.unwrap().unwrap());
        }
        (db, out)
    });
    for (s, a) in statements.iter().zip(async_results) {
        let sync = db.sync().explore(s).unwrap();
        assert_eq!(sync.results, a.results, "{s}");
    }
    // Errors come back as values, not panics.
    let err = runtime
        .block_on(db.execute("EXPLORE".to_owned(), CancelToken::default()))
        .unwrap_err();
    assert!(err.to_string().contains("expected"), "{err}");
}

#[test]
fn an_async_read_only_handle_catches_up_with_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let writer = Cairn::open(dir.path()).unwrap();
    let add = |key: &str| {
        let mut w = writer.graph().writer().unwrap();
        w.upsert_node("Author", key, [("name", cairn::Value::from(key))], None)
            .unwrap();
        w.commit().unwrap();
    };
    add("a1");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let reader = AsyncCairn::open_read_only(dir.path().to_path_buf())
            .await
            .unwrap();
        let show = || reader.execute("DESCRIBE Author".to_owned(), CancelToken::default());
        let described = |o: cairn::Output| match o {
            cairn::Output::Description(d) => d.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(described(show().await.unwrap()).starts_with("Author: 1 nodes"));
        add("a2");
        assert!(described(show().await.unwrap()).starts_with("Author: 1 nodes"));
        assert!(reader.catch_up().await.unwrap());
        assert!(described(show().await.unwrap()).starts_with("Author: 2 nodes"));
    });
}

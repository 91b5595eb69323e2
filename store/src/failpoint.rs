//! Named crash points for the crash-test harness (`cli/tests/crash.rs`, docs/RELIABILITY.md).
//!
//! `failpoint!("commit.before_write")` marks one step of a write protocol. In a build with the
//! `test-hooks` feature the process aborts there — no destructor, no flush, like `kill -9` —
//! when `CAIRN_CRASH_AT` names the point (`name`, or `name@n` for its n-th hit, counting from
//! 1), and `CAIRN_FAILPOINT_TRACE=1` prints every point reached to stderr (`failpoint: name`),
//! which is how the harness learns which points a workload passes. Without the feature the
//! macro is a call of an empty inline function: it compiles to nothing.
//!
//! A macro of this crate rather than the `fail` crate: `fail` has no action that aborts the
//! process (its `panic` unwinds and runs RocksDB's destructors, which is not a crash), and it
//! needs a `FailScenario` set up in every binary; here the one environment variable of the
//! child process is the whole configuration.

/// Marks a named crash point (see the module documentation); one line at each protocol step.
#[macro_export]
macro_rules! failpoint {
    ($name:literal) => {
        $crate::failpoint::hit($name)
    };
}

/// A failpoint was reached: aborts if it is the one `CAIRN_CRASH_AT` names (and its hit count).
#[cfg(feature = "test-hooks")]
pub fn hit(name: &'static str) {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;

    struct Config {
        trace: bool,
        target: Option<(String, u64)>,
    }
    static CONFIG: OnceLock<Config> = OnceLock::new();
    static HITS: AtomicU64 = AtomicU64::new(0);
    let config = CONFIG.get_or_init(|| Config {
        trace: std::env::var_os("CAIRN_FAILPOINT_TRACE").is_some(),
        target: std::env::var("CAIRN_CRASH_AT")
            .ok()
            .map(|v| match v.split_once('@') {
                Some((n, k)) => (n.to_string(), k.parse().unwrap_or(1)),
                None => (v, 1),
            }),
    });
    if config.trace {
        let _ = writeln!(std::io::stderr(), "failpoint: {name}");
    }
    if let Some((target, nth)) = &config.target {
        if target == name && HITS.fetch_add(1, Ordering::SeqCst) + 1 == *nth {
            let _ = writeln!(std::io::stderr(), "failpoint: crashing at {name}");
            std::process::abort();
        }
    }
}

/// Without the `test-hooks` feature a failpoint does nothing.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn hit(_name: &'static str) {}

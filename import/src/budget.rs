//! The import's memory budget, and the resident set size it is checked against in the step log.

/// The default memory budget of an import's staged and sorted edges: 256 MiB. With the nodes
/// held compactly it keeps a 1M-node import under Kuzu's peak at the same speed as 1 GiB did
/// (measured: 542 MiB peak, 43 s at load 17, against 964 MiB, 43 s); see docs/IMPORT.md.
pub const DEFAULT_BUDGET: u64 = 256 << 20;

/// The process's resident and peak resident set sizes in bytes (`VmRSS`, `VmHWM` from
/// `/proc/self/status`); `None` where that file does not exist (not Linux).
pub(crate) fn rss() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// ` (rss N MiB, peak M MiB)` for the step log, or nothing where [`rss`] is unknown.
pub(crate) fn rss_note() -> String {
    match rss() {
        Some((rss, peak)) => format!(" (rss {} MiB, peak {} MiB)", rss >> 20, peak >> 20),
        None => String::new(),
    }
}

//! Helpers shared by the tests that run the `cairn` binary.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `cairn` with `args`, without the caller's `CAIRN_DB`.
pub fn cairn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .env_remove("CAIRN_DB")
        .output()
        .unwrap()
}

/// stdout and stderr as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A path as the `&str` an argument list takes.
pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

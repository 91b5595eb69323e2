//! Building commands and reading replies of the cluster backend.

use super::cluster::fail;
use crate::error::{BackendErrorKind, Result};
use redis::Value;

pub(super) fn eval(script: &str, keys: &[&[u8]], args: &[&[u8]]) -> redis::Cmd {
    let mut cmd = redis::cmd("EVAL");
    cmd.arg(script).arg(keys.len());
    for k in keys {
        cmd.arg(*k);
    }
    for a in args {
        cmd.arg(*a);
    }
    cmd
}

/// A reply's bytes (`None` for nil).
pub(super) fn bytes_of(v: &Value) -> Result<Option<Vec<u8>>> {
    match v {
        Value::Nil => Ok(None),
        Value::BulkString(b) => Ok(Some(b.clone())),
        Value::SimpleString(s) => Ok(Some(s.clone().into_bytes())),
        Value::Okay => Ok(Some(b"OK".to_vec())),
        Value::Int(i) => Ok(Some(i.to_string().into_bytes())),
        Value::ServerError(e) => Err(fail(
            BackendErrorKind::Other,
            format!("{}: {}", e.code(), e.details().unwrap_or_default()),
        )),
        other => Err(fail(
            BackendErrorKind::Other,
            format!("unexpected reply {other:?}"),
        )),
    }
}

pub(super) fn checked(v: &Value) -> Result<()> {
    bytes_of(v).map(drop)
}

pub(super) fn u64_of(v: &Value) -> Result<u64> {
    Ok(bytes_of(v)?
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0))
}

pub(super) fn array(v: Value) -> Result<Vec<Value>> {
    match v {
        Value::Array(items) => Ok(items),
        Value::ServerError(_) => bytes_of(&v).map(|_| Vec::new()),
        other => Err(fail(
            BackendErrorKind::Other,
            format!("expected an array, got {other:?}"),
        )),
    }
}

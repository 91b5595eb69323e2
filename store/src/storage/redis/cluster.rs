//! The Redis Cluster client of the cluster backend: the slot map, one connection per master, and
//! batches sent as one pipeline per master — all masters' pipelines written first, then every
//! reply read — so that a batch costs one round trip whatever the number of masters, and the
//! round trips are counted exactly. A redirection (`MOVED`, `ASK`), a cluster that is down for a
//! moment, or a broken connection (a failover) refreshes the slot map and resends the batch
//! (every command this backend sends is idempotent: absolute values, see `commit.rs`), up to a
//! deadline.

use crate::error::{BackendErrorKind, EngineError, Result};
use parking_lot::{Mutex, RwLock};
use redis::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Slots of a Redis Cluster.
pub(crate) const SLOTS: usize = 16384;

/// How long a batch is retried through redirections and failovers before it fails.
const RETRY_FOR: Duration = Duration::from_secs(20);

pub(crate) const NAME: &str = "Redis Cluster";

/// The slot of `key`: CRC16 (XMODEM) of its hash tag (the part between the first `{` and the
/// next `}`, when not empty) or of the whole key, modulo 16384.
pub(crate) fn slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|b| *b == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|b| *b == b'}')?;
        (close > 0).then(|| &rest[..close])
    });
    let mut crc: u16 = 0;
    for &b in tagged.unwrap_or(key) {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % SLOTS as u16
}

/// A Redis error as the store's.
pub(crate) fn err(e: redis::RedisError) -> EngineError {
    let kind = if e.is_io_error() || e.is_connection_dropped() || e.is_timeout() {
        BackendErrorKind::Unavailable
    } else {
        BackendErrorKind::Other
    };
    EngineError::Backend {
        backend: NAME,
        kind,
        message: e.to_string(),
    }
}

/// An error of this backend's own making.
pub(crate) fn fail(kind: BackendErrorKind, message: impl Into<String>) -> EngineError {
    EngineError::Backend {
        backend: NAME,
        kind,
        message: message.into(),
    }
}

/// Whether an error is worth a refresh of the slot map and a retry.
fn transient(e: &redis::RedisError) -> bool {
    use redis::ErrorKind as K;
    e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || matches!(
            e.kind(),
            K::Moved | K::Ask | K::TryAgain | K::ClusterDown | K::MasterDown | K::BusyLoadingError
        )
        || e.code() == Some("READONLY")
}

struct Master {
    addr: String,
    conn: Mutex<Option<redis::Connection>>,
}

struct Topology {
    /// Index into `masters` of each slot's master.
    slots: Vec<u16>,
    masters: Vec<Master>,
}

/// A connection to a Redis Cluster (see the module docs).
pub(crate) struct Cluster {
    seeds: Vec<String>,
    topology: RwLock<Topology>,
    round_trips: AtomicU64,
    batches: AtomicU64,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("seeds", &self.seeds)
            .field("masters", &self.masters())
            .finish()
    }
}

/// One command of a batch, and the key that routes it.
pub(crate) struct Routed {
    pub(crate) slot: u16,
    pub(crate) cmd: redis::Cmd,
}

fn connect(addr: &str) -> Result<redis::Connection> {
    let client = redis::Client::open(format!("redis://{addr}/")).map_err(err)?;
    let conn = client
        .get_connection_with_timeout(Duration::from_secs(2))
        .map_err(err)?;
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(err)?;
    conn.set_write_timeout(Some(Duration::from_secs(10)))
        .map_err(err)?;
    Ok(conn)
}

/// `host:port` of a `redis://host:port[/…]` URL or a bare `host:port`.
pub(crate) fn addr_of(url: &str) -> String {
    let rest = url.strip_prefix("redis://").unwrap_or(url);
    rest.split('/').next().unwrap_or(rest).to_owned()
}

impl Cluster {
    /// Connects through any of `seeds` (`host:port`) and reads the slot map.
    pub(crate) fn connect(seeds: Vec<String>) -> Result<Cluster> {
        let topology = Self::discover(&seeds)?;
        Ok(Cluster {
            seeds,
            topology: RwLock::new(topology),
            round_trips: AtomicU64::new(0),
            batches: AtomicU64::new(0),
        })
    }

    /// The slot map as the first reachable seed (or known master) reports it (`CLUSTER SLOTS`).
    fn discover(seeds: &[String]) -> Result<Topology> {
        let mut last = None;
        for seed in seeds {
            let reply = connect(seed).and_then(|mut c| {
                redis::cmd("CLUSTER")
                    .arg("SLOTS")
                    .query::<Value>(&mut c)
                    .map_err(err)
            });
            match reply {
                Ok(v) => return Self::parse_slots(v, seed),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| fail(BackendErrorKind::Unavailable, "no cluster seed")))
    }

    fn parse_slots(v: Value, seed: &str) -> Result<Topology> {
        let bad = || {
            fail(
                BackendErrorKind::Other,
                format!("{seed}: unexpected CLUSTER SLOTS reply"),
            )
        };
        let Value::Array(ranges) = v else {
            return Err(bad());
        };
        let mut slots = vec![u16::MAX; SLOTS];
        let mut masters: Vec<Master> = Vec::new();
        for range in ranges {
            let Value::Array(parts) = range else {
                return Err(bad());
            };
            let (Some(Value::Int(lo)), Some(Value::Int(hi)), Some(Value::Array(node))) =
                (parts.first(), parts.get(1), parts.get(2))
            else {
                return Err(bad());
            };
            let host = match node.first() {
                Some(Value::BulkString(h)) => String::from_utf8_lossy(h).into_owned(),
                Some(Value::SimpleString(h)) => h.clone(),
                _ => return Err(bad()),
            };
            let Some(Value::Int(port)) = node.get(1) else {
                return Err(bad());
            };
            let host = if host.is_empty() {
                "127.0.0.1".into()
            } else {
                host
            };
            let addr = format!("{host}:{port}");
            let index = match masters.iter().position(|m| m.addr == addr) {
                Some(i) => i,
                None => {
                    masters.push(Master {
                        addr,
                        conn: Mutex::new(None),
                    });
                    masters.len() - 1
                }
            };
            for s in *lo..=*hi {
                if let Some(slot) = slots.get_mut(s as usize) {
                    *slot = index as u16;
                }
            }
        }
        if slots.contains(&u16::MAX) {
            return Err(fail(
                BackendErrorKind::Unavailable,
                format!("{seed}: the cluster does not cover every slot"),
            ));
        }
        Ok(Topology { slots, masters })
    }

    /// Reads the slot map again, from the masters known so far and the seeds.
    fn refresh(&self) -> Result<()> {
        let mut known: Vec<String> = self.masters();
        known.extend(self.seeds.iter().cloned());
        let topology = Self::discover(&known)?;
        *self.topology.write() = topology;
        Ok(())
    }

    /// The masters' addresses, in the slot map's order.
    pub(crate) fn masters(&self) -> Vec<String> {
        let t = self.topology.read();
        t.masters.iter().map(|m| m.addr.clone()).collect()
    }

    /// The index of the master that serves `slot`.
    pub(crate) fn master_of(&self, slot: u16) -> usize {
        let t = self.topology.read();
        t.slots.get(slot as usize).copied().unwrap_or(0) as usize
    }

    /// The index of the master that serves each of `slots` (one look at the slot map).
    pub(crate) fn masters_of(&self, slots: impl Iterator<Item = u16>) -> Vec<usize> {
        let t = self.topology.read();
        slots
            .map(|s| t.slots.get(s as usize).copied().unwrap_or(0) as usize)
            .collect()
    }

    /// Every slot each master serves, by master index.
    pub(crate) fn slots_by_master(&self) -> Vec<Vec<u16>> {
        let t = self.topology.read();
        let mut out = vec![Vec::new(); t.masters.len()];
        for (slot, m) in t.slots.iter().enumerate() {
            if let Some(list) = out.get_mut(*m as usize) {
                list.push(slot as u16);
            }
        }
        out
    }

    /// Round trips (one pipeline to one master) and batches (round trips run together) sent
    /// so far.
    pub(crate) fn counters(&self) -> (u64, u64) {
        (
            self.round_trips.load(Ordering::Relaxed),
            self.batches.load(Ordering::Relaxed),
        )
    }

    /// Sends `cmds` as one pipeline per master (written to every master before any reply is
    /// read) and returns their replies in order. With `atomic`, each master's pipeline runs as
    /// one `MULTI`/`EXEC` (its commands must then be of one slot, or scripts flagged
    /// `allow-cross-slot-keys`). A server error in a reply is returned as that reply
    /// (`Value::ServerError`), not as the batch's error.
    pub(crate) fn run(&self, cmds: Vec<Routed>) -> Result<Vec<Value>> {
        if cmds.is_empty() {
            return Ok(Vec::new());
        }
        let started = Instant::now();
        loop {
            match self.try_run(&cmds) {
                Ok(values) => return Ok(values),
                Err(e) if transient(&e) && started.elapsed() < RETRY_FOR => {
                    tracing::debug!("redis batch: {e}; refreshing the slot map and retrying");
                    std::thread::sleep(Duration::from_millis(200));
                    let _ = self.refresh();
                }
                Err(e) => return Err(err(e)),
            }
        }
    }

    fn try_run(&self, cmds: &[Routed]) -> redis::RedisResult<Vec<Value>> {
        let t = self.topology.read();
        // Per master: the positions of its commands, and its pipeline's bytes.
        let mut groups: Vec<(Vec<usize>, Vec<u8>)> = (0..t.masters.len())
            .map(|_| (Vec::new(), Vec::new()))
            .collect();
        for (i, c) in cmds.iter().enumerate() {
            let m = t.slots.get(c.slot as usize).copied().unwrap_or(0) as usize;
            if let Some((positions, packed)) = groups.get_mut(m) {
                positions.push(i);
                c.cmd.write_packed_command(packed);
            }
        }
        let mut locked = Vec::new();
        for (m, (positions, packed)) in groups.iter().enumerate() {
            if positions.is_empty() {
                continue;
            }
            let master = &t.masters[m];
            let mut conn = master.conn.lock();
            if conn.is_none() {
                *conn = Some(connect(&master.addr).map_err(|e| {
                    redis::RedisError::from((
                        redis::ErrorKind::IoError,
                        "connect",
                        format!("{}: {e}", master.addr),
                    ))
                })?);
            }
            let sent = conn.as_mut().map(|c| c.send_packed_command(packed));
            if let Some(Err(e)) = sent {
                *conn = None;
                return Err(e);
            }
            self.round_trips.fetch_add(1, Ordering::Relaxed);
            locked.push((positions, conn));
        }
        self.batches.fetch_add(1, Ordering::Relaxed);
        let mut out = vec![Value::Nil; cmds.len()];
        let mut failed = None;
        for (positions, mut conn) in locked {
            for &i in positions {
                let reply = match conn.as_mut() {
                    Some(c) => c.recv_response(),
                    None => break,
                };
                match reply {
                    Ok(v) => {
                        if let Some(e) = redirect(&v) {
                            failed.get_or_insert(e);
                        }
                        out[i] = v;
                    }
                    Err(e) => {
                        // The connection is in an unknown state: drop it.
                        *conn = None;
                        failed.get_or_insert(e);
                        break;
                    }
                }
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

/// A reply that is a redirection or a transient cluster error, as an error to retry on.
fn redirect(v: &Value) -> Option<redis::RedisError> {
    let Value::ServerError(e) = v else {
        return None;
    };
    let e: redis::RedisError = e.clone().into();
    transient(&e).then_some(e)
}

#[cfg(test)]
mod tests {
    use super::slot;

    /// The slots Redis documents (`CLUSTER KEYSLOT`), with and without hash tags.
    #[test]
    fn slots_are_redis_slots() {
        assert_eq!(slot(b"123456789"), 0x31C3);
        assert_eq!(slot(b"foo"), 12182);
        assert_eq!(slot(b"{user1000}.following"), slot(b"user1000"));
        assert_eq!(slot(b"foo{}{bar}"), slot(b"foo{}{bar}"));
        assert_eq!(slot(b"{}x"), slot(b"{}x"));
    }
}

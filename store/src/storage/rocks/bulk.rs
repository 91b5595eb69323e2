//! Bulk loads into RocksDB: each part is a sorted SST file written with its column family's own
//! options (snappy, bloom filters) in `<db>/import-tmp/`, ingested with one call per column
//! family once every file is written (docs/FORMAT.md, "Bulk import").

use super::{cf, cf_of, err, space, BULK_DIR};
use crate::error::{EngineError, Result};
use crate::failpoint;
use crate::storage::{BulkPart, BulkSink, Space};
use rocksdb::{IngestExternalFileOptions, SstFileWriter, DB};
use std::path::{Path, PathBuf};

/// Empties the SST directory of the database at `path`.
pub(super) fn begin(path: &Path) -> Result<()> {
    let dir = path.join(BULK_DIR);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|source| EngineError::Io {
        path: dir.clone(),
        source,
    })
}

struct Sink<'w, 'a> {
    writer: &'w mut SstFileWriter<'a>,
    keys: u64,
}

impl BulkSink for Sink<'_, '_> {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.writer.put(key, value).map_err(err)?;
        self.keys += 1;
        Ok(())
    }
}

/// Writes file `part` of `space` with the keys `fill` puts.
pub(super) fn write(
    path: &Path,
    cache: &rocksdb::Cache,
    space: Space,
    part: usize,
    fill: &mut dyn FnMut(&mut dyn BulkSink) -> Result<()>,
) -> Result<Option<BulkPart>> {
    space::ensure(path, 0)?;
    let started = std::time::Instant::now();
    let opts = cf::options(space, cache);
    let mut writer = SstFileWriter::create(&opts);
    let file = path
        .join(BULK_DIR)
        .join(format!("{}-{part}.sst", space.name()));
    writer.open(&file).map_err(err)?;
    failpoint!("bulk.sst.opened");
    let mut sink = Sink {
        writer: &mut writer,
        keys: 0,
    };
    fill(&mut sink)?;
    let keys = sink.keys;
    if keys == 0 {
        // RocksDB refuses to finish an empty file.
        drop(writer);
        let _ = std::fs::remove_file(&file);
        return Ok(None);
    }
    failpoint!("bulk.sst.before_finish");
    writer.finish().map_err(err)?;
    failpoint!("bulk.sst.finished");
    let ms = started.elapsed().as_secs_f64() * 1e3;
    tracing::debug!(
        "import: {} file of {keys} keys written in {ms:.0} ms",
        space.name()
    );
    Ok(Some(BulkPart {
        space,
        file: Some(file),
        keys,
    }))
}

/// Ingests `parts`: one call per column family, with all its files (their key ranges do not
/// overlap), moving them into the database.
pub(super) fn ingest(db: &DB, path: &Path, parts: Vec<BulkPart>) -> Result<()> {
    let mut ingest = IngestExternalFileOptions::default();
    ingest.set_move_files(true);
    let mut by_cf: Vec<(Space, Vec<PathBuf>)> = Vec::new();
    for part in parts {
        let Some(file) = part.file else { continue };
        match by_cf.iter_mut().find(|(s, _)| *s == part.space) {
            Some((_, files)) => files.push(file),
            None => by_cf.push((part.space, vec![file])),
        }
    }
    for (space, files) in by_cf {
        failpoint!("bulk.ingest.before_family");
        db.ingest_external_file_cf_opts(cf_of(db, path, space)?, &ingest, files)
            .map_err(err)?;
        failpoint!("bulk.ingest.after_family");
    }
    Ok(())
}

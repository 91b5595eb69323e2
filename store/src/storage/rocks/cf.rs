//! Column families (one per [`Space`], named by [`Space::name`]) and their RocksDB options.
//! The key layouts live in `cairn-storage-format`; this module decides how RocksDB indexes
//! them (prefix extractors, bloom filters, merge).

use crate::storage::Space;
use cairn_storage_format::keys::EDGE_NODE_PREFIX_LEN;
use cairn_storage_format::Degree;
use rocksdb::{BlockBasedOptions, Cache, MergeOperands, Options, SliceTransform};

/// Options for the column family of `space`, sharing one block cache.
pub(crate) fn options(space: Space, cache: &Cache) -> Options {
    let mut table = BlockBasedOptions::default();
    table.set_block_cache(cache);
    table.set_bloom_filter(10.0, false);
    // Index and filter blocks stay in each table reader (loaded when the file opens), not in
    // the block cache: the cache is split into 64 shards (256 MiB / 64 = 4 MiB each), and a
    // block larger than its shard is evicted as soon as it is released. A bulk import writes
    // one large file per column family, whose full filter (10 bits a key: 8.4 MiB for 6.7M
    // edges) and index blocks are that large, so every get and every adjacency seek re-read
    // and re-checksummed megabytes: 64% of a write-then-query round's time at 1M nodes.
    table.set_cache_index_and_filter_blocks(false);
    let mut opts = Options::default();
    match space {
        Space::Out | Space::In => {
            // Adjacency scans seek to a node's 8-byte prefix: a prefix bloom lets RocksDB skip
            // files without that node; whole-key filtering keeps edge-exists checks cheap.
            opts.set_prefix_extractor(SliceTransform::create_fixed_prefix(EDGE_NODE_PREFIX_LEN));
            opts.set_memtable_prefix_bloom_ratio(0.1);
            table.set_whole_key_filtering(true);
        }
        Space::Degree => opts.set_merge_operator_associative("cairn.degree.add", merge_degree),
        // Float vectors do not compress; skipping it saves a decompression per vector read.
        Space::Vector => opts.set_compression_type(rocksdb::DBCompressionType::None),
        _ => {}
    }
    opts.set_block_based_table_factory(&table);
    #[cfg(feature = "test-hooks")]
    opts.set_compaction_filter_factory(super::settle::crash_filter::Factory);
    opts
}

/// Sums degree deltas. Returning `None` makes RocksDB report a corruption error for the key
/// rather than inventing a count.
fn merge_degree(_key: &[u8], existing: Option<&[u8]>, operands: &MergeOperands) -> Option<Vec<u8>> {
    let mut total = match existing {
        Some(bytes) => Degree::decode(bytes).ok()?,
        None => Degree::default(),
    };
    for op in operands {
        total = total.plus(Degree::decode(op).ok()?);
    }
    Some(total.encode().to_vec())
}

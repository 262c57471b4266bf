//! Where each bucket writer's sequence numbers continue (Java
//! `AbstractFileStoreWrite#startingMaxSequenceNumber`, `write.sequence-number-init-mode = scan`):
//! one more than the largest `_MAX_SEQUENCE_NUMBER` of the live files of that (partition,
//! bucket) in the latest snapshot, 0 for an empty bucket. Bucket-unaware append tables always
//! start at 0 and never call this.

use std::collections::HashMap;

use crate::catalog::Table;
use crate::scan::entry_merge::EntryMerger;
use crate::scan::manifest_reader::ManifestReader;
use crate::Result;

/// Next sequence number per (serialized partition, bucket) with live files.
pub(crate) type NextSequence = HashMap<(Vec<u8>, i32), i64>;

/// Reads the latest snapshot's live files once and records, per (partition, bucket), the
/// sequence number its writer continues from.
pub(crate) async fn next_sequence_numbers(table: &Table) -> Result<NextSequence> {
    let mut out = NextSequence::new();
    let Some(snapshot) = table.snapshot_manager().latest_snapshot().await? else {
        return Ok(out);
    };
    let reader = ManifestReader::new(table.file_io().clone(), table.location());
    let mut metas = reader.manifest_list(&snapshot.base_manifest_list).await?;
    metas.extend(reader.manifest_list(&snapshot.delta_manifest_list).await?);
    let mut merger = EntryMerger::new();
    for meta in &metas {
        for e in reader.manifest(&meta.file_name).await? {
            merger.push(e)?;
        }
    }
    for e in merger.into_live() {
        let next = e.file.max_sequence_number.saturating_add(1);
        let slot = out.entry((e.partition, e.bucket)).or_insert(0);
        *slot = (*slot).max(next);
    }
    Ok(out)
}

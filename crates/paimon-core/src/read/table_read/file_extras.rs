//! What a file read brings besides the file itself: its deletion vector and its data-file
//! index.

use roaring::RoaringTreemap;

use super::TableRead;
use crate::expr::BoundPredicate;
use crate::index::deletion_vector::decode_deletion_blob;
use crate::read::file_index::{select_rows, IndexSelection, IndexedFile};
use crate::read::selection::{bitmap_ranges, intersect, selected_ranges};
use crate::scan::DeletionFile;
use crate::spec::row_range::RowRange;
use crate::{Error, Result};

impl TableRead {
    /// Narrows `row_ranges` by the file's data-file index (when `file-index.read.enabled`):
    /// `None` when no row can match (after the deletion vector), else the new row ranges.
    pub(super) async fn apply_file_index(
        &self,
        file: IndexedFile<'_>,
        predicate: &BoundPredicate,
        row_ranges: Option<Vec<RowRange>>,
        deleted: Option<&RoaringTreemap>,
    ) -> Result<Option<Option<Vec<RowRange>>>> {
        if !self.table.options().file_index_read_enabled {
            return Ok(Some(row_ranges));
        }
        let rows = u64::try_from(file.meta.row_count).unwrap_or(0);
        let io = self.table.file_io();
        let (bitmap, kinds) = match select_rows(io, file, predicate, &self.metrics).await {
            IndexSelection::All => return Ok(Some(row_ranges)),
            IndexSelection::Skip(kinds) => {
                self.metrics.add_file_index_skip(kinds);
                return Ok(None);
            }
            IndexSelection::Rows(b, kinds) => (b, kinds),
        };
        let selected = bitmap_ranges(&bitmap);
        let narrowed = match &row_ranges {
            Some(r) => intersect(r, &selected),
            None => selected,
        };
        let left = selected_ranges(rows, Some(&narrowed), deleted)?;
        if left.is_none_or(|l| l.is_empty()) {
            self.metrics.add_file_index_skip(kinds);
            return Ok(None);
        }
        self.metrics
            .add_file_index_rows_skipped(rows.saturating_sub(bitmap.len()));
        Ok(Some(Some(narrowed)))
    }

    /// Loads the deletion vector `df` with one ranged read of its index file. The range
    /// `[f1, f1 + f2 + 8)` covers the whole blob under both length conventions (32-bit: blob =
    /// 4 + f2 + 4; 64-bit: blob = f2); stores clamp it at the end of the file, and the decoder
    /// checks `f2` against the blob it finds.
    pub(super) async fn load_deletion_vector(
        &self,
        df: &DeletionFile,
        rows: i64,
    ) -> Result<RoaringTreemap> {
        let invalid = |msg: &str| {
            Error::data_invalid(msg.to_string())
                .with_context("file", df.path.clone())
                .with_context("offset", df.offset.to_string())
        };
        let start =
            u64::try_from(df.offset).map_err(|_| invalid("negative deletion vector offset"))?;
        let length =
            u64::try_from(df.length).map_err(|_| invalid("negative deletion vector length"))?;
        let end = start.saturating_add(length).saturating_add(8);
        let blob = self
            .table
            .file_io()
            .read_range_up_to(&df.path, start..end)
            .await?;
        decode_deletion_blob(&blob, df.length, &df.path, u64::try_from(rows).ok())
            .map_err(|e| e.with_context("offset", df.offset.to_string()))
    }
}

//! Reading a [`TableScan`]: its validated read settings become a [`TableRead`]. Lives in
//! `read/` so that `scan/` (planning) never depends on reading.

use arrow_array::RecordBatch;
use futures::stream::BoxStream;

use super::TableRead;
use crate::scan::TableScan;
use crate::Result;

impl TableScan {
    /// A reader of this scan's splits (or of splits planned elsewhere, e.g. by another process
    /// from the same table and filter), with the scan's predicate, projection, limit and
    /// options (stored options plus this scan's overrides).
    pub fn reader(&self) -> TableRead {
        let spec = self.read_spec();
        let ctx = self.context();
        let mut read = TableRead::new(&ctx.table)
            .with_output_fields(spec.output.clone())
            .with_predicate(ctx.predicate.clone())
            .with_limit(spec.limit)
            .with_preserve_order(spec.preserve_order);
        if let Some(n) = spec.concurrency {
            read = read.with_concurrency(n);
        }
        if let Some(n) = spec.batch_size {
            read = read.with_batch_size(n);
        }
        read
    }

    /// Plans the scan and reads every split: a stream of Arrow record batches.
    pub async fn to_arrow(&self) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let plan = self.plan().await?;
        self.reader().read(plan.splits)
    }
}

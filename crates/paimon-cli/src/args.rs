//! Argument groups shared by subcommands.

use std::collections::HashMap;

use paimon_core::{
    parse_predicate, Error, FileSystemCatalog, Identifier, Predicate, Result, SnapshotSelector,
    Table, TableScanBuilder,
};

// Which table: a directory, or a warehouse and `db.table`. (not a doc comment: see `defer` in
// main.rs)
#[derive(Debug, clap::Args)]
pub struct TableArgs {
    /// Table directory or URL; or the warehouse when IDENTIFIER is given.
    pub table: String,
    /// `db.table` inside the warehouse given as TABLE.
    pub identifier: Option<String>,
    /// Table option overriding the stored one for this command (repeatable), e.g.
    /// `-o ignore-delete=true`.
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub options: Vec<(String, String)>,
}

/// Parses `KEY=VALUE` (the key trimmed, the value verbatim).
pub fn parse_key_value(s: &str) -> std::result::Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("expected KEY=VALUE, got '{s}'")),
    }
}

impl TableArgs {
    /// Loads the table with the option overrides applied.
    pub async fn load(&self) -> Result<Table> {
        let table = match &self.identifier {
            None => Table::open(&self.table).await?,
            Some(id) => {
                let catalog = FileSystemCatalog::new(&self.table, HashMap::new())?;
                catalog.get_table(&Identifier::parse(id)?).await?
            }
        };
        if self.options.is_empty() {
            Ok(table)
        } else {
            table.with_options(&self.options.iter().cloned().collect())
        }
    }
}

// What to scan: predicate, snapshot and bucket. (not a doc comment: see `defer` in
// main.rs)
#[derive(Debug, clap::Args)]
pub struct ScanArgs {
    /// SQL predicate, e.g. `dt = '2024-01-01' AND id IN (1, 2)`.
    #[arg(long = "where", value_name = "EXPR")]
    pub filter: Option<String>,
    /// Read this snapshot id.
    #[arg(long, conflicts_with_all = ["tag", "timestamp"])]
    pub snapshot: Option<i64>,
    /// Read the snapshot of this tag.
    #[arg(long, conflicts_with = "timestamp")]
    pub tag: Option<String>,
    /// Read the latest snapshot committed at or before this time (epoch millis).
    #[arg(long, value_name = "MS")]
    pub timestamp: Option<i64>,
    /// Read only this bucket.
    #[arg(long)]
    pub bucket: Option<i32>,
    /// Do not use data-file indexes (bloom filter, bitmap, BSI, range bitmap) to skip files
    /// or rows (`file-index.read.enabled = false`).
    #[arg(long)]
    pub no_file_index: bool,
}

impl ScanArgs {
    /// The parsed predicate.
    pub fn predicate(&self) -> Result<Option<Predicate>> {
        self.filter.as_deref().map(parse_predicate).transpose()
    }

    /// A scan builder for `table`.
    pub fn builder(&self, table: &Table) -> Result<TableScanBuilder> {
        let mut b = table.scan();
        if let Some(p) = self.predicate()? {
            b = b.with_predicate(p);
        }
        if let Some(bucket) = self.bucket {
            if bucket < 0 {
                return Err(Error::invalid_argument("--bucket must not be negative"));
            }
            b = b.with_bucket_filter(bucket);
        }
        if self.no_file_index {
            b = b.with_option("file-index.read.enabled", "false");
        }
        let selector = match (&self.snapshot, &self.tag, &self.timestamp) {
            (Some(id), _, _) => SnapshotSelector::Id(*id),
            (_, Some(t), _) => SnapshotSelector::Tag(t.clone()),
            (_, _, Some(ms)) => SnapshotSelector::TimestampMillis(*ms),
            _ => SnapshotSelector::Latest,
        };
        Ok(b.with_snapshot(selector))
    }
}

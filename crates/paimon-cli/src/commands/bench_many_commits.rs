//! `paimon bench-many-commits DIR`: a primary-key table of many small commits, written through
//! `table.new_write()` / `new_commit()`, for timing planning over thousands of manifests.
//!
//! The table is `DIR/<database>.db/<table>` (a warehouse layout, so peers can open it by
//! identifier): `id BIGINT NOT NULL` (primary key), `v BIGINT`, `--buckets` fixed buckets.
//! Commit `c` writes ids `c * rows .. (c + 1) * rows` with `v = c`, one file per touched bucket,
//! so the table ends with about `commits * min(rows, buckets)` live level-0 files.
//!
//! Manifest merging: Java's defaults (`manifest.merge-min-count` 30) would merge the small
//! manifests on commit; to mimic a writer that never merges (paimon-rust, as
//! `make_many_manifests.py` used), the commits run with `manifest.merge-min-count` and
//! `manifest.full-compaction-threshold-size` raised to their maximum as *overrides of this
//! command* (not stored in the table), so every commit leaves its own delta manifest.
//! `--merge-manifests` keeps the table's settings instead.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema as ArrowSchema};
use paimon_core::spec::type_text::parse_fields;
use paimon_core::{Error, Result, Schema, Table};

// Arguments of `bench-many-commits`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Warehouse directory (created if missing); the table must not exist yet.
    dir: PathBuf,
    /// Commits (snapshots) to write.
    #[arg(long, default_value_t = 2000)]
    commits: u64,
    /// Rows per commit.
    #[arg(long, default_value_t = 8)]
    rows: u64,
    /// Buckets of the table.
    #[arg(long, default_value_t = 16)]
    buckets: u32,
    /// Database name.
    #[arg(long, default_value = "m")]
    database: String,
    /// Table name.
    #[arg(long, default_value = "many")]
    table: String,
    /// Let commits merge manifests as the table's options say (default: never merge).
    #[arg(long)]
    merge_manifests: bool,
}

/// Runs `bench-many-commits`.
pub async fn run(args: Args) -> Result<()> {
    let location = args
        .dir
        .join(format!("{}.db", args.database))
        .join(&args.table);
    let location = location
        .to_str()
        .ok_or_else(|| Error::invalid_argument("the directory is not UTF-8"))?
        .to_string();
    let schema = Schema::builder()
        .columns(parse_fields("id BIGINT NOT NULL, v BIGINT")?)
        .primary_key(["id"])
        .option("bucket", args.buckets.to_string())
        .build()?;
    let table = Table::create(&location, schema).await?;
    let table = if args.merge_manifests {
        table
    } else {
        let never = HashMap::from([
            ("manifest.merge-min-count".to_string(), i32::MAX.to_string()),
            (
                "manifest.full-compaction-threshold-size".to_string(),
                "1024 tb".to_string(),
            ),
        ]);
        table.with_options(&never)?
    };
    let arrow_schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("v", DataType::Int64, true),
    ]));
    let started = Instant::now();
    // `write-only`: every commit stays one level-0 file and one manifest (no compaction).
    let mut write = table
        .new_write()
        .with_option("write-only", "true")
        .with_commit_user("bench-many-commits")
        .build()?;
    let commit = table.new_commit();
    for c in 0..args.commits {
        let base = (c * args.rows) as i64;
        let ids: Vec<i64> = (0..args.rows as i64).map(|i| base + i).collect();
        let batch = RecordBatch::try_new(
            arrow_schema.clone(),
            vec![
                Arc::new(Int64Array::from(ids)),
                Arc::new(Int64Array::from(vec![c as i64; args.rows as usize])),
            ],
        )
        .map_err(|e| Error::internal(format!("cannot build a batch: {e}")))?;
        write.write(&batch).await?;
        let messages = write.prepare_commit().await?;
        commit
            .commit_messages(&messages, write.commit_user())
            .await?;
        if (c + 1) % 200 == 0 {
            eprintln!(
                "{} commits in {:.1} s",
                c + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "wrote {} commits of {} rows into {location} in {:.1} s",
        args.commits,
        args.rows,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

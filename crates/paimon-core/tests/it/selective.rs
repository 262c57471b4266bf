//! Selective Parquet reads (page index pruning, late materialization) return exactly the rows
//! of the read with them off (`TableRead::with_selective(false)`), for random predicates
//! (`=`, ranges, `IN`, `IS [NOT] NULL`, AND / OR) on the generated tables (pypaimon fixtures,
//! random primary-key tables with deletion vectors and level-0 runs, random bucket tables) and
//! the Java-written tables, as written and with their Parquet data files rewritten here with
//! small pages (same rows, same file size: the manifests stay valid), so that page pruning has
//! pages to skip. Each mechanism must fire somewhere (checked by its metric).

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use bytes::Bytes;
use paimon_core::catalog::Table;
use paimon_core::expr::{CompareOp, Literal, Predicate};
use paimon_core::read::ReadMetricsSnapshot;
use paimon_core::spec::types::TypeKind;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use serde_json::{Map, Value};

use crate::bucket_pruning::Rng;
use crate::common::{copy_dir, generated_tables, java_fixtures, json_rows, render};
use crate::pypaimon::pypaimon_fixtures;

/// Metrics summed over every selective read, and how many comparisons ran.
#[derive(Default, Debug)]
struct Tally {
    reads: usize,
    non_empty: usize,
    m: ReadMetricsSnapshot,
}

impl Tally {
    fn add(&mut self, m: ReadMetricsSnapshot) {
        self.m.page_index_files += m.page_index_files;
        self.m.page_index_missing += m.page_index_missing;
        self.m.page_index_unreadable += m.page_index_unreadable;
        self.m.pages_skipped += m.pages_skipped;
        self.m.page_rows_skipped += m.page_rows_skipped;
        self.m.row_filter_files += m.row_filter_files;
        self.m.rows_filtered += m.rows_filtered;
        self.m.merge_row_groups_skipped += m.merge_row_groups_skipped;
    }
}

/// Reads `pred` with selective reads on and off; the rows must be the same (tables or
/// predicates the plain read rejects are skipped).
async fn compare(table: &Table, name: &str, pred: Option<Predicate>, tally: &mut Tally) {
    let mut b = table.scan();
    if let Some(p) = pred.clone() {
        b = b.with_predicate(p);
    }
    let Ok(scan) = b.build() else { return };
    let Ok(plan) = scan.plan().await else { return };
    let on = scan.reader();
    let off = scan.reader().with_selective(false);
    let Ok(want) = json_rows(&off, plan.splits.clone()).await else {
        return;
    };
    let got = json_rows(&on, plan.splits)
        .await
        .unwrap_or_else(|e| panic!("{name} {pred:?}: {e}"));
    assert_eq!(render(&got), render(&want), "{name}: {pred:?}");
    tally.reads += 1;
    tally.non_empty += usize::from(!want.is_empty());
    tally.add(on.metrics());
}

/// Columns usable in random predicates: integers and strings.
fn usable_columns(table: &Table) -> Vec<String> {
    table
        .schema()
        .fields
        .iter()
        .filter(|f| {
            matches!(
                f.data_type.kind,
                TypeKind::TinyInt
                    | TypeKind::SmallInt
                    | TypeKind::Int
                    | TypeKind::BigInt
                    | TypeKind::VarChar(_)
                    | TypeKind::Char(_)
            )
        })
        .map(|f| f.name.clone())
        .collect()
}

fn literal(v: &Value) -> Option<Literal> {
    match v {
        Value::Number(n) => Some(Literal::Number(n.to_string())),
        Value::String(s) => Some(Literal::String(s.clone())),
        _ => None,
    }
}

/// One random leaf on `column` with values drawn from `rows`.
fn leaf(rng: &mut Rng, rows: &[Map<String, Value>], column: &str) -> Option<Predicate> {
    let value = |rng: &mut Rng| literal(&rng.pick(rows)[column]);
    let compare = |op, value| Predicate::Compare {
        column: column.to_string(),
        op,
        value,
    };
    Some(match rng.next() % 8 {
        0 | 1 => compare(CompareOp::Eq, value(rng)?),
        2 => compare(CompareOp::Lt, value(rng)?),
        3 => compare(CompareOp::GtEq, value(rng)?),
        4 => Predicate::In {
            column: column.to_string(),
            values: (0..3).map(|_| value(rng)).collect::<Option<_>>()?,
            negated: false,
        },
        5 => Predicate::IsNull {
            column: column.to_string(),
            negated: rng.next() % 2 == 0,
        },
        6 => Predicate::Between {
            column: column.to_string(),
            low: value(rng)?,
            high: value(rng)?,
            negated: false,
        },
        _ => compare(CompareOp::NotEq, value(rng)?),
    })
}

/// Random predicates on `table`: half of them on the primary key (pushed below merges).
fn predicates(
    rng: &mut Rng,
    table: &Table,
    rows: &[Map<String, Value>],
    n: usize,
) -> Vec<Predicate> {
    let columns = usable_columns(table);
    let keys: Vec<String> = table
        .schema()
        .primary_keys
        .iter()
        .filter(|k| columns.contains(k))
        .cloned()
        .collect();
    if columns.is_empty() || rows.is_empty() {
        return vec![];
    }
    let mut out = vec![];
    for i in 0..n {
        let pool = if i % 2 == 0 && !keys.is_empty() {
            &keys
        } else {
            &columns
        };
        let first = rng.clone_pick(pool);
        let Some(a) = leaf(rng, rows, first) else {
            continue;
        };
        let other = rng.clone_pick(&columns);
        let same = rng.clone_pick(pool);
        let p = match rng.next() % 3 {
            0 => a,
            1 => match leaf(rng, rows, other) {
                Some(b) => Predicate::And(vec![a, b]),
                None => a,
            },
            _ => match leaf(rng, rows, same) {
                Some(b) => Predicate::Or(vec![a, b]),
                None => a,
            },
        };
        out.push(p);
    }
    out
}

trait ClonePick {
    fn clone_pick<'a>(&mut self, v: &'a [String]) -> &'a str;
}

impl ClonePick for Rng {
    fn clone_pick<'a>(&mut self, v: &'a [String]) -> &'a str {
        let i = (self.next() % v.len() as u64) as usize;
        &v[i]
    }
}

async fn check_table(path: &Path, rng: &mut Rng, n: usize, tally: &mut Tally) {
    let name = path.display().to_string();
    let Ok(table) = Table::open(path.to_str().unwrap()).await else {
        return;
    };
    compare(&table, &name, None, tally).await;
    let Ok(scan) = table.scan().build() else {
        return;
    };
    let Ok(plan) = scan.plan().await else { return };
    let Ok(rows) = json_rows(&scan.reader(), plan.splits).await else {
        return;
    };
    for p in predicates(rng, &table, &rows, n) {
        compare(&table, &name, Some(p), tally).await;
    }
}

/// Table directories (those with a `schema` folder) under `root`.
fn table_dirs(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        if d.join("schema").is_dir() && d.join("snapshot").is_dir() {
            out.push(d);
        } else {
            table_dirs(&d, out);
        }
    }
}

/// Rewrites the Parquet file at `path` with the same rows in small pages (an eighth, a quarter
/// or half of its rows, the smallest that fits) with a page index, padded through footer
/// metadata to the original size; `false` (file untouched) when that is impossible.
fn rewrite_small_pages(path: &Path) -> bool {
    rewrite_parquet_with(path, |b| b, &[8, 4, 2])
}

/// Rewrites the Parquet file at `path` with the rows `transform` makes of its batches, in
/// pages of 1/d of its rows for the first `d` of `divisors` that fits, with a page index,
/// padded through footer metadata to the original size (the manifests stay valid); `false`
/// (file untouched) when that is impossible.
pub fn rewrite_parquet_with(
    path: &Path,
    transform: impl Fn(Vec<RecordBatch>) -> Vec<RecordBatch>,
    divisors: &[usize],
) -> bool {
    rewrite_parquet_as(path, transform, divisors, &[true, false])
}

/// As [`rewrite_parquet_with`], trying only the dictionary settings `dictionaries`.
pub fn rewrite_parquet_as(
    path: &Path,
    transform: impl Fn(Vec<RecordBatch>) -> Vec<RecordBatch>,
    divisors: &[usize],
    dictionaries: &[bool],
) -> bool {
    let orig = std::fs::read(path).unwrap();
    let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(orig.clone())) else {
        return false;
    };
    let rows = usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
    let schema = builder.schema().clone();
    let Ok(reader) = builder.build() else {
        return false;
    };
    let Ok(batches) = reader.collect::<Result<Vec<_>, _>>() else {
        return false;
    };
    if rows < 4 {
        return false;
    }
    let batches = transform(batches);
    // Without dictionaries the rewrite may be smaller than the original where the original
    // left them out (our writer does for unique key columns), and padding only grows a file.
    for (d, &dictionary) in divisors
        .iter()
        .flat_map(|d| dictionaries.iter().map(move |b| (d, b)))
    {
        let page = (rows / d).max(2);
        let write = |pad: usize| -> Option<Vec<u8>> {
            let mut props = WriterProperties::builder();
            // As our writer encodes the sequence numbers of a primary-key file.
            if schema.field_with_name("_SEQUENCE_NUMBER").is_ok() {
                let seq = ColumnPath::new(vec!["_SEQUENCE_NUMBER".to_string()]);
                props = props
                    .set_column_dictionary_enabled(seq.clone(), false)
                    .set_column_encoding(seq, Encoding::DELTA_BINARY_PACKED);
            }
            let props = props
                .set_dictionary_enabled(dictionary)
                .set_statistics_enabled(EnabledStatistics::Page)
                .set_data_page_row_count_limit(page)
                .set_write_batch_size(page)
                .set_compression(Compression::ZSTD(ZstdLevel::try_new(19).ok()?))
                .set_key_value_metadata(Some(vec![KeyValue::new("pad".into(), "x".repeat(pad))]))
                .build();
            let options = ArrowWriterOptions::new()
                .with_properties(props)
                .with_skip_arrow_metadata(true);
            let mut buf = Vec::new();
            let mut w =
                ArrowWriter::try_new_with_options(&mut buf, schema.clone(), options).ok()?;
            for b in &batches {
                w.write(b).ok()?;
            }
            w.close().ok()?;
            Some(buf)
        };
        if let Some(buf) = padded(write, orig.len()) {
            std::fs::write(path, buf).unwrap();
            return true;
        }
    }
    false
}

/// The output of `write(pad)` for the padding that makes it `len` bytes long, if any.
fn padded(write: impl Fn(usize) -> Option<Vec<u8>>, len: usize) -> Option<Vec<u8>> {
    let mut pad = 0usize;
    for _ in 0..12 {
        let buf = write(pad)?;
        if buf.len() == len {
            return Some(buf);
        }
        if buf.len() > len {
            pad = pad.checked_sub(buf.len() - len)?;
        } else {
            pad += len - buf.len();
        }
    }
    None
}

/// Copies `table` to `tmp` and rewrites its Parquet data files with small pages; the number
/// of files rewritten.
fn small_page_copy(table: &Path, tmp: &Path) -> (PathBuf, usize) {
    let to = tmp.join(table.file_name().unwrap());
    copy_dir(table, &to);
    let mut files = vec![];
    parquet_files(&to, &mut files);
    let n = files.iter().filter(|f| rewrite_small_pages(f)).count();
    (to, n)
}

/// The Parquet data files under `dir`.
pub fn parquet_data_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    parquet_files(dir, &mut out);
    out
}

/// Rewrites the Parquet data files under `dir` with small pages; how many were rewritten.
pub fn rewrite_parquet_small_pages(dir: &Path) -> usize {
    parquet_data_files(dir)
        .iter()
        .filter(|f| rewrite_small_pages(f))
        .count()
}

fn parquet_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if p.is_dir() {
            parquet_files(&p, out);
        } else if name.starts_with("data-") && name.ends_with(".parquet") {
            out.push(p);
        }
    }
}

fn generated_roots() -> Vec<PathBuf> {
    let mut roots = vec![];
    roots.extend(pypaimon_fixtures());
    roots.extend(generated_tables(
        "PAIMON_PK_RANDOM_TABLES",
        "pk-random-tables",
        "tables.json",
        "random primary-key tables",
        "run scripts/test.sh",
    ));
    roots.extend(generated_tables(
        "PAIMON_RANDOM_TABLES",
        "random-bucket-tables",
        "tables.json",
        "random tables",
        "run scripts/test.sh",
    ));
    roots
}

#[tokio::test]
async fn selective_reads_match_plain_reads_on_generated_and_java_tables() {
    let mut rng = Rng(0x5e1e_c71e_0000_0010);
    let mut tally = Tally::default();
    let mut tables = vec![];
    for root in generated_roots() {
        table_dirs(&root, &mut tables);
    }
    let generated = tables.len();
    table_dirs(&java_fixtures(), &mut tables);
    for t in &tables {
        check_table(t, &mut rng, 6, &mut tally).await;
    }
    // Small pages: the generated tables' Parquet files rewritten.
    let tmp = tempfile::tempdir().unwrap();
    let mut rewritten = 0;
    for t in &tables[..generated] {
        let (copy, n) = small_page_copy(t, tmp.path());
        rewritten += n;
        if n > 0 {
            check_table(&copy, &mut rng, 8, &mut tally).await;
        }
    }
    eprintln!(
        "{} tables, {rewritten} files rewritten, {tally:?}",
        tables.len()
    );
    assert!(
        tally.reads >= 200 && tally.non_empty * 4 >= tally.reads,
        "{tally:?}"
    );
    if generated > 0 {
        assert!(rewritten >= 20, "{rewritten}");
        assert!(tally.m.pages_skipped > 0, "{tally:?}");
        assert!(tally.m.merge_row_groups_skipped + tally.m.page_rows_skipped > 0);
    }
    assert!(tally.m.page_index_files > 0, "{tally:?}");
    assert!(tally.m.rows_filtered > 0, "{tally:?}");
    // Java fixtures include Parquet files written without a page index.
    assert!(tally.m.page_index_missing > 0, "{tally:?}");
}

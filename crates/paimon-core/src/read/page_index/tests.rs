//! Page pruning and late materialization on files written here with small pages.
#![allow(clippy::single_range_in_vec_init)]

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use futures::TryStreamExt;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use crate::io::FileIO;
use crate::read::file_reader::{read_data_file, DataFileRead, SelectiveRead};
use crate::read::metrics::{ReadMetrics, ReadMetricsSnapshot};
use crate::spec::types::{DataField, DataType, TypeKind};

const ROWS: i64 = 10_000;

fn fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "id", DataType::nullable(TypeKind::BigInt)),
        DataField::new(1, "v", DataType::nullable(TypeKind::BigInt)),
        DataField::new(2, "s", DataType::nullable(TypeKind::VarChar(u32::MAX >> 1))),
    ]
}

/// `id` 0..10000 sorted, `v` = id % 97 (null when id % 13 == 0), `s` = "s<id / 1000>";
/// pages of 100 rows, row groups of 4000, with or without a page index.
fn write(path: &Path, page_index: bool) {
    let schema = crate::arrow::arrow_schema(&fields()).unwrap();
    let ids: Vec<i64> = (0..ROWS).collect();
    let v: Vec<Option<i64>> = ids
        .iter()
        .map(|i| (i % 13 != 0).then_some(i % 97))
        .collect();
    let s: Vec<String> = ids.iter().map(|i| format!("s{}", i / 1000)).collect();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(Int64Array::from(v)),
            Arc::new(StringArray::from(s)),
        ],
    )
    .unwrap();
    let stats = if page_index {
        EnabledStatistics::Page
    } else {
        EnabledStatistics::Chunk
    };
    let props = WriterProperties::builder()
        .set_statistics_enabled(stats)
        .set_data_page_row_count_limit(100)
        .set_write_batch_size(100)
        .set_max_row_group_row_count(Some(4000))
        .set_dictionary_enabled(false)
        .build();
    let mut w =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

fn bound(sql: &str) -> crate::expr::BoundPredicate {
    let schema = crate::test_util::schema_of(fields());
    crate::expr::parse_predicate(sql)
        .unwrap()
        .bind(&schema)
        .unwrap()
}

struct Outcome {
    ids: Vec<i64>,
    metrics: ReadMetricsSnapshot,
    bytes: u64,
}

async fn read(path: &Path, sql: &str, selective: bool, late: bool) -> Outcome {
    let io = FileIO::default();
    let metrics = Arc::new(ReadMetrics::default());
    let mut r = DataFileRead::new(path.to_str().unwrap(), fields(), fields()).unwrap();
    r.file_size = Some(std::fs::metadata(path).unwrap().len());
    r.batch_size = 512;
    let pred = bound(sql);
    if selective {
        r.selective = Some(SelectiveRead {
            predicate: pred.clone(),
            current_fields: fields().into(),
            late_materialization: late,
            sorted_key: None,
            metrics: metrics.clone(),
        });
    }
    let batches: Vec<RecordBatch> = read_data_file(&io, r)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let mut ids = vec![];
    for b in &batches {
        let mask = crate::expr::filter_batch(&pred, b, &fields()).unwrap();
        let b = arrow_select::filter::filter_record_batch(b, &mask).unwrap();
        ids.extend(b.column(0).as_primitive::<Int64Type>().values().iter());
    }
    Outcome {
        ids,
        metrics: metrics.snapshot(),
        bytes: io.read_stats().bytes,
    }
}

#[tokio::test]
async fn page_index_skips_pages_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data-0.parquet");
    write(&path, true);
    let full = read(&path, "id = 4242", false, false).await;
    let sel = read(&path, "id = 4242", true, false).await;
    assert_eq!(sel.ids, vec![4242]);
    assert_eq!(full.ids, sel.ids);
    assert_eq!(sel.metrics.page_index_files, 1);
    // One page of 100 rows of the 4000-row group kept (the other groups by row-group stats
    // are not pruned here: no row-group filter), of every one of the 3 columns.
    assert_eq!(sel.metrics.page_rows_skipped, 9_900);
    assert_eq!(sel.metrics.pages_skipped, 3 * 99);
    assert!(
        sel.bytes * 3 < full.bytes,
        "{} vs {}",
        sel.bytes,
        full.bytes
    );
}

#[tokio::test]
async fn random_predicates_match_the_plain_read() {
    let dir = tempfile::tempdir().unwrap();
    let with = dir.path().join("data-1.parquet");
    let without = dir.path().join("data-2.parquet");
    write(&with, true);
    write(&without, false);
    let filters = [
        "id = 0",
        "id = 9999",
        "id IN (5, 1234, 8000, 20000)",
        "id >= 3950 AND id < 4050",
        "id < 150 OR id > 9890",
        "v IS NULL AND id < 500",
        "v = 5",
        "v IS NULL",
        "s = 's3' AND v > 90",
        "s LIKE 's7%' OR id = 3",
        "id BETWEEN 100 AND 199 OR v = 96",
        "id > 100000",
        "v IS NOT NULL AND id < 30",
        "s <> 's1' AND id < 1010",
        "id NOT IN (1, 2, 3) AND id < 5",
    ];
    let mut fired = ReadMetricsSnapshot::default();
    for f in filters {
        let plain = read(&with, f, false, false).await;
        for (path, late) in [(&with, false), (&with, true), (&without, true)] {
            let got = read(path, f, true, late).await;
            assert_eq!(got.ids, plain.ids, "{f} late={late} {path:?}");
            fired.pages_skipped += got.metrics.pages_skipped;
            fired.rows_filtered += got.metrics.rows_filtered;
            fired.page_index_missing += got.metrics.page_index_missing;
        }
    }
    assert!(fired.pages_skipped > 0);
    assert!(fired.rows_filtered > 0);
    assert!(fired.page_index_missing > 0);
}

#[tokio::test]
async fn corrupt_page_index_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data-3.parquet");
    write(&path, true);
    // Overwrite the page index (between the last column chunk and the footer) with garbage.
    let bytes = std::fs::read(&path).unwrap();
    let md = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&bytes::Bytes::from(bytes.clone()))
        .unwrap();
    let start = md
        .row_groups()
        .iter()
        .flat_map(|rg| rg.columns())
        .filter_map(|c| c.column_index_offset())
        .min()
        .unwrap();
    let end = md
        .row_groups()
        .iter()
        .flat_map(|rg| rg.columns())
        .filter_map(|c| Some(c.offset_index_offset()? + i64::from(c.offset_index_length()?)))
        .max()
        .unwrap();
    let mut corrupt = bytes.clone();
    for b in &mut corrupt[usize::try_from(start).unwrap()..usize::try_from(end).unwrap()] {
        *b = 0xFF;
    }
    std::fs::write(&path, corrupt).unwrap();
    for late in [false, true] {
        let got = read(&path, "id = 4242 OR v IS NULL", true, late).await;
        let plain = read(&path, "id = 4242 OR v IS NULL", false, false).await;
        assert_eq!(got.ids, plain.ids);
        assert_eq!(got.metrics.page_index_unreadable, 1);
        assert_eq!(got.metrics.pages_skipped, 0);
    }
}

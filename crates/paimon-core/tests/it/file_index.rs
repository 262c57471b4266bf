//! Data-file indexes on every Java-written file-index fixture (bloom filter, bitmap V1/V2
//! embedded and in `*.index` files, BSI, range bitmap, a mix, after ALTER TABLE, a primary-key
//! table with deletion vectors): for predicates each index answers, the plan or the read skips
//! exactly the files and rows the index says (checked through the metrics), and the rows equal
//! the read with `file-index.read.enabled = false` and the expected count. Corrupt indexes
//! (sidecar and embedded) fall back to a full read and are counted.

use std::path::Path;

use paimon_core::catalog::Table;
use paimon_core::index::file_index::FileIndexContainer;
use paimon_core::read::metrics::ReadMetricsSnapshot;
use paimon_core::scan::{ScanMetrics, SnapshotSelector};
use paimon_core::spec::manifest::{
    decode_manifest, decode_manifest_list, encode_manifest, encode_manifest_list,
};

use crate::common::{java_table, java_table_copy, json_rows, render, rows};

/// One read's rows and metrics.
struct Outcome {
    rows: Vec<String>,
    plan: ScanMetrics,
    read: ReadMetricsSnapshot,
}

async fn run(path: &str, filter: &str, enabled: bool) -> Outcome {
    let table = Table::open(path).await.unwrap();
    let mut b = table.scan().with_filter(filter).unwrap();
    b = b.with_snapshot(SnapshotSelector::Latest);
    if !enabled {
        b = b.with_option("file-index.read.enabled", "false");
    }
    let scan = b.build().unwrap();
    let plan = scan.plan().await.unwrap();
    let read = scan.reader();
    let rows = render(&json_rows(&read, plan.splits.clone()).await.unwrap());
    Outcome {
        rows,
        plan: plan.metrics,
        read: read.metrics(),
    }
}

/// What a predicate should do on one table.
struct Case {
    filter: &'static str,
    /// Rows returned.
    rows: usize,
    /// Files dropped at planning by embedded indexes.
    plan_skipped: u64,
    /// Files not opened at read time.
    read_skipped: u64,
    /// Rows left out of row selections at read time.
    rows_skipped: u64,
    /// The index kind credited with the skipped files.
    kind: &'static str,
}

const fn case(
    filter: &'static str,
    rows: usize,
    plan_skipped: u64,
    read_skipped: u64,
    rows_skipped: u64,
    kind: &'static str,
) -> Case {
    Case {
        filter,
        rows,
        plan_skipped,
        read_skipped,
        rows_skipped,
        kind,
    }
}

fn read_kind(m: &ReadMetricsSnapshot, kind: &str) -> u64 {
    match kind {
        "bloom-filter" => m.file_index_skipped_bloom_filter,
        "bitmap" => m.file_index_skipped_bitmap,
        "bsi" => m.file_index_skipped_bsi,
        "range-bitmap" => m.file_index_skipped_range_bitmap,
        _ => 0,
    }
}

async fn check(path: &str, cases: &[Case]) {
    for c in cases {
        let what = format!("{path}: {}", c.filter);
        let on = run(path, c.filter, true).await;
        let off = run(path, c.filter, false).await;
        assert_eq!(on.rows, off.rows, "{what}: rows with and without the index");
        assert_eq!(on.rows.len(), c.rows, "{what}: {:?}", on.rows);
        let (fi, r) = (&on.plan.file_index, &on.read);
        assert_eq!(fi.files_skipped, c.plan_skipped, "{what}: plan {fi:?}");
        assert_eq!(
            r.file_index_files_skipped, c.read_skipped,
            "{what}: read {r:?}"
        );
        assert_eq!(
            r.file_index_rows_skipped, c.rows_skipped,
            "{what}: read {r:?}"
        );
        assert_eq!((fi.fallbacks, r.file_index_fallbacks), (0, 0), "{what}");
        if c.plan_skipped > 0 {
            assert_eq!(
                fi.files_skipped_by_kind.get(c.kind),
                Some(&c.plan_skipped),
                "{what}"
            );
        }
        if c.read_skipped > 0 {
            assert_eq!(read_kind(r, c.kind), c.read_skipped, "{what}: {r:?}");
        }
        // Turned off, nothing is evaluated.
        assert_eq!(off.plan.file_index, Default::default(), "{what}");
        assert_eq!(off.read.file_index_files, 0, "{what}");
        assert_eq!(off.read.file_index_rows_skipped, 0, "{what}");
    }
}

/// Rows of the bitmap tables: (f0, f1, f2, f3) =
/// 0 Alice,10,1 | 1 Bob,10,1 | 2 Emily,10,0 | 3 Tony,10,0 | 4 Lucy,20,1 | 5 Bob,10,1 |
/// 6 Tony,20,0 | 7 Alice,20,null.
fn bitmap_cases(embedded: bool) -> Vec<Case> {
    // A file no row of which matches is dropped by the plan when the index is embedded, else
    // not opened by the read.
    let (p, r) = if embedded { (1, 0) } else { (0, 1) };
    vec![
        case("f0 = 'Alice'", 2, 0, 0, 6, "bitmap"),
        case("f0 IN ('Bob', 'Lucy')", 3, 0, 0, 5, "bitmap"),
        case("f2 IS NULL", 1, 0, 0, 7, "bitmap"),
        case("f2 IS NOT NULL", 7, 0, 0, 1, "bitmap"),
        case("f1 = 20 AND f2 = 1", 1, 0, 0, 7, "bitmap"),
        case("f0 <> 'Alice'", 6, 0, 0, 2, "bitmap"),
        case("f0 = 'Carl'", 0, p, r, 0, "bitmap"),
        case("f1 = 15 OR f0 = 'Nobody'", 0, p, r, 0, "bitmap"),
        case("f0 = 'Emily' OR f2 IS NULL", 2, 0, 0, 6, "bitmap"),
        // Ranges and unindexed columns: the bitmap index cannot answer.
        case("f1 < 15", 5, 0, 0, 0, "bitmap"),
        case("f3 > 15", 4, 0, 0, 0, "bitmap"),
    ]
}

#[tokio::test]
async fn bitmap_embedded_v2_and_v1() {
    for fmt in ["parquet", "orc"] {
        for t in ["append_with_bitmap", "append_with_bitmap_v1"] {
            check(&java_table(&format!("{fmt}/{t}")), &bitmap_cases(true)).await;
        }
    }
}

#[tokio::test]
async fn bitmap_in_index_files() {
    for fmt in ["parquet", "orc"] {
        let path = java_table(&format!("{fmt}/append_with_bitmap_no_embedding"));
        check(&path, &bitmap_cases(false)).await;
        let on = run(&path, "f0 = 'Alice'", true).await;
        assert_eq!(
            on.rows,
            rows(&["Alice, 10, 1, 11.1", "Alice, 20, null, 18.1"])
        );
        assert_eq!(on.read.file_index_files, 1);
        assert_eq!(on.read.file_index_rows_skipped, 6);
        if fmt == "parquet" {
            // No late materialization either way: an 8-row file whose page index removes
            // nothing gives no evidence that the predicate is selective.
            let off = run(&path, "f0 = 'Alice'", false).await;
            assert_eq!(off.rows, on.rows);
            assert_eq!((on.read.row_filter_files, on.read.rows_filtered), (0, 0));
            assert_eq!((off.read.row_filter_files, off.read.rows_filtered), (0, 0));
        }
    }
    // ORC with one row per stripe, index in a `*.index` file.
    let path = java_table("append_with_bitmap_multi_stripes");
    check(&path, &bitmap_cases(false)).await;
}

#[tokio::test]
async fn bitmap_after_alter_table() {
    // File A (schema 0, indexes f0 = now f4, f1 INT, f2): the eight rows above. File B
    // (schema 1, indexes f1 BIGINT, f4, f5): (30, Alice, 21.1, 100), (20, Emily, 22.1, 101),
    // (10, Bob, 23.1, 100), (30, David, 24.1, null).
    let cases = [
        case("f4 = 'Alice'", 3, 0, 0, 6 + 3, "bitmap"),
        case("f4 = 'David'", 1, 1, 0, 3, "bitmap"),
        case("f1 = 30", 2, 1, 0, 2, "bitmap"),
        // File A has no f5 (added later): it might match, and is read.
        case("f5 = 100", 2, 0, 0, 2, "bitmap"),
        case("f5 IS NULL", 9, 0, 0, 3, "bitmap"),
    ];
    for fmt in ["parquet", "orc"] {
        check(
            &java_table(&format!("{fmt}/append_with_bitmap_alter_table")),
            &cases,
        )
        .await;
    }
}

#[tokio::test]
async fn bloom_filter_index_files() {
    let cases = [
        case("f0 = 'Alice'", 2, 0, 0, 0, "bloom-filter"),
        case("f0 = 'Carl'", 0, 0, 1, 0, "bloom-filter"),
        case("f0 IN ('Carl', 'Dan')", 0, 0, 1, 0, "bloom-filter"),
        case("f1 = 100", 2, 0, 0, 0, "bloom-filter"),
        case("f1 = 150", 0, 0, 1, 0, "bloom-filter"),
        case("f2 = -3", 1, 0, 0, 0, "bloom-filter"),
        case("f3 = 11.1", 1, 0, 0, 0, "bloom-filter"),
        case("f3 = 15.5", 0, 0, 1, 0, "bloom-filter"),
        // Only = and IN are answered.
        case("f1 > 400", 1, 0, 0, 0, "bloom-filter"),
    ];
    for fmt in ["parquet", "orc"] {
        check(
            &java_table(&format!("{fmt}/append_with_bloomfilter")),
            &cases,
        )
        .await;
    }
}

/// f1: 100, 200, 300, 50, 500, 100, null, 20; f2: -2, -3, 1, 1, -1, 2, -2, null.
#[tokio::test]
async fn bsi_index_files() {
    let cases = [
        case("f1 = 100", 2, 0, 0, 6, "bsi"),
        case("f1 > 250", 2, 0, 0, 6, "bsi"),
        case("f1 <= 50", 2, 0, 0, 6, "bsi"),
        case("f2 < 0", 4, 0, 0, 4, "bsi"),
        case("f2 >= -1 AND f2 <= 1", 3, 0, 0, 5, "bsi"),
        case("f1 IS NULL", 1, 0, 0, 7, "bsi"),
        case("f2 IN (-3, 2)", 2, 0, 0, 6, "bsi"),
        case("f1 = 150", 0, 0, 1, 0, "bsi"),
        case("f2 = 0", 0, 0, 1, 0, "bsi"),
        case("f1 > 300 AND f1 < 500", 0, 0, 1, 0, "bsi"),
        case("f0 = 'Alice'", 2, 0, 0, 0, "bsi"),
    ];
    for fmt in ["parquet", "orc"] {
        check(&java_table(&format!("{fmt}/append_with_bsi")), &cases).await;
    }
}

#[tokio::test]
async fn bsi_bitmap_and_bloom_filter_together() {
    let cases = [
        case("f0 = 'Alice'", 2, 0, 0, 6, "bitmap"),
        case("f1 > 250", 2, 0, 0, 6, "bsi"),
        case("f3 = 15.5", 0, 0, 1, 0, "bloom-filter"),
        case("f2 IS NULL", 1, 0, 0, 7, "bitmap"),
    ];
    for fmt in ["parquet", "orc"] {
        let path = java_table(&format!("{fmt}/append_with_bsi_bitmap_bloomfilter"));
        check(&path, &cases).await;
        // Several kinds on one column: all agree that nothing matches.
        let on = run(&path, "f1 = 150", true).await;
        assert!(on.rows.is_empty());
        assert_eq!(on.read.file_index_files_skipped, 1);
    }
}

/// f0: 17, 3, 5, 7, 9, null, null, 10; f1: 100..500, null, null, 600; f2 1.1f..5.5f, null,
/// null, 6.6f; f3 11.11..55.55, null, null, 66.66.
#[tokio::test]
async fn range_bitmap_index_files() {
    let cases = [
        case("f0 = 5", 1, 0, 0, 7, "range-bitmap"),
        case("f0 > 6", 4, 0, 0, 4, "range-bitmap"),
        case("f0 IS NULL", 2, 0, 0, 6, "range-bitmap"),
        case("f0 <> 7", 5, 0, 0, 3, "range-bitmap"),
        case("f1 >= 300 AND f1 < 600", 3, 0, 0, 5, "range-bitmap"),
        case("f0 = 8", 0, 0, 1, 0, "range-bitmap"),
        case("f0 > 10 AND f0 < 17", 0, 0, 1, 0, "range-bitmap"),
        case("f0 = 4", 0, 0, 1, 0, "range-bitmap"),
        case("f2 > 3.0", 4, 0, 0, 4, "range-bitmap"),
        case("f3 < 30.0", 2, 0, 0, 6, "range-bitmap"),
        case("f5 = 'row1'", 1, 0, 0, 0, "range-bitmap"),
    ];
    for fmt in ["parquet", "orc"] {
        for t in [
            "append_with_rangebitmap",
            "append_with_rangebitmap_multi_chunk",
        ] {
            check(&java_table(&format!("{fmt}/{t}")), &cases).await;
        }
    }
}

#[tokio::test]
async fn primary_key_table_with_deletion_vectors() {
    // Latest snapshot: keys 0 and 4 deleted by the deletion vector of the compacted file.
    let path = java_table("parquet/pk_with_bitmap_dv");
    let cases = [
        case("f0 = 'Alice'", 1, 0, 0, 6, "bitmap"),
        // Lucy's only row is deleted: the file is not opened.
        case("f0 = 'Lucy'", 0, 0, 1, 0, "bitmap"),
        case("f1 = 30", 0, 0, 1, 0, "bitmap"),
        case("f0 <> 'Alice'", 5, 0, 0, 2, "bitmap"),
    ];
    check(&path, &cases).await;
    let on = run(&path, "f0 = 'Alice'", true).await;
    assert_eq!(on.rows, rows(&["7, Alice, 20, null, 18.1"]));
}

fn index_files(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir.join("bucket-0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".index"))
        .collect()
}

#[tokio::test]
async fn corrupt_index_files_fall_back() {
    for damage in ["magic", "truncate", "payload", "delete"] {
        let (_tmp, dir) = java_table_copy("parquet/append_with_bitmap_no_embedding");
        for p in index_files(&dir) {
            let mut b = std::fs::read(&p).unwrap();
            match damage {
                "magic" => b[0] ^= 0xff,
                "truncate" => b.truncate(b.len() / 2),
                // The version byte of every payload.
                "payload" => {
                    let starts: Vec<usize> = FileIndexContainer::decode(&b)
                        .unwrap()
                        .entries()
                        .iter()
                        .map(|e| e.start as usize)
                        .collect();
                    for s in starts {
                        b[s] = 9;
                    }
                }
                _ => {
                    std::fs::remove_file(&p).unwrap();
                    continue;
                }
            }
            std::fs::write(&p, b).unwrap();
        }
        let path = dir.to_str().unwrap();
        for (filter, n) in [("f0 = 'Alice'", 2), ("f1 = 20 AND f0 = 'Bob'", 0)] {
            let on = run(path, filter, true).await;
            let off = run(path, filter, false).await;
            assert_eq!(on.rows, off.rows, "{damage} {filter}");
            assert_eq!(on.rows.len(), n, "{damage} {filter}");
            assert_eq!(
                on.read.file_index_fallbacks, 1,
                "{damage} {filter}: {:?}",
                on.read
            );
            assert_eq!(on.read.file_index_files_skipped, 0, "{damage}");
            assert_eq!(on.read.file_index_rows_skipped, 0, "{damage}");
        }
    }
}

/// Rewrites every manifest of the table at `dir` with `f` applied to each entry's embedded
/// index, and the manifest lists with the new sizes.
fn tamper_embedded(dir: &Path, f: impl Fn(&mut Vec<u8>)) {
    let mdir = dir.join("manifest");
    let mut sizes = std::collections::HashMap::new();
    let names: Vec<String> = std::fs::read_dir(&mdir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    for n in names.iter().filter(|n| !n.starts_with("manifest-list-")) {
        let p = mdir.join(n);
        let mut entries = decode_manifest(&std::fs::read(&p).unwrap(), n).unwrap();
        for e in &mut entries {
            if let Some(b) = e.file.embedded_index.as_mut() {
                f(b);
            }
        }
        let bytes = encode_manifest(&entries).unwrap();
        sizes.insert(n.clone(), bytes.len() as i64);
        std::fs::write(&p, bytes).unwrap();
    }
    for n in names.iter().filter(|n| n.starts_with("manifest-list-")) {
        let p = mdir.join(n);
        let mut metas = decode_manifest_list(&std::fs::read(&p).unwrap(), n).unwrap();
        for m in &mut metas {
            m.file_size = sizes[&m.file_name];
        }
        std::fs::write(&p, encode_manifest_list(&metas).unwrap()).unwrap();
    }
}

#[tokio::test]
async fn corrupt_embedded_index_falls_back() {
    let (_tmp, dir) = java_table_copy("parquet/append_with_bitmap");
    tamper_embedded(&dir, |b| b.truncate(b.len() - 10));
    let path = dir.to_str().unwrap();
    for (filter, n) in [("f0 = 'Alice'", 2), ("f0 = 'Carl'", 0)] {
        let on = run(path, filter, true).await;
        let off = run(path, filter, false).await;
        assert_eq!(on.rows, off.rows, "{filter}");
        assert_eq!(on.rows.len(), n, "{filter}");
        // Counted once by the plan and once by the read of the same file.
        assert_eq!(on.plan.file_index.fallbacks, 1, "{filter}: {:?}", on.plan);
        assert_eq!(on.plan.file_index.files_skipped, 0);
        assert_eq!(on.read.file_index_fallbacks, 1, "{filter}: {:?}", on.read);
        assert_eq!(on.read.file_index_rows_skipped, 0);
    }
}

/// A leaf on `col` with an operator and literals chosen by `r`.
fn random_leaf(r: &mut u64, col: &str, lits: &[&str]) -> String {
    let mut next = |n: usize| {
        *r = r
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((*r >> 33) as usize) % n
    };
    let a = lits[next(lits.len())];
    let b = lits[next(lits.len())];
    match next(10) {
        0 => format!("{col} = {a}"),
        1 => format!("{col} <> {a}"),
        2 => format!("{col} < {a}"),
        3 => format!("{col} <= {a}"),
        4 => format!("{col} > {a}"),
        5 => format!("{col} >= {a}"),
        6 => format!("{col} IN ({a}, {b})"),
        7 => format!("{col} NOT IN ({a}, {b})"),
        8 => format!("{col} IS NULL"),
        _ => format!("{col} IS NOT NULL"),
    }
}

/// Random AND/OR combinations of leaves on indexed and unindexed columns: the rows never
/// depend on whether the indexes are used.
#[tokio::test]
async fn random_predicates_read_the_same_rows_with_and_without_indexes() {
    let mix: &[(&str, &[&str])] = &[
        ("f0", &["'Alice'", "'Bob'", "'Carl'", "'Tony'", "'Zed'"]),
        ("f1", &["20", "50", "100", "150", "200", "500", "600"]),
        ("f2", &["-3", "-2", "-1", "0", "1", "2", "3"]),
        ("f3", &["11.1", "15.5", "18.1"]),
    ];
    let range: &[(&str, &[&str])] = &[
        ("f0", &["3", "4", "5", "9", "10", "17", "18"]),
        ("f1", &["100", "250", "600", "700"]),
        ("f2", &["1.1", "3.0", "6.6", "0.0"]),
        ("f3", &["11.11", "30.0", "66.66", "-0.0"]),
        ("f5", &["'row1'", "'null_row'"]),
    ];
    let alter: &[(&str, &[&str])] = &[
        ("f1", &["10", "15", "20", "30"]),
        ("f4", &["'Alice'", "'David'", "'Carl'"]),
        ("f5", &["100", "101", "102"]),
    ];
    let tables = [
        ("append_with_bsi_bitmap_bloomfilter", mix),
        ("append_with_bsi", mix),
        ("append_with_bloomfilter", mix),
        ("append_with_rangebitmap", range),
        ("append_with_rangebitmap_multi_chunk", range),
        ("append_with_bitmap_alter_table", alter),
        ("append_with_bitmap_no_embedding", &mix[..3]),
        ("append_with_bitmap_v1", &mix[..3]),
    ];
    let mut r = 0x5eed_u64;
    let mut answered = 0;
    for fmt in ["parquet", "orc"] {
        for (t, cols) in tables {
            let path = java_table(&format!("{fmt}/{t}"));
            for i in 0..16 {
                let mut leaf = || {
                    r = r.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(3);
                    let (c, lits) = cols[(r >> 40) as usize % cols.len()];
                    random_leaf(&mut r, c, lits)
                };
                let filter = match i % 3 {
                    0 => leaf(),
                    1 => format!("{} AND {}", leaf(), leaf()),
                    _ => format!("({} OR {}) AND {}", leaf(), leaf(), leaf()),
                };
                let on = run(&path, &filter, true).await;
                let off = run(&path, &filter, false).await;
                assert_eq!(on.rows, off.rows, "{path}: {filter}");
                assert_eq!(on.read.file_index_fallbacks, 0, "{path}: {filter}");
                let m = &on.read;
                if m.file_index_files_skipped + m.file_index_rows_skipped > 0
                    || on.plan.file_index.files_skipped > 0
                {
                    answered += 1;
                }
            }
        }
    }
    // The indexes did answer a good share of them.
    assert!(answered > 60, "{answered}");
}

/// A large `*.index` file is read by ranges: its head, then only the payloads of the columns the
/// predicate references (each default bloom filter is ~600 KB; the file holds five).
#[tokio::test]
async fn index_files_are_read_by_the_columns_needed() {
    let path = java_table("parquet/append_with_bloomfilter");
    let sidecar = index_files(Path::new(&path))[0].clone();
    let size = std::fs::metadata(&sidecar).unwrap().len();
    assert!(size > 2_000_000, "{size}");
    let table = Table::open(&path).await.unwrap();
    let scan = table
        .scan()
        .with_filter("f0 = 'Carl'")
        .unwrap()
        .build()
        .unwrap();
    let plan = scan.plan().await.unwrap();
    let before = table.file_io().read_stats();
    let read = scan.reader();
    assert!(json_rows(&read, plan.splits).await.unwrap().is_empty());
    assert_eq!(read.metrics().file_index_files_skipped, 1);
    let fetched = table.file_io().read_stats().bytes - before.bytes;
    // f0's filter (599,071 bytes) and little else.
    assert!(
        (599_071..700_000).contains(&fetched),
        "fetched {fetched} of a {size}-byte index file"
    );
}

//! Metadata columns `__paimon_file_path` / `__paimon_row_index` against Java-written tables.
//!
//! Oracle: the raw content of the named file (decoded without deletion vectors, row ranges or
//! merging) must hold, at the named position, the very record the output row came from.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use futures::TryStreamExt;
use paimon_core::catalog::Table;
use paimon_core::index::deletion_vector::decode_deletion_vector;
use paimon_core::read::{read_data_file, DataFileRead};
use paimon_core::render::batch_to_json_rows;
use paimon_core::scan::{Plan, Split};
use paimon_core::spec::row_range::from_inclusive;
use paimon_core::spec::special_fields::{sequence_number_field, value_kind_field};
use serde_json::{Map, Value};

use crate::common::{column_names, json_rows, metadata_reader, open_java, plan, Query};

type Row = Map<String, Value>;

const PATH: &str = "__paimon_file_path";
const POS: &str = "__paimon_row_index";

/// Reads `plan` with metadata columns.
async fn read_meta(table: &Table, plan: Plan) -> Vec<Row> {
    let read = metadata_reader(table);
    json_rows(&read, plan.splits).await.unwrap()
}

/// Every stored row of every file of `plan`, by location (system columns included for
/// primary-key tables).
async fn raw_files(table: &Table, plan: &Plan) -> HashMap<String, Vec<Row>> {
    let mut fields = table.schema().fields.clone();
    if table.schema().has_primary_key() {
        fields.extend([sequence_number_field(), value_kind_field()]);
    }
    let mut out = HashMap::new();
    for s in &plan.splits {
        let Split::Data(d) = s else { unreachable!() };
        for f in &d.files {
            let loc = d.file_location(f);
            let file_schema = table.snapshot_manager().schema(f.schema_id).await.unwrap();
            let read = DataFileRead::new(&loc, file_schema.fields.clone(), fields.clone()).unwrap();
            let batches: Vec<_> = read_data_file(table.file_io(), read)
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            let mut rows = vec![];
            for b in &batches {
                rows.extend(batch_to_json_rows(b, &fields).unwrap());
            }
            assert_eq!(rows.len() as i64, f.row_count, "{loc}");
            out.insert(loc, rows);
        }
    }
    out
}

/// The stored row an output row names.
fn source<'a>(raw: &'a HashMap<String, Vec<Row>>, row: &Row) -> &'a Row {
    let path = row[PATH].as_str().unwrap();
    let pos = row[POS].as_u64().unwrap() as usize;
    &raw.get(path)
        .unwrap_or_else(|| panic!("unknown file {path}"))[pos]
}

/// Asserts that `cols` of each output row equal those of the stored row it names.
fn assert_sources(raw: &HashMap<String, Vec<Row>>, out: &[Row], cols: &[&str]) {
    for r in out {
        let src = source(raw, r);
        for c in cols {
            assert_eq!(r[*c], src[*c], "column {c} of {r:?}");
        }
    }
}

/// Deleted positions per file location.
async fn deletion_vectors(table: &Table, plan: &Plan) -> HashMap<String, BTreeSet<u64>> {
    let mut out = HashMap::new();
    for s in &plan.splits {
        let d = s.as_data();
        for (f, df) in d.files.iter().zip(&d.deletion_files) {
            let Some(df) = df else { continue };
            let bytes = table.file_io().read(&df.path).await.unwrap();
            let dv = decode_deletion_vector(&bytes, df.offset as usize, &df.path, None).unwrap();
            out.insert(d.file_location(f), dv.iter().collect());
        }
    }
    out
}

/// Output positions per file location.
fn positions(out: &[Row]) -> BTreeMap<String, Vec<u64>> {
    let mut m: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for r in out {
        m.entry(r[PATH].as_str().unwrap().to_string())
            .or_default()
            .push(r[POS].as_u64().unwrap());
    }
    m.values_mut().for_each(|v| v.sort_unstable());
    m
}

fn find<'a>(out: &'a [Row], f0: &str) -> Option<&'a Row> {
    out.iter().find(|r| r["f0"] == f0)
}

#[tokio::test]
async fn positions_skip_rows_deleted_by_deletion_vectors() {
    for fmt in ["parquet", "orc"] {
        let table = open_java(&format!("{fmt}/pk_table_scan_and_read_dv")).await;
        let p = plan(&table, &Query::default()).await;
        let raw = raw_files(&table, &p).await;
        let dvs = deletion_vectors(&table, &p).await;
        assert!(!dvs.is_empty(), "{fmt}: the fixture has deletion vectors");
        let out = read_meta(&table, p.clone()).await;
        assert_eq!(out.len(), 8, "{fmt}");
        assert_sources(
            &raw,
            &out,
            &["f0", "f1", "f2", "f3", "_SEQUENCE_NUMBER", "_VALUE_KIND"],
        );
        // Every file is read raw here: output positions and deleted positions partition it.
        for s in &p.splits {
            let d = s.as_data();
            for f in &d.files {
                let loc = d.file_location(f);
                let got: BTreeSet<u64> = positions(&out)
                    .get(&loc)
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
                let dv = dvs.get(&loc).cloned().unwrap_or_default();
                assert!(got.is_disjoint(&dv), "{fmt} {loc}");
                let all: BTreeSet<u64> = got.union(&dv).copied().collect();
                assert_eq!(all, (0..f.row_count as u64).collect(), "{fmt} {loc}");
            }
        }
        // README: the compacted bucket of (f1=10, f2=0) holds Alex, Bob, David, Emily, Tony
        // (sorted); Tony was deleted, so positions 0..=3 remain and 4 is gone.
        let alex = find(&out, "Alex").unwrap();
        let emily = find(&out, "Emily").unwrap();
        assert_eq!(
            (alex[POS].as_u64(), emily[POS].as_u64()),
            (Some(0), Some(3))
        );
        assert_eq!(alex[PATH], emily[PATH]);
        assert!(find(&out, "Tony").is_none());
        assert_eq!(
            dvs[alex[PATH].as_str().unwrap()],
            BTreeSet::from([4]),
            "{fmt}"
        );
        // Alice (sorted before "Two roads") was updated: her old row 0 is deleted, the long
        // row keeps position 1 and the new Alice is row 0 of another file.
        let two = out
            .iter()
            .find(|r| r["f0"].as_str().unwrap().starts_with("Two"))
            .unwrap();
        let alice = find(&out, "Alice").unwrap();
        assert_eq!((two[POS].as_u64(), alice[POS].as_u64()), (Some(1), Some(0)));
        assert_ne!(two[PATH], alice[PATH]);
        assert_eq!(alice["f3"], 19.1);
    }
}

#[tokio::test]
async fn positions_with_row_ranges_and_deletion_vectors() {
    for fmt in ["parquet", "orc"] {
        let table = open_java(&format!("{fmt}/pk_table_scan_and_read_dv")).await;
        let mut p = plan(&table, &Query::default()).await;
        let raw = raw_files(&table, &p).await;
        let dvs = deletion_vectors(&table, &p).await;
        // Keep rows 1..=3 of every file.
        for s in &mut p.splits {
            let Split::Data(d) = s else { unreachable!() };
            d.row_ranges = Some(
                d.files
                    .iter()
                    .map(|_| Some(vec![from_inclusive(1, 3)]))
                    .collect(),
            );
        }
        let out = read_meta(&table, p.clone()).await;
        assert_sources(&raw, &out, &["f0", "f3", "_SEQUENCE_NUMBER"]);
        let got = positions(&out);
        for s in &p.splits {
            let d = s.as_data();
            for f in &d.files {
                let loc = d.file_location(f);
                let dv = dvs.get(&loc).cloned().unwrap_or_default();
                let want: Vec<u64> = (1..=3)
                    .filter(|i| *i < f.row_count as u64 && !dv.contains(i))
                    .collect();
                assert_eq!(
                    got.get(&loc).cloned().unwrap_or_default(),
                    want,
                    "{fmt} {loc}"
                );
            }
        }
        // The Tony bucket: rows 1..=3 are Bob, David, Emily; Tony (4) is out of range anyway.
        let names: BTreeSet<&str> = out.iter().map(|r| r["f0"].as_str().unwrap()).collect();
        assert!(
            names.is_superset(&BTreeSet::from(["Bob", "David", "Emily"])),
            "{fmt}"
        );
        assert!(!names.contains("Alex"), "{fmt}: Alex is row 0");
    }
}

/// A merged-read case: table, snapshot, key columns, value columns.
type Case = (
    &'static str,
    Option<i64>,
    &'static [&'static str],
    &'static [&'static str],
);

#[tokio::test]
async fn merged_rows_name_the_winning_record() {
    // (table, snapshot, key columns, other columns that must equal the stored record's).
    // pk_table_with_mor orders versions by `sequence.field` (s0, s1), not by sequence number.
    const WITH_MOR_VALUES: &[&str] = &["s0", "s1", "v0", "v1", "v2"];
    let cases: [Case; 4] = [
        (
            "parquet/pk_table_scan_and_read_mor",
            None,
            &["f0", "f1", "f2"],
            &["f3"],
        ),
        (
            "parquet/pk_table_scan_and_read_mor",
            Some(4),
            &["f0", "f1", "f2"],
            &["f3"],
        ),
        ("parquet/pk_table_partial_update", None, &["k0", "k1"], &[]),
        (
            "parquet/pk_table_with_mor",
            None,
            &["k0", "k1", "p0", "p1"],
            WITH_MOR_VALUES,
        ),
    ];
    for (rel, snapshot, keys, values) in cases {
        let table = open_java(rel).await;
        let q = Query {
            snapshot,
            ..Query::default()
        };
        let p = plan(&table, &q).await;
        assert!(
            p.splits.iter().any(|s| s.as_data().files.len() > 1),
            "{rel}: merges"
        );
        let raw = raw_files(&table, &p).await;
        let out = read_meta(&table, p).await;
        assert!(!out.is_empty(), "{rel}");
        let mut cols = [keys, values].concat();
        cols.extend(["_SEQUENCE_NUMBER", "_VALUE_KIND"]);
        assert_sources(&raw, &out, &cols);
        if rel.ends_with("with_mor") {
            continue;
        }
        // The named record is the last non-retract version of its key in the split.
        let key_of = |r: &Row| -> Vec<String> { keys.iter().map(|c| r[*c].to_string()).collect() };
        for r in &out {
            let latest = raw
                .values()
                .flatten()
                .filter(|s| key_of(s) == key_of(r))
                .filter(|s| [0, 2].contains(&s["_VALUE_KIND"].as_i64().unwrap()))
                .map(|s| s["_SEQUENCE_NUMBER"].as_i64().unwrap())
                .max();
            assert_eq!(latest, r["_SEQUENCE_NUMBER"].as_i64(), "{rel}: {r:?}");
        }
    }
    // Alex at snapshot 4 (bucket f2=0 never compacted, three level-0 runs): the row names the
    // 3-row file of commit 4 (sorted by key: Alex, Marco, Skye) at position 0; Bob's is the
    // 5-row file of commit 1 (Alex, Bob, David, Emily, Tony) at position 1.
    let table = open_java("parquet/pk_table_scan_and_read_mor").await;
    let p = plan(
        &table,
        &Query {
            snapshot: Some(4),
            ..Query::default()
        },
    )
    .await;
    let rows_of: HashMap<String, i64> = p
        .splits
        .iter()
        .flat_map(|s| {
            let d = s.as_data();
            d.files
                .iter()
                .map(|f| (d.file_location(f), f.row_count))
                .collect::<Vec<_>>()
        })
        .collect();
    let out = read_meta(&table, p).await;
    let alex = find(&out, "Alex").unwrap();
    assert_eq!(alex["f3"], 21.2);
    assert_eq!(rows_of[alex[PATH].as_str().unwrap()], 3);
    assert_eq!(alex[POS], 0);
    let bob = find(&out, "Bob").unwrap();
    assert_eq!(rows_of[bob[PATH].as_str().unwrap()], 5);
    assert_eq!(bob[POS], 1);
}

#[tokio::test]
async fn append_tables_in_every_format() {
    for rel in [
        "append_table_with_multiple_file_format",
        "avro/append_with_multiple_ts_precision_and_timezone",
        "orc/append_09",
    ] {
        let table = open_java(rel).await;
        let p = plan(&table, &Query::default()).await;
        let raw = raw_files(&table, &p).await;
        let out = read_meta(&table, p.clone()).await;
        let names = column_names(&table);
        let cols: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_sources(&raw, &out, &cols);
        let got = positions(&out);
        for s in &p.splits {
            let d = s.as_data();
            for f in &d.files {
                let want: Vec<u64> = (0..f.row_count as u64).collect();
                assert_eq!(got[&d.file_location(f)], want, "{rel}");
            }
        }
        assert!(!out[0].contains_key("_SEQUENCE_NUMBER"), "{rel}");
    }
}

#[tokio::test]
async fn avro_positions_with_row_ranges() {
    let table = open_java("avro/append_with_multiple_ts_precision_and_timezone").await;
    let mut p = plan(&table, &Query::default()).await;
    let raw = raw_files(&table, &p).await;
    let rows: i64 = p.splits.iter().map(|s| s.as_data().row_count()).sum();
    assert!(rows >= 3, "fixture too small: {rows}");
    for s in &mut p.splits {
        let Split::Data(d) = s else { unreachable!() };
        d.row_ranges = Some(
            d.files
                .iter()
                .map(|_| Some(vec![from_inclusive(0, 0), from_inclusive(2, 9)]))
                .collect(),
        );
    }
    let out = read_meta(&table, p.clone()).await;
    let cols = column_names(&table);
    assert_sources(
        &raw,
        &out,
        &cols.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    for (loc, got) in positions(&out) {
        let n = raw[&loc].len() as u64;
        let want: Vec<u64> = [0u64].into_iter().chain(2..n.min(10)).collect();
        assert_eq!(got, want, "{loc}");
    }
}

#[tokio::test]
async fn metadata_columns_can_be_selected_by_name() {
    let table = open_java("parquet/append_09").await;
    let p = plan(&table, &Query::default()).await;
    let read = table
        .scan()
        .build()
        .unwrap()
        .reader()
        .with_projection(&[POS.to_string(), "f0".to_string()])
        .unwrap();
    let fields = read.output_fields().to_vec();
    assert_eq!(fields[0].name, POS);
    let batches: Vec<_> = read.read(p.splits).unwrap().try_collect().await.unwrap();
    let n: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert!(n > 0);
    assert!(batches.iter().all(|b| b.num_columns() == 2));
    // Only metadata columns: nothing is decoded from the files, rows are still counted.
    for rel in ["parquet/append_09", "orc/append_09"] {
        let table = open_java(rel).await;
        let p = plan(&table, &Query::default()).await;
        let total: i64 = p.splits.iter().map(|s| s.as_data().row_count()).sum();
        let read = table
            .scan()
            .build()
            .unwrap()
            .reader()
            .with_projection(&[POS.to_string()])
            .unwrap();
        let batches: Vec<_> = read.read(p.splits).unwrap().try_collect().await.unwrap();
        let n: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(n as i64, total, "{rel}");
    }
    // `_SEQUENCE_NUMBER` exists only for primary-key tables.
    assert!(table
        .scan()
        .build()
        .unwrap()
        .reader()
        .with_projection(&["_SEQUENCE_NUMBER".to_string()])
        .is_err());
}

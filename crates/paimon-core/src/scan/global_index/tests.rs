//! The planning acceptance cases of C++ `primary_key_sorted_index_scan_test.cpp`
//! (`docs/format.md` "Primary-key global index"), on synthetic metadata with a stub payload
//! reader: columns id BIGINT (key), price BIGINT (field 1, indexed); one payload over
//! a.parquet (100 rows) and b.parquet (200 rows) at level 5 where ordinal i holds 2i.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use roaring::RoaringTreemap;

use super::payload::GroupReader;
use super::predicate::IndexPredicate;
use super::validate::tests::payload;
use super::*;
use crate::expr::LeafOp;
use crate::scan::plan::{DataSplit, DeletionFile};
use crate::spec::manifest::DataFileMeta;
use crate::spec::Datum;

/// Ordinal i holds 2i, for `n` ordinals; counts queries.
struct Doubles {
    n: u64,
    calls: AtomicUsize,
    fixed: Option<Vec<u64>>,
}

impl GroupReader for Doubles {
    fn query(&self, op: &LeafOp) -> Option<crate::Result<RoaringTreemap>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if let Some(f) = &self.fixed {
            return Some(Ok(f.iter().copied().collect()));
        }
        let v = |d: &Datum| match d {
            Datum::BigInt(v) => *v,
            _ => -1,
        };
        let keep: Box<dyn Fn(i64) -> bool> = match op {
            LeafOp::Eq(d) => Box::new(move |x| x == v(d)),
            LeafOp::GtEq(d) => Box::new(move |x| x >= v(d)),
            LeafOp::LtEq(d) => Box::new(move |x| x <= v(d)),
            _ => return None,
        };
        let n = self.n;
        Some(Ok((0..n).filter(|i| keep(2 * *i as i64)).collect()))
    }
}

fn file(name: &str, rows: i64, level: i32, source: i8, deletes: Option<i64>) -> DataFileMeta {
    serde_json::from_value(serde_json::json!({
        "file_name": name, "file_size": 10, "row_count": rows, "min_key": [], "max_key": [],
        "key_stats": {"min_values": [], "max_values": [], "null_counts": null},
        "value_stats": {"min_values": [], "max_values": [], "null_counts": null},
        "min_sequence_number": 0, "max_sequence_number": 0, "schema_id": 0, "level": level,
        "extra_files": [], "creation_time": null, "delete_row_count": deletes,
        "embedded_index": null, "file_source": source, "value_stats_cols": null,
        "external_path": null, "first_row_id": null, "write_cols": null
    }))
    .unwrap()
}

fn split(files: Vec<DataFileMeta>) -> DataSplit {
    DataSplit {
        snapshot_id: 7,
        partition: vec![0, 0, 0, 0],
        partition_values: vec![],
        bucket: 0,
        total_buckets: 1,
        bucket_path: "/t/bucket-0".into(),
        deletion_files: vec![None; files.len()],
        files,
        raw_convertible: true,
        row_ranges: None,
    }
}

fn ab() -> Vec<DataFileMeta> {
    vec![
        file("a.parquet", 100, 5, 1, Some(0)),
        file("b.parquet", 200, 5, 1, Some(0)),
    ]
}

fn def() -> PkIndexDefinition {
    PkIndexDefinition {
        column: "price".into(),
        field_id: 1,
        data_type: serde_json::from_value(serde_json::json!("BIGINT")).unwrap(),
        family: PkIndexFamily::BTree,
        options: Default::default(),
    }
}

fn eq(v: i64) -> IndexPredicate {
    IndexPredicate::Leaf {
        field_id: 1,
        op: LeafOp::Eq(Datum::BigInt(v)),
    }
}

fn run_with(
    splits: Vec<DataSplit>,
    entries: &[IndexManifestEntry],
    pred: &IndexPredicate,
    reader: Arc<Doubles>,
) -> (Vec<DataSplit>, GlobalIndexMetrics) {
    let splits: Vec<Split> = splits.into_iter().map(Split::Data).collect();
    let payloads: Vec<Payload<'_>> = entries
        .iter()
        .map(|e| (e, format!("/t/index/{}", e.file_name)))
        .collect();
    let mut m = GlobalIndexMetrics::default();
    let (groups, coverage) = plan_groups(&[def()], &splits, &payloads, &mut m);
    let readers: HashMap<usize, Arc<dyn GroupReader>> = (0..groups.len())
        .map(|g| (g, reader.clone() as Arc<dyn GroupReader>))
        .collect();
    let planned = Planned {
        pred,
        groups: &groups,
        coverage: &coverage,
        payloads: &payloads,
    };
    let out = planned.apply(splits, &readers, &mut m);
    (out.into_iter().map(|s| s.as_data().clone()).collect(), m)
}

fn run(splits: Vec<DataSplit>, pred: &IndexPredicate) -> (Vec<DataSplit>, GlobalIndexMetrics) {
    let entries = [payload("p", 5, &[("a.parquet", 100), ("b.parquet", 200)])];
    run_with(splits, &entries, pred, doubles(None))
}

fn doubles(fixed: Option<Vec<u64>>) -> Arc<Doubles> {
    Arc::new(Doubles {
        n: 300,
        calls: AtomicUsize::new(0),
        fixed,
    })
}

fn ranges(d: &DataSplit) -> Option<Vec<(u64, u64)>> {
    let r = d.row_ranges.as_ref()?.first()?.as_ref()?;
    Some(r.iter().map(|r| (r.start, r.end - 1)).collect())
}

#[test]
fn equal_narrows_to_single_file_range() {
    let (out, m) = run(vec![split(ab())], &eq(10));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].files[0].file_name, "a.parquet");
    assert_eq!(ranges(&out[0]), Some(vec![(5, 5)]));
    assert_eq!(
        (m.files_narrowed, m.files_dropped, m.indexed_splits),
        (1, 1, 1)
    );
}

#[test]
fn range_spans_file_boundary_and_query_is_shared() {
    let pred = IndexPredicate::And(vec![
        IndexPredicate::Leaf {
            field_id: 1,
            op: LeafOp::GtEq(Datum::BigInt(190)),
        },
        IndexPredicate::Leaf {
            field_id: 1,
            op: LeafOp::LtEq(Datum::BigInt(210)),
        },
    ]);
    let entries = [payload("p", 5, &[("a.parquet", 100), ("b.parquet", 200)])];
    let reader = doubles(None);
    let (out, _) = run_with(vec![split(ab())], &entries, &pred, reader.clone());
    assert_eq!(ranges(&out[0]), Some(vec![(95, 99)]));
    assert_eq!(ranges(&out[1]), Some(vec![(0, 5)]));
    // Two leaves, two files: each query ran once for the group.
    assert_eq!(reader.calls.load(Ordering::SeqCst), 2);
}

#[test]
fn empty_result_omits_all_files() {
    let (out, m) = run(vec![split(ab())], &eq(11));
    assert!(out.is_empty());
    assert_eq!(m.files_dropped, 2);
}

#[test]
fn unindexed_and_uncovered_files() {
    // A leaf on a field without a group: the original split.
    let other = IndexPredicate::Leaf {
        field_id: 2,
        op: LeafOp::IsNull,
    };
    let original = split(ab());
    let (out, _) = run(vec![original.clone()], &other);
    assert_eq!(out, vec![original]);
    // c: level 0 APPEND, uncovered: read whole; b omitted.
    let mut files = ab();
    files.push(file("c.parquet", 50, 0, 0, Some(0)));
    let (out, m) = run(vec![split(files)], &eq(10));
    assert_eq!(out.len(), 2);
    assert_eq!(ranges(&out[0]), Some(vec![(5, 5)]));
    assert_eq!(out[1].files[0].file_name, "c.parquet");
    assert_eq!(out[1].row_ranges, None);
    assert_eq!(m.files_fallen_back["uncovered"], 1);
}

#[test]
fn ineligible_splits_are_preserved() {
    let mut not_raw = split(ab());
    not_raw.raw_convertible = false;
    let mut unknown = ab();
    unknown[0].delete_row_count = None;
    let mut nonzero = ab();
    nonzero[0].delete_row_count = Some(1);
    for s in [not_raw, split(unknown), split(nonzero)] {
        for v in [10, 11] {
            let (out, m) = run(vec![s.clone()], &eq(v));
            assert_eq!(out, vec![s.clone()]);
            assert_eq!(m.splits_unchanged, 1);
        }
    }
}

#[test]
fn invalid_payload_falls_back() {
    let mut bad = payload("p", 5, &[("a.parquet", 100), ("b.parquet", 200)]);
    bad.global_index.as_mut().unwrap().row_range_end += 1;
    let original = split(ab());
    let (out, m) = run_with(vec![original.clone()], &[bad], &eq(10), doubles(None));
    assert_eq!(out, vec![original]);
    assert_eq!(m.payloads_rejected["invalid row range"], 1);
    for meta in [vec![], vec![1], vec![4, 0, 0, 0, 1]] {
        let mut bad = payload("p", 5, &[("a.parquet", 100), ("b.parquet", 200)]);
        bad.global_index.as_mut().unwrap().index_meta = Some(meta);
        let (out, _) = run_with(vec![split(ab())], &[bad], &eq(10), doubles(None));
        assert_eq!(out, vec![split(ab())]);
    }
}

#[test]
fn out_of_range_positions_fail_all_covered_files() {
    let entries = [payload("p", 5, &[("a.parquet", 100), ("b.parquet", 200)])];
    let original = split(ab());
    let reader = doubles(Some(vec![5, 310]));
    let (out, m) = run_with(vec![original.clone()], &entries, &eq(10), reader);
    assert_eq!(out, vec![original]);
    assert_eq!(m.files_narrowed, 0);
}

#[test]
fn over_fragmented_result_falls_back() {
    let entries = [payload("p", 5, &[("big.parquet", 20_000)])];
    let files = vec![file("big.parquet", 20_000, 5, 1, Some(0))];
    let reader = doubles(Some((0..20_000).step_by(2).collect()));
    let (out, m) = run_with(vec![split(files)], &entries, &eq(10), reader);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].row_ranges, None);
    assert_eq!(m.files_fallen_back["too many ranges"], 1);
}

#[test]
fn deletion_file_stays_aligned_with_indexed_file() {
    let mut s = split(ab());
    let dv = DeletionFile {
        path: "dv-a".into(),
        offset: 1,
        length: 22,
        cardinality: Some(1),
    };
    s.deletion_files = vec![Some(dv.clone()), None];
    let (out, _) = run(vec![s], &eq(10));
    assert_eq!(out[0].deletion_files, vec![Some(dv)]);
    assert!(out[0].raw_convertible);
}

/// A point lookup loads the payload's tail and the data blocks it needs, not the whole file; a
/// wide range query ends up reading the whole file and gives the same answer as in memory.
#[tokio::test]
async fn payloads_load_lazily() {
    use crate::index::btree::Key;
    use crate::index::pk_sorted::{build, PkSortedBuildInput};
    use crate::index::source_meta::SourceFile;
    use crate::io::FileIO;
    use crate::spec::options::BTreeBuildOptions;

    let field: crate::spec::types::DataField =
        serde_json::from_value(serde_json::json!({"id": 1, "name": "price", "type": "BIGINT"}))
            .unwrap();
    let options = BTreeBuildOptions {
        block_size: 1024,
        compression: "none".into(),
        compression_level: 1,
    };
    let n = 400_000u64;
    let input = PkSortedBuildInput {
        field: &field,
        options: &options,
        level: 5,
        sources: vec![SourceFile::new("a.parquet", n as i64)],
        partition: vec![0, 0, 0, 0],
        bucket: 0,
        file_name: "p.index".into(),
        external_path: None,
    };
    let values = (0..n).map(|i| (Some(Key::BigInt((i / 4) as i64)), i));
    let built = build(input, values).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.index");
    std::fs::write(&path, &built.bytes).unwrap();
    let path = path.to_str().unwrap().to_string();
    let len = built.bytes.len() as u64;
    assert!(len > 1 << 20, "{len}");
    let io = FileIO::new(HashMap::new());
    let ops = [
        LeafOp::Eq(Datum::BigInt(77_777)),
        LeafOp::In(vec![Datum::BigInt(5), Datum::BigInt(99_000)]),
    ];
    let answers = answer(&io, &path, len, &field.data_type, &ops)
        .await
        .unwrap();
    let stats = io.read_stats();
    assert!(stats.bytes < len / 10, "{stats:?} of {len}");
    let eq: Vec<u64> = answers.query(&ops[0]).unwrap().unwrap().iter().collect();
    assert_eq!(eq, (311_108..311_112).collect::<Vec<_>>());
    let wide = [LeafOp::GtEq(Datum::BigInt(10))];
    let answers = answer(&io, &path, len, &field.data_type, &wide)
        .await
        .unwrap();
    let got = answers.query(&wide[0]).unwrap().unwrap();
    assert_eq!(got.len(), n - 40);
}

#[test]
fn postpone_bucket_narrows_too() {
    let mut s = split(ab());
    s.bucket = -2;
    s.bucket_path = "/t/bucket-postpone".into();
    let mut p = payload("p", 5, &[("a.parquet", 100), ("b.parquet", 200)]);
    p.bucket = -2;
    let (out, m) = run_with(vec![s], &[p], &eq(10), doubles(None));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].bucket, -2);
    assert_eq!(ranges(&out[0]), Some(vec![(5, 5)]));
    assert_eq!(m.indexed_splits, 1);
    // A payload of another bucket covers nothing.
    let mut other = payload("p", 5, &[("a.parquet", 100), ("b.parquet", 200)]);
    other.bucket = 1;
    let original = split(ab());
    let (out, _) = run_with(vec![original.clone()], &[other], &eq(10), doubles(None));
    assert_eq!(out, vec![original]);
}

/// `pk-bitmap` payloads are validated and evaluated like BTree payloads: a leaf on the bitmap
/// column narrows alone, and together with a `pk-btree` leaf.
#[test]
fn bitmap_payloads_narrow() {
    let bitmap_def = PkIndexDefinition {
        column: "cat".into(),
        field_id: 2,
        data_type: serde_json::from_value(serde_json::json!("BIGINT")).unwrap(),
        family: PkIndexFamily::Bitmap,
        options: Default::default(),
    };
    let mut bitmap = payload("q", 5, &[("a.parquet", 100), ("b.parquet", 200)]);
    bitmap.index_type = "bitmap".into();
    bitmap.global_index.as_mut().unwrap().index_field_id = 2;
    let btree = payload("p", 5, &[("a.parquet", 100), ("b.parquet", 200)]);
    let entries = [bitmap, btree];
    let payloads: Vec<Payload<'_>> = entries
        .iter()
        .map(|e| (e, format!("/t/index/{}", e.file_name)))
        .collect();
    let original = split(ab());
    let on_bitmap = IndexPredicate::Leaf {
        field_id: 2,
        op: LeafOp::Eq(Datum::BigInt(10)),
    };
    for pred in [
        on_bitmap.clone(),
        IndexPredicate::And(vec![on_bitmap, eq(10)]),
    ] {
        let splits = vec![Split::Data(original.clone())];
        let mut m = GlobalIndexMetrics::default();
        let defs = [bitmap_def.clone(), def()];
        let (groups, coverage) = plan_groups(&defs, &splits, &payloads, &mut m);
        assert!(m.payloads_rejected.is_empty(), "{m:?}");
        assert_eq!(m.payloads_accepted, 2, "{m:?}");
        assert!(groups.iter().any(|g| g.family == PkIndexFamily::Bitmap));
        let readers: HashMap<usize, Arc<dyn GroupReader>> = (0..groups.len())
            .map(|g| (g, doubles(None) as Arc<dyn GroupReader>))
            .collect();
        let planned = Planned {
            pred: &pred,
            groups: &groups,
            coverage: &coverage,
            payloads: &payloads,
        };
        let out: Vec<DataSplit> = planned
            .apply(splits, &readers, &mut m)
            .into_iter()
            .map(|s| s.as_data().clone())
            .collect();
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(ranges(&out[0]), Some(vec![(5, 5)]));
    }
}

/// A bitmap payload written by pypaimon 2.1.0 opened through the planner's reader: leaves
/// answer with its row ids; literals of another type are not evaluable.
#[tokio::test]
async fn bitmap_payload_answers_leaves() {
    use crate::io::FileIO;
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/pypaimon/pk_bitmap");
    let path = dir.join("int.bitmap");
    let io = FileIO::new(HashMap::new());
    let t: crate::spec::types::DataType = serde_json::from_value(serde_json::json!("INT")).unwrap();
    let r = open_bitmap(&io, path.to_str().unwrap(), &t).await.unwrap();
    let ask = |op: LeafOp| -> Vec<u64> { r.query(&op).unwrap().unwrap().iter().collect() };
    // Row i holds keys[(7 i) % 10], null when i % 11 == 4 (see generate.py).
    let keys = [-300, -1, 0, 1, 2, 7, 255, 256, 1000, 70000];
    let value = |i: u64| (i % 11 != 4).then(|| keys[(i as usize * 7) % 10]);
    let model = |keep: &dyn Fn(i32) -> bool| -> Vec<u64> {
        (0..60).filter(|i| value(*i).is_some_and(keep)).collect()
    };
    assert_eq!(ask(LeafOp::Eq(Datum::Int(256))), model(&|v| v == 256));
    assert_eq!(ask(LeafOp::Lt(Datum::Int(2))), model(&|v| v < 2));
    assert_eq!(ask(LeafOp::GtEq(Datum::Int(255))), model(&|v| v >= 255));
    assert_eq!(ask(LeafOp::NotEq(Datum::Int(0))), model(&|v| v != 0));
    assert_eq!(
        ask(LeafOp::In(vec![
            Datum::Int(-1),
            Datum::Int(70000),
            Datum::Int(5)
        ])),
        model(&|v| v == -1 || v == 70000)
    );
    assert_eq!(
        ask(LeafOp::IsNull),
        (0..60).filter(|i| value(*i).is_none()).collect::<Vec<_>>()
    );
    assert!(r.query(&LeafOp::Eq(Datum::BigInt(256))).is_none());
}

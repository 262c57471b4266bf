//! Unit tests of the kind and sequence number of merged rows (Java `getResult`): partial-update
//! and aggregation results are `+I` with the sequence number of the group's last record,
//! whether or not the merge keeps retractions; deleted rows are `-D`, kept only on request.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, Int8Type};
use arrow_array::{ArrayRef, Int32Array, Int64Array, Int8Array, RecordBatch};
use futures::StreamExt;

use super::*;
use crate::arrow::arrow_schema;
use crate::arrow::RecordBatchStream;
use crate::spec::types::TypeKind;

/// One record: key, v, g (sequence field of `v`'s group when groups are on), kind, sequence.
type R = (i32, Option<i32>, Option<i64>, i8, i64);

fn fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "k", DataType::not_null(TypeKind::Int)),
        DataField::new(1, "v", DataType::nullable(TypeKind::Int)),
        DataField::new(2, "g", DataType::nullable(TypeKind::BigInt)),
        sequence_number_field(),
        value_kind_field(),
    ]
}

fn batch(rows: &[R]) -> RecordBatch {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.0))),
        Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.1))),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.2))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.4))),
        Arc::new(Int8Array::from_iter_values(rows.iter().map(|r| r.3))),
    ];
    RecordBatch::try_new(arrow_schema(&fields()).unwrap(), cols).unwrap()
}

/// Merges `records` (each in a run of its own) with `options`; returns (k, v, kind, seq).
async fn merge(options: &[(&str, &str)], records: &[R], keep: bool) -> Vec<(i32, i32, i8, i64)> {
    let map: HashMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let opts = TableOptions::from_map(&map).unwrap();
    let f = MergeFunction::new(&opts, &fields(), &[0], &[]).unwrap();
    let runs: Vec<RecordBatchStream> = records
        .iter()
        .map(|r| futures::stream::iter(vec![Ok(batch(&[*r]))]).boxed())
        .collect();
    let layout = Layout {
        key: vec![0],
        user_seq: vec![],
        user_seq_desc: false,
        seqnum: 3,
        kind: 4,
    };
    let schema = arrow_schema(&fields()).unwrap();
    let mut m = SortMerge::new(&schema, layout, f, runs, 16)
        .unwrap()
        .with_keep_retracts(keep);
    let mut out = Vec::new();
    while let Some(b) = m.next_batch().await.unwrap() {
        let k = b.column(0).as_primitive::<Int32Type>();
        let v = b.column(1).as_primitive::<Int32Type>();
        let seq = b.column(3).as_primitive::<Int64Type>();
        let kind = b.column(4).as_primitive::<Int8Type>();
        for i in 0..b.num_rows() {
            out.push((k.value(i), v.value(i), kind.value(i), seq.value(i)));
        }
    }
    out.sort();
    out
}

const PARTIAL: [(&str, &str); 1] = [("merge-engine", "partial-update")];
const GROUPED: [(&str, &str); 2] = [
    ("merge-engine", "partial-update"),
    ("fields.g.sequence-group", "v"),
];

#[tokio::test]
async fn merged_partial_update_rows_are_inserts_with_the_latest_sequence() {
    for keep in [false, true] {
        // An update after the insert: `+I` (the folded kind would be `+U`), sequence 2.
        let got = merge(
            &PARTIAL,
            &[(1, Some(1), None, 0, 1), (1, Some(2), None, 2, 2)],
            keep,
        )
        .await;
        assert_eq!(got, vec![(1, 2, 0, 2)], "keep = {keep}");
        // Sequence groups: a newer `-U` nulls its group; the row is `+I` with the `-U`'s
        // sequence number. A leading `-U` then an insert: `+I`, never the retract's kind.
        let got = merge(
            &GROUPED,
            &[
                (1, Some(1), Some(1), 0, 1),
                (1, Some(1), Some(2), 1, 2),
                (2, Some(5), Some(1), 1, 3),
                (2, Some(6), Some(2), 0, 4),
            ],
            keep,
        )
        .await;
        let kinds: Vec<(i32, i8, i64)> = got.iter().map(|r| (r.0, r.2, r.3)).collect();
        assert_eq!(kinds, vec![(1, 0, 2), (2, 0, 4)], "keep = {keep}");
    }
}

#[tokio::test]
async fn merged_aggregation_rows_are_inserts_with_the_latest_sequence() {
    let opts = [
        ("merge-engine", "aggregation"),
        ("fields.v.aggregate-function", "sum"),
    ];
    for keep in [false, true] {
        // `+I 5`, `-U 2`: sum 3 as `+I` (the folded kind would be the `-U`), sequence 2.
        let got = merge(
            &opts,
            &[(1, Some(5), None, 0, 1), (1, Some(2), None, 1, 2)],
            keep,
        )
        .await;
        assert_eq!(got, vec![(1, 3, 0, 2)], "keep = {keep}");
    }
}

#[tokio::test]
async fn deleted_rows_are_kept_as_deletes_only_on_request() {
    let opts = [
        ("merge-engine", "partial-update"),
        ("partial-update.remove-record-on-delete", "true"),
    ];
    let records = [
        (1, Some(1), None, 0, 1),
        (1, Some(1), None, 3, 2),
        (2, Some(7), None, 0, 3),
    ];
    assert_eq!(merge(&opts, &records, false).await, vec![(2, 7, 0, 3)]);
    assert_eq!(
        merge(&opts, &records, true).await,
        vec![(1, 1, 3, 2), (2, 7, 0, 3)]
    );
    // Deduplicate: the last record as it is; a lone `-D` survives only when kept.
    let dedup = [
        (1, Some(1), None, 0, 1),
        (1, Some(4), None, 3, 2),
        (2, Some(9), None, 3, 5),
    ];
    assert_eq!(merge(&[], &dedup, false).await, vec![]);
    assert_eq!(
        merge(&[], &dedup, true).await,
        vec![(1, 4, 3, 2), (2, 9, 3, 5)]
    );
}

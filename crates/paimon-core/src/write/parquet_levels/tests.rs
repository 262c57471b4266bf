//! The levels of `parquet_levels` against those arrow-rs' `ArrowWriter` writes for the same
//! nanosecond-timestamp leaves (INT64 there), over random nested rows with nulls and empty
//! lists at every level, whole and sliced.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, SchemaRef, TimeUnit};
use bytes::Bytes;
use parquet::arrow::ArrowWriter;
use parquet::column::reader::ColumnReader;
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::{json, Map, Value};

use super::*;

fn ns() -> ArrowType {
    ArrowType::Timestamp(TimeUnit::Nanosecond, None)
}

fn list(item: Field) -> ArrowType {
    ArrowType::List(Arc::new(item))
}

fn map(key: ArrowType, value: Field) -> ArrowType {
    let kv = Fields::from(vec![Field::new("key", key, false), value]);
    let entries = Field::new("key_value", ArrowType::Struct(kv), false);
    ArrowType::Map(Arc::new(entries), false)
}

/// Every shape Paimon maps to Arrow around a TIMESTAMP(9): nullable and required at each level.
pub(crate) fn schema() -> SchemaRef {
    let f = |n: &str, t: ArrowType, nullable: bool| Field::new(n, t, nullable);
    let ts = |nullable| Field::new("element", ns(), nullable);
    let row = ArrowType::Struct(Fields::from(vec![
        f("z", ns(), true),
        f("w", ArrowType::Int32, true),
        f("zz", ns(), false),
    ]));
    Arc::new(Schema::new(vec![
        f("top", ns(), true),
        f("req", ns(), false),
        f("a", list(ts(true)), true),
        f("a_req", list(ts(false)), false),
        f("m", map(ns(), Field::new("value", ns(), true)), true),
        f("m_req", map(ns(), Field::new("value", ns(), false)), false),
        f(
            "r",
            ArrowType::Struct(Fields::from(vec![
                f("x", ns(), true),
                f("y", list(Field::new("element", row.clone(), true)), true),
            ])),
            true,
        ),
        f("r_req", row.clone(), false),
        f(
            "aa",
            list(Field::new("element", list(ts(true)), true)),
            true,
        ),
        f("ar", list(Field::new("element", row, true)), true),
        f(
            "ml",
            map(ns(), Field::new("value", list(ts(true)), true)),
            true,
        ),
    ]))
}

/// A small deterministic generator (64-bit LCG).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }

    fn instant(&mut self) -> String {
        // Within the nanosecond range, both signs.
        let n = (self.below(1 << 31) as i64 - (1 << 30)) * 4_000_000_000 + self.below(1000) as i64;
        chrono::DateTime::from_timestamp_nanos(n)
            .format("%Y-%m-%dT%H:%M:%S%.9f")
            .to_string()
    }
}

fn gen(t: &ArrowType, nullable: bool, rng: &mut Rng) -> Value {
    if nullable && rng.below(5) == 0 {
        return Value::Null;
    }
    match t {
        ArrowType::Timestamp(..) => json!(rng.instant()),
        ArrowType::Int32 => json!(rng.below(100)),
        ArrowType::List(item) => {
            let n = rng.below(4);
            Value::Array(
                (0..n)
                    .map(|_| gen(item.data_type(), item.is_nullable(), rng))
                    .collect(),
            )
        }
        ArrowType::Map(entries, _) => {
            let ArrowType::Struct(kv) = entries.data_type() else {
                unreachable!()
            };
            let mut m = Map::new();
            for _ in 0..rng.below(4) {
                let v = gen(kv[1].data_type(), kv[1].is_nullable(), rng);
                m.insert(rng.instant(), v);
            }
            Value::Object(m)
        }
        ArrowType::Struct(fs) => Value::Object(
            fs.iter()
                .map(|f| (f.name().clone(), gen(f.data_type(), f.is_nullable(), rng)))
                .collect(),
        ),
        other => unreachable!("{other}"),
    }
}

pub(crate) fn random_batch(schema: &SchemaRef, rows: usize, seed: u64) -> RecordBatch {
    let mut rng = Rng(seed);
    let text: String = (0..rows)
        .map(|_| {
            let row: Map<String, Value> = schema
                .fields()
                .iter()
                .map(|f| {
                    (
                        f.name().clone(),
                        gen(f.data_type(), f.is_nullable(), &mut rng),
                    )
                })
                .collect();
            format!("{}\n", Value::Object(row))
        })
        .collect();
    arrow::json::ReaderBuilder::new(schema.clone())
        .with_batch_size(rows)
        .build(std::io::Cursor::new(text))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
}

/// The levels arrow-rs writes for every INT64 leaf of `batch`, read back with the column
/// reader (levels of a leaf without definition / repetition levels are all 0).
pub(crate) fn arrow_rs_levels(batch: &RecordBatch) -> Vec<LeafLevels> {
    let mut buf = Vec::new();
    let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    let reader = SerializedFileReader::new(Bytes::from(buf)).unwrap();
    let descr = reader.metadata().file_metadata().schema_descr_ptr();
    let rg = reader.get_row_group(0).unwrap();
    let mut out = Vec::new();
    for leaf in 0..descr.num_columns() {
        let ColumnReader::Int64ColumnReader(mut r) = rg.get_column_reader(leaf).unwrap() else {
            continue;
        };
        let (mut defs, mut reps, mut values) = (Vec::new(), Vec::new(), Vec::new());
        while r
            .read_records(1024, Some(&mut defs), Some(&mut reps), &mut values)
            .unwrap()
            .0
            > 0
        {}
        let col = descr.column(leaf);
        let entries = if col.max_def_level() > 0 {
            defs.len()
        } else {
            values.len()
        };
        if col.max_def_level() == 0 {
            defs = vec![0; entries];
        }
        if col.max_rep_level() == 0 {
            reps = vec![0; entries];
        }
        out.push(LeafLevels { values, defs, reps });
    }
    out
}

/// Our levels of every nanosecond leaf of `batch`, in schema order.
fn our_levels(batch: &RecordBatch) -> Vec<LeafLevels> {
    let mut out = Vec::new();
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        for (path, t) in leaf_paths(field.data_type()).unwrap() {
            if t == ns() {
                let mut l = LeafLevels::default();
                append_leaf_levels(field, column.as_ref(), &path, &mut l).unwrap();
                out.push(l);
            }
        }
    }
    out
}

#[test]
fn levels_equal_arrow_rs_on_random_nested_rows() {
    let schema = schema();
    for seed in 0..8 {
        let batch = random_batch(&schema, 300, seed);
        for b in [batch.clone(), batch.slice(37, 200)] {
            let want = arrow_rs_levels(&b);
            let got = our_levels(&b);
            assert_eq!(got.len(), 18);
            assert_eq!(got, want, "seed {seed}");
            // Nulls and empty lists occur at every level of the nested leaves.
            let nulls: usize = got.iter().map(LeafLevels::nulls).sum();
            assert!(nulls > 100, "seed {seed}: {nulls}");
        }
    }
}

#[test]
fn leaf_paths_follow_the_parquet_leaf_order() {
    let schema = schema();
    let descr = parquet::arrow::ArrowSchemaConverter::new()
        .convert(&schema)
        .unwrap();
    let ours: usize = schema
        .fields()
        .iter()
        .map(|f| leaf_paths(f.data_type()).unwrap().len())
        .sum();
    assert_eq!(ours, descr.num_columns());
    let ml = leaf_paths(schema.field_with_name("ml").unwrap().data_type()).unwrap();
    let paths: Vec<Vec<Step>> = ml.into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, vec![vec![Step::Key], vec![Step::Value, Step::Item]]);
    let large = ArrowType::LargeList(Arc::new(Field::new("element", ns(), true)));
    let err = leaf_paths(&large).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::Unsupported);
}

/// Hand-worked levels: `a ARRAY<TIMESTAMP(9)>` (optional list, optional element) over rows
/// `[t, null]`, `null`, `[]`, `[t]`: definition 3 = value, 2 = null element, 1 = empty, 0 = null
/// list; repetition 1 = next item of the same list.
#[test]
fn list_levels_by_hand() {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "a",
        list(Field::new("element", ns(), true)),
        true,
    )]));
    let text = "{\"a\": [\"1970-01-01T00:00:00.000000001\", null]}\n{\"a\": null}\n{\"a\": []}\n\
                {\"a\": [\"1970-01-01T00:00:00.000000002\"]}\n";
    let batch = arrow::json::ReaderBuilder::new(schema.clone())
        .build(std::io::Cursor::new(text))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let got = our_levels(&batch);
    let want = LeafLevels {
        values: vec![1, 2],
        defs: vec![3, 2, 0, 1, 3],
        reps: vec![0, 1, 0, 0, 0],
    };
    assert_eq!(got, vec![want.clone()]);
    assert_eq!(want.nulls(), 3);
    assert_eq!(arrow_rs_levels(&batch), vec![want]);
}

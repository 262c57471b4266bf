use std::sync::Arc;

use arrow_schema::{DataType as A, Field, Fields, Schema as ArrowSchema, TimeUnit};

use super::*;
use crate::spec::options::validate_table_schema;
use crate::spec::type_text::{parse_fields, parse_type};

fn t(s: &str) -> DataType {
    parse_type(s).unwrap()
}

fn ids(fields: &[DataField]) -> Vec<(String, i32)> {
    let mut out = Vec::new();
    for f in fields {
        out.push((f.name.clone(), f.id));
        if let TypeKind::Row(inner) = &f.data_type.kind {
            out.extend(ids(inner));
        }
        if let TypeKind::Map(_, v) = &f.data_type.kind {
            if let TypeKind::Row(inner) = &v.kind {
                out.extend(ids(inner));
            }
        }
    }
    out
}

#[test]
fn nested_field_ids_follow_java_reassign_field_id() {
    // Java: c ROW<a ROW<x, y>, b> → c=0, x=1, y=2, a=3, b=4 (grandchildren before the child).
    let s = Schema::builder()
        .column("c", t("ROW<a ROW<x INT, y INT>, b INT>"))
        .column("m", t("MAP<STRING, ROW<p INT, q INT>>"))
        .column("z", t("ARRAY<INT>"))
        .build()
        .unwrap();
    let got = ids(s.fields());
    let want = [
        ("c", 0),
        ("x", 1),
        ("y", 2),
        ("a", 3),
        ("b", 4),
        ("m", 5),
        ("p", 6),
        ("q", 7),
        ("z", 8),
    ];
    let want: Vec<(String, i32)> = want.iter().map(|(n, i)| (n.to_string(), *i)).collect();
    let mut got_sorted = got.clone();
    got_sorted.sort_by_key(|(_, i)| *i);
    assert_eq!(got_sorted, want);
    assert_eq!(s.to_table_schema(0).highest_field_id, 8);
    assert_eq!(highest_field_id(&[]), -1);
}

#[test]
fn primary_key_columns_become_not_null_and_options_keep_order() {
    let s = Schema::builder()
        .column("id", t("BIGINT"))
        .column("dt", t("STRING"))
        .option("z", "1")
        .option("a", "2")
        .option("partition", " dt , ")
        .option("primary-key", "id,dt")
        .build()
        .unwrap();
    assert_eq!(s.primary_keys(), ["id", "dt"]);
    assert_eq!(s.partition_keys(), ["dt"]);
    assert!(s.fields().iter().all(|f| !f.data_type.nullable));
    assert_eq!(s.options().keys().collect::<Vec<_>>(), ["z", "a"]);
}

#[test]
fn java_normalisation_messages() {
    let err = |b: SchemaBuilder| b.build().unwrap_err().message().to_string();
    let base = || {
        Schema::builder()
            .column("a", t("INT"))
            .column("b", t("INT"))
    };
    assert_eq!(
        err(base().primary_key(["a"]).option("primary-key", "a")),
        "Cannot define primary key on DDL and table options at the same time."
    );
    assert_eq!(
        err(base().column("a", t("INT"))),
        "Table column [a, b, a] must not contain duplicate fields. Found: [a]"
    );
    assert_eq!(
        err(base().partition_keys(["c"])),
        "Table column [a, b] should include all partition fields [c]"
    );
    assert_eq!(
        err(base().primary_key(["a", "x"])),
        "Table column [a, b] should include all primary key constraint [a, x]"
    );
    assert_eq!(
        err(base().primary_key(["a", "a"])),
        "Primary key constraint [a, a] must not contain duplicate columns. Found: [a]"
    );
}

#[test]
fn arrow_columns_map_to_paimon_types() {
    let kv = Fields::from(vec![
        Field::new("key", A::Utf8, false),
        Field::new("value", A::Int32, true),
    ]);
    let arrow = ArrowSchema::new(vec![
        Field::new("id", A::Int64, false),
        Field::new("d", A::Decimal128(10, 2), true),
        Field::new("ts", A::Timestamp(TimeUnit::Millisecond, None), true),
        Field::new(
            "ltz",
            A::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new_list("l", Field::new("item", A::Int32, true), true),
        Field::new(
            "m",
            A::Map(Arc::new(Field::new("entries", A::Struct(kv), false)), false),
            true,
        ),
        Field::new(
            "s",
            A::Struct(Fields::from(vec![Field::new("x", A::Boolean, true)])),
            true,
        ),
    ]);
    let s = Schema::from_arrow(&arrow).unwrap();
    let types: Vec<String> = s.fields().iter().map(|f| f.data_type.to_string()).collect();
    assert_eq!(
        types,
        [
            "BIGINT NOT NULL",
            "DECIMAL(10, 2)",
            "TIMESTAMP(3)",
            "TIMESTAMP(6) WITH LOCAL TIME ZONE",
            "ARRAY<INT>",
            "MAP<STRING NOT NULL, INT>",
            "ROW<`x` BOOLEAN>",
        ]
    );
    assert_eq!(ids(s.fields()).last(), Some(&("x".to_string(), 7)));
    let bad = ArrowSchema::new(vec![Field::new("u", A::UInt64, true)]);
    let e = Schema::from_arrow(&bad).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("column: u"), "{e}");
}

/// Our schema for the Java fixture `pk_table_nested_type` equals Java's `schema-0` byte for
/// byte once `timeMillis` is copied over.
#[test]
fn same_schema_json_as_a_java_fixture() {
    let path = crate::test_util::java_fixtures()
        .join("parquet/pk_table_nested_type.db/pk_table_nested_type/schema/schema-0");
    let java_bytes = std::fs::read(&path).unwrap();
    let java = TableSchema::from_json_bytes_raw(&java_bytes).unwrap();
    let fields = parse_fields(
        "shopId INT, dt STRING, hr INT, col0 INT, col1 ROW<f0 STRING, f1 INT, f2 ARRAY<INT>>, col2 MAP<INT, INT>",
    )
    .unwrap();
    let schema = Schema::builder()
        .columns(fields)
        .primary_key(["shopId", "dt", "hr"])
        .partition_keys(["dt", "hr"])
        // Any order: the schema file has Java's HashMap order.
        .option("file.format", "parquet")
        .option("manifest.format", "orc")
        .option("bucket-key", "shopId")
        .option("bucket", "2")
        .build()
        .unwrap();
    let mut ours = schema.to_table_schema(0);
    validate_table_schema(&ours).unwrap();
    assert_eq!(ours.fields, java.fields);
    assert_eq!(ours.highest_field_id, java.highest_field_id);
    assert_eq!(ours.primary_keys, java.primary_keys);
    assert_eq!(ours.partition_keys, java.partition_keys);
    assert_eq!(ours.options, java.options);
    ours.time_millis = java.time_millis;
    assert_eq!(ours.to_json().unwrap().as_bytes(), &java_bytes[..]);
}

/// Every Java fixture schema file lists its options in Java's `HashMap` order: by bucket of
/// the copied map's capacity (keys sharing a bucket in insertion order). The order is a fixed
/// point, and reordering the keys from sorted and reversed orders gives the same buckets.
#[test]
fn options_follow_java_hash_map_order_in_every_java_schema_file() {
    use crate::spec::schema::{
        java_hash_bucket, java_hash_map_capacity, java_hash_map_order, SchemaOptions,
    };
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.parent().is_some_and(|d| d.ends_with("schema"))
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("schema-"))
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&crate::test_util::java_fixtures(), &mut files);
    assert!(files.len() >= 50, "{} schema files", files.len());
    let mut multi = 0;
    for f in &files {
        let java = TableSchema::from_json_bytes_raw(&std::fs::read(f).unwrap()).unwrap();
        let capacity = java_hash_map_capacity(java.options.len());
        let buckets = |o: &SchemaOptions| -> Vec<usize> {
            o.keys().map(|k| java_hash_bucket(k, capacity)).collect()
        };
        let want = buckets(&java.options);
        assert!(want.windows(2).all(|w| w[0] <= w[1]), "{}", f.display());
        multi += (want.len() > 2) as usize;
        assert_eq!(
            java_hash_map_order(&java.options)
                .keys()
                .collect::<Vec<_>>(),
            java.options.keys().collect::<Vec<_>>()
        );
        let mut sorted: Vec<(String, String)> = java.options.clone().into_iter().collect();
        sorted.sort();
        for input in [
            sorted.iter().cloned().collect::<SchemaOptions>(),
            sorted.iter().rev().cloned().collect::<SchemaOptions>(),
        ] {
            let got = java_hash_map_order(&input);
            assert_eq!(buckets(&got), want, "{}", f.display());
        }
    }
    assert!(multi >= 30, "{multi} files with more than two options");
}

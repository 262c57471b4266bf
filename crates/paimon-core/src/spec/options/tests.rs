//! Tests of `TableOptions`: defaults, each parser, bad values, overrides, Java-written schemas.

use std::collections::HashMap;
use std::num::{NonZeroU32, NonZeroUsize};

use super::*;
use crate::spec::schema::TableSchema;
use crate::test_util::java_fixtures;

fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn parse(pairs: &[(&str, &str)]) -> Result<TableOptions> {
    TableOptions::from_map(&map(pairs))
}

#[test]
fn defaults_match_java() {
    let o = parse(&[]).unwrap();
    assert_eq!(o.bucket, BucketMode::Dynamic);
    assert_eq!(o.bucket.raw(), -1);
    assert_eq!(o.bucket_key, None);
    assert_eq!(o.bucket_function, BucketFunctionKind::Default);
    assert_eq!(o.file_format, FileFormat::Parquet);
    assert_eq!(o.file_compression, "zstd");
    assert_eq!(o.manifest_format, FileFormat::Avro);
    assert_eq!(o.partition_default_name, "__DEFAULT_PARTITION__");
    assert!(o.partition_legacy_name);
    assert_eq!(o.merge_engine, MergeEngine::Deduplicate);
    assert_eq!(o.sequence_field, None);
    assert_eq!(o.sequence_field_sort_order, SortOrder::Ascending);
    assert!(!o.ignore_delete);
    assert!(!o.deletion_vectors_enabled);
    assert!(!o.deletion_vectors_merge_on_read);
    assert!(!o.deletion_vectors_bitmap64);
    assert!(!o.index_file_in_data_file_dir);
    assert_eq!(o.data_file_external_paths, None);
    assert_eq!(o.data_file_path_directory, None);
    assert!(!o.data_file_thin_mode);
    assert_eq!(o.source_split_target_size.bytes(), 128 * 1024 * 1024);
    assert_eq!(o.source_split_open_file_cost.bytes(), 4 * 1024 * 1024);
    assert_eq!(o.read_batch_size.get(), 1024);
    assert_eq!(o.scan_mode, StartupMode::Default);
    assert_eq!(o.startup_mode(), StartupMode::LatestFull);
    assert_eq!(o.scan_snapshot_id, None);
    assert_eq!(o.scan_manifest_parallelism, None);
    assert_eq!(o.branch, "main");
    assert_eq!(o.changelog_producer, ChangelogProducer::None);
    assert_eq!(o.rowkind_field, None);
    assert_eq!(o.num_levels, None);
    assert_eq!(o.num_levels(), 6);
    assert_eq!(o.metadata_stats_mode, StatsMode::Truncate(16));
    assert!(o.pk_btree_index_columns.is_empty());
    assert!(o.global_index_enabled);
    assert!(o.file_index_read_enabled);
    assert!(!o.postpone_merge_on_read);
    assert_eq!(o.postpone_default_bucket_num, 1);
    assert!(!o.batch_scan_skip_level0());
    assert!(o.extra.is_empty());
    assert_eq!(TableOptions::default(), o);
}

#[test]
fn parses_bucket_modes() {
    let fixed = parse(&[("bucket", "4")]).unwrap().bucket;
    assert_eq!(fixed, BucketMode::Fixed(NonZeroU32::new(4).unwrap()));
    assert_eq!(fixed.raw(), 4);
    assert_eq!(fixed.fixed().map(NonZeroU32::get), Some(4));
    assert_eq!(
        parse(&[("bucket", "-1")]).unwrap().bucket,
        BucketMode::Dynamic
    );
    assert_eq!(
        parse(&[("bucket", "-2")]).unwrap().bucket,
        BucketMode::Postpone
    );
    assert_eq!(BucketMode::Postpone.raw(), -2);
    for bad in ["0", "-3", "x", "4 ", "", "99999999999"] {
        let e = parse(&[("bucket", bad)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{bad}");
        assert!(e.to_string().contains("'bucket'"), "{e}");
        assert!(e.to_string().contains(&format!("'{bad}'")), "{e}");
    }
}

#[test]
fn parses_lists() {
    let o = parse(&[
        ("bucket-key", "a,b"),
        ("sequence.field", "s0, s1"),
        ("pk-btree.index.columns", " score , name "),
        ("data-file.external-paths", "file:///a, s3://b/c"),
    ])
    .unwrap();
    assert_eq!(o.bucket_key, Some(vec!["a".to_string(), "b".to_string()]));
    assert_eq!(
        o.sequence_field,
        Some(vec!["s0".to_string(), "s1".to_string()])
    );
    assert_eq!(o.pk_btree_index_columns, vec!["score", "name"]);
    assert_eq!(
        o.data_file_external_paths,
        Some(vec!["file:///a".to_string(), "s3://b/c".to_string()])
    );
    // Java does not trim bucket keys; blank means unset.
    assert_eq!(
        parse(&[("bucket-key", "a, b")])
            .unwrap()
            .bucket_key
            .unwrap()[1],
        " b"
    );
    assert_eq!(parse(&[("bucket-key", " ")]).unwrap().bucket_key, None);
}

#[test]
fn parses_enums_case_insensitively() {
    let o = parse(&[
        ("bucket-function.type", "HIVE"),
        ("merge-engine", "Partial-Update"),
        ("changelog-producer", "lookup"),
        ("sequence.field.sort-order", "descending"),
        ("scan.mode", "latest"),
        ("file.format", "ORC"),
        ("manifest.format", "orc"),
        ("metadata.stats-mode", "Truncate(32)"),
    ])
    .unwrap();
    assert_eq!(o.bucket_function, BucketFunctionKind::Hive);
    assert_eq!(o.merge_engine, MergeEngine::PartialUpdate);
    assert_eq!(o.changelog_producer, ChangelogProducer::Lookup);
    assert_eq!(o.sequence_field_sort_order, SortOrder::Descending);
    assert_eq!(o.scan_mode, StartupMode::Latest);
    assert_eq!(o.file_format, FileFormat::Orc);
    assert_eq!(o.manifest_format, FileFormat::Orc);
    assert_eq!(o.metadata_stats_mode, StatsMode::Truncate(32));
    let other = parse(&[("file.format", "Lance")]).unwrap().file_format;
    assert_eq!(other, FileFormat::Other("lance".into()));
    assert_eq!(other.to_string(), "lance");
    assert_eq!(
        "mod".parse::<BucketFunctionKind>().unwrap(),
        BucketFunctionKind::Mod
    );
    for mode in ["none", "counts", "full", "truncate(0)"] {
        let m: StatsMode = mode.parse().unwrap();
        assert_eq!(m.to_string(), mode);
    }
    for text in ["first-row", "aggregation", "deduplicate"] {
        assert_eq!(text.parse::<MergeEngine>().unwrap().as_str(), text);
    }
    for (key, bad) in [
        ("merge-engine", "dedup"),
        ("bucket-function.type", "murmur"),
        ("scan.mode", "earliest"),
        ("metadata.stats-mode", "truncate(-1)"),
        ("metadata.stats-mode", "truncate()"),
        ("changelog-producer", ""),
        ("file.format", ""),
    ] {
        let e = parse(&[(key, bad)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{key}={bad}");
        assert!(e.to_string().contains(key), "{e}");
    }
}

#[test]
fn parses_booleans_like_java() {
    for (text, want) in [
        ("true", true),
        ("TRUE", true),
        ("False", false),
        ("false", false),
    ] {
        let o = parse(&[("deletion-vectors.enabled", text)]).unwrap();
        assert_eq!(o.deletion_vectors_enabled, want, "{text}");
    }
    for bad in ["yes", "1", " true", ""] {
        let e = parse(&[("data-file.thin-mode", bad)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid);
        assert_eq!(e.message(), format!(
            "invalid value '{bad}' for table option 'data-file.thin-mode': expected true or false (any case)"
        ));
    }
}

#[test]
fn parses_numbers_and_sizes() {
    let o = parse(&[
        ("read.batch-size", "4096"),
        ("scan.manifest.parallelism", "8"),
        ("source.split.target-size", "64kb"),
        ("source.split.open-file-cost", "1 MB"),
        ("num-sorted-run.compaction-trigger", "3"),
        ("scan.snapshot-id", "7"),
    ])
    .unwrap();
    assert_eq!(o.read_batch_size, NonZeroUsize::new(4096).unwrap());
    assert_eq!(o.scan_manifest_parallelism, NonZeroUsize::new(8));
    assert_eq!(o.source_split_target_size.bytes(), 64 * 1024);
    assert_eq!(o.source_split_open_file_cost.bytes(), 1024 * 1024);
    assert_eq!(o.num_levels(), 4);
    assert_eq!(parse(&[("num-levels", "3")]).unwrap().num_levels(), 3);
    assert_eq!(o.scan_snapshot_id, Some(7));
    assert_eq!(o.startup_mode(), StartupMode::FromSnapshot);
    for (key, bad) in [
        ("read.batch-size", "0"),
        ("read.batch-size", "-5"),
        ("scan.manifest.parallelism", "0"),
        ("scan.snapshot-id", "abc"),
        ("source.split.target-size", "12 parsecs"),
        ("num-levels", "2.5"),
    ] {
        let e = parse(&[(key, bad)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{key}={bad}");
        assert!(
            e.context().iter().any(|(k, v)| *k == "option" && v == key),
            "{e}"
        );
        assert!(
            e.context().iter().any(|(k, v)| *k == "value" && v == bad),
            "{e}"
        );
    }
}

#[test]
fn legacy_ignore_delete_aliases() {
    for alias in IGNORE_DELETE_FALLBACKS {
        let o = parse(&[(alias, "true")]).unwrap();
        assert!(o.ignore_delete, "{alias}");
        assert!(o.extra.is_empty(), "{alias} is consumed, not extra");
    }
    // The primary key wins over a fallback.
    let o = parse(&[
        ("ignore-delete", "false"),
        ("first-row.ignore-delete", "true"),
    ])
    .unwrap();
    assert!(!o.ignore_delete);
    // A bad fallback value is reported under the fallback's name.
    let e = parse(&[("partial-update.ignore-delete", "maybe")]).unwrap_err();
    assert!(
        e.to_string().contains("'partial-update.ignore-delete'"),
        "{e}"
    );
    // Other fallback keys: `log.scan`, `log.scan.timestamp-millis`.
    let o = parse(&[
        ("log.scan", "from-timestamp"),
        ("log.scan.timestamp-millis", "5"),
    ])
    .unwrap();
    assert_eq!(o.scan_mode, StartupMode::FromTimestamp);
    assert_eq!(o.scan_timestamp_millis, Some(5));
}

#[test]
fn unknown_stored_keys_are_kept() {
    let o = parse(&[
        ("bucket", "2"),
        ("my.custom.key", "anything"),
        ("fields.v.aggregate-function", "sum"),
        ("sink.parallelism", "3"),
        ("parquet.use-native", "false"),
    ])
    .unwrap();
    assert_eq!(o.extra.len(), 4);
    assert_eq!(o.extra["my.custom.key"], "anything");
    assert_eq!(o.extra["sink.parallelism"], "3");
    assert!(!o.extra.contains_key("bucket"));
    assert_eq!(o.field_option("v", "aggregate-function"), Some("sum"));
    assert_eq!(o.field_option("w", "aggregate-function"), None);
    assert_eq!(o.raw().len(), 5);
}

#[test]
fn overrides_produce_new_validated_options() {
    let base = parse(&[("bucket", "4"), ("read.batch-size", "100")]).unwrap();
    let o = base
        .with_overrides(&map(&[
            ("scan.snapshot-id", "3"),
            ("read.batch-size", "10"),
            ("parquet.page.size", "1mb"),
            ("fields.a.stats-mode", "full"),
        ]))
        .unwrap();
    assert_eq!(o.scan_snapshot_id, Some(3));
    assert_eq!(o.read_batch_size.get(), 10);
    assert_eq!(o.bucket.raw(), 4);
    assert_eq!(o.extra["parquet.page.size"], "1mb");
    assert_eq!(base.scan_snapshot_id, None, "the original is unchanged");

    let e = base
        .with_overrides(&map(&[("read.batch-size", "zero")]))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("read.batch-size"), "{e}");

    let e = base
        .with_overrides(&map(&[
            ("scan.snapshot-idd", "3"),
            ("scan.snapshot-id", "3"),
        ]))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("scan.snapshot-idd"), "{e}");
    assert!(!e.to_string().contains("scan.snapshot-id,"), "{e}");
}

#[test]
fn startup_mode_rules() {
    let o = parse(&[("scan.timestamp-millis", "1000")]).unwrap();
    assert_eq!(o.startup_mode(), StartupMode::FromTimestamp);
    let o = parse(&[("scan.tag-name", "t1")]).unwrap();
    assert_eq!(o.startup_mode(), StartupMode::FromSnapshot);
    assert_eq!(
        parse(&[("scan.mode", "full")]).unwrap().startup_mode(),
        StartupMode::LatestFull
    );

    let base = TableOptions::default();
    for bad in [
        vec![("scan.snapshot-id", "1"), ("scan.tag-name", "t")],
        vec![("scan.snapshot-id", "1"), ("scan.timestamp-millis", "5")],
        vec![("scan.mode", "from-snapshot")],
        vec![("scan.mode", "from-timestamp"), ("scan.snapshot-id", "1")],
        vec![("scan.mode", "from-snapshot-full")],
    ] {
        let e = base.with_overrides(&map(&bad)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad:?}");
        assert!(e.to_string().contains("scan.mode"), "{e}");
    }
    let e = parse(&[("scan.mode", "from-snapshot")]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid);
    let ok = base
        .with_overrides(&map(&[
            ("scan.mode", "from-snapshot-full"),
            ("scan.snapshot-id", "2"),
        ]))
        .unwrap();
    assert_eq!(ok.startup_mode(), StartupMode::FromSnapshotFull);
}

#[test]
fn batch_scan_skip_level0_follows_java() {
    let dv = parse(&[("deletion-vectors.enabled", "true")]).unwrap();
    assert!(dv.batch_scan_skip_level0());
    let dv_mor = parse(&[
        ("deletion-vectors.enabled", "true"),
        ("deletion-vectors.merge-on-read", "true"),
    ])
    .unwrap();
    assert!(!dv_mor.batch_scan_skip_level0());
    assert!(parse(&[("merge-engine", "first-row")])
        .unwrap()
        .batch_scan_skip_level0());
}

#[test]
fn known_keys_are_sorted_and_recognised() {
    assert!(known_keys::KNOWN_KEYS.windows(2).all(|w| w[0] < w[1]));
    for key in [
        "bucket",
        "scan.snapshot-id",
        "first-row.ignore-delete",
        "log.scan",
        "deletion-vectors.bitmap64",
        "fields.a.sequence-group",
        "s3.endpoint",
        "file-index.bloom-filter.columns",
    ] {
        assert!(is_known_key(key), "{key}");
    }
    for key in ["buckets", "scan.snapshot", "x", "Bucket"] {
        assert!(!is_known_key(key), "{key}");
    }
}

fn schema(json: &str) -> TableSchema {
    TableSchema::from_json_bytes(json.as_bytes()).unwrap()
}

#[test]
fn validate_against_schema() {
    let append = schema(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"a","type":"INT"},{"id":1,"name":"b","type":"INT"}],"options":{}}"#,
    );
    let pk = schema(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"a","type":"INT NOT NULL"},{"id":1,"name":"b","type":"INT"}],"primaryKeys":["a"],"options":{}}"#,
    );
    let v1 = schema(r#"{"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],"options":{}}"#);
    let ok = |s: &TableSchema, pairs: &[(&str, &str)]| parse(pairs).unwrap().validate(s);

    ok(&append, &[]).unwrap();
    ok(&append, &[("bucket", "2"), ("bucket-key", "b")]).unwrap();
    ok(&pk, &[("bucket", "2")]).unwrap();
    ok(&pk, &[("bucket", "-2")]).unwrap();
    // A version-1 append table defaults to bucket = 1 without a bucket key: Java allows it.
    let v1_options = TableOptions::from_map(&v1.options).unwrap();
    assert_eq!(v1_options.bucket.raw(), 1);
    v1_options.validate(&v1).unwrap();

    let bad = [
        (&append, vec![("bucket", "2")], "bucket-key"),
        (&append, vec![("bucket", "-2")], "bucket"),
        (
            &append,
            vec![("bucket", "2"), ("bucket-key", "zz")],
            "bucket-key",
        ),
        (&pk, vec![("sequence.field", "b,nope")], "sequence.field"),
        (&pk, vec![("rowkind.field", "op")], "rowkind.field"),
        (
            &pk,
            vec![("pk-btree.index.columns", "c")],
            "pk-btree.index.columns",
        ),
    ];
    for (s, pairs, key) in bad {
        let e = ok(s, &pairs).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{pairs:?}");
        assert!(
            e.context().iter().any(|(k, v)| *k == "option" && v == key),
            "{e}"
        );
    }
}

#[test]
fn every_java_fixture_schema_parses() {
    let root = java_fixtures();
    let mut schemas = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.parent().and_then(|p| p.file_name()) == Some("schema".as_ref())
                && path
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("schema-")
            {
                schemas.push(path);
            }
        }
    }
    assert!(
        schemas.len() >= 40,
        "found {} schema files under {root:?}",
        schemas.len()
    );
    let mut fixed = 0;
    for path in &schemas {
        let schema = TableSchema::from_json_bytes(&std::fs::read(path).unwrap()).unwrap();
        let options = TableOptions::from_map(&schema.options)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(e) = options.validate(&schema) {
            panic!("{}: {e}", path.display());
        }
        fixed += usize::from(options.bucket.fixed().is_some());
        for key in options.extra.keys() {
            // `owner`: a catalog table property (not a `CoreOptions` key) that the writer of the
            // range-bitmap fixture tables stored with the options.
            assert!(
                is_known_key(key) || key == "owner",
                "{}: stored key {key} unknown to Java 2.0",
                path.display()
            );
        }
    }
    assert!(fixed > 0);
}

#[test]
fn sample_warehouse_schemas_parse() {
    let demo =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/warehouse/demo.db");
    let load = |table: &str| {
        let path = demo.join(table).join("schema/schema-0");
        let schema = TableSchema::from_json_bytes(&std::fs::read(&path).unwrap()).unwrap();
        let options = TableOptions::from_map(&schema.options).unwrap();
        options.validate(&schema).unwrap();
        options
    };
    assert_eq!(load("orders").bucket, BucketMode::Dynamic);
    assert_eq!(load("customers_pk").bucket.raw(), 4);
    let events = load("events_bucketed");
    assert_eq!(events.bucket.raw(), 4);
    assert_eq!(events.bucket_key, Some(vec!["id".to_string()]));
}

#[test]
fn merge_field_options_are_typed() {
    let o = parse(&[
        ("fields.v.aggregate-function", "sum"),
        ("fields.default-aggregate-function", "max"),
        ("fields.s.list-agg-delimiter", ";"),
        ("fields.s.distinct", "TRUE"),
        ("fields.c.distinct", "false"),
        ("fields.v.ignore-retract", "True"),
        ("fields.a.b.aggregate-function", "min"),
        ("fields.a.stats-mode", "full"),
    ])
    .unwrap();
    let f = &o.per_field;
    assert_eq!(f.aggregate_function("v"), Some("sum"));
    assert_eq!(f.aggregate_function("a.b"), Some("min"));
    assert_eq!(f.aggregate_function("w"), Some("max"));
    assert_eq!(f.default_aggregate_function(), Some("max"));
    assert_eq!(f.list_agg_delimiter("s"), ";");
    assert_eq!(f.list_agg_delimiter("v"), ",");
    assert!(f.distinct("s").unwrap());
    assert!(!f.distinct("c").unwrap());
    assert!(!f.distinct("v").unwrap());
    assert!(f.ignore_retract("v").unwrap());
    assert!(!f.ignore_retract("s").unwrap());
    assert!(f.sequence_groups().is_empty());
    // `fields.*` keys stay in `extra` as well.
    assert_eq!(o.extra["fields.v.aggregate-function"], "sum");
    assert_eq!(parse(&[]).unwrap().per_field, FieldOptions::default());
}

#[test]
fn bad_merge_field_flags_fail_when_asked() {
    let o = parse(&[
        ("fields.s.distinct", "yes"),
        ("fields.v.ignore-retract", "1"),
    ])
    .unwrap();
    let e = o.per_field.distinct("s").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e
        .message()
        .contains("fields.s.distinct = 'yes': expected true or false"));
    let e = o.per_field.ignore_retract("v").unwrap_err();
    assert!(e
        .message()
        .contains("fields.v.ignore-retract = '1': expected true or false"));
    assert!(!o.per_field.distinct("other").unwrap());
}

#[test]
fn sequence_groups_sorted_by_key_and_untrimmed() {
    let o = parse(&[
        ("fields.s2.sequence-group", "c"),
        ("fields.s1,s0.sequence-group", "a, b"),
        ("fields.sequence-group", "x"),
        ("partial-update.remove-record-on-sequence-group", "s1,s2"),
    ])
    .unwrap();
    let groups = o.per_field.sequence_groups();
    assert_eq!(
        groups,
        &[
            SequenceGroup {
                key: "fields.s1,s0.sequence-group".into(),
                seq: vec!["s1".into(), "s0".into()],
                members: vec!["a".into(), " b".into()],
            },
            SequenceGroup {
                key: "fields.s2.sequence-group".into(),
                seq: vec!["s2".into()],
                members: vec!["c".into()],
            },
        ]
    );
    assert_eq!(
        o.partial_update_remove_record_on_sequence_group,
        Some(vec!["s1".to_string(), "s2".to_string()])
    );
    assert!(!o
        .extra
        .contains_key(PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP));
    let blank = parse(&[("partial-update.remove-record-on-sequence-group", "")]).unwrap();
    assert_eq!(
        blank.partial_update_remove_record_on_sequence_group,
        Some(vec![String::new()])
    );
}

#[test]
fn stored_bucket_key_and_function() {
    assert_eq!(stored_bucket_key(&map(&[])), None);
    assert_eq!(stored_bucket_key(&map(&[("bucket-key", " ")])), None);
    assert_eq!(
        stored_bucket_key(&map(&[("bucket-key", "a, b")])),
        Some(vec!["a".to_string(), " b".to_string()])
    );
    assert_eq!(
        stored_bucket_function(&map(&[])).unwrap(),
        BucketFunctionKind::Default
    );
    assert_eq!(
        stored_bucket_function(&map(&[("bucket-function.type", "HIVE")])).unwrap(),
        BucketFunctionKind::Hive
    );
    assert!(stored_bucket_function(&map(&[("bucket-function.type", "murmur")])).is_err());
}

#[test]
fn parquet_page_limits() {
    let o = parse(&[]).unwrap();
    assert_eq!(
        (o.parquet_page_size, o.parquet_page_row_count_limit),
        (1 << 20, 20_000)
    );
    let o = parse(&[
        ("parquet.page.size", "8192"),
        ("parquet.page.row.count.limit", "100"),
    ])
    .unwrap();
    assert_eq!(
        (o.parquet_page_size, o.parquet_page_row_count_limit),
        (8192, 100)
    );
    for (k, v) in [
        ("parquet.page.row.count.limit", "0"),
        ("parquet.page.size", "-1"),
        ("parquet.page.size", "1 mb"),
    ] {
        let o = parse(&[(k, v)]).unwrap();
        assert_eq!(
            (o.parquet_page_size, o.parquet_page_row_count_limit),
            (1 << 20, 20_000)
        );
        assert_eq!(o.extra[k], v);
    }
}

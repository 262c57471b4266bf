//! Catalog operations end to end: databases and tables created, reopened, scanned while empty,
//! altered, reopened again and dropped through `FileSystemCatalog`; a pypaimon-written table
//! altered by us. The tables stay in `target/created` with a `tables.json` naming the schema
//! each should have, and `scripts/test.sh` has pypaimon load them (`scripts/check-created.py`).

use std::collections::HashMap;
use std::path::PathBuf;

use paimon_core::catalog::{Move, Schema, SchemaChange};
use paimon_core::spec::type_text::{parse_fields, parse_type};
use paimon_core::spec::TableSchema;
use paimon_core::{ErrorKind, FileSystemCatalog, Identifier, Table};
use serde_json::{json, Value};

use crate::common::{copy_dir, read_rows, try_count_rows, Query};
use crate::pypaimon::pypaimon_fixtures;

fn id(s: &str) -> Identifier {
    Identifier::parse(s).unwrap()
}

fn schema(columns: &str, pk: &[&str], parts: &[&str], options: &[(&str, &str)]) -> Schema {
    let mut b = Schema::builder()
        .columns(parse_fields(columns).unwrap())
        .primary_key(pk.iter().copied())
        .partition_keys(parts.iter().copied());
    for (k, v) in options {
        b = b.option(*k, *v);
    }
    b.build().unwrap()
}

/// What check-created.py compares with pypaimon's view of the table.
fn entry(table: &str, s: &TableSchema, rows: usize, writable: bool) -> Value {
    json!({
        "table": table,
        "fields": s.fields,
        "primary_keys": s.primary_keys,
        "partition_keys": s.partition_keys,
        "options": s.options,
        "rows": rows,
        "writable": writable,
    })
}

fn out_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/created")
}

async fn create_and_check(
    catalog: &FileSystemCatalog,
    name: &str,
    schema: Schema,
) -> (Table, Value) {
    let table = catalog
        .create_table(&id(name), schema, false)
        .await
        .unwrap();
    let reopened = Table::open(table.location()).await.unwrap();
    assert_eq!(reopened.schema(), table.schema());
    assert_eq!(try_count_rows(table.location()).await.unwrap(), 0, "{name}");
    let e = entry(name, table.schema(), 0, false);
    (table, e)
}

#[tokio::test]
async fn create_alter_drop_round_trip() {
    let out = out_dir();
    let _ = std::fs::remove_dir_all(&out);
    let warehouse = out.join("warehouse");
    let catalog = FileSystemCatalog::new(warehouse.to_str().unwrap(), HashMap::new()).unwrap();
    catalog.create_database("created", false).await.unwrap();
    let again = catalog.create_database("created", false).await.unwrap_err();
    assert_eq!(again.kind(), ErrorKind::AlreadyExists);
    catalog.create_database("created", true).await.unwrap();
    assert_eq!(catalog.list_databases().await.unwrap(), ["created"]);

    let mut entries = Vec::new();
    let (_, e) = create_and_check(
        &catalog,
        "created.pk_nested",
        schema(
            "id BIGINT, dt STRING, v DECIMAL(10, 2) COMMENT 'value', r ROW<a INT, b ARRAY<STRING>>, m MAP<STRING, ROW<x DOUBLE>>, ts TIMESTAMP(3)",
            &["id", "dt"],
            &["dt"],
            &[("bucket", "2"), ("file.format", "parquet"), ("merge-engine", "deduplicate")],
        ),
    )
    .await;
    entries.push(e);
    let (_, e) = create_and_check(
        &catalog,
        "created.append_plain",
        schema(
            "id BIGINT, v STRING",
            &[],
            &[],
            &[("file.format", "parquet")],
        ),
    )
    .await;
    entries.push(e.clone());
    let mut writable = e;
    writable["writable"] = json!(true);
    *entries.last_mut().unwrap() = writable;

    // Validation fails before anything is written.
    let bad = schema("id BIGINT, v STRING", &[], &[], &[("bucket", "4")]);
    let err = catalog
        .create_table(&id("created.bad"), bad, false)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("bucket-key"), "{err}");
    assert!(!warehouse.join("created.db/bad").exists());
    let dup = catalog
        .create_table(
            &id("created.append_plain"),
            schema("x INT", &[], &[], &[]),
            false,
        )
        .await
        .unwrap_err();
    assert_eq!(dup.kind(), ErrorKind::AlreadyExists);
    let missing_db = catalog
        .create_table(&id("nodb.t"), schema("x INT", &[], &[], &[]), false)
        .await
        .unwrap_err();
    assert_eq!(missing_db.kind(), ErrorKind::NotFound);
    let escape = catalog
        .drop_table(&id("created.x/../../y"), true)
        .await
        .unwrap_err();
    assert_eq!(escape.kind(), ErrorKind::InvalidArgument);

    // ALTER: a new schema file, reopened with the change.
    let (_, _) = create_and_check(
        &catalog,
        "created.altered",
        schema(
            "id BIGINT, v STRING, old INT",
            &["id"],
            &[],
            &[("bucket", "1")],
        ),
    )
    .await;
    let changes = vec![
        SchemaChange::AddColumn {
            path: vec!["n".into()],
            data_type: parse_type("ROW<p INT, q STRING>").unwrap(),
            description: Some("added".into()),
            position: Some(Move::After("id".into())),
        },
        SchemaChange::rename_column("v", "value"),
        SchemaChange::drop_column("old"),
        SchemaChange::update_column_type("value", parse_type("VARCHAR(10)").unwrap()),
        SchemaChange::set_option("snapshot.num-retained.min", "5"),
        SchemaChange::set_option("bucket", "4"),
    ];
    let next = catalog
        .alter_table(&id("created.altered"), changes, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next.id, 1);
    let altered = catalog.get_table(&id("created.altered")).await.unwrap();
    assert_eq!(altered.schema().as_ref(), &next);
    let names: Vec<&str> = next.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["id", "n", "value"]);
    assert_eq!(next.highest_field_id, 5);
    assert_eq!(try_count_rows(altered.location()).await.unwrap(), 0);
    let bad_alter = catalog
        .alter_table(
            &id("created.altered"),
            vec![SchemaChange::drop_column("id")],
            false,
        )
        .await
        .unwrap_err();
    assert_eq!(
        bad_alter.message(),
        "Cannot drop partition key or primary key: [id]"
    );
    assert!(!warehouse
        .join("created.db/altered/schema/schema-2")
        .exists());
    entries.push(entry("created.altered", &next, 0, false));

    // Drops.
    catalog
        .create_table(&id("created.gone"), schema("x INT", &[], &[], &[]), false)
        .await
        .unwrap();
    catalog
        .drop_table(&id("created.gone"), false)
        .await
        .unwrap();
    assert!(!warehouse.join("created.db/gone").exists());
    let e = catalog
        .drop_table(&id("created.gone"), false)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    catalog.drop_table(&id("created.gone"), true).await.unwrap();
    catalog.create_database("scratch", false).await.unwrap();
    catalog
        .create_table(&id("scratch.t"), schema("x INT", &[], &[], &[]), false)
        .await
        .unwrap();
    let e = catalog
        .drop_database("scratch", false, false)
        .await
        .unwrap_err();
    assert_eq!(e.message(), "Database scratch is not empty.");
    catalog.drop_database("scratch", false, true).await.unwrap();
    assert!(!catalog.database_exists("scratch").await.unwrap());
    let mut tables = catalog.list_tables("created").await.unwrap();
    tables.sort();
    assert_eq!(tables, ["altered", "append_plain", "pk_nested"]);

    // The schema file our catalog writes for the Java fixture `pk_table_nested_type`'s
    // definition is Java's, byte for byte, once `timeMillis` is copied over.
    let java_file = crate::common::java_fixtures()
        .join("parquet/pk_table_nested_type.db/pk_table_nested_type/schema/schema-0");
    let java_bytes = std::fs::read(java_file).unwrap();
    let java = TableSchema::from_json_bytes(&java_bytes).unwrap();
    let like_java = schema(
        "shopId INT, dt STRING, hr INT, col0 INT, col1 ROW<f0 STRING, f1 INT, f2 ARRAY<INT>>, col2 MAP<INT, INT>",
        &["shopId", "dt", "hr"],
        &["dt", "hr"],
        &[("bucket", "2"), ("bucket-key", "shopId"), ("manifest.format", "orc"), ("file.format", "parquet")],
    );
    catalog
        .create_table(&id("created.like_java"), like_java, false)
        .await
        .unwrap();
    let ours_file = warehouse.join("created.db/like_java/schema/schema-0");
    let ours_bytes = std::fs::read(ours_file).unwrap();
    let ours = TableSchema::from_json_bytes(&ours_bytes).unwrap();
    assert_eq!(ours.fields, java.fields);
    assert_eq!(ours.options, java.options);
    let time = |t: i64| format!("\"timeMillis\" : {t}");
    let ours_text = String::from_utf8(ours_bytes)
        .unwrap()
        .replace(&time(ours.time_millis), &time(java.time_millis));
    assert_eq!(ours_text.as_bytes(), &java_bytes[..]);
    catalog
        .drop_table(&id("created.like_java"), false)
        .await
        .unwrap();

    // Catalog-less creation at a path.
    let path = out.join("plain/at_path");
    let t = Table::create(path.to_str().unwrap(), schema("k INT", &["k"], &[], &[]))
        .await
        .unwrap();
    assert!(!t.schema().fields[0].data_type.nullable);
    let e = Table::create(path.to_str().unwrap(), schema("k INT", &[], &[], &[])).await;
    assert_eq!(e.unwrap_err().kind(), ErrorKind::AlreadyExists);

    if let Some(e) = altered_pypaimon_table(&warehouse).await {
        entries.push(e);
    }
    let index = json!({ "warehouse": warehouse.to_str().unwrap(), "tables": entries });
    std::fs::write(out.join("tables.json"), index.to_string()).unwrap();
}

/// A table pypaimon wrote, altered by us (a column added after the data, an option set); we
/// still read every row, now with the new column null.
async fn altered_pypaimon_table(warehouse: &std::path::Path) -> Option<Value> {
    let root = pypaimon_fixtures()?;
    let original = root.join("warehouse/fixtures.db/pk_partitioned");
    let copy = warehouse.join("py.db/pk_partitioned");
    copy_dir(&original, &copy);
    let table = Table::open(copy.to_str().unwrap()).await.unwrap();
    let e = table
        .alter(&[SchemaChange::set_option("merge-engine", "first-row")])
        .await
        .unwrap_err();
    assert_eq!(e.message(), "Change 'merge-engine' is not supported yet.");
    let e = table
        .alter(&[SchemaChange::add_column("id", parse_type("INT").unwrap())])
        .await
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Column id already exists in the py.pk_partitioned table."
    );
    let altered = table
        .alter(&[
            SchemaChange::add_column("remark", parse_type("STRING").unwrap()),
            SchemaChange::set_option("snapshot.num-retained.min", "3"),
        ])
        .await
        .unwrap();
    let before = read_rows(original.to_str().unwrap(), Query::default()).await;
    let after = read_rows(copy.to_str().unwrap(), Query::default()).await;
    assert!(!before.is_empty());
    let mut with_null: Vec<String> = before.iter().map(|r| format!("{r}, null")).collect();
    with_null.sort();
    assert_eq!(after, with_null);
    Some(entry(
        "py.pk_partitioned",
        altered.schema(),
        before.len(),
        false,
    ))
}

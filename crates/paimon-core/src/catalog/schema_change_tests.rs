use super::*;
use crate::spec::type_text::parse_type;

fn t(s: &str) -> DataType {
    parse_type(s).unwrap()
}

fn base(options: &[(&str, &str)]) -> TableSchema {
    let mut b = Schema::builder()
        .column("id", t("BIGINT"))
        .column("dt", t("STRING"))
        .column("v", t("INT"))
        .column("r", t("ROW<a INT, b STRING>"))
        .primary_key(["id", "dt"])
        .partition_keys(["dt"])
        .option("bucket", "2");
    for (k, v) in options {
        b = b.option(*k, *v);
    }
    b.build().unwrap().to_table_schema(0)
}

fn alter(s: &TableSchema, changes: &[SchemaChange], has_snapshot: bool) -> Result<TableSchema> {
    let ctx = AlterContext {
        table: "db.t",
        has_snapshot,
    };
    apply_changes(s, changes, ctx)
}

fn msg(r: Result<TableSchema>) -> String {
    r.unwrap_err().message().to_string()
}

#[test]
fn add_columns_continue_from_highest_field_id() {
    let s = base(&[]);
    assert_eq!(s.highest_field_id, 5);
    let next = alter(
        &s,
        &[
            SchemaChange::AddColumn {
                path: vec!["n".into()],
                data_type: t("ROW<x INT, y INT>"),
                description: Some("new".into()),
                position: Some(Move::After("id".into())),
            },
            SchemaChange::AddColumn {
                path: vec!["r".into(), "c".into()],
                data_type: t("DOUBLE"),
                description: None,
                position: None,
            },
            SchemaChange::drop_column("v"),
            SchemaChange::add_column("v", t("BIGINT")),
        ],
        false,
    )
    .unwrap();
    assert_eq!(next.id, 1);
    let names: Vec<(&str, i32)> = next
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.id))
        .collect();
    assert_eq!(names, [("id", 0), ("n", 6), ("dt", 1), ("r", 3), ("v", 10)]);
    let TypeKind::Row(inner) = &next.fields[1].data_type.kind else {
        panic!("row")
    };
    assert_eq!((inner[0].id, inner[1].id), (7, 8));
    let TypeKind::Row(r) = &next.fields[3].data_type.kind else {
        panic!("row")
    };
    assert_eq!((r[2].name.as_str(), r[2].id), ("c", 9));
    assert_eq!(next.highest_field_id, 10);
    assert_eq!(next.fields[1].description.as_deref(), Some("new"));
}

#[test]
fn java_messages_for_forbidden_changes() {
    let s = base(&[]);
    let add = |name: &str, ty: &str| SchemaChange::add_column(name, t(ty));
    assert_eq!(
        msg(alter(&s, &[add("x", "INT NOT NULL")], false)),
        "Column x cannot specify NOT NULL in the db.t table."
    );
    assert_eq!(
        msg(alter(&s, &[add("v", "INT")], false)),
        "Column v already exists in the db.t table."
    );
    let nested = SchemaChange::AddColumn {
        path: vec!["r".into(), "a".into()],
        data_type: t("INT"),
        description: None,
        position: None,
    };
    assert_eq!(
        msg(alter(&s, &[nested], false)),
        "Column r.a already exists in the db.t table."
    );
    assert_eq!(
        msg(alter(&s, &[SchemaChange::drop_column("id")], false)),
        "Cannot drop partition key or primary key: [id]"
    );
    assert_eq!(
        msg(alter(
            &s,
            &[SchemaChange::rename_column("dt", "day")],
            false
        )),
        "Cannot rename partition column: [dt]"
    );
    assert_eq!(
        msg(alter(&s, &[SchemaChange::drop_column("nope")], false)),
        "Column nope does not exist in the db.t table."
    );
    assert_eq!(
        msg(alter(
            &s,
            &[SchemaChange::update_column_type("id", t("STRING"))],
            false
        )),
        "Cannot update primary key"
    );
    assert_eq!(
        msg(alter(&s, &[SchemaChange::update_column_type("r", t("INT"))], false)),
        "Column type r[ROW<`a` INT, `b` STRING>] cannot be converted to INT without loosing information."
    );
    let nullability = SchemaChange::UpdateColumnNullability {
        path: vec!["id".into()],
        nullable: true,
    };
    assert_eq!(
        msg(alter(&s, &[nullability], false)),
        "Cannot change nullability of primary key"
    );
    let not_null = SchemaChange::UpdateColumnNullability {
        path: vec!["v".into()],
        nullable: false,
    };
    assert!(msg(alter(&s, &[not_null], false))
        .starts_with("Cannot update column type from nullable to non nullable for v."));
    let append = Schema::builder()
        .column("a", t("INT"))
        .build()
        .unwrap()
        .to_table_schema(0);
    assert_eq!(
        msg(alter(&append, &[SchemaChange::drop_column("a")], false)),
        "Cannot drop all fields in table"
    );
    let mv = SchemaChange::UpdateColumnPosition {
        column: "id".into(),
        position: Move::First,
    };
    assert_eq!(
        msg(alter(&s, &[mv], false)),
        "Cannot move itself for column id"
    );
}

#[test]
fn option_rules_once_the_table_has_data() {
    let s = base(&[]);
    let set = |k: &str, v: &str| vec![SchemaChange::set_option(k, v)];
    // Without a snapshot anything valid goes.
    assert!(alter(&s, &set("merge-engine", "partial-update"), false).is_ok());
    assert_eq!(
        msg(alter(&s, &set("merge-engine", "partial-update"), true)),
        "Change 'merge-engine' is not supported yet."
    );
    assert_eq!(
        msg(alter(&s, &set("bucket", "-1"), true)),
        "Cannot change bucket to -1."
    );
    assert_eq!(
        msg(alter(&s, &[SchemaChange::remove_option("bucket")], true)),
        "Cannot reset bucket."
    );
    assert_eq!(
        alter(&s, &set("bucket", "8"), true).unwrap().options["bucket"],
        "8"
    );
    let dv = alter(&s, &set("deletion-vectors.enabled", "true"), true);
    let dv = msg(dv);
    assert!(
        dv.starts_with("Cannot change deletion vectors mode from false to true."),
        "{dv}"
    );
    let ignoring = alter(&s, &set("ignore-delete", "true"), true).unwrap();
    assert_eq!(
        msg(alter(&ignoring, &set("ignore-delete", "false"), true)),
        "Cannot change ignore-delete from true to false."
    );
    assert_eq!(
        msg(alter(&s, &set("type", "format-table"), false)),
        "Change 'type' is not supported yet."
    );
    // The result is validated as at creation.
    assert!(msg(alter(&s, &set("merge-engine", "nope"), false)).contains("merge-engine"));
    assert_eq!(
        msg(alter(&s, &set("bucket", "0"), false)),
        "The number of buckets needs to be greater than 0."
    );
}

#[test]
fn renames_follow_into_keys_and_options() {
    let s = base(&[
        ("sequence.field", "v"),
        ("fields.v.aggregate-function", "sum"),
        ("fields.v.sequence-group", "r"),
        ("bucket-key", "id"),
    ]);
    // A sequence field with an aggregate is invalid in Java; check the renames on the map only.
    let renamed = rename_in_options(
        &s.options,
        &[
            ("v".to_string(), "w".to_string()),
            ("id".to_string(), "key".to_string()),
        ],
    );
    let keys: Vec<(&str, &str)> = renamed
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    // The schema's options are in Java's HashMap order; renames keep it.
    assert_eq!(
        keys,
        [
            ("bucket", "2"),
            ("bucket-key", "key"),
            ("fields.w.aggregate-function", "sum"),
            ("fields.w.sequence-group", "r"),
            ("sequence.field", "w"),
        ]
    );
    let s = base(&[("bucket-key", "id")]);
    let next = alter(&s, &[SchemaChange::rename_column("id", "key")], false).unwrap();
    assert_eq!(next.primary_keys, ["key", "dt"]);
    assert_eq!(next.options["bucket-key"], "key");
    assert_eq!(next.fields[0].id, 0);
}

/// The Java fixture `append_table_with_alter_table`: `schema-1` is `schema-0` after dropping a
/// and c, renaming b→c and d→a, adding d (empty comment) after c and e at the end, and moving k
/// after key1; ours equals Java's byte for byte once `timeMillis` is copied.
#[test]
fn reproduces_a_java_alter() {
    let dir = crate::test_util::java_fixtures()
        .join("parquet/append_table_with_alter_table.db/append_table_with_alter_table/schema");
    let s0 = TableSchema::from_json_bytes(&std::fs::read(dir.join("schema-0")).unwrap()).unwrap();
    let java_bytes = std::fs::read(dir.join("schema-1")).unwrap();
    let java = TableSchema::from_json_bytes_raw(&java_bytes).unwrap();
    let changes = vec![
        SchemaChange::drop_column("a"),
        SchemaChange::drop_column("c"),
        SchemaChange::rename_column("b", "c"),
        SchemaChange::rename_column("d", "a"),
        SchemaChange::AddColumn {
            path: vec!["d".into()],
            data_type: t("INT"),
            description: Some(String::new()),
            position: Some(Move::After("c".into())),
        },
        SchemaChange::add_column("e", t("INT")),
        SchemaChange::UpdateColumnPosition {
            column: "k".into(),
            position: Move::After("key1".into()),
        },
    ];
    let mut ours = alter(&s0, &changes, true).unwrap();
    assert_eq!(ours.fields, java.fields);
    assert_eq!(ours.highest_field_id, 8);
    assert_eq!(ours.options, java.options);
    ours.time_millis = java.time_millis;
    assert_eq!(ours.to_json().unwrap().as_bytes(), &java_bytes[..]);
}

#[test]
fn nested_paths_through_rows_arrays_and_maps() {
    let s = Schema::builder()
        .column("id", t("INT"))
        .column("a", t("ARRAY<ROW<x INT>>"))
        .column("m", t("MAP<STRING, ROW<y INT>>"))
        .build()
        .unwrap()
        .to_table_schema(0);
    let add = |path: &[&str]| SchemaChange::AddColumn {
        path: path.iter().map(|p| p.to_string()).collect(),
        data_type: t("STRING"),
        description: None,
        position: None,
    };
    let next = alter(
        &s,
        &[add(&["a", "element", "z"]), add(&["m", "value", "w"])],
        false,
    )
    .unwrap();
    assert_eq!(
        next.fields[1].data_type.to_string(),
        "ARRAY<ROW<`x` INT, `z` STRING>>"
    );
    assert_eq!(
        next.fields[2].data_type.to_string(),
        "MAP<STRING, ROW<`y` INT, `w` STRING>>"
    );
    // id 0, a 1, x 2, m 3, y 4; then z 5 and w 6.
    assert_eq!(next.highest_field_id, 6);
    let renamed = alter(
        &next,
        &[SchemaChange::RenameColumn {
            path: vec!["a".into(), "element".into(), "x".into()],
            new_name: "x2".into(),
        }],
        false,
    )
    .unwrap();
    assert!(renamed.fields[1].data_type.to_string().contains("`x2` INT"));
    assert_eq!(
        msg(alter(&s, &[add(&["id", "q"])], false)),
        "id is not a structured type."
    );
    assert_eq!(
        msg(alter(&s, &[add(&["nope", "q"])], false)),
        "Column nope does not exist in the db.t table."
    );
}

//! The ORC type tree of our files against the one Java's `OrcTypeUtil#convertToOrcSchema`
//! (Paimon 2.0) builds, with the nested `paimon.id` attributes derived by hand from Java's
//! rules (no Java-written fixture has nested, CHAR or VARCHAR columns; the flat ones are
//! compared with Java's files in `tests/it/write_orc_types.rs`).

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use orc_rust::proto::{self, r#type::Kind};
use prost::Message;

use super::*;
use crate::arrow::schema::arrow_schema;
use crate::spec::orc_footer::orc_footer_bytes;
use crate::write::parquet::parquet_schema;

fn n(kind: TypeKind) -> DataType {
    DataType::nullable(kind)
}

fn b(kind: TypeKind) -> Box<DataType> {
    Box::new(n(kind))
}

/// The columns of the test, with every nested type Java assigns ids to.
fn fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "a", n(TypeKind::Int)),
        DataField::new(1, "c", n(TypeKind::Char(5))),
        DataField::new(2, "v", n(TypeKind::VarChar(10))),
        DataField::new(3, "s", n(TypeKind::VarChar(MAX_LENGTH))),
        DataField::new(
            4,
            "arr",
            n(TypeKind::Array(b(TypeKind::Array(b(TypeKind::VarChar(3)))))),
        ),
        DataField::new(
            5,
            "m",
            n(TypeKind::Map(
                Box::new(DataType::not_null(TypeKind::Char(2))),
                b(TypeKind::Array(b(TypeKind::Int))),
            )),
        ),
        DataField::new(
            6,
            "r",
            n(TypeKind::Row(vec![
                DataField::new(7, "x", n(TypeKind::Int)),
                DataField::new(
                    8,
                    "y",
                    n(TypeKind::Array(b(TypeKind::Row(vec![DataField::new(
                        9,
                        "z",
                        n(TypeKind::Char(1)),
                    )])))),
                ),
            ])),
        ),
        DataField::new(
            10,
            "ms",
            n(TypeKind::Multiset(Box::new(DataType::not_null(
                TypeKind::VarChar(MAX_LENGTH),
            )))),
        ),
        DataField::new(11, "bin", n(TypeKind::VarBinary(4))),
        DataField::new(12, "t", n(TypeKind::Time(0))),
    ]
}

/// The footer types of an empty file of `fields` written as the table writer does.
fn footer_types(fields: &[DataField]) -> Vec<proto::Type> {
    let schema = parquet_schema(&arrow_schema(fields).unwrap(), fields);
    let mut options = TableOptions::default();
    options.file_compression = "zstd".into();
    let w = OrcWriter::new(schema, fields, &options, 1 << 20).unwrap();
    let file = w.finish().unwrap().into_vec();
    let footer = orc_footer_bytes(&file, "test.orc").unwrap();
    proto::Footer::decode(footer.as_slice()).unwrap().types
}

type Row = (Kind, Option<u32>, Option<String>);

fn describe(t: &proto::Type) -> Row {
    let id = t
        .attributes
        .iter()
        .find(|p| p.key() == PAIMON_ID)
        .map(|p| p.value().to_string());
    assert!(t.attributes.len() <= 1, "{t:?}");
    (t.kind(), t.maximum_length, id)
}

#[test]
fn type_tree_and_ids_as_java_orc_type_util() {
    // SpecialFields (Paimon 2.0): base = Integer.MAX_VALUE / 4 = 536870911;
    // element(owner, depth) = base + 1024 * owner + depth, key = base - 1024 * owner - depth,
    // value = base + 1024 * owner + depth. convertToOrcSchema converts each column at depth 0;
    // an ARRAY / MAP converts its children with (owner, depth + 1) and then overwrites their
    // attribute with element/key/value(owner, depth + 1); a ROW converts its fields with their
    // own ids at depth 0 (convertToOrcSchema) and gets its field's id.
    let id = |i: i64| Some(i.to_string());
    let row = |k: Kind, len: Option<u32>, i: Option<String>| (k, len, i);
    let want: Vec<Row> = vec![
        row(Kind::Struct, None, None), // the root: no attribute
        row(Kind::Int, None, id(0)),
        row(Kind::Char, Some(5), id(1)),
        row(Kind::Varchar, Some(10), id(2)),
        row(Kind::String, None, id(3)),
        // arr ARRAY<ARRAY<VARCHAR(3)>>: element(4, 1) = 536870911 + 4096 + 1, its element
        // (converted with owner 4 at depth 1) element(4, 2).
        row(Kind::List, None, id(4)),
        row(Kind::List, None, id(536_875_008)),
        row(Kind::Varchar, Some(3), id(536_875_009)),
        // m MAP<CHAR(2), ARRAY<INT>>: key(5, 1) = 536870911 - 5120 - 1, value(5, 1) =
        // 536870911 + 5120 + 1, the value's element(5, 2).
        row(Kind::Map, None, id(5)),
        row(Kind::Char, Some(2), id(536_865_790)),
        row(Kind::List, None, id(536_876_032)),
        row(Kind::Int, None, id(536_876_033)),
        // r ROW<x INT, y ARRAY<ROW<z CHAR(1)>>>: fields keep their ids; y's element is
        // element(8, 1) = 536870911 + 8192 + 1, and z inside it its own id 9.
        row(Kind::Struct, None, id(6)),
        row(Kind::Int, None, id(7)),
        row(Kind::List, None, id(8)),
        row(Kind::Struct, None, id(536_879_104)),
        row(Kind::Char, Some(1), id(9)),
        // ms MULTISET<STRING> = MAP<STRING, INT NOT NULL> (refineDataType): key(10, 1) =
        // 536870911 - 10240 - 1, value(10, 1) = 536870911 + 10240 + 1.
        row(Kind::Map, None, id(10)),
        row(Kind::String, None, id(536_860_670)),
        row(Kind::Int, None, id(536_881_152)),
        // VARBINARY(4) is BYTES (refineDataType): binary; TIME is int.
        row(Kind::Binary, None, id(11)),
        row(Kind::Int, None, id(12)),
    ];
    let types = footer_types(&fields());
    let got: Vec<Row> = types.iter().map(describe).collect();
    assert_eq!(got, want);
    let names = |i: usize| types[i].field_names.clone();
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        names(0),
        strings(&["a", "c", "v", "s", "arr", "m", "r", "ms", "bin", "t"])
    );
    assert_eq!(names(12), strings(&["x", "y"]));
    assert_eq!(names(15), strings(&["z"]));
}

#[test]
fn char_and_varchar_columns_are_padded_and_cut_as_orc_java_writes_them() {
    let fields = vec![
        DataField::new(0, "c", n(TypeKind::Char(3))),
        DataField::new(1, "v", n(TypeKind::VarChar(2))),
    ];
    let schema = parquet_schema(&arrow_schema(&fields).unwrap(), &fields);
    let values = || -> ArrayRef {
        std::sync::Arc::new(StringArray::from(vec![
            Some("a"),
            Some("abcd"),
            None,
            Some("é "),
        ]))
    };
    let batch = RecordBatch::try_new(schema.clone(), vec![values(), values()]).unwrap();
    let mut options = TableOptions::default();
    options.file_compression = "none".into();
    let mut w = OrcWriter::new(schema, &fields, &options, 1 << 20).unwrap();
    w.write(&batch).unwrap();
    let file = w.finish().unwrap().into_vec();
    // Uncompressed: the DATA streams hold the values as written.
    let text = String::from_utf8_lossy(&file);
    assert!(text.contains("a  abcé  "), "{text:?}");
    assert!(text.contains("aabé "), "{text:?}");
}

// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

//! Round trips of DECIMAL, STRUCT, LIST and MAP columns through the writer and this crate's
//! reader: nulls at every level, empty lists and maps, precision 38 decimals, several stripes.

use std::sync::Arc;

use arrow::{
    array::{
        Array, ArrayRef, AsArray, Decimal128Array, Decimal128Builder, Int32Array, Int32Builder,
        Int64Builder, LargeListBuilder, ListArray, ListBuilder, MapBuilder, RecordBatch,
        StringArray, StringBuilder, StructArray,
    },
    buffer::{NullBuffer, OffsetBuffer},
    compute::{cast, concat_batches},
    datatypes::{DataType as ArrowDataType, Field, Fields, Schema, SchemaRef},
};
use bytes::Bytes;

use std::io::Read;

use prost::Message;

use crate::{
    arrow_writer::{ArrowWriterBuilder, ORC_TYPE_KEY},
    proto,
    statistics::TypeStatistics,
    stripe::Stripe,
    ArrowReaderBuilder,
};

fn write(batches: &[RecordBatch], batch_size: usize, stripe_byte_size: usize) -> Bytes {
    let mut f = vec![];
    let mut writer = ArrowWriterBuilder::new(&mut f, batches[0].schema())
        .with_batch_size(batch_size)
        .with_stripe_byte_size(stripe_byte_size)
        .try_build()
        .unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap();
    Bytes::from(f)
}

/// Writes `batches`, reads them back with their schema and checks every column.
fn assert_roundtrip(batches: &[RecordBatch], batch_size: usize, stripe_byte_size: usize) -> Bytes {
    let schema = batches[0].schema();
    let f = write(batches, batch_size, stripe_byte_size);
    let reader = ArrowReaderBuilder::try_new(f.clone())
        .unwrap()
        .with_schema(schema.clone())
        .build();
    let read = reader.collect::<Result<Vec<_>, _>>().unwrap();
    let expected = concat_batches(&schema, batches).unwrap();
    let actual = concat_batches(&schema, &read).unwrap();
    assert_eq!(actual.num_rows(), expected.num_rows());
    for (i, field) in schema.fields().iter().enumerate() {
        assert_eq!(
            actual.column(i).as_ref(),
            expected.column(i).as_ref(),
            "column {}",
            field.name()
        );
    }
    f
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, a)| Field::new(*name, a.data_type().clone(), true))
        .collect();
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    RecordBatch::try_new(schema, columns.into_iter().map(|(_, a)| a).collect()).unwrap()
}

const MAX_38: i128 = 99_999_999_999_999_999_999_999_999_999_999_999_999;

fn decimal_value(i: i128) -> i128 {
    match i % 6 {
        0 => MAX_38 - i,
        1 => -(MAX_38 - i),
        2 => -i * 1_000_000_007,
        3 => i,
        4 => (1 << 126) + i,
        _ => -(1 << 126) - i,
    }
}

/// Rows `start..start + n` of a DECIMAL(38, 10) column, null every 5th row unless `no_nulls`.
fn decimals(start: usize, n: usize, no_nulls: bool) -> ArrayRef {
    let values =
        (start..start + n).map(|i| (no_nulls || i % 5 != 4).then(|| decimal_value(i as i128)));
    Arc::new(
        Decimal128Array::from_iter(values)
            .with_precision_and_scale(38, 10)
            .unwrap(),
    )
}

#[test]
fn test_decimal_roundtrip_precision_38_several_stripes() {
    // A batch without nulls first (PRESENT created lazily later), then batches with nulls.
    let batches: Vec<_> = [(0, 10, true), (10, 500, false), (510, 333, false)]
        .into_iter()
        .map(|(start, n, no_nulls)| {
            let small = Decimal128Array::from_iter(
                (start..start + n).map(|i| (i % 7 != 3).then_some(i as i128 * 101 - 5000)),
            )
            .with_precision_and_scale(10, 2)
            .unwrap();
            batch(vec![
                ("d38", decimals(start, n, no_nulls)),
                ("d10", Arc::new(small)),
            ])
        })
        .collect();
    let f = assert_roundtrip(&batches, 64, 1024);
    let reader = ArrowReaderBuilder::try_new(f).unwrap();
    let metadata = reader.file_metadata();
    assert!(metadata.stripe_metadatas().len() > 3);
    // The footer types keep precision and scale.
    assert_eq!(
        reader.schema().field(0).data_type(),
        &ArrowDataType::Decimal128(38, 10)
    );
    assert_eq!(
        reader.schema().field(1).data_type(),
        &ArrowDataType::Decimal128(10, 2)
    );
    let stats = metadata.column_file_statistics();
    assert_eq!(stats[0].number_of_values(), 843);
    assert_eq!(stats[1].number_of_values(), 843 - 833 / 5);
    assert!(stats[1].has_null());
    let Some(TypeStatistics::Decimal { min, max, sum }) = stats[2].type_statistics() else {
        panic!("no decimal statistics: {:?}", stats[2]);
    };
    assert_eq!(min, "-50.00");
    assert_eq!(max, "800.42");
    let expected_sum: i128 = (0..843_i128)
        .filter(|i| i % 7 != 3)
        .map(|i| i * 101 - 5000)
        .sum();
    let expected_sum = format!("{}.{:02}", expected_sum / 100, expected_sum % 100);
    assert_eq!(sum, &expected_sum);
}

#[test]
fn test_decimal_all_nulls_and_empty() {
    let all_null = Decimal128Array::from(vec![None::<i128>; 5])
        .with_precision_and_scale(20, 4)
        .unwrap();
    assert_roundtrip(&[batch(vec![("d", Arc::new(all_null))])], 1024, 1 << 20);
}

/// ROW<a INT, b ARRAY<DECIMAL(20, 4)>>: nulls in the struct, in `a`, in `b` and in the
/// elements of `b`, and empty lists.
fn struct_of_list(start: usize, n: usize) -> ArrayRef {
    let a = Int32Array::from_iter((start..start + n).map(|i| (i % 4 != 1).then_some(i as i32)));
    let mut b =
        ListBuilder::new(Decimal128Builder::new().with_data_type(ArrowDataType::Decimal128(20, 4)));
    for i in start..start + n {
        if i % 6 == 5 {
            b.append_null();
            continue;
        }
        for j in 0..(i % 4) {
            let v = (i * 10 + j) as i128;
            b.values().append_option((j != 2).then_some(-v * 12345));
        }
        b.append(true);
    }
    let b = b.finish();
    let fields = Fields::from(vec![
        Field::new("a", ArrowDataType::Int32, true),
        Field::new("b", b.data_type().clone(), true),
    ]);
    let nulls = NullBuffer::from_iter((start..start + n).map(|i| i % 3 != 2));
    Arc::new(StructArray::new(
        fields,
        vec![Arc::new(a), Arc::new(b)],
        Some(nulls),
    ))
}

/// MAP<STRING, ARRAY<INT>>: null maps, empty maps, null values, empty and null lists.
fn map_of_list(start: usize, n: usize) -> ArrayRef {
    let mut m = MapBuilder::new(
        None,
        StringBuilder::new(),
        ListBuilder::new(Int32Builder::new()),
    );
    for i in start..start + n {
        if i % 5 == 3 {
            m.append(false).unwrap();
            continue;
        }
        for j in 0..(i % 3) {
            m.keys().append_value(format!("k{i}-{j}"));
            match (i + j) % 4 {
                0 => m.values().append_null(),
                1 => m.values().append(true),
                _ => {
                    for k in 0..j + 1 {
                        m.values()
                            .values()
                            .append_option((k != 1).then_some((i * k) as i32));
                    }
                    m.values().append(true);
                }
            }
        }
        m.append(true).unwrap();
    }
    Arc::new(m.finish())
}

/// ARRAY<ROW<x DECIMAL(38, 0), y STRING>>: null lists, null structs, null fields.
fn list_of_struct(start: usize, n: usize) -> ArrayRef {
    let mut lengths = vec![];
    let mut xs = vec![];
    let mut ys = vec![];
    let mut struct_valid = vec![];
    let mut list_valid = vec![];
    for i in start..start + n {
        let len = i % 4;
        lengths.push(len);
        list_valid.push(i % 7 != 6);
        for j in 0..len {
            let v = (i * 4 + j) as i128;
            xs.push((j != 1).then_some(decimal_value(v) / 10_i128.pow(10)));
            ys.push((v % 3 != 0).then(|| format!("y{v}")));
            struct_valid.push(v % 5 != 4);
        }
    }
    let x = Decimal128Array::from_iter(xs)
        .with_precision_and_scale(38, 0)
        .unwrap();
    let y = StringArray::from_iter(ys);
    let fields = Fields::from(vec![
        Field::new("x", x.data_type().clone(), true),
        Field::new("y", ArrowDataType::Utf8, true),
    ]);
    let rows = StructArray::new(
        fields.clone(),
        vec![Arc::new(x), Arc::new(y)],
        Some(NullBuffer::from(struct_valid)),
    );
    let element = Arc::new(Field::new("element", ArrowDataType::Struct(fields), true));
    Arc::new(ListArray::new(
        element,
        OffsetBuffer::from_lengths(lengths),
        Arc::new(rows),
        Some(NullBuffer::from(list_valid)),
    ))
}

fn large_list(start: usize, n: usize) -> ArrayRef {
    let mut l = LargeListBuilder::new(Int64Builder::new());
    for i in start..start + n {
        for j in 0..(i % 3) {
            l.values().append_value((i * j) as i64 - 7);
        }
        l.append(i % 4 != 0);
    }
    Arc::new(l.finish())
}

fn nested_batch(start: usize, n: usize) -> RecordBatch {
    batch(vec![
        ("r", struct_of_list(start, n)),
        ("m", map_of_list(start, n)),
        ("l", list_of_struct(start, n)),
        ("d", decimals(start, n, false)),
    ])
}

#[test]
fn test_large_list_roundtrip() {
    // This crate's reader decodes LIST into Arrow `List` only.
    let expected = large_list(0, 50);
    let f = write(&[batch(vec![("ll", expected.clone())])], 16, 256);
    let read = ArrowReaderBuilder::try_new(f).unwrap().build();
    let read = read.collect::<Result<Vec<_>, _>>().unwrap();
    let read = concat_batches(&read[0].schema(), &read).unwrap();
    let expected = cast(&expected, read.column(0).data_type()).unwrap();
    assert_eq!(read.column(0).as_ref(), expected.as_ref());
}

#[test]
fn test_nested_roundtrip() {
    let batches = [nested_batch(0, 30), nested_batch(30, 17)];
    assert_roundtrip(&batches, 1024, 64 << 20);
}

#[test]
fn test_nested_roundtrip_several_stripes() {
    let batches = [
        nested_batch(0, 400),
        nested_batch(400, 333),
        nested_batch(733, 1),
    ];
    let f = assert_roundtrip(&batches, 50, 512);
    let reader = ArrowReaderBuilder::try_new(f).unwrap();
    assert!(reader.file_metadata().stripe_metadatas().len() > 3);
}

#[test]
fn test_nested_roundtrip_sliced_batches() {
    // Slices of nested arrays keep the offsets of their parent: the writer must honour them.
    let whole = nested_batch(0, 120);
    let batches = [whole.slice(0, 7), whole.slice(7, 60), whole.slice(67, 53)];
    assert_roundtrip(&batches, 13, 64 << 20);
}

#[test]
fn test_nested_types_and_statistics() {
    let f = assert_roundtrip(&[nested_batch(0, 12)], 1024, 64 << 20);
    let reader = ArrowReaderBuilder::try_new(f).unwrap();
    let metadata = reader.file_metadata();
    // Column IDs in pre-order: root, r, r.a, r.b, r.b.element, m, m.key, m.value,
    // m.value.element, l, l.element, l.element.x, l.element.y, d.
    let stats = metadata.column_file_statistics();
    assert_eq!(stats.len(), 14);
    let counts: Vec<u64> = stats.iter().map(|s| s.number_of_values()).collect();
    // r: rows 2, 5, 8, 11 null -> 8 structs; r.a: of rows {0,1,3,4,6,7,9,10}, 1, 9 null -> 6;
    // r.b: null in rows 5 and 11 (i % 6 == 5), where r is null already -> 8 lists.
    assert_eq!(&counts[..4], &[12, 8, 6, 8]);
    // r.b elements: rows 0,1,3,4,6,7,9,10 minus 5 -> lengths i % 4 = 0,1,3,0,2,3,1,2 = 12,
    // of which those with j == 2 are null (rows 3 and 7) -> 10 values.
    assert_eq!(counts[4], 10);
    let Some(TypeStatistics::Collection {
        min_children,
        max_children,
        total_children,
    }) = stats[3].type_statistics()
    else {
        panic!("no collection statistics: {:?}", stats[3]);
    };
    assert_eq!((*min_children, *max_children, *total_children), (0, 3, 12));
    assert!(stats[2].has_null());
    // The reader sees the nested types.
    let schema = reader.schema();
    assert!(matches!(schema.field(0).data_type(), ArrowDataType::Struct(f) if f.len() == 2));
    assert!(matches!(
        schema.field(1).data_type(),
        ArrowDataType::Map(_, _)
    ));
    let ArrowDataType::List(element) = schema.field(2).data_type() else {
        panic!("{schema:?}");
    };
    let ArrowDataType::Struct(fields) = element.data_type() else {
        panic!("{schema:?}");
    };
    assert_eq!(fields[0].data_type(), &ArrowDataType::Decimal128(38, 0));
    assert_eq!(fields[1].name(), "y");
}

/// `field` with `metadata`.
fn with_metadata(field: Field, metadata: &[(&str, &str)]) -> Field {
    field.with_metadata(
        metadata
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

fn id(value: &'static str) -> (&'static str, &'static str) {
    ("ORC:attribute:paimon.id", value)
}

/// The footer of an uncompressed file.
fn footer(f: &Bytes) -> proto::Footer {
    let ps_len = f[f.len() - 1] as usize;
    let ps = proto::PostScript::decode(&f[f.len() - 1 - ps_len..f.len() - 1]).unwrap();
    let end = f.len() - 1 - ps_len;
    let start = end - ps.footer_length() as usize;
    proto::Footer::decode(&f[start..end]).unwrap()
}

fn bounded_string_batch() -> RecordBatch {
    let element = with_metadata(
        Field::new("element", ArrowDataType::Utf8, true),
        &[(ORC_TYPE_KEY, "varchar(2)"), id("99")],
    );
    let key = with_metadata(Field::new("key", ArrowDataType::Utf8, false), &[id("98")]);
    let value = with_metadata(Field::new("value", ArrowDataType::Int32, true), &[id("97")]);
    let inner = with_metadata(
        Field::new("a", ArrowDataType::Utf8, true),
        &[(ORC_TYPE_KEY, "char(2)"), id("11")],
    );
    let values = ["a ", "abcdef", "", "é💯xyz"];
    let strings = || -> ArrayRef {
        Arc::new(StringArray::from_iter(
            values.iter().map(Some).chain([None]),
        ))
    };
    let mut list = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(element.clone()));
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new())
        .with_keys_field(Arc::new(key))
        .with_values_field(Arc::new(value));
    for v in values.iter().map(Some).chain([None]) {
        list.append_value([v.copied(), Some("xyz")]);
        map.keys().append_value("k");
        map.values().append_value(1);
        map.append(true).unwrap();
    }
    let s = StructArray::new(Fields::from(vec![inner.clone()]), vec![strings()], None);
    let map = map.finish();
    let fields = vec![
        with_metadata(Field::new("i", ArrowDataType::Int32, true), &[id("0")]),
        with_metadata(
            Field::new("c", ArrowDataType::Utf8, true),
            &[(ORC_TYPE_KEY, "char(3)"), id("1")],
        ),
        with_metadata(
            Field::new("v", ArrowDataType::Utf8, true),
            &[(ORC_TYPE_KEY, "VARCHAR(4)"), id("2")],
        ),
        with_metadata(
            Field::new("s", s.data_type().clone(), true),
            &[id("3"), ("ORC:attribute:extra", "x"), ("other", "y")],
        ),
        with_metadata(
            Field::new("l", ArrowDataType::List(Arc::new(element)), true),
            &[id("4")],
        ),
        with_metadata(Field::new("m", map.data_type().clone(), true), &[id("5")]),
    ];
    let schema = Arc::new(Schema::new(fields));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5])),
        strings(),
        strings(),
        Arc::new(s),
        Arc::new(list.finish()),
        Arc::new(map),
    ];
    RecordBatch::try_new(schema, columns).unwrap()
}

#[test]
fn test_field_metadata_becomes_attributes_and_bounded_string_types() {
    let f = write(&[bounded_string_batch()], 1024, 64 << 20);
    let types = footer(&f).types;
    use proto::r#type::Kind as K;
    // Pre-order: root, i, c, v, s, s.a, l, l.element, m, m.key, m.value.
    type Described = (K, Option<u32>, Vec<(String, String)>);
    let got: Vec<Described> = types
        .iter()
        .map(|t| {
            let attributes = t
                .attributes
                .iter()
                .map(|p| (p.key().to_string(), p.value().to_string()))
                .collect();
            (t.kind(), t.maximum_length, attributes)
        })
        .collect();
    let a = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let pid = |v: &str| a(&[("paimon.id", v)]);
    assert_eq!(
        got,
        vec![
            (K::Struct, None, vec![]),
            (K::Int, None, pid("0")),
            (K::Char, Some(3), pid("1")),
            (K::Varchar, Some(4), pid("2")),
            (K::Struct, None, a(&[("extra", "x"), ("paimon.id", "3")])),
            (K::Char, Some(2), pid("11")),
            (K::List, None, pid("4")),
            (K::Varchar, Some(2), pid("99")),
            (K::Map, None, pid("5")),
            (K::String, None, pid("98")),
            (K::Int, None, pid("97")),
        ]
    );
}

#[test]
fn test_char_varchar_written_padded_and_read_as_orc_java() {
    let batch = bounded_string_batch();
    let mut f = write(std::slice::from_ref(&batch), 1024, 64 << 20);
    // The file holds CHAR(3) values padded / truncated, VARCHAR(4) values truncated.
    let builder = ArrowReaderBuilder::try_new(f.clone()).unwrap();
    let stripe = Stripe::new(
        &mut f,
        &builder.file_metadata,
        builder.file_metadata().root_data_type(),
        &builder.file_metadata().stripe_metadatas()[0],
    )
    .unwrap();
    let data = |i: usize| {
        let mut out = String::new();
        stripe
            .stream_map()
            .get(&stripe.columns()[i], proto::stream::Kind::Data)
            .read_to_string(&mut out)
            .unwrap();
        out
    };
    assert_eq!(data(1), "a  abc   é💯x");
    assert_eq!(data(2), "a abcdé💯xy");
    // Read back as ORC Java's readers return them: CHAR right-trimmed, at every depth.
    let read = builder.build().collect::<Result<Vec<_>, _>>().unwrap();
    let read = concat_batches(&read[0].schema(), &read).unwrap();
    let strings = |a: &ArrayRef| -> Vec<Option<String>> {
        a.as_string::<i32>()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect()
    };
    let want = |v: &[Option<&str>]| -> Vec<Option<String>> {
        v.iter().map(|s| s.map(str::to_string)).collect()
    };
    assert_eq!(
        strings(read.column(1)),
        want(&[Some("a"), Some("abc"), Some(""), Some("é💯x"), None])
    );
    assert_eq!(
        strings(read.column(2)),
        want(&[Some("a "), Some("abcd"), Some(""), Some("é💯xy"), None])
    );
    assert_eq!(
        strings(read.column(3).as_struct().column(0)),
        want(&[Some("a"), Some("ab"), Some(""), Some("é💯"), None])
    );
    assert_eq!(
        strings(read.column(4).as_list::<i32>().values()),
        want(&[
            Some("a "),
            Some("xy"),
            Some("ab"),
            Some("xy"),
            Some(""),
            Some("xy"),
            Some("é💯"),
            Some("xy"),
            None,
            Some("xy"),
        ])
    );
}

#[test]
fn test_invalid_orc_type_fails_before_writing() {
    for (data_type, value) in [
        (ArrowDataType::Utf8, "char(0)"),
        (ArrowDataType::Utf8, "text(3)"),
        (ArrowDataType::Int32, "char(3)"),
    ] {
        let field = with_metadata(Field::new("c", data_type, true), &[(ORC_TYPE_KEY, value)]);
        let mut file = Vec::new();
        let result =
            ArrowWriterBuilder::new(&mut file, Arc::new(Schema::new(vec![field]))).try_build();
        assert!(result.is_err(), "{value}");
        assert!(file.is_empty());
    }
}

#[test]
fn test_stripe_statistics_per_stripe_merge_to_file_statistics() {
    // DECIMAL(10, 2) values i * 101 - 5000 (null when i % 7 == 3) and lists of i % 4 elements
    // (null when i % 5 == 4), in several stripes.
    let n = 700;
    let decimal =
        Decimal128Array::from_iter((0..n).map(|i| (i % 7 != 3).then_some(i as i128 * 101 - 5000)))
            .with_precision_and_scale(10, 2)
            .unwrap();
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..n {
        if i % 5 == 4 {
            lists.append_null();
        } else {
            lists.append_value((0..i % 4).map(Some));
        }
    }
    let b = batch(vec![
        ("d", Arc::new(decimal)),
        ("l", Arc::new(lists.finish())),
    ]);
    let f = write(&[b], 64, 512);
    let reader = ArrowReaderBuilder::try_new(f).unwrap();
    let metadata = reader.file_metadata();
    let stripes = metadata.stripe_metadatas();
    assert!(stripes.len() > 2, "{} stripes", stripes.len());
    let mut first = 0;
    let mut values = 0;
    for stripe in stripes {
        let rows = first..first + stripe.number_of_rows() as i32;
        let stats = stripe.column_statistics();
        // root, d, l, l.element
        assert_eq!(stats.len(), 4);
        assert_eq!(stats[0].number_of_values(), rows.len() as u64);
        let present: Vec<i32> = rows.clone().filter(|i| i % 7 != 3).collect();
        assert_eq!(stats[1].number_of_values(), present.len() as u64);
        assert_eq!(stats[1].has_null(), present.len() < rows.len());
        let Some(TypeStatistics::Decimal { min, max, sum }) = stats[1].type_statistics() else {
            panic!("no decimal statistics: {:?}", stats[1]);
        };
        let cents = |v: i32| decimal_cents(v as i128 * 101 - 5000);
        assert_eq!(min, &cents(present[0]));
        assert_eq!(max, &cents(*present.last().unwrap()));
        let total: i128 = present.iter().map(|&i| i as i128 * 101 - 5000).sum();
        assert_eq!(sum, &decimal_cents(total));
        let lists: Vec<i32> = rows.clone().filter(|i| i % 5 != 4).collect();
        assert_eq!(stats[2].number_of_values(), lists.len() as u64);
        let Some(TypeStatistics::Collection { total_children, .. }) = stats[2].type_statistics()
        else {
            panic!("no collection statistics: {:?}", stats[2]);
        };
        let children: u64 = lists.iter().map(|i| (i % 4) as u64).sum();
        assert_eq!(*total_children, children);
        assert_eq!(stats[3].number_of_values(), children);
        values += stats[1].number_of_values();
        first = rows.end;
    }
    assert_eq!(first, n);
    let file = metadata.column_file_statistics();
    assert_eq!(file[1].number_of_values(), values);
    let Some(TypeStatistics::Decimal { min, max, .. }) = file[1].type_statistics() else {
        panic!("no decimal statistics: {:?}", file[1]);
    };
    assert_eq!((min.as_str(), max.as_str()), ("-50.00", "655.99"));
}

/// An unscaled value of scale 2 as a decimal string.
fn decimal_cents(v: i128) -> String {
    let sign = if v < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", v.abs() / 100, v.abs() % 100)
}

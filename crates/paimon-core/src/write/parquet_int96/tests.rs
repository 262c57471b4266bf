use super::*;
use arrow_array::cast::AsArray;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::Array;
use parquet::data_type::AsBytes;

fn bytes(nanos: i64) -> Vec<u8> {
    int96_of_nanos(nanos).as_bytes().to_vec()
}

/// Java `ParquetRowDataWriter#timestampToInt96`: nanos of day (LE i64) ‖ Julian day (LE i32).
#[test]
fn int96_golden_bytes() {
    // 1970-01-01 00:00:00.000000001: day 2440588 = 0x253D8C.
    assert_eq!(bytes(1), [1, 0, 0, 0, 0, 0, 0, 0, 0x8c, 0x3d, 0x25, 0]);
    // 1969-12-31 23:59:59.999999999: Java's truncating division keeps day 2440588 and
    // writes nanos of day -1.
    assert_eq!(
        bytes(-1),
        [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x8c, 0x3d, 0x25, 0]
    );
    // 1969-12-30 12:00:00.5: millis -129_599_500 → day 2440588 - 1, nanos of day
    // -43_199_500_000_000.
    let v = -129_599_500_000_000_i64;
    let nod = (-43_199_500_000_000_i64).to_le_bytes();
    let mut want = nod.to_vec();
    want.extend_from_slice(&(2_440_587_i32).to_le_bytes());
    assert_eq!(bytes(v), want);
    // 2262-04-11 23:47:16.854775807 (i64::MAX ns, the last TIMESTAMP(9) Arrow holds):
    // 106751 days after the epoch, nanos of day 85636854775807.
    let mut want = 85_636_854_775_807_i64.to_le_bytes().to_vec();
    want.extend_from_slice(&2_547_339_i32.to_le_bytes());
    assert_eq!(bytes(i64::MAX), want);
    // Every value reads back (day and nanos added) as the same instant.
    // i64::MIN (1677-09-21T00:12:43.145224192) too, though pandas reads it as NaT.
    for v in [
        1,
        -1,
        v,
        i64::MAX,
        i64::MIN + 1,
        i64::MIN,
        1_700_000_000_123_456_789,
    ] {
        assert_eq!(int96_of_nanos(v).to_nanos(), v, "{v}");
    }
}

/// Instants of the sample file (None: null; 7 in the required column).
const INSTANTS: [Option<i64>; 10] = [
    Some(1),
    None,
    Some(-1),
    Some(i64::MAX),
    Some(-129_599_500_000_000),
    None,
    Some(1_700_000_000_123_456_789),
    Some(i64::MIN + 1),
    Some(0),
    None,
];

/// k BIGINT NOT NULL, ts9 TIMESTAMP(9), ltz7 TIMESTAMP_LTZ(7), req TIMESTAMP(9) NOT NULL,
/// s STRING with field ids 0-4.
fn sample_schema() -> SchemaRef {
    use std::collections::HashMap;

    use arrow_schema::Field;

    use crate::arrow::schema::FIELD_ID_KEY;

    let id = |f: Field, id: i32| {
        f.with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
    };
    let ns = ArrowType::Timestamp(TimeUnit::Nanosecond, None);
    let ltz = ArrowType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()));
    Arc::new(Schema::new(vec![
        id(Field::new("k", ArrowType::Int64, false), 0),
        id(Field::new("ts9", ns.clone(), true), 1),
        id(Field::new("ltz7", ltz, true), 2),
        id(Field::new("req", ns, false), 3),
        id(Field::new("s", ArrowType::Utf8, true), 4),
    ]))
}

/// Rows `range` of the sample file.
fn sample_batch(schema: &SchemaRef, range: std::ops::Range<usize>) -> RecordBatch {
    use arrow_array::{ArrayRef, Int64Array, StringArray, TimestampNanosecondArray};

    let vals: Vec<Option<i64>> = INSTANTS[range.clone()].to_vec();
    let req: Vec<i64> = vals.iter().map(|v| v.unwrap_or(7)).collect();
    let keys = range.clone().map(|i| i as i64);
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(keys)),
        Arc::new(TimestampNanosecondArray::from(vals.clone())),
        Arc::new(TimestampNanosecondArray::from(vals).with_timezone("UTC")),
        Arc::new(TimestampNanosecondArray::from(req)),
        Arc::new(StringArray::from_iter(range.map(|i| Some(format!("s{i}"))))),
    ];
    RecordBatch::try_new(schema.clone(), cols).unwrap()
}

/// Ten rows in row groups of three: INT96 for the nanosecond columns (ids and
/// required/optional kept, null counts only), INT64 / BYTE_ARRAY for the others, and the
/// instants read back by arrow-rs equal to the written ones.
#[test]
fn file_round_trip_in_several_row_groups() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let schema = sample_schema();
    let instants = INSTANTS;
    let batch = |range| sample_batch(&schema, range);
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(3))
        .set_column_statistics_enabled(
            parquet::schema::types::ColumnPath::new(vec!["ts9".into()]),
            parquet::file::properties::EnabledStatistics::None,
        )
        .build();
    let mut w = Int96FileWriter::new(schema.clone(), props).unwrap();
    w.write(&batch(0..5)).unwrap();
    assert!(w.estimated_size() > 0);
    w.write(&batch(5..10)).unwrap();
    let bytes = bytes::Bytes::from(w.finish().unwrap().into_vec());

    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
    let meta = reader.metadata().clone();
    assert_eq!(meta.num_row_groups(), 4);
    let descr = meta.file_metadata().schema_descr();
    assert_eq!(descr.root_schema().name(), "paimon_schema");
    let physical: Vec<PhysicalType> = descr.columns().iter().map(|c| c.physical_type()).collect();
    use PhysicalType::*;
    assert_eq!(physical, [INT64, INT96, INT96, INT96, BYTE_ARRAY]);
    let fields = descr.root_schema().get_fields();
    let ids: Vec<i32> = fields.iter().map(|f| f.get_basic_info().id()).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4]);
    let optional: Vec<bool> = fields.iter().map(|f| f.is_optional()).collect();
    assert_eq!(optional, [false, true, true, false, true]);
    let rg = meta.row_group(0);
    assert!(rg.column(0).statistics().is_some());
    // Rows 0..3: 1, null, -1 (the settings' `EnabledStatistics::None` for ts9 is overridden).
    for (c, nulls) in [(1, 1), (2, 1), (3, 0)] {
        let s = rg.column(c).statistics().unwrap();
        assert_eq!(s.null_count_opt(), Some(nulls), "column {c}");
        assert!(s.min_bytes_opt().is_none() && s.max_bytes_opt().is_none());
        assert!(rg.column(c).column_index_offset().is_none());
        assert!(rg.column(c).offset_index_offset().is_some());
    }
    assert!(meta.file_metadata().key_value_metadata().is_none());

    let batches: Vec<RecordBatch> = reader.build().unwrap().map(|b| b.unwrap()).collect();
    let col = |i: usize| -> Vec<Option<i64>> {
        batches
            .iter()
            .flat_map(|b| {
                let a = b.column(i).as_primitive::<TimestampNanosecondType>();
                (0..a.len())
                    .map(|j| a.is_valid(j).then(|| a.value(j)))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    assert_eq!(col(1), instants);
    assert_eq!(col(2), instants);
    let req: Vec<Option<i64>> = instants.iter().map(|v| Some(v.unwrap_or(7))).collect();
    assert_eq!(col(3), req);
    let keys: Vec<i64> = batches
        .iter()
        .flat_map(|b| {
            b.column(0)
                .as_primitive::<arrow_array::types::Int64Type>()
                .values()
                .to_vec()
        })
        .collect();
    assert_eq!(keys, (0..10).collect::<Vec<i64>>());
}

mod nested {
    use arrow::util::pretty::pretty_format_batches;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::column::reader::ColumnReader;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    use super::*;
    use crate::write::parquet_levels::tests::{arrow_rs_levels, random_batch, schema};

    fn write(batch: &RecordBatch, props: WriterProperties, slices: &[(usize, usize)]) -> Bytes {
        let mut w = Int96FileWriter::new(batch.schema(), props).unwrap();
        for (offset, len) in slices {
            w.write(&batch.slice(*offset, *len)).unwrap();
        }
        Bytes::from(w.finish().unwrap().into_vec())
    }

    /// The values (as nanoseconds) and levels of every INT96 leaf of row group `rg`.
    fn int96_levels(file: &Bytes, rg: usize) -> Vec<LeafLevels> {
        let reader = SerializedFileReader::new(file.clone()).unwrap();
        let descr = reader.metadata().file_metadata().schema_descr_ptr();
        let group = reader.get_row_group(rg).unwrap();
        let mut out = Vec::new();
        for leaf in 0..descr.num_columns() {
            let ColumnReader::Int96ColumnReader(mut r) = group.get_column_reader(leaf).unwrap()
            else {
                continue;
            };
            let (mut defs, mut reps, mut values) = (Vec::new(), Vec::new(), Vec::new());
            while r
                .read_records(1000, Some(&mut defs), Some(&mut reps), &mut values)
                .unwrap()
                .0
                > 0
            {}
            let col = descr.column(leaf);
            let n = if col.max_def_level() > 0 {
                defs.len()
            } else {
                values.len()
            };
            if col.max_def_level() == 0 {
                defs = vec![0; n];
            }
            if col.max_rep_level() == 0 {
                reps = vec![0; n];
            }
            let values = values.iter().map(Int96::to_nanos).collect();
            out.push(LeafLevels { values, defs, reps });
        }
        out
    }

    /// 300 random rows (nulls and empty lists / maps at every level, TIMESTAMP(9) leaves in
    /// ARRAY, MAP keys and values, ROW, ARRAY<ROW>, ARRAY<ARRAY>, MAP<_, ARRAY>) in one row
    /// group: every INT96 leaf holds the values and levels arrow-rs writes for the same leaf
    /// as INT64, and the Parquet schema is arrow-rs' but for the INT96 leaves.
    #[test]
    fn nested_leaves_carry_arrow_rs_levels_and_schema() {
        let schema = with_ids(&schema());
        let batch = random_batch(&schema, 300, 11);
        let file = write(&batch, WriterProperties::new(), &[(0, 120), (120, 180)]);
        let got = int96_levels(&file, 0);
        assert_eq!(got.len(), 18);
        assert_eq!(got, arrow_rs_levels(&batch));

        let reader = SerializedFileReader::new(file).unwrap();
        let ours = reader.metadata().file_metadata().schema_descr_ptr();
        let arrow_rs = ArrowSchemaConverter::new()
            .schema_root("paimon_schema")
            .convert(&schema)
            .unwrap();
        assert_eq!(ours.num_columns(), arrow_rs.num_columns());
        let mut int96 = 0;
        for (o, a) in ours.columns().iter().zip(arrow_rs.columns()) {
            assert_eq!(o.path(), a.path());
            assert_eq!(o.max_def_level(), a.max_def_level(), "{}", o.path());
            assert_eq!(o.max_rep_level(), a.max_rep_level(), "{}", o.path());
            assert_eq!(
                o.self_type().get_basic_info().repetition(),
                a.self_type().get_basic_info().repetition()
            );
            let nanos = a.logical_type_ref().is_some_and(|t| {
                matches!(t, parquet::basic::LogicalType::Timestamp(ts)
                    if ts.unit == parquet::basic::TimeUnit::NANOS)
            });
            match nanos {
                true => {
                    assert_eq!(o.physical_type(), PhysicalType::INT96, "{}", o.path());
                    assert!(o.logical_type_ref().is_none());
                    int96 += 1;
                }
                false => assert_eq!(o.physical_type(), a.physical_type(), "{}", o.path()),
            }
        }
        assert_eq!(int96, 18);
        let mut leaves = 0;
        same_tree(ours.root_schema(), arrow_rs.root_schema(), &mut leaves);
        assert_eq!(leaves, 18);
        // The LIST / MAP annotations of the groups are kept.
        let root = ours.root_schema().get_fields();
        let annotation = |i: usize| root[i].get_basic_info().converted_type();
        use parquet::basic::ConvertedType;
        assert_eq!(annotation(2), ConvertedType::LIST);
        assert_eq!(annotation(4), ConvertedType::MAP);
    }

    /// `schema` with a distinct field id on every field at every depth.
    fn with_ids(schema: &SchemaRef) -> SchemaRef {
        use crate::arrow::schema::FIELD_ID_KEY;
        use arrow_schema::{Field, Fields};
        fn field(f: &Field, next: &mut i32) -> Field {
            *next += 1;
            let meta = [(FIELD_ID_KEY.to_string(), next.to_string())];
            let t = match f.data_type() {
                ArrowType::List(i) => ArrowType::List(Arc::new(field(i, next))),
                ArrowType::Map(e, sorted) => ArrowType::Map(Arc::new(field(e, next)), *sorted),
                ArrowType::Struct(fs) => {
                    ArrowType::Struct(fs.iter().map(|c| field(c, next)).collect::<Fields>())
                }
                t => t.clone(),
            };
            f.clone().with_data_type(t).with_metadata(meta.into())
        }
        let mut next = 0;
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| field(f, &mut next))
            .collect();
        Arc::new(Schema::new(fields))
    }

    /// Our Parquet schema node `o` equals arrow-rs' `a` (names, repetition, field ids,
    /// annotations) but for the INT96 leaves; `int96` counts those.
    fn same_tree(o: &Type, a: &Type, int96: &mut usize) {
        let (oi, ai) = (o.get_basic_info(), a.get_basic_info());
        assert_eq!(oi.name(), ai.name());
        assert_eq!(oi.has_repetition(), ai.has_repetition(), "{}", oi.name());
        if oi.has_repetition() {
            assert_eq!(oi.repetition(), ai.repetition(), "{}", oi.name());
        }
        assert_eq!(oi.has_id(), ai.has_id(), "{}", oi.name());
        if oi.has_id() {
            assert_eq!(oi.id(), ai.id(), "{}", oi.name());
        }
        if o.is_primitive() && o.get_physical_type() == PhysicalType::INT96 {
            assert_eq!(a.get_physical_type(), PhysicalType::INT64);
            *int96 += 1;
            return;
        }
        assert_eq!(oi.converted_type(), ai.converted_type(), "{}", oi.name());
        assert_eq!(
            oi.logical_type_ref(),
            ai.logical_type_ref(),
            "{}",
            oi.name()
        );
        assert_eq!(o.is_primitive(), a.is_primitive());
        if o.is_primitive() {
            assert_eq!(o.get_physical_type(), a.get_physical_type());
            return;
        }
        assert_eq!(o.get_fields().len(), a.get_fields().len(), "{}", oi.name());
        for (x, y) in o.get_fields().iter().zip(a.get_fields()) {
            same_tree(x, y, int96);
        }
    }

    /// The same rows over several row groups and small pages (records never split across
    /// pages): arrow-rs reads back the written rows; each INT96 chunk's statistics hold the
    /// null count of its levels and no min/max (values differ), it has no column index and an
    /// offset index, while the other leaves keep their column index.
    #[test]
    fn nested_file_in_row_groups_and_pages_reads_back_with_null_counts() {
        let schema = schema();
        let batch = random_batch(&schema, 300, 5);
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(64))
            .set_data_page_row_count_limit(10)
            .set_write_batch_size(7)
            .set_statistics_enabled(EnabledStatistics::Page)
            .build();
        let file = write(&batch, props, &[(0, 50), (50, 1), (51, 249)]);

        let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
        let meta = reader.metadata().clone();
        assert_eq!(meta.num_row_groups(), 5);
        let read: Vec<RecordBatch> = reader.build().unwrap().map(|b| b.unwrap()).collect();
        let want = pretty_format_batches(&[batch]).unwrap().to_string();
        assert_eq!(pretty_format_batches(&read).unwrap().to_string(), want);

        let descr = meta.file_metadata().schema_descr_ptr();
        use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
        let with_offsets = ParquetMetaDataReader::new()
            .with_offset_index_policy(PageIndexPolicy::Required)
            .parse_and_finish(&file)
            .unwrap();
        let offset_index = with_offsets.offset_index().unwrap();
        let mut pages = 0;
        for (rg, offsets) in offset_index.iter().enumerate() {
            let levels = int96_levels(&file, rg);
            let chunks = meta.row_group(rg).columns();
            let int96: Vec<_> = chunks
                .iter()
                .filter(|c| c.column_type() == PhysicalType::INT96)
                .collect();
            assert_eq!(int96.len(), levels.len());
            for (c, l) in int96.iter().zip(&levels) {
                let s = c.statistics().unwrap();
                assert_eq!(
                    s.null_count_opt(),
                    Some(l.nulls() as u64),
                    "{}",
                    c.column_path()
                );
                let distinct = l.values.windows(2).any(|w| w[0] != w[1]);
                assert_eq!(
                    s.min_bytes_opt().is_some(),
                    !distinct,
                    "{}",
                    c.column_path()
                );
                assert!(c.column_index_offset().is_none());
                assert!(c.offset_index_offset().is_some());
            }
            let others = chunks
                .iter()
                .filter(|c| c.column_type() != PhysicalType::INT96);
            for c in others {
                assert!(c.column_index_offset().is_some(), "{}", c.column_path());
            }
            pages += offsets
                .iter()
                .map(|o| o.page_locations().len())
                .sum::<usize>();
        }
        assert!(pages > 5 * descr.num_columns(), "{pages} pages");
        // Nested nulls are counted: more nulls than rows in the chunks of the ARRAY<ROW> leaf.
        let total: Vec<usize> = (0..meta.num_row_groups())
            .map(|rg| int96_levels(&file, rg).iter().map(LeafLevels::nulls).sum())
            .collect();
        assert!(total.iter().sum::<usize>() > 1000, "{total:?}");
    }

    /// parquet-mr keeps min = max for an INT96 chunk whose non-null values are all the same,
    /// and only the null count for an all-null chunk.
    #[test]
    fn int96_min_max_only_when_every_value_is_the_same() {
        use arrow_array::{ArrayRef, TimestampNanosecondArray};
        use arrow_schema::Field;

        let ns = ArrowType::Timestamp(TimeUnit::Nanosecond, None);
        let schema = Arc::new(Schema::new(vec![
            Field::new("same", ns.clone(), true),
            Field::new("nulls", ns, true),
        ]));
        let same = TimestampNanosecondArray::from(vec![Some(-5), None, Some(-5)]);
        let nulls = TimestampNanosecondArray::from(vec![None::<i64>; 3]);
        let cols: Vec<ArrayRef> = vec![Arc::new(same), Arc::new(nulls)];
        let batch = RecordBatch::try_new(schema, cols).unwrap();
        let file = write(&batch, WriterProperties::new(), &[(0, 3)]);
        let reader = SerializedFileReader::new(file).unwrap();
        let rg = reader.metadata().row_group(0);
        let Some(Statistics::Int96(s)) = rg.column(0).statistics() else {
            panic!("no INT96 statistics");
        };
        assert_eq!(s.null_count_opt(), Some(1));
        assert_eq!(s.min_opt(), Some(&int96_of_nanos(-5)));
        assert_eq!(s.max_opt(), Some(&int96_of_nanos(-5)));
        let s = rg.column(1).statistics().unwrap();
        assert_eq!(s.null_count_opt(), Some(3));
        assert!(s.min_bytes_opt().is_none());
    }
}

/// What Java Paimon (parquet-mr) wrote for the INT96 chunks of the fixture tables: a null
/// count, min/max only when equal, no column index, an offset index; what we write too.
#[test]
fn java_int96_chunks_have_the_statistics_we_write() {
    use parquet::file::reader::{FileReader, SerializedFileReader};

    let mut chunks = 0;
    for table in ["append_with_cast_timestamp", "parquet_append_table"] {
        let dir = format!(
            "{}/../../testdata/java/parquet/{table}.db/{table}/bucket-0",
            env!("CARGO_MANIFEST_DIR")
        );
        for f in std::fs::read_dir(dir).unwrap() {
            let path = f.unwrap().path();
            let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
            for rg in reader.metadata().row_groups() {
                for c in rg.columns() {
                    if c.column_type() != PhysicalType::INT96 {
                        continue;
                    }
                    let s = c.statistics().unwrap();
                    assert!(s.null_count_opt().is_some(), "{}", c.column_path());
                    assert_eq!(s.min_bytes_opt(), s.max_bytes_opt(), "{}", c.column_path());
                    assert!(c.column_index_offset().is_none());
                    assert!(c.offset_index_offset().is_some());
                    chunks += 1;
                }
            }
        }
    }
    assert_eq!(chunks, 4);
}

//! parquet-mr's first-page dictionary check, decided before the column is written.
//!
//! parquet-mr (`FallbackValuesWriter#getBytes`, Java Paimon's Parquet writer) dictionary-encodes
//! a column's first page and keeps the dictionary only when it pays there
//! (`DictionaryValuesWriter#isCompressionSatisfying`: encoded ids + dictionary bytes < plain
//! bytes); otherwise the whole column chunk is written plain. arrow-rs has no such check: it
//! builds the dictionary until it reaches its size limit (1 MiB, e.g. 131,072 BIGINTs) and
//! only then falls back, so a column of distinct values costs a hash-table insert per value
//! and gets a useless dictionary page.
//!
//! [`plain_columns`] makes parquet-mr's decision on the first page's worth of rows (the page
//! row limit, fewer when their plain bytes reach the page size first), so the writer can be
//! configured before its first value: the columns it names are written without dictionary, as
//! parquet-mr would write them. The ids' size is estimated as the smaller of bit-packing and
//! run-length encoding; a column of a type [`sample_column`] does not list keeps its
//! dictionary.

use std::collections::HashSet;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, Time64MicrosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType as ArrowType, TimeUnit};

/// What the first page of one column holds, as far as the check needs.
#[derive(Default)]
struct PageSample {
    /// Non-null values seen.
    values: usize,
    /// Their plain bytes.
    raw: usize,
    /// Plain bytes of their distinct values (the dictionary page).
    dictionary: usize,
    /// Runs of equal consecutive values (nulls do not break a run: they are not ids).
    runs: usize,
}

impl PageSample {
    /// Whether parquet-mr keeps the dictionary: `encoded + dictionary < raw`.
    fn dictionary_pays(&self, distinct: usize) -> bool {
        let bit_width = usize::BITS - distinct.saturating_sub(1).leading_zeros();
        let bit_width = bit_width as usize;
        let packed = (self.values * bit_width).div_ceil(8);
        // An RLE run: a varint header (1-2 bytes for these counts) and one padded id.
        let rle = self.runs * (2 + bit_width.div_ceil(8));
        // The leading byte holds the bit width.
        let encoded = 1 + packed.min(rle);
        encoded + self.dictionary < self.raw
    }
}

/// The first-page sample of `column` over `batches`: at most `page_rows` rows, and no more
/// once the plain bytes reach `page_bytes`; and the number of distinct values. `values` gives,
/// per batch, the identity and plain size of a non-null value by row (the column cast once
/// per batch, not per value); `None` when it cannot (no decision then).
fn sample<'a, K, F>(
    batches: &'a [RecordBatch],
    column: usize,
    (page_rows, page_bytes): (usize, usize),
    values: impl Fn(&'a ArrayRef) -> Option<F>,
) -> Option<(PageSample, usize)>
where
    K: std::hash::Hash + Eq + Copy,
    F: Fn(usize) -> (K, usize),
{
    let mut s = PageSample::default();
    // The hash of a value in the hot loop; `RandomState`: seeded per process, so crafted
    // values cannot make the set slow.
    let mut seen: HashSet<K, foldhash::fast::RandomState> = HashSet::default();
    let mut last: Option<K> = None;
    let mut rows = 0;
    'batches: for batch in batches {
        let Some(array) = batch.columns().get(column) else {
            break;
        };
        let value_at = values(array)?;
        let nulls = array.nulls();
        for row in 0..array.len() {
            if rows >= page_rows || s.raw >= page_bytes {
                break 'batches;
            }
            rows += 1;
            if nulls.is_some_and(|n| n.is_null(row)) {
                continue;
            }
            let (value, plain) = value_at(row);
            s.values += 1;
            s.raw += plain;
            if last != Some(value) {
                s.runs += 1;
                last = Some(value);
            }
            if seen.insert(value) {
                s.dictionary += plain;
            }
        }
    }
    Some((s, seen.len()))
}

/// The sample of `column` by its Arrow type: fixed-width values by their bits (TINYINT and
/// SMALLINT are Parquet INT32), strings and binaries by their bytes (a 4-byte length and the
/// bytes); `None` for a type this check leaves alone.
fn sample_column<'a>(
    batches: &'a [RecordBatch],
    column: usize,
    page: (usize, usize),
) -> Option<(PageSample, usize)> {
    macro_rules! prim {
        ($t:ty, $width:expr, $bits:expr) => {
            sample(batches, column, page, |a: &ArrayRef| {
                let values = a.as_primitive_opt::<$t>()?.values();
                Some(move |row: usize| ($bits(values[row]), $width))
            })
        };
    }
    // Strings and binaries by their bytes: a 4-byte length and the bytes, plain.
    macro_rules! bytes {
        ($cast:ident::<$o:ty>, $bytes:expr) => {
            sample(batches, column, page, |a: &'a ArrayRef| {
                let array = a.$cast::<$o>()?;
                Some(move |row: usize| {
                    let v: &[u8] = $bytes(array.value(row));
                    (v, 4 + v.len())
                })
            })
        };
    }
    let t = batches.first()?.columns().get(column)?.data_type().clone();
    match t {
        ArrowType::Int8 => prim!(Int8Type, 4, |v: i8| v as u64),
        ArrowType::Int16 => prim!(Int16Type, 4, |v: i16| v as u64),
        ArrowType::Int32 => prim!(Int32Type, 4, |v: i32| v as u64),
        ArrowType::Date32 => prim!(Date32Type, 4, |v: i32| v as u64),
        ArrowType::Time32(TimeUnit::Millisecond) => {
            prim!(Time32MillisecondType, 4, |v: i32| v as u64)
        }
        ArrowType::Float32 => prim!(Float32Type, 4, |v: f32| u64::from(v.to_bits())),
        ArrowType::Int64 => prim!(Int64Type, 8, |v: i64| v as u64),
        ArrowType::Time64(TimeUnit::Microsecond) => {
            prim!(Time64MicrosecondType, 8, |v: i64| v as u64)
        }
        ArrowType::Float64 => prim!(Float64Type, 8, |v: f64| v.to_bits()),
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            prim!(TimestampMillisecondType, 8, |v: i64| v as u64)
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            prim!(TimestampMicrosecondType, 8, |v: i64| v as u64)
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            prim!(TimestampNanosecondType, 8, |v: i64| v as u64)
        }
        ArrowType::Utf8 => bytes!(as_string_opt::<i32>, |v: &'a str| v.as_bytes()),
        ArrowType::LargeUtf8 => bytes!(as_string_opt::<i64>, |v: &'a str| v.as_bytes()),
        ArrowType::Binary => bytes!(as_binary_opt::<i32>, |v: &'a [u8]| v),
        ArrowType::LargeBinary => bytes!(as_binary_opt::<i64>, |v: &'a [u8]| v),
        _ => None,
    }
}

/// The top-level columns of `batches` (the file's first rows) that parquet-mr would write
/// plain after its first-page check, leaving out `skip` (already without dictionary).
pub(super) fn plain_columns(
    batches: &[RecordBatch],
    page_rows: usize,
    page_bytes: usize,
    skip: &[String],
) -> Vec<String> {
    let Some(first) = batches.first() else {
        return Vec::new();
    };
    let schema = first.schema();
    let mut plain = Vec::new();
    for (i, field) in schema.fields().iter().enumerate() {
        if skip.iter().any(|s| s == field.name()) {
            continue;
        }
        let Some((s, distinct)) = sample_column(batches, i, (page_rows, page_bytes)) else {
            continue;
        };
        if !s.dictionary_pays(distinct) {
            plain.push(field.name().clone());
        }
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{
        BinaryArray, Int32Array, Int64Array, Int8Array, LargeBinaryArray, LargeStringArray,
        StringArray,
    };
    use arrow_schema::{Field, Schema};
    use std::sync::Arc;

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        let fields: Vec<Field> = columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect();
        RecordBatch::try_new(
            Arc::new(Schema::new(fields)),
            columns.into_iter().map(|(_, a)| a).collect(),
        )
        .unwrap()
    }

    #[test]
    fn distinct_values_are_plain_repeated_ones_keep_the_dictionary() {
        let n = 30_000i64;
        let b = batch(vec![
            ("unique", Arc::new(Int64Array::from_iter_values(0..n))),
            (
                "few",
                Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % 1000))),
            ),
            ("zero", Arc::new(Int8Array::from(vec![0i8; n as usize]))),
            (
                "s",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("s{}", i % 1000)),
                )),
            ),
            (
                "names",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("name-{i}")),
                )),
            ),
            (
                "large",
                Arc::new(LargeStringArray::from_iter_values(
                    (0..n).map(|i| format!("l{}", i % 1000)),
                )),
            ),
            (
                "bytes",
                Arc::new(BinaryArray::from_iter_values(
                    (0..n).map(|i| i.to_le_bytes()),
                )),
            ),
            (
                "large_bytes",
                Arc::new(LargeBinaryArray::from_iter_values(
                    (0..n).map(|i| [(i % 7) as u8]),
                )),
            ),
        ]);
        assert_eq!(
            plain_columns(&[b], 20_000, 1 << 20, &[]),
            vec!["unique", "names", "bytes"]
        );
    }

    /// Only the first page decides (parquet-mr checks once): values distinct over the first
    /// 20,000 rows and repeated afterwards stay plain; the reverse keeps the dictionary.
    #[test]
    fn the_first_page_decides() {
        let first_unique: Vec<i32> = (0..20_000).chain((0..100_000).map(|i| i % 3)).collect();
        let first_repeated: Vec<i32> = (0..20_000).map(|i| i % 3).chain(0..100_000).collect();
        let b = batch(vec![
            ("a", Arc::new(Int32Array::from(first_unique))),
            ("b", Arc::new(Int32Array::from(first_repeated))),
        ]);
        // Split into batches: the sample runs across them.
        let parts: Vec<RecordBatch> = (0..12).map(|k| b.slice(k * 10_000, 10_000)).collect();
        assert_eq!(plain_columns(&parts, 20_000, 1 << 20, &[]), vec!["a"]);
        // A page closed by its size: 100 4-byte values fill 400 bytes, the rest is never
        // sampled. Three values repeat there, distinct ones follow.
        let late: Vec<i32> = (0..20_000)
            .map(|i| if i < 100 { i % 3 } else { i })
            .collect();
        let late = batch(vec![("c", Arc::new(Int32Array::from(late)))]);
        assert!(plain_columns(std::slice::from_ref(&late), 20_000, 400, &[]).is_empty());
        assert_eq!(plain_columns(&[late], 20_000, 1 << 20, &[]), vec!["c"]);
    }

    #[test]
    fn nulls_skipped_columns_and_other_types() {
        let n = 5000;
        let mostly_null: Int64Array = (0..n).map(|i| (i % 100 == 0).then_some(i % 2)).collect();
        let all_null = Int64Array::from(vec![None::<i64>; n as usize]);
        let unique = Int64Array::from_iter_values(0..n);
        let list = arrow_array::ListArray::from_iter_primitive::<Int32Type, _, _>(
            (0..n).map(|i| Some(vec![Some(i as i32)])),
        );
        let b = batch(vec![
            ("mostly_null", Arc::new(mostly_null)),
            ("all_null", Arc::new(all_null)),
            ("unique", Arc::new(unique)),
            ("list", Arc::new(list)),
        ]);
        // Two distinct values among the 50 non-null ones pay; an all-null page does not (0 < 0
        // fails in parquet-mr too); a skipped column and a nested one are left alone.
        assert_eq!(
            plain_columns(&[b], 20_000, 1 << 20, &["unique".to_string()]),
            vec!["all_null"]
        );
        assert!(plain_columns(&[], 20_000, 1 << 20, &[]).is_empty());
    }

    /// A sorted column of few values is run-length encoded: its dictionary pays even where
    /// bit-packing would not.
    #[test]
    fn runs_count_as_run_length_encoded() {
        let sorted: Vec<i32> = (0..20_000).map(|i| i / 2_000).collect();
        let b = batch(vec![("sorted", Arc::new(Int32Array::from(sorted)))]);
        let s = sample_column(&[b], 0, (20_000, 1 << 20)).unwrap();
        assert_eq!((s.0.values, s.0.runs, s.1), (20_000, 10, 10));
        assert!(s.0.dictionary_pays(s.1));
    }
}

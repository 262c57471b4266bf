//! Java `BinaryRow#hashCode` of every row's bucket key, column by column, for keys whose
//! columns all live in the row's fixed part (BOOLEAN, TINYINT, SMALLINT, INT, DATE, BIGINT,
//! FLOAT, DOUBLE): the write path's routing of fixed-bucket tables.
//!
//! The rows are laid out as [`encode_into`](crate::spec::binary_row::writer::encode_into)
//! would lay them out one at a time (header byte `+I`, null bits, one little-endian slot per
//! field, zero where null), all rows of a batch in one buffer filled a column at a time, then
//! hashed with the same MurmurHash3. No `Datum` and no per-row encoding: on a BIGINT key this
//! is several times cheaper than the general path, which stays for every other key.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType as ArrowType;

use crate::arrow::schema::arrow_type;
use crate::hash::{murmur3_32_words, DEFAULT_SEED};
use crate::spec::binary_row::{fixed_part_size, null_bits_size};
use crate::spec::types::{DataType, TypeKind};

/// How a key field fills its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    /// Days since the epoch, an `i32` as INT.
    Date,
    BigInt,
    /// FLOAT and DOUBLE as their raw bits (Java `Float.floatToRawIntBits`).
    Float,
    Double,
}

impl Slot {
    fn of(t: &DataType) -> Option<Self> {
        Some(match t.kind {
            TypeKind::Boolean => Slot::Boolean,
            TypeKind::TinyInt => Slot::TinyInt,
            TypeKind::SmallInt => Slot::SmallInt,
            TypeKind::Int => Slot::Int,
            TypeKind::Date => Slot::Date,
            TypeKind::BigInt => Slot::BigInt,
            TypeKind::Float => Slot::Float,
            TypeKind::Double => Slot::Double,
            _ => return None,
        })
    }
}

/// The hasher of one fixed-width bucket key.
#[derive(Debug, Clone)]
pub(crate) struct FixedWidthKey {
    slots: Vec<Slot>,
    /// The Arrow type of each field's column (the project's Paimon → Arrow mapping).
    arrow_types: Vec<ArrowType>,
    null_bits: usize,
    row_size: usize,
}

impl FixedWidthKey {
    /// The hasher of a key of `types`; `None` when some field is not fixed-width (or there is
    /// no field).
    pub(crate) fn new(types: &[DataType]) -> Option<Self> {
        if types.is_empty() {
            return None;
        }
        let slots = types.iter().map(Slot::of).collect::<Option<Vec<_>>>()?;
        let arrow_types = types
            .iter()
            .map(|t| arrow_type(t).ok())
            .collect::<Option<Vec<_>>>()?;
        Some(FixedWidthKey {
            arrow_types,
            null_bits: null_bits_size(slots.len())?,
            row_size: fixed_part_size(slots.len())?,
            slots,
        })
    }

    /// The hash code of each of `rows` rows of the key `columns` (in key order); `None` when a
    /// column is not of the expected Arrow type (the caller then takes the general path).
    pub(crate) fn hash_codes(&self, columns: &[&ArrayRef], rows: usize) -> Option<Vec<i32>> {
        if columns.len() != self.slots.len() || columns.iter().any(|c| c.len() != rows) {
            return None;
        }
        let mut buf = vec![0u8; rows.checked_mul(self.row_size)?];
        let fields = self.slots.iter().zip(&self.arrow_types).zip(columns);
        for (field, ((slot, expected), column)) in fields.enumerate() {
            if column.data_type() != expected {
                return None;
            }
            self.fill(&mut buf, field, *slot, column.as_ref())?;
        }
        Some(
            buf.chunks_exact(self.row_size)
                .map(|row| murmur3_32_words(row, DEFAULT_SEED))
                .collect(),
        )
    }

    /// Writes field `field` of every row into `buf` (zeroed): its slot, or its null bit.
    fn fill(&self, buf: &mut [u8], field: usize, slot: Slot, column: &dyn Array) -> Option<()> {
        let at = self.null_bits + 8 * field;
        match slot {
            Slot::Boolean => {
                let values = column.as_boolean_opt()?;
                self.fill_with(buf, field, column, at, |i, dst| {
                    dst[0] = u8::from(values.value(i));
                })
            }
            Slot::TinyInt => {
                self.fill_primitive::<Int8Type, 1>(buf, field, column, at, |v| v.to_le_bytes())
            }
            Slot::SmallInt => {
                self.fill_primitive::<Int16Type, 2>(buf, field, column, at, |v| v.to_le_bytes())
            }
            Slot::Int => {
                self.fill_primitive::<Int32Type, 4>(buf, field, column, at, |v| v.to_le_bytes())
            }
            Slot::Date => {
                self.fill_primitive::<Date32Type, 4>(buf, field, column, at, |v| v.to_le_bytes())
            }
            Slot::BigInt => {
                self.fill_primitive::<Int64Type, 8>(buf, field, column, at, |v| v.to_le_bytes())
            }
            Slot::Float => self.fill_primitive::<Float32Type, 4>(buf, field, column, at, |v| {
                v.to_bits().to_le_bytes()
            }),
            Slot::Double => self.fill_primitive::<Float64Type, 8>(buf, field, column, at, |v| {
                v.to_bits().to_le_bytes()
            }),
        }
    }

    fn fill_primitive<T: ArrowPrimitiveType, const N: usize>(
        &self,
        buf: &mut [u8],
        field: usize,
        column: &dyn Array,
        at: usize,
        bytes: impl Fn(T::Native) -> [u8; N],
    ) -> Option<()> {
        let values = column.as_primitive_opt::<T>()?.values();
        self.fill_with(buf, field, column, at, |i, dst| {
            dst[..N].copy_from_slice(&bytes(values[i]));
        })
    }

    /// Calls `write(row, slot)` for every non-null row; sets the null bit of the others.
    fn fill_with(
        &self,
        buf: &mut [u8],
        field: usize,
        column: &dyn Array,
        at: usize,
        write: impl Fn(usize, &mut [u8; 8]),
    ) -> Option<()> {
        let bit = field + 8;
        let nulls = column.logical_nulls();
        for (i, row) in buf.chunks_exact_mut(self.row_size).enumerate() {
            if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
                *row.get_mut(bit >> 3)? |= 1u8 << (bit & 7);
                continue;
            }
            let dst: &mut [u8; 8] = row.get_mut(at..at + 8)?.try_into().ok()?;
            write(i, dst);
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::binary_row::writer::encode_into;
    use crate::spec::binary_row::BinaryRow;
    use crate::spec::types::DataType;
    use crate::write::datum::datum_at;
    use arrow_array::{
        BooleanArray, Date32Array, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array,
        Int8Array, StringArray,
    };
    use std::sync::Arc;

    fn t(s: &str) -> DataType {
        crate::spec::type_text::parse_type(s).unwrap()
    }

    /// The general path: one `Datum` row encoded and hashed per row.
    fn general(columns: &[&ArrayRef], types: &[DataType], rows: usize) -> Vec<i32> {
        let mut key = BinaryRow::empty();
        (0..rows)
            .map(|row| {
                let values: Vec<_> = columns
                    .iter()
                    .zip(types)
                    .map(|(c, t)| datum_at(c.as_ref(), row, t).unwrap())
                    .collect();
                encode_into(&values, types, &mut key).unwrap();
                key.hash_code()
            })
            .collect()
    }

    /// A deterministic column of `kind` with values spread over the type's range (NaN, ±0.0
    /// and infinities among the floats) and every third row null when `nulls`.
    fn column(kind: &str, rows: usize, seed: u64, nulls: bool) -> ArrayRef {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let valid: Vec<bool> = (0..rows).map(|i| !nulls || i % 3 != 1).collect();
        let raw: Vec<u64> = (0..rows).map(|_| next()).collect();
        let pick = |i: usize| valid[i].then_some(raw[i]);
        let specials = [f64::NAN, 0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY];
        let float = |i: usize, v: u64| match i % 7 {
            k @ 0..=4 => specials[k],
            _ => (v as i64) as f64 / 1e6,
        };
        match kind {
            "BOOLEAN" => Arc::new(
                (0..rows)
                    .map(|i| pick(i).map(|v| v & 1 == 1))
                    .collect::<BooleanArray>(),
            ),
            "TINYINT" => Arc::new(
                (0..rows)
                    .map(|i| pick(i).map(|v| v as i8))
                    .collect::<Int8Array>(),
            ),
            "SMALLINT" => Arc::new(
                (0..rows)
                    .map(|i| pick(i).map(|v| v as i16))
                    .collect::<Int16Array>(),
            ),
            "INT" => Arc::new(
                (0..rows)
                    .map(|i| pick(i).map(|v| v as i32))
                    .collect::<Int32Array>(),
            ),
            "DATE" => Arc::new(
                (0..rows)
                    .map(|i| pick(i).map(|v| (v % 100_000) as i32 - 50_000))
                    .collect::<Date32Array>(),
            ),
            "BIGINT" => Arc::new(
                (0..rows)
                    .map(|i| pick(i).map(|v| v as i64))
                    .collect::<Int64Array>(),
            ),
            "FLOAT" => Arc::new(
                (0..rows)
                    .map(|i| pick(i).map(|v| float(i, v) as f32))
                    .collect::<Float32Array>(),
            ),
            _ => Arc::new(
                (0..rows)
                    .map(|i| pick(i).map(|v| float(i, v)))
                    .collect::<Float64Array>(),
            ),
        }
    }

    const KINDS: [&str; 8] = [
        "BOOLEAN", "TINYINT", "SMALLINT", "INT", "DATE", "BIGINT", "FLOAT", "DOUBLE",
    ];

    #[test]
    fn hash_codes_equal_the_row_by_row_encoding() {
        let rows = 300;
        // Every type alone, with and without nulls.
        for (k, kind) in KINDS.iter().enumerate() {
            for nulls in [false, true] {
                let c = column(kind, rows, k as u64 + 1, nulls);
                let types = vec![t(kind)];
                let hasher = FixedWidthKey::new(&types).unwrap();
                assert_eq!(
                    hasher.hash_codes(&[&c], rows).unwrap(),
                    general(&[&c], &types, rows),
                    "{kind} nulls={nulls}"
                );
            }
        }
        // Multi-field keys, including one of 57 fields (a second word of null bits).
        for arity in [2usize, 3, 8, 57] {
            let kinds: Vec<&str> = (0..arity).map(|i| KINDS[(i * 5 + arity) % 8]).collect();
            let cols: Vec<ArrayRef> = kinds
                .iter()
                .enumerate()
                .map(|(i, k)| column(k, rows, (arity * 100 + i) as u64, i % 2 == 0))
                .collect();
            let refs: Vec<&ArrayRef> = cols.iter().collect();
            let types: Vec<DataType> = kinds.iter().map(|k| t(k)).collect();
            let hasher = FixedWidthKey::new(&types).unwrap();
            assert_eq!(
                hasher.hash_codes(&refs, rows).unwrap(),
                general(&refs, &types, rows),
                "{kinds:?}"
            );
        }
    }

    #[test]
    fn other_keys_and_unexpected_arrays_take_the_general_path() {
        assert!(FixedWidthKey::new(&[t("STRING")]).is_none());
        assert!(FixedWidthKey::new(&[t("BIGINT"), t("DECIMAL(10, 2)")]).is_none());
        assert!(FixedWidthKey::new(&[t("TIMESTAMP(3)")]).is_none());
        assert!(FixedWidthKey::new(&[]).is_none());
        let hasher = FixedWidthKey::new(&[t("BIGINT")]).unwrap();
        let strings: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        assert!(hasher.hash_codes(&[&strings], 1).is_none());
        let ints: ArrayRef = Arc::new(Int32Array::from(vec![1]));
        assert!(hasher.hash_codes(&[&ints], 1).is_none());
        // Wrong row count or arity.
        let longs: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
        assert!(hasher.hash_codes(&[&longs], 3).is_none());
        assert!(hasher.hash_codes(&[&longs, &longs], 2).is_none());
    }

    /// Java-verified hash codes (paimon-cpp's default bucket function test): the fast path
    /// gives the same numbers as the golden single-field rows.
    #[test]
    fn hash_codes_match_java_goldens() {
        let floats: ArrayRef = Arc::new(Float32Array::from(vec![
            f32::from_bits(0x7fc0_0000),
            f32::INFINITY,
            0.0,
            -0.0,
        ]));
        let hasher = FixedWidthKey::new(&[t("FLOAT")]).unwrap();
        assert_eq!(
            hasher.hash_codes(&[&floats], 4).unwrap(),
            vec![-2_039_172_089, 2_139_216_202, -300_363_099, 916_225_219]
        );
    }
}

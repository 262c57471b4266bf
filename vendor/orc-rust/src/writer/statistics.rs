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

//! Column statistics for the footer (whole file) and the Metadata section (per stripe):
//! number of (non-null) values and whether the column has nulls for every column; minimum,
//! maximum and sum for DECIMAL columns; minimum, maximum and total number of children for LIST
//! and MAP columns. The file's statistics are the merge of the stripes' (as ORC Java's
//! `WriterImpl` merges each stripe's into the file's).

use arrow::{
    array::{Array, ArrayRef, AsArray},
    datatypes::{DataType as ArrowDataType, Decimal128Type},
};

use crate::{error::Result, memory::EstimateMemory, proto};

use super::{column::ColumnStripeEncoder, ColumnEncoding, Stream};

/// Largest unscaled decimal sum that still fits ORC's 38 digits.
const MAX_DECIMAL_SUM: i128 = 10_i128.pow(38) - 1;

#[derive(Default)]
struct DecimalStatistics {
    min: Option<i128>,
    max: Option<i128>,
    /// `None` once the sum no longer fits 38 digits (readers then see no sum).
    sum: Option<i128>,
}

#[derive(Default)]
struct CollectionStatistics {
    min: Option<u64>,
    max: Option<u64>,
    total: u64,
}

/// The statistics of one column over some rows (one stripe, or the whole file).
#[derive(Default)]
struct Statistics {
    number_of_values: u64,
    has_null: bool,
    /// DECIMAL columns.
    decimal: Option<DecimalStatistics>,
    /// LIST and MAP columns.
    collection: Option<CollectionStatistics>,
}

impl Statistics {
    fn new(data_type: &ArrowDataType) -> Self {
        let decimal =
            matches!(data_type, ArrowDataType::Decimal128(_, _)).then(|| DecimalStatistics {
                sum: Some(0),
                ..Default::default()
            });
        let collection = matches!(
            data_type,
            ArrowDataType::List(_) | ArrowDataType::LargeList(_) | ArrowDataType::Map(_, _)
        )
        .then(CollectionStatistics::default);
        Self {
            decimal,
            collection,
            ..Default::default()
        }
    }

    fn update(&mut self, array: &ArrayRef) {
        self.number_of_values += (array.len() - array.null_count()) as u64;
        self.has_null |= array.null_count() > 0;
        if let Some(stats) = self.decimal.as_mut() {
            update_decimal(stats, array);
        }
        if let Some(stats) = self.collection.as_mut() {
            update_collection(stats, array);
        }
    }

    /// Adds the statistics of other rows (ORC Java's `ColumnStatisticsImpl#merge`).
    fn merge(&mut self, other: &Statistics) {
        self.number_of_values += other.number_of_values;
        self.has_null |= other.has_null;
        if let (Some(a), Some(b)) = (self.decimal.as_mut(), other.decimal.as_ref()) {
            a.min = min_of(a.min, b.min);
            a.max = max_of(a.max, b.max);
            a.sum = match (a.sum, b.sum) {
                (Some(x), Some(y)) => x
                    .checked_add(y)
                    .filter(|s| s.unsigned_abs() <= MAX_DECIMAL_SUM as u128),
                _ => None,
            };
        }
        if let (Some(a), Some(b)) = (self.collection.as_mut(), other.collection.as_ref()) {
            a.min = min_of(a.min, b.min);
            a.max = max_of(a.max, b.max);
            a.total += b.total;
        }
    }

    fn to_proto(&self, scale: Option<i8>) -> proto::ColumnStatistics {
        let decimal_statistics = self.decimal.as_ref().zip(scale).and_then(|(stats, scale)| {
            let (min, max) = (stats.min?, stats.max?);
            Some(proto::DecimalStatistics {
                minimum: Some(decimal_string(min, scale)),
                maximum: Some(decimal_string(max, scale)),
                sum: stats.sum.map(|sum| decimal_string(sum, scale)),
            })
        });
        let collection_statistics = self.collection.as_ref().and_then(|stats| {
            Some(proto::CollectionStatistics {
                min_children: Some(stats.min?),
                max_children: Some(stats.max?),
                total_children: Some(stats.total),
            })
        });
        proto::ColumnStatistics {
            number_of_values: Some(self.number_of_values),
            has_null: Some(self.has_null),
            decimal_statistics,
            collection_statistics,
            ..Default::default()
        }
    }
}

fn min_of<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_of<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn update_decimal(stats: &mut DecimalStatistics, array: &ArrayRef) {
    for value in array.as_primitive::<Decimal128Type>().iter().flatten() {
        stats.min = Some(stats.min.map_or(value, |m| m.min(value)));
        stats.max = Some(stats.max.map_or(value, |m| m.max(value)));
        stats.sum = stats
            .sum
            .and_then(|s| s.checked_add(value))
            .filter(|s| s.unsigned_abs() <= MAX_DECIMAL_SUM as u128);
    }
}

fn update_collection(stats: &mut CollectionStatistics, array: &ArrayRef) {
    let lengths: Box<dyn Iterator<Item = (usize, u64)>> = match array.data_type() {
        ArrowDataType::List(_) => Box::new(lengths(array.as_list::<i32>().value_offsets())),
        ArrowDataType::LargeList(_) => Box::new(lengths(array.as_list::<i64>().value_offsets())),
        ArrowDataType::Map(_, _) => Box::new(lengths(array.as_map().value_offsets())),
        _ => return,
    };
    for (index, length) in lengths {
        if array.is_valid(index) {
            stats.min = Some(stats.min.map_or(length, |m| m.min(length)));
            stats.max = Some(stats.max.map_or(length, |m| m.max(length)));
            stats.total += length;
        }
    }
}

/// Wraps a column encoder, collecting statistics of every array it encodes: per stripe (the
/// Metadata section's stripe statistics) and for the whole file (the footer's).
pub struct StatisticsEncoder {
    inner: Box<dyn ColumnStripeEncoder>,
    /// DECIMAL columns: the type's scale.
    scale: Option<i8>,
    /// The current stripe's rows.
    stripe: Statistics,
    /// The rows of every finished stripe.
    file: Statistics,
    /// The statistics of the last finished stripe.
    last_stripe: proto::ColumnStatistics,
    data_type: ArrowDataType,
}

impl StatisticsEncoder {
    pub fn new(data_type: &ArrowDataType, inner: Box<dyn ColumnStripeEncoder>) -> Self {
        let scale = match data_type {
            ArrowDataType::Decimal128(_, scale) => Some(*scale),
            _ => None,
        };
        Self {
            inner,
            scale,
            stripe: Statistics::new(data_type),
            file: Statistics::new(data_type),
            last_stripe: proto::ColumnStatistics::default(),
            data_type: data_type.clone(),
        }
    }
}

fn lengths<O: arrow::array::OffsetSizeTrait>(
    offsets: &[O],
) -> impl Iterator<Item = (usize, u64)> + '_ {
    offsets
        .windows(2)
        .map(|w| (w[1] - w[0]).as_usize() as u64)
        .enumerate()
}

/// A decimal's string form, e.g. `-12.50` for unscaled `-1250` at scale 2.
fn decimal_string(unscaled: i128, scale: i8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale <= 0 {
        let zeros = "0".repeat(scale.unsigned_abs() as usize);
        let digits = if unscaled == 0 { "0" } else { &digits };
        return format!("{sign}{digits}{zeros}");
    }
    let scale = scale as usize;
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = digits.split_at(digits.len() - scale);
    format!("{sign}{int}.{frac}")
}

impl EstimateMemory for StatisticsEncoder {
    fn estimate_memory_size(&self) -> usize {
        self.inner.estimate_memory_size()
    }
}

impl ColumnStripeEncoder for StatisticsEncoder {
    fn encode_array(&mut self, array: &ArrayRef) -> Result<()> {
        self.stripe.update(array);
        self.inner.encode_array(array)
    }

    fn column_encoding(&self) -> ColumnEncoding {
        self.inner.column_encoding()
    }

    /// Ends the stripe: its statistics become [`Self::stripe_statistics`] and are added to the
    /// file's.
    fn finish(&mut self) -> Vec<Stream> {
        let stripe = std::mem::replace(&mut self.stripe, Statistics::new(&self.data_type));
        self.last_stripe = stripe.to_proto(self.scale);
        self.file.merge(&stripe);
        self.inner.finish()
    }

    fn children(&self) -> &[Box<dyn ColumnStripeEncoder>] {
        self.inner.children()
    }

    fn children_mut(&mut self) -> &mut [Box<dyn ColumnStripeEncoder>] {
        self.inner.children_mut()
    }

    fn statistics(&self) -> proto::ColumnStatistics {
        self.file.to_proto(self.scale)
    }

    fn stripe_statistics(&self) -> proto::ColumnStatistics {
        self.last_stripe.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::decimal_string;

    #[test]
    fn test_decimal_string() {
        assert_eq!(decimal_string(-1250, 2), "-12.50");
        assert_eq!(decimal_string(5, 3), "0.005");
        assert_eq!(decimal_string(-5, 3), "-0.005");
        assert_eq!(decimal_string(0, 2), "0.00");
        assert_eq!(decimal_string(42, 0), "42");
        assert_eq!(decimal_string(42, -2), "4200");
        assert_eq!(
            decimal_string(-(10_i128.pow(38) - 1), 10),
            "-9999999999999999999999999999.9999999999"
        );
    }
}

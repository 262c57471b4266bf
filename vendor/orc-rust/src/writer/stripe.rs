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

use std::io::Write;

use arrow::array::RecordBatch;
use arrow::datatypes::{
    DataType as ArrowDataType, FieldRef, SchemaRef, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use prost::Message;
use snafu::ResultExt;

use crate::compression::Compressor;
use crate::error::{IoSnafu, Result};
use crate::memory::EstimateMemory;
use crate::proto;

use super::column::{
    BinaryColumnEncoder, BooleanColumnEncoder, ByteColumnEncoder, ColumnStripeEncoder,
    DateColumnEncoder, DecimalColumnEncoder, DoubleColumnEncoder, FloatColumnEncoder,
    Int16ColumnEncoder, Int32ColumnEncoder, Int64ColumnEncoder, LargeBinaryColumnEncoder,
    LargeStringColumnEncoder, StringColumnEncoder, TimestampColumnEncoder,
};
use super::compound::{ListColumnEncoder, MapColumnEncoder, StructColumnEncoder};
use super::field_metadata::{bounded_string, BoundedStringEncoder};
use super::statistics::StatisticsEncoder;
use super::{ColumnEncoding, Stream, StreamType};

#[derive(Copy, Clone, Eq, Debug, PartialEq)]
pub struct StripeInformation {
    pub start_offset: u64,
    pub index_length: u64,
    pub data_length: u64,
    pub footer_length: u64,
    pub row_count: usize,
}

impl StripeInformation {
    pub fn total_byte_size(&self) -> u64 {
        self.index_length + self.data_length + self.footer_length
    }
}

impl From<&StripeInformation> for proto::StripeInformation {
    fn from(value: &StripeInformation) -> Self {
        proto::StripeInformation {
            offset: Some(value.start_offset),
            index_length: Some(value.index_length),
            data_length: Some(value.data_length),
            footer_length: Some(value.footer_length),
            number_of_rows: Some(value.row_count as u64),
            encrypt_stripe_id: None,
            encrypted_local_keys: vec![],
        }
    }
}

/// Encode a stripe. Will encode columns into an in-memory buffer before flushing
/// entire stripe to the underlying writer.
pub struct StripeWriter<W> {
    writer: W,
    /// Flattened columns, in order of their column ID.
    columns: Vec<Box<dyn ColumnStripeEncoder>>,
    pub row_count: usize,
    compressor: Compressor,
    timezone: Option<String>,
    /// Column statistics of every finished stripe (the file's Metadata section).
    stripe_statistics: Vec<proto::StripeStatistics>,
}

impl<W> EstimateMemory for StripeWriter<W> {
    /// Used to estimate when stripe size is over threshold and should be flushed
    /// to the writer and a new stripe started.
    fn estimate_memory_size(&self) -> usize {
        self.columns.iter().map(|c| c.estimate_memory_size()).sum()
    }
}

impl<W: Write> StripeWriter<W> {
    pub fn new(
        writer: W,
        schema: &SchemaRef,
        compressor: Compressor,
        timezone: Option<String>,
    ) -> Self {
        let columns = schema.fields().iter().map(create_encoder).collect();
        Self {
            writer,
            columns,
            row_count: 0,
            compressor,
            timezone,
            stripe_statistics: vec![],
        }
    }

    /// Attempt to encode entire [`RecordBatch`]. Relies on caller slicing the batch
    /// to required batch size.
    pub fn encode_batch(&mut self, batch: &RecordBatch) -> Result<()> {
        // TODO: consider how to handle nested types (including parent nullability)
        for (array, encoder) in batch.columns().iter().zip(self.columns.iter_mut()) {
            encoder.encode_array(array)?;
        }
        self.row_count += batch.num_rows();
        Ok(())
    }

    /// Flush streams to the writer, and write the stripe footer to finish
    /// the stripe. After this, the [`StripeWriter`] will be reset and ready
    /// to write a fresh new stripe.
    ///
    /// `start_offset` is used to manually keep track of position in the writer (instead
    /// of relying on Seek).
    pub fn finish_stripe(&mut self, start_offset: u64) -> Result<StripeInformation> {
        // Order of column_encodings needs to match final type vec order.
        // (see arrow_writer::serialize_schema())
        // Direct encoding to represent root struct
        let mut column_encodings = vec![ColumnEncoding::Direct];
        // Root type won't have any streams
        let mut column_streams = vec![];
        for c in self.columns.iter_mut() {
            finish_column(c.as_mut(), &mut column_encodings, &mut column_streams);
        }
        let root = proto::ColumnStatistics {
            number_of_values: Some(self.row_count as u64),
            has_null: Some(false),
            ..Default::default()
        };
        let col_stats = collect_statistics(&self.columns, root, |c| c.stripe_statistics());
        self.stripe_statistics
            .push(proto::StripeStatistics { col_stats });
        let column_encodings = column_encodings.iter().map(From::from).collect();

        let mut written_streams = vec![];
        let mut data_length = 0;
        for (column, s) in column_streams {
            // Flush the streams to the writer
            let (kind, bytes) = s.into_parts();
            let bytes = self.compressor.compress(&bytes)?;
            let length = bytes.len();
            self.writer.write_all(&bytes).context(IoSnafu)?;
            data_length += length as u64;
            written_streams.push(WrittenStream {
                kind,
                column,
                length,
            });
        }
        let streams = written_streams.iter().map(From::from).collect();
        let stripe_footer = proto::StripeFooter {
            streams,
            columns: column_encodings,
            writer_timezone: self.timezone.clone(),
            encryption: vec![],
        };

        let footer_bytes = stripe_footer.encode_to_vec();
        let footer_bytes = self.compressor.compress(&footer_bytes)?;
        let footer_length = footer_bytes.len() as u64;
        let row_count = self.row_count;
        self.writer.write_all(&footer_bytes).context(IoSnafu)?;

        // Reset state for next stripe
        self.row_count = 0;

        Ok(StripeInformation {
            start_offset,
            index_length: 0,
            data_length,
            footer_length,
            row_count,
        })
    }

    /// Footer statistics of every column in column ID order, the root struct first
    /// (`number_of_rows` values, never null).
    pub fn column_statistics(&self, number_of_rows: u64) -> Vec<proto::ColumnStatistics> {
        let root = proto::ColumnStatistics {
            number_of_values: Some(number_of_rows),
            has_null: Some(false),
            ..Default::default()
        };
        collect_statistics(&self.columns, root, |c| c.statistics())
    }

    /// The column statistics of every finished stripe, in stripe order (the file's Metadata
    /// section), each in column ID order with the root struct first.
    pub fn stripe_statistics(&self) -> &[proto::StripeStatistics] {
        &self.stripe_statistics
    }

    /// When finished writing all stripes, return the inner writer.
    pub fn finish(self) -> (W, Compressor) {
        (self.writer, self.compressor)
    }
}

/// `root` followed by `get` of every column in column ID order (pre-order).
fn collect_statistics(
    columns: &[Box<dyn ColumnStripeEncoder>],
    root: proto::ColumnStatistics,
    get: impl Fn(&dyn ColumnStripeEncoder) -> proto::ColumnStatistics + Copy,
) -> Vec<proto::ColumnStatistics> {
    fn collect(
        c: &dyn ColumnStripeEncoder,
        get: impl Fn(&dyn ColumnStripeEncoder) -> proto::ColumnStatistics + Copy,
        out: &mut Vec<proto::ColumnStatistics>,
    ) {
        out.push(get(c));
        for child in c.children() {
            collect(child.as_ref(), get, out);
        }
    }
    let mut out = vec![root];
    for c in columns {
        collect(c.as_ref(), get, &mut out);
    }
    out
}

/// Emits the streams of `encoder` and its children (column IDs in pre-order, continuing from
/// `encodings.len()`), with their encodings.
fn finish_column(
    encoder: &mut dyn ColumnStripeEncoder,
    encodings: &mut Vec<ColumnEncoding>,
    streams: &mut Vec<(usize, Stream)>,
) {
    let column = encodings.len();
    encodings.push(encoder.column_encoding());
    streams.extend(encoder.finish().into_iter().map(|s| (column, s)));
    for child in encoder.children_mut() {
        finish_column(child.as_mut(), encodings, streams);
    }
}

/// The encoder of a column (and of its children), collecting its footer statistics.
pub(crate) fn create_encoder(field: &FieldRef) -> Box<dyn ColumnStripeEncoder> {
    Box::new(StatisticsEncoder::new(
        field.data_type(),
        create_column_encoder(field),
    ))
}

fn create_column_encoder(field: &FieldRef) -> Box<dyn ColumnStripeEncoder> {
    let encoder = create_type_encoder(field);
    // An invalid `ORC:type` fails `ArrowWriterBuilder::try_build` (the schema is serialized
    // there) before any encoder is created.
    match bounded_string(field).ok().flatten() {
        Some(t) => Box::new(BoundedStringEncoder::new(encoder, t)),
        None => encoder,
    }
}

fn create_type_encoder(field: &FieldRef) -> Box<dyn ColumnStripeEncoder> {
    match field.data_type() {
        ArrowDataType::Float32 => Box::new(FloatColumnEncoder::new(ColumnEncoding::Direct)),
        ArrowDataType::Float64 => Box::new(DoubleColumnEncoder::new(ColumnEncoding::Direct)),
        ArrowDataType::Int8 => Box::new(ByteColumnEncoder::new(ColumnEncoding::Direct)),
        ArrowDataType::Int16 => Box::new(Int16ColumnEncoder::new(ColumnEncoding::DirectV2)),
        ArrowDataType::Int32 => Box::new(Int32ColumnEncoder::new(ColumnEncoding::DirectV2)),
        ArrowDataType::Int64 => Box::new(Int64ColumnEncoder::new(ColumnEncoding::DirectV2)),
        ArrowDataType::Date32 => Box::new(DateColumnEncoder::new(ColumnEncoding::DirectV2)),
        // TODO: Support non-UTC Arrow timestamp timezones. ORC TIMESTAMP_INSTANT
        // does not preserve the original Arrow timezone metadata.
        ArrowDataType::Timestamp(TimeUnit::Second, timezone)
            if matches!(timezone.as_deref(), None | Some("UTC")) =>
        {
            Box::new(TimestampColumnEncoder::<TimestampSecondType>::new())
        }
        ArrowDataType::Timestamp(TimeUnit::Millisecond, timezone)
            if matches!(timezone.as_deref(), None | Some("UTC")) =>
        {
            Box::new(TimestampColumnEncoder::<TimestampMillisecondType>::new())
        }
        ArrowDataType::Timestamp(TimeUnit::Microsecond, timezone)
            if matches!(timezone.as_deref(), None | Some("UTC")) =>
        {
            Box::new(TimestampColumnEncoder::<TimestampMicrosecondType>::new())
        }
        ArrowDataType::Timestamp(TimeUnit::Nanosecond, timezone)
            if matches!(timezone.as_deref(), None | Some("UTC")) =>
        {
            Box::new(TimestampColumnEncoder::<TimestampNanosecondType>::new())
        }
        ArrowDataType::Utf8 => Box::new(StringColumnEncoder::new()),
        ArrowDataType::LargeUtf8 => Box::new(LargeStringColumnEncoder::new()),
        ArrowDataType::Binary => Box::new(BinaryColumnEncoder::new()),
        ArrowDataType::LargeBinary => Box::new(LargeBinaryColumnEncoder::new()),
        ArrowDataType::Boolean => Box::new(BooleanColumnEncoder::new()),
        ArrowDataType::Decimal128(_, scale) => Box::new(DecimalColumnEncoder::new(*scale)),
        ArrowDataType::Struct(fields) => Box::new(StructColumnEncoder::new(fields)),
        ArrowDataType::List(element) => Box::new(ListColumnEncoder::<i32>::new(element)),
        ArrowDataType::LargeList(element) => Box::new(ListColumnEncoder::<i64>::new(element)),
        ArrowDataType::Map(entries, _) => match entries.data_type() {
            ArrowDataType::Struct(kv) if kv.len() == 2 => {
                Box::new(MapColumnEncoder::new(&kv[0], &kv[1]))
            }
            _ => unimplemented!("map entries must be a struct of key and value"),
        },
        // TODO: support more datatypes
        _ => unimplemented!("unsupported datatype"),
    }
}

#[derive(Copy, Clone, Debug, Eq, PartialEq)]
struct WrittenStream {
    kind: StreamType,
    column: usize,
    length: usize,
}

impl From<&WrittenStream> for proto::Stream {
    fn from(value: &WrittenStream) -> Self {
        let kind = proto::stream::Kind::from(value.kind);
        proto::Stream {
            kind: Some(kind.into()),
            column: Some(value.column as u32),
            length: Some(value.length as u64),
        }
    }
}

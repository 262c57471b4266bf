//! DataFusion extension codecs for Paimon scans (feature `proto`): plans holding Paimon tables
//! or scan nodes can be serialised with `datafusion-proto` and shipped to other processes, as
//! Ballista does (client → scheduler: logical plan; scheduler → executors: physical plans).
//!
//! - [`PaimonLogicalCodec`] encodes a [`PaimonTableProvider`] as a [`TableWire`] (location,
//!   name, schema JSON) and decodes it as a [`RemoteTableProvider`], which plans on the
//!   decoding side (the scheduler) with that side's session options.
//!   System tables ([`SystemTable`]) travel as a [`SystemWire`] and are rebuilt on the
//!   decoding side when scanned ([`RemoteSystemTable`]).
//! - [`PaimonPhysicalCodec`] encodes a [`PaimonScanExec`] as its [`ReadWire`], description and
//!   output; its child (the split rows) is encoded by DataFusion itself, so a narrowed child
//!   ships only its own splits. Decoded nodes open the table on first execution. The audit
//!   log's row-kind node travels too (in-memory system tables are DataFusion's own nodes), and
//!   an `INSERT`'s `DataSinkExec` over a [`PaimonSink`] as its [`SinkWire`] (table, operation,
//!   commit identity) and input schema: the sink runs where the task runs, committing as the
//!   identity fixed at planning.
//!
//! Both wrap another codec (Ballista's, or DataFusion's default) and delegate every node they
//! do not own. Their bytes start with a 4-byte tag and a JSON body; no credentials are shipped:
//! each process builds its [`FileIO`] from its own storage options.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::common::{internal_err, DataFusionError, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, Extension, LogicalPlan, ScalarUDF, WindowUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalProtoConverterExtension,
};
use paimon_core::FileIO;
use serde::{Deserialize, Serialize};

use crate::audit::RowKindExec;
use crate::remote_table::{RemoteTableProvider, TableWire};
use crate::scan::{PaimonScanExec, ScanDescription, ScanOutput};
use crate::sink::{PaimonSink, SinkWire};
use crate::system::shipped::{RemoteSystemTable, SystemTable, SystemWire};
use crate::table::PaimonTableProvider;
use crate::wire::ReadWire;

/// Tag of an encoded table provider (version 1).
const TABLE_TAG: &[u8; 4] = b"PMT1";
/// Tag of an encoded scan node (version 1).
const SCAN_TAG: &[u8; 4] = b"PMS1";
/// Tag of an encoded system table (version 1).
const SYSTEM_TAG: &[u8; 4] = b"PMY1";
/// Tag of an encoded audit-log row-kind node (version 1).
const ROW_KIND_TAG: &[u8; 4] = b"PMK1";
/// Tag of an encoded `DataSinkExec` over a [`PaimonSink`] (version 1).
const SINK_TAG: &[u8; 4] = b"PMW1";

/// The body of an encoded `DataSinkExec(PaimonSink)` (its input travels as a node).
#[derive(Debug, Serialize, Deserialize)]
struct SinkExecWire {
    sink: SinkWire,
    /// The schema of the batches the sink takes.
    schema: Schema,
}

/// The body of an encoded [`RowKindExec`] (its child, the scan, travels as a node).
#[derive(Debug, Serialize, Deserialize)]
struct RowKindWire {
    schema: Schema,
    layout: Vec<Option<usize>>,
    from_kind: bool,
}

/// The body of an encoded [`PaimonScanExec`].
#[derive(Debug, Serialize, Deserialize)]
struct ScanWire {
    description: ScanDescription,
    read: ReadWire,
    schema: Schema,
    drop_columns: bool,
    exact_rows: bool,
}

fn encode_tagged<T: Serialize>(tag: &[u8; 4], body: &T, buf: &mut Vec<u8>) -> Result<()> {
    buf.extend_from_slice(tag);
    serde_json::to_writer(buf, body)
        .map_err(|e| DataFusionError::Internal(format!("cannot encode a paimon node: {e}")))
}

fn decode_tagged<T: for<'de> Deserialize<'de>>(buf: &[u8], what: &str) -> Result<T> {
    serde_json::from_slice(buf.get(4..).unwrap_or_default()).map_err(|e| {
        DataFusionError::Internal(format!(
            "cannot decode a paimon {what} (codec versions differ?): {e}"
        ))
    })
}

/// The physical codec (see the module doc).
#[derive(Debug, Clone)]
pub struct PaimonPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
    io: FileIO,
}

impl Default for PaimonPhysicalCodec {
    fn default() -> Self {
        Self::new(Arc::new(DefaultPhysicalExtensionCodec {}), HashMap::new())
    }
}

impl PaimonPhysicalCodec {
    /// A codec delegating foreign nodes to `inner`; decoded scans read through a [`FileIO`]
    /// with this process's `storage_options` (shared by every node it decodes).
    pub fn new(
        inner: Arc<dyn PhysicalExtensionCodec>,
        storage_options: HashMap<String, String>,
    ) -> Self {
        PaimonPhysicalCodec {
            inner,
            io: FileIO::new(storage_options),
        }
    }
}

impl PhysicalExtensionCodec for PaimonPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if buf.starts_with(ROW_KIND_TAG) {
            let wire: RowKindWire = decode_tagged(buf, "audit log node")?;
            let [input] = inputs else {
                return internal_err!("a PaimonRowKindExec needs one input, got {}", inputs.len());
            };
            let node = RowKindExec::new(
                input.clone(),
                SchemaRef::new(wire.schema),
                wire.layout,
                wire.from_kind,
            );
            return Ok(Arc::new(node));
        }
        if buf.starts_with(SINK_TAG) {
            let wire: SinkExecWire = decode_tagged(buf, "sink node")?;
            let [input] = inputs else {
                return internal_err!(
                    "a PaimonSink of {} needs one input, got {}",
                    wire.sink.name,
                    inputs.len()
                );
            };
            let sink =
                PaimonSink::from_wire(wire.sink, SchemaRef::new(wire.schema), self.io.clone());
            return Ok(Arc::new(DataSinkExec::new(
                input.clone(),
                Arc::new(sink),
                None,
            )));
        }
        if !buf.starts_with(SCAN_TAG) {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        }
        let wire: ScanWire = decode_tagged(buf, "scan node")?;
        let [input] = inputs else {
            return internal_err!(
                "a PaimonScanExec of {} needs one input, got {}",
                wire.read.name,
                inputs.len()
            );
        };
        let output = ScanOutput {
            schema: SchemaRef::new(wire.schema),
            drop_columns: wire.drop_columns,
            exact_rows: wire.exact_rows,
            // Executors need no statistics; the planning side computed them.
            columns: Vec::new(),
        };
        let node = PaimonScanExec::from_wire(
            wire.description,
            wire.read,
            self.io.clone(),
            input.clone(),
            output,
        )?;
        Ok(Arc::new(node))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        if let Some(kinds) = node.downcast_ref::<RowKindExec>() {
            let (schema, layout, from_kind) = kinds.parts();
            let wire = RowKindWire {
                schema: schema.as_ref().clone(),
                layout: layout.to_vec(),
                from_kind,
            };
            return encode_tagged(ROW_KIND_TAG, &wire, buf);
        }
        if let Some(sink) = node
            .downcast_ref::<DataSinkExec>()
            .and_then(|exec| exec.sink().downcast_ref::<PaimonSink>())
        {
            let wire = SinkExecWire {
                sink: sink.wire().clone(),
                schema: DataSink::schema(sink).as_ref().clone(),
            };
            return encode_tagged(SINK_TAG, &wire, buf);
        }
        let Some(scan) = node.downcast_ref::<PaimonScanExec>() else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let output = scan.output();
        let wire = ScanWire {
            description: scan.description().clone(),
            read: scan.wire().clone(),
            schema: output.schema.as_ref().clone(),
            drop_columns: output.drop_columns,
            exact_rows: output.exact_rows,
        };
        encode_tagged(SCAN_TAG, &wire, buf)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

/// The logical codec (see the module doc).
#[derive(Debug, Clone)]
pub struct PaimonLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
    io: FileIO,
}

impl Default for PaimonLogicalCodec {
    fn default() -> Self {
        Self::new(Arc::new(DefaultLogicalExtensionCodec {}), HashMap::new())
    }
}

impl PaimonLogicalCodec {
    /// A codec delegating foreign nodes and providers to `inner`; decoded tables are opened
    /// through a [`FileIO`] with this process's `storage_options`.
    pub fn new(
        inner: Arc<dyn LogicalExtensionCodec>,
        storage_options: HashMap<String, String>,
    ) -> Self {
        PaimonLogicalCodec {
            inner,
            io: FileIO::new(storage_options),
        }
    }
}

impl LogicalExtensionCodec for PaimonLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        if buf.starts_with(SYSTEM_TAG) {
            let wire: SystemWire = decode_tagged(buf, "system table")?;
            return Ok(Arc::new(RemoteSystemTable::try_new(wire, self.io.clone())?));
        }
        if !buf.starts_with(TABLE_TAG) {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        }
        let wire: TableWire = decode_tagged(buf, "table")?;
        let provider = RemoteTableProvider::try_new(wire, self.io.clone())?;
        Ok(Arc::new(provider))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let wire = if let Some(p) = node.downcast_ref::<PaimonTableProvider>() {
            TableWire::of(p)?
        } else if let Some(p) = node.downcast_ref::<RemoteTableProvider>() {
            p.wire().clone()
        } else if let Some(p) = node.downcast_ref::<SystemTable>() {
            return encode_tagged(SYSTEM_TAG, &p.wire()?, buf);
        } else if let Some(p) = node.downcast_ref::<RemoteSystemTable>() {
            return encode_tagged(SYSTEM_TAG, p.wire(), buf);
        } else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        encode_tagged(TABLE_TAG, &wire, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

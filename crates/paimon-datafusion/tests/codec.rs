//! Round trips through the extension codecs (feature `proto`): a plan encoded, decoded and
//! executed returns the rows of the plan before encoding, on Java fixture tables; a scan
//! narrowed to some of its partitions (as Ballista narrows a task's plan) reads only those
//! partitions' splits.

use std::path::PathBuf;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_plan::{
    collect, collect_partitioned, replace_children_if_necessary, ExecutionPlan,
};
use datafusion::prelude::SessionContext;
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{DefaultPhysicalProtoConverter, PhysicalExtensionCodec};
use paimon_datafusion::{PaimonLogicalCodec, PaimonPhysicalCodec, PaimonScanExec};

fn warehouse() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/java/parquet");
    assert!(p.is_dir(), "fixtures missing at {}", p.display());
    p.to_str().unwrap().to_string()
}

async fn ctx() -> SessionContext {
    let config = paimon_datafusion::session_config().with_target_partitions(4);
    let ctx = SessionContext::new_with_config(config);
    paimon_datafusion::register_warehouse(&ctx, "paimon", &warehouse())
        .await
        .unwrap();
    ctx
}

fn render(batches: &[RecordBatch]) -> Vec<String> {
    let options = FormatOptions::default().with_null("null");
    let mut rows = Vec::new();
    for b in batches {
        let formatters: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            let cells: Vec<String> = formatters.iter().map(|f| f.value(i).to_string()).collect();
            rows.push(cells.join(", "));
        }
    }
    rows.sort();
    rows
}

const QUERIES: &[&str] = &[
    "SELECT * FROM paimon.append_09.append_09",
    "SELECT f0, f2 FROM paimon.append_09.append_09 WHERE f1 = 10",
    "SELECT count(*) FROM paimon.append_09.append_09 WHERE f2 > 0",
    "SELECT * FROM paimon.pk_09.pk_09",
    "SELECT * FROM paimon.pk_table_scan_and_read_dv.pk_table_scan_and_read_dv",
    "SELECT count(*) FROM paimon.pk_table_scan_and_read_mor.pk_table_scan_and_read_mor",
    "SELECT * FROM paimon.append_table_with_alter_table.append_table_with_alter_table",
];

fn find_scan(plan: &Arc<dyn ExecutionPlan>) -> Option<Arc<dyn ExecutionPlan>> {
    if plan.is::<PaimonScanExec>() {
        return Some(plan.clone());
    }
    plan.children().into_iter().find_map(find_scan)
}

/// Physical plans: encode → decode → execute gives the same rows; the decoded scan is a
/// `PaimonScanExec` again with the same splits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn physical_round_trip_reads_the_same_rows() {
    let ctx = ctx().await;
    let codec = PaimonPhysicalCodec::default();
    for q in QUERIES {
        let plan = ctx
            .sql(q)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let want = render(&collect(plan.clone(), ctx.task_ctx()).await.unwrap());
        let bytes = physical_plan_to_bytes_with_extension_codec(plan.clone(), &codec).unwrap();
        let decoded =
            physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec).unwrap();
        let (before, after) = (find_scan(&plan).unwrap(), find_scan(&decoded).unwrap());
        let (before, after) = (
            before.downcast_ref::<PaimonScanExec>().unwrap(),
            after.downcast_ref::<PaimonScanExec>().unwrap(),
        );
        assert_eq!(before.groups().unwrap(), after.groups().unwrap(), "{q}");
        assert_eq!(before.wire(), after.wire(), "{q}");
        let got = render(&collect(decoded, ctx.task_ctx()).await.unwrap());
        assert_eq!(got, want, "{q}");
        assert!(!want.is_empty(), "{q}");
    }
}

/// Logical plans: the provider travels as location + schema and is rebuilt lazily; the
/// decoded plan plans with the executing session's `paimon.*` options (time travel).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logical_round_trip_plans_on_the_decoding_side() {
    let ctx = ctx().await;
    let codec = PaimonLogicalCodec::default();
    for q in QUERIES {
        let df = ctx.sql(q).await.unwrap();
        let plan = df.logical_plan().clone();
        let want = render(&df.collect().await.unwrap());
        let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &codec).unwrap();
        let decoded =
            logical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec).unwrap();
        let got = ctx.execute_logical_plan(decoded).await.unwrap();
        assert_eq!(render(&got.collect().await.unwrap()), want, "{q}");
    }
    // Encoded at the latest snapshot, executed with snapshot 1 set on the decoding side.
    let t = "pk_table_scan_and_read_dv";
    let q = format!("SELECT * FROM paimon.{t}.{t}");
    let plan = ctx.sql(&q).await.unwrap().logical_plan().clone();
    let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &codec).unwrap();
    ctx.sql("SET paimon.scan_snapshot_id = 1").await.unwrap();
    let want = render(&ctx.sql(&q).await.unwrap().collect().await.unwrap());
    let latest = {
        let other = SessionContext::new_with_config(paimon_datafusion::session_config());
        paimon_datafusion::register_warehouse(&other, "paimon", &warehouse())
            .await
            .unwrap();
        render(&other.sql(&q).await.unwrap().collect().await.unwrap())
    };
    assert_ne!(want, latest, "the fixture changes after snapshot 1");
    let decoded =
        logical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec).unwrap();
    let got = ctx.execute_logical_plan(decoded).await.unwrap();
    assert_eq!(render(&got.collect().await.unwrap()), want);
}

/// The scan's child narrowed to a subset of its partitions, as Ballista's scheduler does per
/// task: each narrowed scan reads only its partitions' splits, and the tasks together read
/// every row once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn narrowed_children_read_disjoint_splits() {
    let ctx = ctx().await;
    let codec = PaimonPhysicalCodec::default();
    let q = "SELECT * FROM paimon.pk_table_scan_and_read_dv.pk_table_scan_and_read_dv";
    let plan = ctx
        .sql(q)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let scan = find_scan(&plan).unwrap();
    let n = scan.properties().output_partitioning().partition_count();
    assert!(n >= 2, "the fixture has two buckets: {n} partitions");
    let want = render(&collect(scan.clone(), ctx.task_ctx()).await.unwrap());
    let child = scan.children()[0].clone();
    let source = child.downcast_ref::<DataSourceExec>().unwrap();
    let memory: &dyn std::any::Any = source.data_source().as_ref();
    let memory = memory.downcast_ref::<MemorySourceConfig>().unwrap();
    let mut got = Vec::new();
    for p in 0..n {
        let kept = vec![memory.partitions()[p].clone()];
        let narrowed =
            MemorySourceConfig::try_new_exec(&kept, memory.original_schema(), None).unwrap();
        let task = replace_children_if_necessary(scan.clone(), vec![narrowed]).unwrap();
        assert_eq!(task.properties().output_partitioning().partition_count(), 1);
        // Shipped as Ballista ships a task's plan.
        let bytes = physical_plan_to_bytes_with_extension_codec(task, &codec).unwrap();
        let task =
            physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec).unwrap();
        for part in collect_partitioned(task, ctx.task_ctx()).await.unwrap() {
            got.extend(part);
        }
    }
    assert_eq!(render(&got), want);
}

/// Tagged bytes that do not decode are errors, never panics; foreign bytes go to the inner
/// codec.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bytes_are_errors() {
    let ctx = ctx().await;
    let physical = PaimonPhysicalCodec::default();
    let converter = DefaultPhysicalProtoConverter {};
    let e = physical
        .try_decode(b"PMS1{not json", &[], &ctx.task_ctx(), &converter)
        .unwrap_err();
    assert!(
        e.to_string().contains("cannot decode a paimon scan node"),
        "{e}"
    );
    assert!(physical
        .try_decode(b"xx", &[], &ctx.task_ctx(), &converter)
        .is_err());
    let logical = PaimonLogicalCodec::default();
    let schema = Arc::new(arrow::datatypes::Schema::empty());
    let e = logical
        .try_decode_table_provider(b"PMT1[]", &"t".into(), schema, &ctx.task_ctx())
        .unwrap_err();
    assert!(
        e.to_string().contains("cannot decode a paimon table"),
        "{e}"
    );
}

/// The audit log's scan reads with keep-delete (a key whose merged record is a `-D` shows as
/// that record); the flag travels with the scan node, so the decoded scan (which opens its read
/// from the wire) returns the retraction too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_delete_travels_with_the_scan() {
    use arrow::array::{Float64Array, Int64Array, StringArray};
    use paimon_core::RowKind::{Delete, Insert};
    use paimon_core::{FileSystemCatalog, Identifier};

    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap();
    let catalog = FileSystemCatalog::new(warehouse, Default::default()).unwrap();
    catalog.create_database("db", true).await.unwrap();
    let ctx = paimon_datafusion::session_context();
    paimon_datafusion::register_warehouse(&ctx, "paimon", warehouse)
        .await
        .unwrap();
    paimon_datafusion::ddl::sql(
        &ctx,
        "CREATE TABLE paimon.db.t (id BIGINT NOT NULL, s STRING, v DOUBLE) \
         WITH ('primary-key' = 'id', 'bucket' = '1', 'write-only' = 'true')",
    )
    .await
    .unwrap();
    let table = catalog
        .get_table(&Identifier::parse("db.t").unwrap())
        .await
        .unwrap();
    let schema = paimon_core::arrow::arrow_schema(&table.schema().fields).unwrap();
    for (ids, kind) in [(vec![1i64, 2], Insert), (vec![2], Delete)] {
        let n = ids.len();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(ids)),
                Arc::new(StringArray::from_iter_values(std::iter::repeat_n("x", n))),
                Arc::new(Float64Array::from(vec![1.0; n])),
            ],
        )
        .unwrap();
        let mut write = table.new_write().build().unwrap();
        write
            .write_with_kinds(&batch, &vec![kind; n])
            .await
            .unwrap();
        let messages = write.prepare_commit().await.unwrap();
        table
            .new_commit()
            .commit_messages(&messages, write.commit_user())
            .await
            .unwrap();
    }
    let codec = PaimonPhysicalCodec::default();
    let rows_of = |q: &'static str| {
        let ctx = ctx.clone();
        let codec = codec.clone();
        async move {
            let plan = ctx
                .sql(q)
                .await
                .unwrap()
                .create_physical_plan()
                .await
                .unwrap();
            let scan = find_scan(&plan).unwrap();
            let local = collect(scan.clone(), ctx.task_ctx()).await.unwrap();
            let bytes = physical_plan_to_bytes_with_extension_codec(scan, &codec).unwrap();
            let decoded =
                physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec)
                    .unwrap();
            let remote = collect(decoded, ctx.task_ctx()).await.unwrap();
            (render(&local).len(), render(&remote).len())
        }
    };
    // The table: key 2 deleted. The audit log: key 2's `-D` kept, locally and decoded.
    assert_eq!(rows_of("SELECT id FROM paimon.db.t").await, (1, 1));
    assert_eq!(
        rows_of("SELECT id, rowkind FROM paimon.db.\"t$audit_log\"").await,
        (2, 2)
    );
}

/// A session over a new warehouse holding `db.t` (`id BIGINT, s STRING`, append table) and
/// the table.
async fn write_ctx(dir: &std::path::Path) -> (SessionContext, paimon_core::Table) {
    use paimon_core::spec::type_text::parse_fields;
    use paimon_core::{FileSystemCatalog, Identifier, Schema};

    let warehouse = dir.to_str().unwrap();
    let catalog = FileSystemCatalog::new(warehouse, Default::default()).unwrap();
    catalog.create_database("db", true).await.unwrap();
    let schema = Schema::builder()
        .columns(parse_fields("id BIGINT, s STRING").unwrap())
        .build()
        .unwrap();
    let id = Identifier::parse("db.t").unwrap();
    let table = catalog.create_table(&id, schema, false).await.unwrap();
    let ctx = SessionContext::new_with_config(paimon_datafusion::session_config());
    paimon_datafusion::register_warehouse(&ctx, "paimon", warehouse)
        .await
        .unwrap();
    (ctx, table)
}

async fn latest(table: &paimon_core::Table) -> Option<i64> {
    table.snapshot_manager().latest_snapshot_id().await.unwrap()
}

const INSERT: &str = "INSERT INTO paimon.db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')";

/// An `INSERT`'s sink travels through the physical codec with its commit identity: the decoded
/// plan executed twice (as a retried task runs it again) commits once and reports the count
/// both times; a statement planned anew commits again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decoded_sink_commits_once_per_planned_statement() {
    let dir = tempfile::tempdir().unwrap();
    let (ctx, table) = write_ctx(dir.path()).await;
    let codec = PaimonPhysicalCodec::default();
    let plan = ctx
        .sql(INSERT)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, &codec).unwrap();
    let decoded =
        physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec).unwrap();
    for attempt in 0..2 {
        let got = render(&collect(decoded.clone(), ctx.task_ctx()).await.unwrap());
        assert_eq!(got, ["3"], "attempt {attempt}");
        assert_eq!(latest(&table).await, Some(1), "attempt {attempt}");
    }
    let rows = |ctx: SessionContext| async move {
        let q = "SELECT count(*), sum(id) FROM paimon.db.t";
        render(&ctx.sql(q).await.unwrap().collect().await.unwrap())
    };
    assert_eq!(rows(ctx.clone()).await, ["3, 6"]);
    let again = ctx.sql(INSERT).await.unwrap().collect().await.unwrap();
    assert_eq!(render(&again), ["3"]);
    assert_eq!(latest(&table).await, Some(2));
    assert_eq!(rows(ctx).await, ["6, 12"]);
}

/// The commit identity is fixed by the side that encodes the logical plan (a Ballista client):
/// the decoding side (a scheduler) planning that plan twice gets sinks with the same identity,
/// so their executions (each shipped as a task through the physical codec) commit once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logical_plan_carries_the_commit_identity() {
    let dir = tempfile::tempdir().unwrap();
    let (ctx, table) = write_ctx(dir.path()).await;
    let codec = PaimonLogicalCodec::default();
    let physical = PaimonPhysicalCodec::default();
    let logical = ctx
        .sql(INSERT)
        .await
        .unwrap()
        .into_optimized_plan()
        .unwrap();
    let bytes = logical_plan_to_bytes_with_extension_codec(&logical, &codec).unwrap();
    let scheduler = SessionContext::new_with_config(paimon_datafusion::session_config());
    let decoded =
        logical_plan_from_bytes_with_extension_codec(&bytes, &scheduler.task_ctx(), &codec)
            .unwrap();
    for attempt in 0..2 {
        let plan = scheduler
            .state()
            .create_physical_plan(&decoded)
            .await
            .unwrap();
        let task = physical_plan_to_bytes_with_extension_codec(plan, &physical).unwrap();
        let task =
            physical_plan_from_bytes_with_extension_codec(&task, &scheduler.task_ctx(), &physical)
                .unwrap();
        let got = render(&collect(task, scheduler.task_ctx()).await.unwrap());
        assert_eq!(got, ["3"], "attempt {attempt}");
        assert_eq!(latest(&table).await, Some(1), "attempt {attempt}");
    }
    let q = "SELECT count(*) FROM paimon.db.t";
    let rows = render(&ctx.sql(q).await.unwrap().collect().await.unwrap());
    assert_eq!(rows, ["3"]);
}

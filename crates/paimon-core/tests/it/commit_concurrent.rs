//! Concurrent committers on one table: tokio tasks, OS processes (this test binary re-invoked
//! as a child committer) and a proptest over random interleavings. No commit is lost, no two
//! snapshots share an id, every (user, identifier) lands once, and the final total record count
//! is the sum of the commits' deltas. Racing compactions of one file: exactly one wins, the
//! others fail with a conflict.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use paimon_core::commit::CommitMessage;
use paimon_core::scan::DataSplit;
use paimon_core::spec::snapshot::Snapshot;
use paimon_core::{ErrorKind, Table};
use proptest::prelude::*;

use crate::commit_util::{all_rows, copies, fixture_copy, splits};
use crate::common::copy_dir;

/// Environment variable that turns [`child_committer`] into a committer: `path;user;count`.
const CHILD_ENV: &str = "PAIMON_RS_COMMIT_CHILD";

async fn open_retrying(path: &Path) -> Table {
    let opts = HashMap::from([
        ("commit.max-retries".to_string(), "1000".to_string()),
        ("commit.max-retry-wait".to_string(), "50 ms".to_string()),
    ]);
    Table::open_with(
        paimon_core::FileIO::default(),
        path.to_str().unwrap(),
        &opts,
    )
    .await
    .unwrap()
}

/// The first file of the first split, alone.
async fn first_file(table: &Table) -> DataSplit {
    let d = splits(table, None).await.remove(0);
    DataSplit {
        files: vec![d.files[0].clone()],
        ..d
    }
}

/// `count` commits by `user` (identifiers 1..=count), each adding a copy of `one`.
async fn commit_copies(table: &Table, one: &DataSplit, user: &str, count: i64) {
    for i in 1..=count {
        let msgs = copies(std::slice::from_ref(one));
        let s = table
            .new_commit()
            .commit_messages_with_identifier(i, &msgs, user)
            .await
            .unwrap();
        assert_eq!(s.len(), 1, "{user} {i}");
    }
}

/// All snapshots, checking ids are contiguous and the counts add up.
async fn check_history(path: &Path, first: i64) -> Vec<Snapshot> {
    let table = Table::open(path.to_str().unwrap()).await.unwrap();
    let all = table.snapshot_manager().snapshots().await.unwrap();
    let ids: Vec<i64> = all.iter().map(|s| s.id).collect();
    assert_eq!(ids, (first..first + ids.len() as i64).collect::<Vec<_>>());
    for w in all.windows(2) {
        assert_eq!(
            w[1].total_record_count.unwrap(),
            w[0].total_record_count.unwrap() + w[1].delta_record_count.unwrap(),
            "snapshot {}",
            w[1].id
        );
    }
    all
}

/// The (user, identifier) pairs of the snapshots after `after`, checking each is unique.
fn commits_after(all: &[Snapshot], after: i64) -> BTreeSet<(String, i64)> {
    let mut seen = BTreeSet::new();
    for s in all.iter().filter(|s| s.id > after) {
        assert!(
            seen.insert((s.commit_user.clone(), s.commit_identifier)),
            "{} {} committed twice",
            s.commit_user,
            s.commit_identifier
        );
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_tasks_lose_no_commit() {
    let Some(path) = fixture_copy("concurrent_tasks", "append_unaware") else {
        return;
    };
    let table = open_retrying(&path).await;
    let before = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let one = first_file(&table).await;
    let rows = one.files[0].row_count;
    let (tasks, per) = (4, 6);
    let mut handles = Vec::new();
    for t in 0..tasks {
        let (table, one) = (table.clone(), one.clone());
        handles.push(tokio::spawn(async move {
            commit_copies(&table, &one, &format!("task-{t}"), per).await;
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    let all = check_history(&path, 1).await;
    let done = commits_after(&all, before.id);
    assert_eq!(done.len(), (tasks * per) as usize);
    let last = all.last().unwrap();
    assert_eq!(
        last.total_record_count.unwrap(),
        before.total_record_count.unwrap() + tasks * per * rows
    );
    assert_eq!(
        all_rows(&path).await.len() as i64,
        last.total_record_count.unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_compactions_of_one_file_let_exactly_one_win() {
    let Some(path) = fixture_copy("concurrent_compactions", "append_unaware") else {
        return;
    };
    let table = open_retrying(&path).await;
    let one = first_file(&table).await;
    let mut handles = Vec::new();
    for _ in 0..3 {
        let (table, one) = (table.clone(), one.clone());
        handles.push(tokio::spawn(async move {
            let after = copies(std::slice::from_ref(&one)).remove(0).new_files;
            let mut m = CommitMessage::new(one.partition.clone(), one.bucket, one.total_buckets);
            m.compact_before = one.files.clone();
            m.compact_after = after;
            table.new_commit().commit_messages(&[m], "compactor").await
        }));
    }
    let mut won = 0;
    for h in handles {
        match h.await.unwrap() {
            Ok(s) => won += s.len(),
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
                assert!(e.to_string().contains(&one.files[0].file_name), "{e}");
            }
        }
    }
    assert_eq!(won, 1);
    check_history(&path, 1).await;
}

/// Runs as a child committer when [`CHILD_ENV`] is set, else does nothing.
#[tokio::test]
async fn child_committer() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let parts: Vec<&str> = spec.split(';').collect();
    let path = PathBuf::from(parts[0]);
    let table = open_retrying(&path).await;
    let one = first_file(&table).await;
    commit_copies(&table, &one, parts[1], parts[2].parse().unwrap()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_processes_lose_no_commit() {
    let Some(path) = fixture_copy("concurrent_processes", "append_unaware") else {
        return;
    };
    let table = open_retrying(&path).await;
    let before = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let rows = first_file(&table).await.files[0].row_count;
    let per = 6;
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|c| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "commit_concurrent::child_committer",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, format!("{};proc-{c};{per}", path.display()))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    // This process commits too, at the same time.
    let one = first_file(&table).await;
    commit_copies(&table, &one, "parent", per).await;
    for mut c in children {
        assert!(c.wait().unwrap().success(), "child committer failed");
    }
    let all = check_history(&path, 1).await;
    let done = commits_after(&all, before.id);
    assert_eq!(done.len(), 3 * per as usize, "{done:?}");
    assert_eq!(
        all.last().unwrap().total_record_count.unwrap(),
        before.total_record_count.unwrap() + 3 * per * rows
    );
}

/// One committer's plan: (delay before the commit in ms, whether it compacts the shared file).
type Plan = Vec<(u64, bool)>;

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Random delays interleave appends of copies and compactions of one shared file.
    #[test]
    fn interleavings_keep_every_commit(plans in prop::collection::vec(
        prop::collection::vec((0u64..8, prop::bool::weighted(0.2)), 1..4), 2..4)
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(3)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(run_interleaving(plans));
    }
}

async fn run_interleaving(plans: Vec<Plan>) {
    let Some(src) = fixture_copy("concurrent_source", "append_unaware") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("t");
    copy_dir(&src, &path);
    let table = open_retrying(&path).await;
    let before = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let one = first_file(&table).await;
    let mut handles = Vec::new();
    for (c, plan) in plans.iter().cloned().enumerate() {
        let (table, one) = (table.clone(), one.clone());
        handles.push(tokio::spawn(async move {
            let mut landed = 0;
            for (i, (delay, compact)) in plan.into_iter().enumerate() {
                tokio::time::sleep(Duration::from_millis(delay)).await;
                let mut m = copies(std::slice::from_ref(&one)).remove(0);
                if compact {
                    m.compact_after = std::mem::take(&mut m.new_files);
                    m.compact_before = one.files.clone();
                }
                let user = format!("c{c}");
                match table
                    .new_commit()
                    .commit_messages_with_identifier(i as i64 + 1, &[m], &user)
                    .await
                {
                    Ok(s) => landed += s.len(),
                    Err(e) => assert!(compact && e.kind() == ErrorKind::Conflict, "{e}"),
                }
            }
            landed
        }));
    }
    let mut landed = 0;
    for h in handles {
        landed += h.await.unwrap();
    }
    let all = check_history(&path, 1).await;
    assert_eq!(commits_after(&all, before.id).len(), landed);
    let compactions = all
        .iter()
        .filter(|s| {
            s.id > before.id && s.commit_kind == paimon_core::spec::snapshot::CommitKind::Compact
        })
        .count();
    assert!(
        compactions <= 1,
        "the shared file was compacted {compactions} times"
    );
    assert_eq!(
        all_rows(&path).await.len() as i64,
        all.last().unwrap().total_record_count.unwrap()
    );
}

//! Hand-computed picks, each step checked against Java 2.0's `UniversalCompaction`.

use std::collections::HashMap;

use super::*;

fn options(pairs: &[(&str, &str)]) -> TableOptions {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    TableOptions::from_map(&map).unwrap()
}

/// Runs of (level, size), one file each.
fn runs(spec: &[(i32, i64)]) -> Vec<Run> {
    spec.iter()
        .enumerate()
        .map(|(i, &(level, size))| Run {
            level,
            size,
            files: vec![i],
        })
        .collect()
}

fn files(spec: &[(i32, i64)]) -> Vec<DataFileMeta> {
    spec.iter()
        .enumerate()
        .map(|(i, &(level, size))| {
            let mut f = crate::commit::test_support::file(&format!("f{i}"), 1, level, 0, 0);
            f.file_size = size;
            f
        })
        .collect()
}

fn pick(o: &[(&str, &str)], spec: &[(i32, i64)]) -> Option<Unit> {
    let mut p = Picker::new(&options(o), 12, 0);
    p.pick(6, &runs(spec), &files(spec))
}

fn unit(runs: usize, output_level: i32) -> Option<Unit> {
    Some(Unit { runs, output_level })
}

#[test]
fn create_unit_never_outputs_level_zero() {
    // Java UniversalCompactionTest#testOutputLevel: levels 0, 0, 1, 3, 4, max level 5.
    let r = runs(&[(0, 1), (0, 1), (1, 1), (3, 1), (4, 1)]);
    let out: Vec<(usize, i32)> = (1..=5)
        .map(|c| {
            let u = create_unit(&r, 5, c);
            (u.runs, u.output_level)
        })
        .collect();
    assert_eq!(out, vec![(3, 1), (3, 1), (3, 2), (4, 3), (5, 5)]);
    // Only level 0 left after the candidates: everything goes to the top.
    assert_eq!(
        create_unit(&runs(&[(0, 1), (0, 1)]), 5, 1),
        Unit {
            runs: 2,
            output_level: 5
        }
    );
}

#[test]
fn size_amplification_takes_every_run_to_the_top() {
    let spec = [(0, 1), (0, 2), (4, 3)];
    let o = [("num-sorted-run.compaction-trigger", "3")];
    // 3 * 100 > 200 * 3 is false; ratio: 1 * 1.01 < 2 stops at one run; 3 runs is not > 3.
    assert_eq!(pick(&o, &spec), None);
    let o = [
        ("num-sorted-run.compaction-trigger", "3"),
        ("compaction.max-size-amplification-percent", "25"),
    ];
    // 300 > 25 * 3.
    assert_eq!(pick(&o, &spec), unit(3, 5));
    // Below the trigger nothing is looked at.
    let o = [
        ("num-sorted-run.compaction-trigger", "4"),
        ("compaction.max-size-amplification-percent", "25"),
    ];
    assert_eq!(pick(&o, &spec), None);
}

#[test]
fn size_ratio_absorbs_runs_up_to_a_larger_one() {
    let o = [("num-sorted-run.compaction-trigger", "3")];
    // 300 > 200 * 50 false; 1, 2, 3 absorbed (3 * 1.01 < 50 stops); output below level 5.
    assert_eq!(pick(&o, &[(0, 1), (0, 1), (0, 1), (5, 50)]), unit(3, 4));
    // 10 then 1 absorbed (10 * 1.01 >= 1), 11 * 1.01 < 100 stops: output below level 3.
    let o = [("num-sorted-run.compaction-trigger", "2")];
    assert_eq!(
        pick(&o, &[(0, 10), (0, 1), (3, 100), (5, 1000)]),
        unit(2, 2)
    );
}

#[test]
fn run_count_forces_the_oldest_surplus() {
    // Trigger 2, 4 runs: amplification 11100 > 200000 false; ratio stops at 1 (1.01 < 10);
    // 4 > 2 → candidates 3 (S = 111, 112.11 < 1000 stops) → output below level 5.
    let o = [("num-sorted-run.compaction-trigger", "2")];
    assert_eq!(
        pick(&o, &[(0, 1), (0, 10), (3, 100), (5, 1000)]),
        unit(3, 4)
    );
}

#[test]
fn off_peak_ratio_widens_the_size_ratio() {
    let spec = [(0, 100), (4, 110)];
    let o = [("num-sorted-run.compaction-trigger", "2")];
    // 100 * 1.01 < 110.
    assert_eq!(pick(&o, &spec), None);
    let o = [
        ("num-sorted-run.compaction-trigger", "2"),
        ("compaction.offpeak.start.hour", "10"),
        ("compaction.offpeak.end.hour", "14"),
        ("compaction.offpeak-ratio", "20"),
    ];
    // At hour 12: 100 * 1.21 >= 110 → both runs, to the top.
    assert_eq!(pick(&o, &spec), unit(2, 5));
}

#[test]
fn lookup_tables_force_level_zero_up() {
    let dv = [("deletion-vectors.enabled", "true")];
    // Universal finds nothing (3 < 5 runs); level 0 plus the level-1 run after it, ratio
    // stops at 1000 (101 * 1.01 < 1000): output below level 3.
    assert_eq!(pick(&dv, &[(0, 1), (1, 100), (3, 1000)]), unit(2, 2));
    assert_eq!(pick(&dv, &[(0, 1), (0, 2), (4, 10)]), unit(2, 3));
    // A lone level-0 run goes to the top level.
    assert_eq!(pick(&dv, &[(0, 5)]), unit(1, 5));
    // Nothing at level 0: nothing forced.
    assert_eq!(pick(&dv, &[(2, 5), (5, 50)]), None);
    // compaction.force-up-level-0 does the same without lookup.
    let o = [("compaction.force-up-level-0", "true")];
    assert_eq!(pick(&o, &[(0, 1), (0, 2), (4, 10)]), unit(2, 3));
    // Plain tables do not.
    assert_eq!(pick(&[], &[(0, 1), (0, 2), (4, 10)]), None);
}

#[test]
fn gentle_mode_forces_every_max_interval_triggers() {
    let o = options(&[
        ("deletion-vectors.enabled", "true"),
        ("lookup-compact", "GENTLE"),
        ("lookup-compact.max-interval", "3"),
    ]);
    let spec = [(0, 1), (4, 10)];
    let mut p = Picker::new(&o, 12, 0);
    let got: Vec<Option<Unit>> = (0..6)
        .map(|_| p.pick(6, &runs(&spec), &files(&spec)))
        .collect();
    let forced = unit(1, 3);
    assert_eq!(got, vec![None, None, forced, None, None, forced]);
}

#[test]
fn early_full_compaction_thresholds() {
    let spec = [(0, 1), (5, 10)];
    let o = [("compaction.total-size-threshold", "100 b")];
    assert_eq!(pick(&o, &spec), unit(2, 5));
    let o = [("compaction.total-size-threshold", "5 b")];
    assert_eq!(pick(&o, &spec), None);
    let o = [("compaction.incremental-size-threshold", "0 b")];
    assert_eq!(pick(&o, &spec), unit(2, 5));
    // Interval: the newest top-level file is older than the interval.
    let o = options(&[("compaction.optimization-interval", "1 s")]);
    let mut fs = files(&spec);
    fs[1].creation_time = Some(1_000);
    assert_eq!(Picker::new(&o, 12, 1_500).pick(6, &runs(&spec), &fs), None);
    assert_eq!(
        Picker::new(&o, 12, 2_500).pick(6, &runs(&spec), &fs),
        unit(2, 5)
    );
    // A single run is never compacted early.
    assert_eq!(
        pick(&[("compaction.total-size-threshold", "1 kb")], &[(5, 10)]),
        None
    );
}

#[test]
fn runs_in_java_level_order() {
    let mut fs = files(&[(0, 1), (0, 1), (3, 1), (1, 1), (3, 1), (0, 1)]);
    let seq = [(1, 5), (6, 9), (0, 0), (0, 0), (0, 0), (1, 9)];
    for (f, (min, max)) in fs.iter_mut().zip(seq) {
        f.min_sequence_number = min;
        f.max_sequence_number = max;
    }
    let r = level_sorted_runs(&fs);
    let shape: Vec<(i32, Vec<usize>)> = r.into_iter().map(|r| (r.level, r.files)).collect();
    // Level 0 by max sequence desc, then min sequence asc: f5 (1..9), f1 (6..9), f0.
    assert_eq!(
        shape,
        vec![
            (0, vec![5]),
            (0, vec![1]),
            (0, vec![0]),
            (1, vec![3]),
            (3, vec![2, 4])
        ]
    );
}

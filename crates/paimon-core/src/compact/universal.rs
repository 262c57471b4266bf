//! Which sorted runs of a primary-key bucket to compact, exactly as Java 2.0 picks them
//! (`Levels#levelSortedRuns`, `UniversalCompaction#pick`, `ForceUpLevel0Compaction`,
//! `EarlyFullCompaction`, `OffPeakHours`, and the filter of
//! `MergeTreeCompactManager#triggerCompaction`). Pure logic: no I/O.
//!
//! Departure: Java's `lookup-compact = GENTLE` counter lives as long as the writer; here it
//! lives as long as the caller's [`Picker`] (one compaction, or one [`crate::write::TableWrite`]).

use std::collections::BTreeMap;

use crate::spec::manifest::DataFileMeta;
use crate::spec::options::{LookupCompactMode, TableOptions};

/// One sorted run: a level-0 file, or every file of a level above 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    /// Its level.
    pub level: i32,
    /// Σ `_FILE_SIZE` of its files (Java `SortedRun#totalSize`).
    pub size: i64,
    /// Indices of its files in the bucket's file list.
    pub files: Vec<usize>,
}

/// A pick: the first `runs` runs, rewritten or upgraded to `output_level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unit {
    /// How many leading runs are compacted.
    pub runs: usize,
    /// The output level (never 0).
    pub output_level: i32,
}

/// The runs of a bucket in Java's `Levels#levelSortedRuns` order: level-0 files newest first
/// (`_MAX_SEQUENCE_NUMBER` desc, `_MIN_SEQUENCE_NUMBER` asc, creation time asc, name asc),
/// then levels 1.. ascending, empty levels skipped.
pub(crate) fn level_sorted_runs(files: &[DataFileMeta]) -> Vec<Run> {
    let mut level0: Vec<usize> = (0..files.len()).filter(|&i| files[i].level <= 0).collect();
    level0.sort_by(|&a, &b| {
        let (x, y) = (&files[a], &files[b]);
        y.max_sequence_number
            .cmp(&x.max_sequence_number)
            .then(x.min_sequence_number.cmp(&y.min_sequence_number))
            .then(x.creation_time.cmp(&y.creation_time))
            .then(x.file_name.cmp(&y.file_name))
    });
    let mut upper: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate().filter(|(_, f)| f.level > 0) {
        upper.entry(f.level).or_default().push(i);
    }
    let size = |ix: &[usize]| ix.iter().map(|&i| files[i].file_size).sum::<i64>();
    let mut runs: Vec<Run> = level0
        .into_iter()
        .map(|i| Run {
            level: 0,
            size: files[i].file_size,
            files: vec![i],
        })
        .collect();
    runs.extend(upper.into_iter().map(|(level, ix)| Run {
        level,
        size: size(&ix),
        files: ix,
    }));
    runs
}

/// Java `EarlyFullCompaction`: full compaction before the universal rules, when one of its
/// options is set.
#[derive(Debug, Clone, Default)]
struct EarlyFull {
    /// `compaction.optimization-interval` in milliseconds.
    interval_ms: Option<i64>,
    /// `compaction.total-size-threshold` in bytes.
    total_threshold: Option<i64>,
    /// `compaction.incremental-size-threshold` in bytes.
    incremental_threshold: Option<i64>,
}

/// Picks compaction units (see the [module docs](self)).
#[derive(Debug, Clone)]
pub(crate) struct Picker {
    max_size_amp: i64,
    size_ratio: i64,
    trigger: usize,
    offpeak_ratio: i64,
    early: Option<EarlyFull>,
    /// `Some` for lookup tables and `compaction.force-up-level-0` (Java
    /// `ForceUpLevel0Compaction`): `None` inside = RADICAL, else the GENTLE interval.
    force_up_level0: Option<Option<i32>>,
    gentle_count: i32,
    /// Now, in epoch milliseconds (for the optimization interval).
    now_ms: i64,
}

impl Picker {
    /// The strategy of a table (Java `MergeTreeCompactManagerFactory#createCompactStrategy`)
    /// at local hour `hour` (off-peak ratio) and time `now_ms`.
    pub(crate) fn new(options: &TableOptions, hour: i32, now_ms: i64) -> Self {
        let c = &options.compaction;
        let bytes =
            |m: crate::spec::options::MemorySize| i64::try_from(m.bytes()).unwrap_or(i64::MAX);
        let early = EarlyFull {
            interval_ms: c
                .optimization_interval
                .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
            total_threshold: c.total_size_threshold.map(bytes),
            incremental_threshold: c.incremental_size_threshold.map(bytes),
        };
        let any_early = early.interval_ms.is_some()
            || early.total_threshold.is_some()
            || early.incremental_threshold.is_some();
        let force_up_level0 = if options.need_lookup() {
            Some(match c.lookup_compact {
                LookupCompactMode::Radical => None,
                LookupCompactMode::Gentle => Some(options.lookup_compact_max_interval()),
            })
        } else if c.force_up_level0 {
            Some(None)
        } else {
            None
        };
        Picker {
            max_size_amp: c.max_size_amplification_percent,
            size_ratio: c.size_ratio,
            trigger: usize::try_from(options.num_sorted_run_compaction_trigger).unwrap_or(0),
            offpeak_ratio: c.offpeak_ratio_at(hour),
            early: any_early.then_some(early),
            force_up_level0,
            gentle_count: 0,
            now_ms,
        }
    }

    /// The unit to compact now, if any (Java `CompactStrategy#pick` followed by the
    /// manager's filter: no unit of one file already at its output level). `files` are the
    /// bucket's files (for the early-full interval).
    pub(crate) fn pick(
        &mut self,
        num_levels: i32,
        runs: &[Run],
        files: &[DataFileMeta],
    ) -> Option<Unit> {
        let unit = match self.force_up_level0 {
            None => self.universal(num_levels, runs, files),
            Some(gentle) => self.force_up(num_levels, runs, files, gentle),
        }?;
        let picked: Vec<usize> = runs
            .iter()
            .take(unit.runs)
            .flat_map(|r| r.files.iter().copied())
            .collect();
        match picked.as_slice() {
            [] => None,
            [one]
                if files
                    .get(*one)
                    .is_some_and(|f| f.level == unit.output_level) =>
            {
                None
            }
            _ => Some(unit),
        }
    }

    fn force_up(
        &mut self,
        num_levels: i32,
        runs: &[Run],
        files: &[DataFileMeta],
        gentle: Option<i32>,
    ) -> Option<Unit> {
        if let Some(u) = self.universal(num_levels, runs, files) {
            return Some(u);
        }
        match gentle {
            None => self.force_pick_l0(num_levels, runs),
            Some(interval) => {
                self.gentle_count += 1;
                if self.gentle_count == interval {
                    self.gentle_count = 0;
                    self.force_pick_l0(num_levels, runs)
                } else {
                    None
                }
            }
        }
    }

    /// Java `UniversalCompaction#pick` (2.0).
    fn universal(&self, num_levels: i32, runs: &[Run], files: &[DataFileMeta]) -> Option<Unit> {
        let max_level = num_levels - 1;
        if let Some(u) = self.early_full(max_level, runs, files) {
            return Some(u);
        }
        if runs.len() >= self.trigger {
            // Size amplification.
            if let Some((last, rest)) = runs.split_last() {
                let candidate: i64 = rest.iter().map(|r| r.size).sum();
                if candidate.saturating_mul(100) > self.max_size_amp.saturating_mul(last.size) {
                    return Some(Unit {
                        runs: runs.len(),
                        output_level: max_level,
                    });
                }
            }
            // Size ratio.
            if let Some(u) = self.pick_for_size_ratio(max_level, runs, 1, false) {
                return Some(u);
            }
        }
        if runs.len() > self.trigger {
            let count = runs.len() - self.trigger + 1;
            return self.pick_for_size_ratio(max_level, runs, count, false);
        }
        None
    }

    /// Java `EarlyFullCompaction#tryFullCompact`; its "last full compaction" is the newest
    /// creation time of the top-level files, as after Java's restore.
    fn early_full(&self, max_level: i32, runs: &[Run], files: &[DataFileMeta]) -> Option<Unit> {
        let early = self.early.as_ref()?;
        if runs.len() <= 1 {
            return None;
        }
        let all = Unit {
            runs: runs.len(),
            output_level: max_level,
        };
        if let Some(interval) = early.interval_ms {
            let last = files
                .iter()
                .filter(|f| f.level == max_level)
                .filter_map(|f| f.creation_time)
                .max();
            if last.is_none_or(|l| self.now_ms.saturating_sub(l) > interval) {
                return Some(all);
            }
        }
        if let Some(t) = early.total_threshold {
            if runs.iter().map(|r| r.size).sum::<i64>() < t {
                return Some(all);
            }
        }
        if let Some(t) = early.incremental_threshold {
            let incremental: i64 = runs
                .iter()
                .filter(|r| r.level != max_level)
                .map(|r| r.size)
                .sum();
            if incremental > t {
                return Some(all);
            }
        }
        None
    }

    /// Java 2.0 `UniversalCompaction#forcePickL0`: the leading level-0 runs, plus a level-1
    /// run right after them, then extended by size ratio (forced).
    fn force_pick_l0(&self, num_levels: i32, runs: &[Run]) -> Option<Unit> {
        let mut count = runs.iter().take_while(|r| r.level == 0).count();
        if count == 0 {
            return None;
        }
        if runs.get(count).is_some_and(|r| r.level == 1) {
            count += 1;
        }
        self.pick_for_size_ratio(num_levels - 1, runs, count, true)
    }

    /// Java 2.0 `UniversalCompaction#pickForSizeRatio`.
    fn pick_for_size_ratio(
        &self,
        max_level: i32,
        runs: &[Run],
        mut count: usize,
        force: bool,
    ) -> Option<Unit> {
        let mut size: i64 = runs.iter().take(count).map(|r| r.size).sum();
        let factor = (100.0 + self.size_ratio as f64 + self.offpeak_ratio as f64) / 100.0;
        for next in runs.iter().skip(count) {
            if (size as f64) * factor < next.size as f64 {
                break;
            }
            size = size.saturating_add(next.size);
            count += 1;
        }
        (force || count > 1).then(|| create_unit(runs, max_level, count))
    }
}

/// Java `UniversalCompaction#createUnit`: the output level is one below the next run's, never
/// 0 (runs are swallowed until one above 0 is taken), and the top level when all runs go.
fn create_unit(runs: &[Run], max_level: i32, mut count: usize) -> Unit {
    let mut output_level = match runs.get(count) {
        None => max_level,
        Some(next) => (next.level - 1).max(0),
    };
    if output_level == 0 {
        for next in runs.iter().skip(count) {
            count += 1;
            if next.level != 0 {
                output_level = next.level;
                break;
            }
        }
    }
    if count >= runs.len() {
        count = runs.len();
        output_level = max_level;
    }
    Unit {
        runs: count,
        output_level,
    }
}

#[cfg(test)]
mod tests;

//! An external sort of a `pk-btree` source group's (value, ordinal) entries within a memory
//! budget (Java `PkSortedIndexBuilder` sorts them in a `BinaryExternalSortBuffer` of
//! `write-buffer-size`): entries are buffered until they hold the budget, then the buffer is
//! sorted and written to a local scratch file as one run; at the end the last buffer is sorted
//! in memory and merged with the spilled runs, one entry per run held at a time. A group that
//! fits is sorted in memory and never touches the disk. When the runs reach the fan-in
//! (`local-sort.max-num-file-handles`, as Java's sort buffer), they are merged into one run
//! first, so a merge never holds more than that many files open.
//!
//! The scratch files (a private temporary directory, not a Paimon format: entries as their
//! [`SortEntry::write`] encodes them) are removed when the sort or its output is dropped.
//! Reads and writes are synchronous `std::fs` calls through buffers (1 MiB for the run being
//! written, 128 KiB for each run read back).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

use crate::io::scratch::{path_error, scratch_dir};
use crate::Result;

/// An entry of an external sort.
pub(crate) trait SortEntry: Sized {
    /// Bytes the entry holds in memory (its heap data included).
    fn memory(&self) -> usize;
    /// The sort order, total.
    fn order(&self, other: &Self) -> Ordering;
    /// Sorts a buffer by [`SortEntry::order`].
    fn sort(entries: &mut [Self]) {
        entries.sort_unstable_by(Self::order);
    }
    /// Appends the entry to a scratch file.
    fn write(&self, out: &mut impl Write) -> io::Result<()>;
    /// The next entry of a scratch file; `None` at its end.
    fn read(input: &mut impl BufRead) -> io::Result<Option<Self>>;
}

/// Buffer of the scratch file being written.
const WRITE_BUFFER: usize = 1 << 20;

/// Buffer of each run read back: the merge holds one per run.
const READ_BUFFER: usize = 128 << 10;

/// Entries sorted within a memory budget.
pub(crate) struct ExternalSort<T> {
    budget: usize,
    buffer: Vec<T>,
    buffered: usize,
    /// Parent of the scratch directory (`None`: the system temp dir).
    parent: Option<PathBuf>,
    dir: Option<tempfile::TempDir>,
    runs: Vec<PathBuf>,
    /// The most runs merged at once (at least 2).
    fan_in: usize,
    /// Runs written so far (buffer spills and merges).
    written: usize,
    /// Buffer spills so far.
    spills: usize,
}

impl<T: SortEntry> ExternalSort<T> {
    /// A sort holding at most about `budget` bytes of entries in memory, spilling under
    /// `parent` (the system temp dir when `None`).
    pub(crate) fn new(budget: usize, parent: Option<PathBuf>) -> Self {
        ExternalSort {
            budget: budget.max(1),
            buffer: Vec::new(),
            buffered: 0,
            parent,
            dir: None,
            runs: Vec::new(),
            fan_in: 128,
            written: 0,
            spills: 0,
        }
    }

    /// Merges at most `n` runs at once (at least 2; default 128).
    pub(crate) fn with_fan_in(mut self, n: usize) -> Self {
        self.fan_in = n.max(2);
        self
    }

    /// Adds an entry, spilling the buffer when it holds the budget.
    #[inline]
    pub(crate) fn push(&mut self, entry: T) -> Result<()> {
        self.buffered += entry.memory();
        self.buffer.push(entry);
        if self.buffered >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Reserves room for `entries` more, at most what the budget holds (by the entries'
    /// inline size).
    pub(crate) fn reserve(&mut self, entries: usize) {
        let fits = self.budget.saturating_sub(self.buffered) / std::mem::size_of::<T>().max(1);
        self.buffer.reserve_exact(entries.min(fits));
    }

    /// Times the buffer was spilled to disk so far.
    pub(crate) fn spilled_runs(&self) -> usize {
        self.spills
    }

    /// The path of the next run, the scratch directory created on first use.
    fn next_run(&mut self) -> Result<PathBuf> {
        let dir = match &self.dir {
            Some(d) => d.path().to_path_buf(),
            None => {
                let d = scratch_dir(self.parent.as_deref(), "paimon-index-sort-")?;
                let path = d.path().to_path_buf();
                self.dir = Some(d);
                path
            }
        };
        self.written += 1;
        Ok(dir.join(format!("run-{}", self.written)))
    }

    /// Sorts the buffer and writes it as one run (after merging the runs into one when they
    /// are at the fan-in: at most that many run files exist, and are merged, at once).
    fn spill(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        if self.runs.len() >= self.fan_in {
            self.merge_runs()?;
        }
        let path = self.next_run()?;
        T::sort(&mut self.buffer);
        let written = (|| -> io::Result<()> {
            let mut w = BufWriter::with_capacity(WRITE_BUFFER, File::create(&path)?);
            for e in &self.buffer {
                e.write(&mut w)?;
            }
            w.into_inner().map_err(|e| e.into_error())?;
            Ok(())
        })();
        written.map_err(|e| path_error(e, &path))?;
        self.runs.push(path);
        self.spills += 1;
        self.buffer.clear();
        self.buffered = 0;
        Ok(())
    }

    /// Merges the spilled runs into one.
    fn merge_runs(&mut self) -> Result<()> {
        let mut merged = Sorted::<T>::of_runs(&self.runs, None)?;
        let path = self.next_run()?;
        let file = File::create(&path).map_err(|e| path_error(e, &path))?;
        let mut w = BufWriter::with_capacity(WRITE_BUFFER, file);
        while let Some(e) = merged.next_entry()? {
            e.write(&mut w).map_err(|e| path_error(e, &path))?;
        }
        w.into_inner()
            .map_err(|e| path_error(e.into_error(), &path))?;
        drop(merged);
        for old in std::mem::replace(&mut self.runs, vec![path]) {
            std::fs::remove_file(&old).map_err(|e| path_error(e, &old))?;
        }
        Ok(())
    }

    /// The entries in order.
    pub(crate) fn finish(mut self) -> Result<Sorted<T>> {
        T::sort(&mut self.buffer);
        let memory = std::mem::take(&mut self.buffer).into_iter();
        if self.runs.is_empty() {
            return Ok(Sorted {
                sources: vec![Source::Memory(memory)],
                heap: BinaryHeap::new(),
                started: true,
                _dir: None,
            });
        }
        let mut sorted = Sorted::of_runs(&self.runs, Some(memory))?;
        sorted._dir = self.dir.take();
        Ok(sorted)
    }
}

enum Source<T> {
    Memory(std::vec::IntoIter<T>),
    File(BufReader<File>, PathBuf),
}

impl<T: SortEntry> Source<T> {
    fn next(&mut self) -> Result<Option<T>> {
        match self {
            Source::Memory(m) => Ok(m.next()),
            Source::File(r, path) => T::read(r).map_err(|e| path_error(e, path)),
        }
    }
}

/// A merge candidate: the next entry of source `source`; the heap's top is the least.
struct Head<T> {
    entry: T,
    source: usize,
}

impl<T: SortEntry> PartialEq for Head<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T: SortEntry> Eq for Head<T> {}
impl<T: SortEntry> PartialOrd for Head<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: SortEntry> Ord for Head<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: `BinaryHeap` is a max-heap. Equal entries come by source.
        other
            .entry
            .order(&self.entry)
            .then(other.source.cmp(&self.source))
    }
}

/// The sorted entries: the in-memory buffer alone, or a merge of it with the spilled runs.
pub(crate) struct Sorted<T> {
    sources: Vec<Source<T>>,
    heap: BinaryHeap<Head<T>>,
    /// Whether the heap holds each source's head (always, for a buffer alone: no heap).
    started: bool,
    /// The scratch directory, removed when the output is dropped.
    _dir: Option<tempfile::TempDir>,
}

impl<T: SortEntry> Sorted<T> {
    /// A merge of the run files `runs` and of `memory`.
    fn of_runs(runs: &[PathBuf], memory: Option<std::vec::IntoIter<T>>) -> Result<Self> {
        let mut sources = Vec::with_capacity(runs.len() + 1);
        for path in runs {
            let file = File::open(path).map_err(|e| path_error(e, path))?;
            sources.push(Source::File(
                BufReader::with_capacity(READ_BUFFER, file),
                path.clone(),
            ));
        }
        sources.extend(memory.map(Source::Memory));
        Ok(Sorted {
            sources,
            heap: BinaryHeap::new(),
            started: false,
            _dir: None,
        })
    }

    /// The entries left, when they are one sorted buffer (nothing was spilled).
    pub(crate) fn in_memory(&mut self) -> Option<&mut std::vec::IntoIter<T>> {
        match self.sources.as_mut_slice() {
            [Source::Memory(m)] => Some(m),
            _ => None,
        }
    }

    /// The next entry in order; `None` after the last.
    pub(crate) fn next_entry(&mut self) -> Result<Option<T>> {
        if let [only] = self.sources.as_mut_slice() {
            return only.next();
        }
        if !self.started {
            self.started = true;
            for (source, s) in self.sources.iter_mut().enumerate() {
                if let Some(entry) = s.next()? {
                    self.heap.push(Head { entry, source });
                }
            }
        }
        let Some(mut top) = self.heap.peek_mut() else {
            return Ok(None);
        };
        let source = top.source;
        match self.sources[source].next()? {
            // The next entry of the same source takes the top's place.
            Some(next) => Ok(Some(std::mem::replace(&mut top.entry, next))),
            None => Ok(Some(std::collections::binary_heap::PeekMut::pop(top).entry)),
        }
    }
}

impl SortEntry for u128 {
    fn memory(&self) -> usize {
        16
    }

    fn order(&self, other: &Self) -> Ordering {
        self.cmp(other)
    }

    fn sort(entries: &mut [Self]) {
        entries.sort_unstable();
    }

    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.to_le_bytes())
    }

    fn read(input: &mut impl BufRead) -> io::Result<Option<Self>> {
        let mut b = [0u8; 16];
        match read_exact_or_end(input, &mut b)? {
            true => Ok(Some(u128::from_le_bytes(b))),
            false => Ok(None),
        }
    }
}

/// Fills `buf`; false at a clean end of input (nothing read), an error when it ends inside.
pub(crate) fn read_exact_or_end(input: &mut impl BufRead, buf: &mut [u8]) -> io::Result<bool> {
    if input.fill_buf()?.is_empty() {
        return Ok(false);
    }
    input.read_exact(buf)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain<T: SortEntry>(mut s: Sorted<T>) -> Vec<T> {
        let mut out = Vec::new();
        while let Some(e) = s.next_entry().unwrap() {
            out.push(e);
        }
        out
    }

    #[test]
    fn spilled_runs_merge_into_one_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = 12345u64;
        let values: Vec<u128> = (0..10_000)
            .map(|_| {
                g = g.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                u128::from(g >> 50) << 64 | u128::from(g % 977)
            })
            .collect();
        for budget in [16, 16 * 7, 16 * 1000, 1 << 20] {
            let mut s = ExternalSort::new(budget, Some(dir.path().to_path_buf()));
            for v in &values {
                s.push(*v).unwrap();
            }
            let runs = s.spilled_runs();
            assert_eq!(runs > 0, budget < 16 * 10_000, "budget {budget}");
            let got = drain(s.finish().unwrap());
            let mut want = values.clone();
            want.sort_unstable();
            assert_eq!(got, want, "budget {budget}");
        }
        // The scratch directories are gone with the outputs.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn runs_at_the_fan_in_are_merged_first() {
        let dir = tempfile::tempdir().unwrap();
        let values: Vec<u128> = (0..1000u128).map(|i| (i * 7919) % 1000).collect();
        for fan_in in [2, 3, 5] {
            // A run every 10 values: 100 spills.
            let mut s = ExternalSort::new(160, Some(dir.path().to_path_buf())).with_fan_in(fan_in);
            for v in &values {
                s.push(*v).unwrap();
                assert!(
                    s.runs.len() <= fan_in,
                    "fan-in {fan_in}: {} runs",
                    s.runs.len()
                );
                let files = std::fs::read_dir(s.dir.as_ref().map_or(dir.path(), |d| d.path()));
                assert!(files.unwrap().count() <= fan_in);
            }
            assert_eq!(s.spilled_runs(), 100);
            let got = drain(s.finish().unwrap());
            assert_eq!(got, (0..1000u128).collect::<Vec<_>>(), "fan-in {fan_in}");
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_truncated_run_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSort::new(32, Some(dir.path().to_path_buf()));
        for v in 0..5u128 {
            s.push(v).unwrap();
        }
        let run = s.runs[0].clone();
        assert!(run.ends_with("run-1"), "{run:?}");
        let bytes = std::fs::read(&run).unwrap();
        std::fs::write(&run, &bytes[..bytes.len() - 3]).unwrap();
        let mut sorted = s.finish().unwrap();
        let e = loop {
            match sorted.next_entry() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("a truncated run read to its end"),
                Err(e) => break e,
            }
        };
        assert!(e.to_string().contains("run-1"), "{e}");
    }
}

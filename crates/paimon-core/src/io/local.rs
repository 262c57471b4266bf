//! Small reads of local files made on the calling task.
//!
//! object_store's local store runs every call on a blocking thread. For the small reads of
//! planning and of a point lookup (snapshot, schema and manifest files, a footer, a few pages)
//! the hand-offs to those threads, and the spawning of them in a fresh process, cost more than
//! the reads, which the page cache serves in microseconds. Reads of at most
//! [`INLINE_READ_BYTES`] are therefore made here, with `std::fs`, on the calling task; larger
//! ones, and anything unusual (a directory, a range starting past the end, a file that cannot
//! be opened), return `None` and go through the store as before, which also words the errors.
//! Listings of a directory (the schema directory a table's load lists) are made here too when
//! every entry is a plain file or directory with a plain name ([`list`]).
//!
//! On Linux, ranges of at least [`MAP_BYTES`] of files on a local disk file system are mapped
//! rather than read ([`mapped`]). A point lookup's reads are mostly such ranges (dictionary
//! pages and page prefixes, ~1 MiB in all), and read into fresh memory every 4 KiB page of them
//! faults once, is zeroed and is then copied over; mapped, they are the page cache's own pages,
//! mapped 16 at a time on first touch (measured on the 2-core VM: a `pk_l5` point lookup, as a
//! whole process, 5.1 → 4.7 ms, ~280 fewer page faults). Scans map the ranges of their small
//! reads too; the benchmark tables' full reads stayed within noise. Network and user-space
//! file systems (NFS, SMB, FUSE, ...) are read, not mapped: there a failed read of a mapped
//! page, or a file removed by another host, would kill the process (SIGBUS) where a read
//! returns an error.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use bytes::Bytes;

/// The most bytes one call reads on the calling task.
pub(crate) const INLINE_READ_BYTES: u64 = 4 << 20;

/// Ranges at least this long are mapped (on Linux): below, copying the few pages costs less
/// than mapping and unmapping them.
#[cfg(target_os = "linux")]
const MAP_BYTES: u64 = 64 << 10;

/// The whole file at `path`; `None` when it is not a small regular file that opens.
pub(crate) fn read(path: &Path) -> io::Result<Option<Bytes>> {
    let Some((mut file, len)) = open(path)? else {
        return Ok(None);
    };
    if len > INLINE_READ_BYTES {
        return Ok(None);
    }
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut buf)?;
    Ok(Some(Bytes::from(buf)))
}

/// `ranges` of the file at `path`, each cut where the file ends; `None` when they are more
/// than [`INLINE_READ_BYTES`] together, one starts past the end or is reversed, or the file
/// is not a regular file that opens.
pub(crate) fn read_ranges(path: &Path, ranges: &[Range<u64>]) -> io::Result<Option<Vec<Bytes>>> {
    let total = ranges
        .iter()
        .try_fold(0u64, |sum, r| sum.checked_add(r.end.checked_sub(r.start)?));
    if total.is_none_or(|t| t > INLINE_READ_BYTES) {
        return Ok(None);
    }
    let Some((mut file, len)) = open(path)? else {
        return Ok(None);
    };
    if ranges.iter().any(|r| r.start > len) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(ranges.len());
    #[cfg(target_os = "linux")]
    let mut maps: Option<bool> = None;
    for r in ranges {
        let want = r.end.min(len) - r.start;
        #[cfg(target_os = "linux")]
        if want >= MAP_BYTES && *maps.get_or_insert_with(|| on_local_disk(&file)) {
            if let Some(b) = usize::try_from(want)
                .ok()
                .and_then(|n| mapped(&file, r.start, n))
            {
                out.push(b);
                continue;
            }
        }
        out.push(read_at(&mut file, r.start, want)?);
    }
    Ok(Some(out))
}

/// Whether `file` lies on a local disk (or memory) file system, whose pages a mapping may read:
/// ext2/3/4, XFS, Btrfs, F2FS, ZFS, tmpfs, overlayfs (containers).
#[cfg(target_os = "linux")]
fn on_local_disk(file: &File) -> bool {
    // linux/magic.h (ZFS: its own `ZFS_SUPER_MAGIC`).
    const LOCAL: [i128; 7] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // XFS
        0x9123_683E, // Btrfs
        0xF2F5_2010, // F2FS
        0x2FC1_2FC1, // ZFS
        0x0102_1994, // tmpfs
        0x794C_7630, // overlayfs
    ];
    rustix::fs::fstatfs(file).is_ok_and(|s| LOCAL.contains(&i128::from(s.f_type)))
}

/// `len` bytes of `file` from `start` (inside the file), mapped read-only; the mapping lives as
/// long as the returned bytes or any slice of them. `None` when the file cannot be mapped: it
/// is read instead.
#[cfg(target_os = "linux")]
fn mapped(file: &File, start: u64, len: usize) -> Option<Bytes> {
    // SAFETY: a mapping is handed out as `&[u8]`, which is sound while the file's bytes in the
    // range do not change and the file is not cut short while it is mapped (an access past a
    // new end raises SIGBUS). The files read in ranges are Paimon data, index and deletion-
    // vector files, which the format makes immutable: each is written once under a fresh
    // name (through object_store, whose local store writes a staging file and renames it into
    // place, so even a replaced path gets a new inode), never opened for writing again, and
    // removed only by unlinking, which leaves a mapping of it intact. The range lies inside the
    // file's length at open (`read_ranges` cut it there), on a local file system
    // (`on_local_disk`), whose page cache serves mapped pages as it serves reads. A file
    // changed in place by something outside Paimon breaks that contract; a read then sees the
    // changed bytes, which the decoders check as any others, or dies of SIGBUS if the file was
    // truncated meanwhile.
    let map = unsafe { memmap2::MmapOptions::new().offset(start).len(len).map(file) };
    map.ok().map(Bytes::from_owner)
}

/// `want` bytes of `file` from `start`, or fewer where the file ends, read into fresh memory.
fn read_at(file: &mut File, start: u64, want: u64) -> io::Result<Bytes> {
    file.seek(SeekFrom::Start(start))?;
    // Capacity only: the read writes the bytes without zeroing them first.
    let mut buf = Vec::with_capacity(usize::try_from(want).unwrap_or(0));
    file.take(want).read_to_end(&mut buf)?;
    Ok(Bytes::from(buf))
}

/// The size of the regular file at `path`; `None` when it is not one (a directory), an error
/// when it cannot be looked up (`NotFound` when it does not exist).
pub(crate) fn size(path: &Path) -> io::Result<Option<u64>> {
    let m = std::fs::metadata(path)?;
    Ok(m.is_file().then_some(m.len()))
}

/// The most entries a listing made on the calling task holds: a larger directory (a long
/// snapshot history, a bucket of many files) is listed by the store on a blocking thread.
pub(crate) const INLINE_LIST_ENTRIES: usize = 1024;

/// The direct children of the directory at `path` as (name, size, is directory), in no
/// order; `None` when it does not open as a directory, has more than
/// [`INLINE_LIST_ENTRIES`] entries, an entry cannot be read, or an entry is
/// anything the store's listing could treat otherwise: a symlink (followed there) or another
/// special file, or a name that is not plain ASCII letters, digits and `._=-` not starting with
/// a dot (the store encodes some characters in its paths and skips some names).
pub(crate) fn list(path: &Path) -> Option<Vec<(String, u64, bool)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).ok()? {
        let entry = entry.ok()?;
        if out.len() == INLINE_LIST_ENTRIES {
            return None;
        }
        let name = entry.file_name().into_string().ok()?;
        if !plain_name(&name) {
            return None;
        }
        let kind = entry.file_type().ok()?;
        if kind.is_dir() {
            out.push((name, 0, true));
        } else if kind.is_file() {
            out.push((name, entry.metadata().ok()?.len(), false));
        } else {
            return None;
        }
    }
    Some(out)
}

/// Whether the store would list `name` as it is (see [`list`]).
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'=' | b'-'))
}

/// The file at `path` opened, with its length; `None` when it does not open or is not a
/// regular file.
fn open(path: &Path) -> io::Result<Option<(File, u64)>> {
    let Ok(file) = File::open(path) else {
        return Ok(None);
    };
    let m = file.metadata()?;
    Ok(m.is_file().then_some((file, m.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_directories_are_listed_here_and_the_rest_left_to_the_store() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bucket-0")).unwrap();
        std::fs::write(dir.path().join("schema-0"), b"abc").unwrap();
        std::fs::write(dir.path().join("data-1_x.parquet"), b"").unwrap();
        let mut got = list(dir.path()).unwrap();
        got.sort();
        let want = [
            ("bucket-0", 0, true),
            ("data-1_x.parquet", 0, false),
            ("schema-0", 3, false),
        ];
        let want: Vec<(String, u64, bool)> = want
            .iter()
            .map(|(n, s, d)| (n.to_string(), *s, *d))
            .collect();
        assert_eq!(got, want);
        let empty = dir.path().join("bucket-0");
        assert_eq!(list(&empty), Some(vec![]));
        let many = tempfile::tempdir().unwrap();
        for i in 0..INLINE_LIST_ENTRIES {
            std::fs::write(many.path().join(format!("f-{i}")), b"").unwrap();
        }
        assert_eq!(
            list(many.path()).map(|l| l.len()),
            Some(INLINE_LIST_ENTRIES)
        );
        std::fs::write(many.path().join("one-more"), b"").unwrap();
        assert_eq!(list(many.path()), None);
        // Missing, a file, or any entry the store could list otherwise: the store's.
        assert_eq!(list(&dir.path().join("missing")), None);
        assert_eq!(list(&dir.path().join("schema-0")), None);
        for odd in ["dt=2024-01-01 10%3A00", ".hidden", "part#1", "caf\u{e9}"] {
            let sub = tempfile::tempdir().unwrap();
            std::fs::write(sub.path().join("plain"), b"").unwrap();
            std::fs::write(sub.path().join(odd), b"").unwrap();
            assert_eq!(list(sub.path()), None, "{odd}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("schema-0"), empty.join("link")).unwrap();
            assert_eq!(list(&empty), None);
        }
    }

    #[test]
    fn long_ranges_are_the_same_bytes_mapped_and_outlive_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data-1.parquet");
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let data: Vec<u8> = (0..400_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        std::fs::write(&path, &data).unwrap();
        // The mapping length on Linux (elsewhere nothing is mapped: the same bytes are read).
        let k = 64 << 10;
        #[cfg(target_os = "linux")]
        assert_eq!(k as u64, MAP_BYTES);
        // Below, at and above the mapping length; at odd (not page-aligned) starts; cut at the
        // end of the file; and one starting at the end.
        let ranges = [
            0..k as u64 - 1,
            1..k as u64 + 1,
            4_097..300_001,
            333_333..500_000,
            400_000..400_000,
        ];
        let got = read_ranges(&path, &ranges).unwrap().unwrap();
        let want: Vec<&[u8]> = vec![
            &data[..k - 1],
            &data[1..k + 1],
            &data[4_097..300_001],
            &data[333_333..],
            &[],
        ];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.len(), w.len());
            assert!(g[..] == w[..]);
        }
        // Long ranges were mapped where the file system is a local one: a mapping starts at a
        // page, so the bytes keep their offset in it (an allocation would be aligned).
        #[cfg(target_os = "linux")]
        if on_local_disk(&File::open(&path).unwrap()) {
            assert_eq!(got[2].as_ptr() as usize % 4096, 4_097 % 4096);
            assert_eq!(got[3].as_ptr() as usize % 4096, 333_333 % 4096);
        }
        // A Paimon file is removed by unlinking it: what was mapped stays readable.
        std::fs::remove_file(&path).unwrap();
        assert!(got[2][..] == data[4_097..300_001]);
        let slice = got[3].slice(10..20);
        drop(got);
        assert_eq!(slice, &data[333_343..333_353]);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn only_local_disk_files_are_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        // proc is not a file system to map; ext4 (the usual disk) is.
        let file = File::open(&path).unwrap();
        if i128::from(rustix::fs::fstatfs(&file).unwrap().f_type) == 0xEF53 {
            assert!(on_local_disk(&file));
        }
        assert!(!on_local_disk(&File::open("/proc/self/stat").unwrap()));
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn small_reads_are_made_here_and_the_rest_left_to_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        assert_eq!(read(&path).unwrap().unwrap(), &data[..]);
        let got = read_ranges(&path, &[0..10, 9_990..10_000, 5..5, 9_995..20_000]).unwrap();
        let got = got.unwrap();
        assert_eq!(got[0], &data[..10]);
        assert_eq!(got[1], &data[9_990..]);
        assert!(got[2].is_empty());
        // Cut where the file ends (the caller reports a short read).
        assert_eq!(got[3], &data[9_995..]);
        assert_eq!(size(&path).unwrap(), Some(10_000));
        // Past the end, reversed, too large, a directory, a missing file: the store's.
        assert!(read_ranges(&path, &[10_001..10_002]).unwrap().is_none());
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = [5..4];
        assert!(read_ranges(&path, &reversed).unwrap().is_none());
        let big = [0..INLINE_READ_BYTES / 2, 0..INLINE_READ_BYTES / 2 + 1];
        assert!(read_ranges(&path, &big).unwrap().is_none());
        assert!(read(dir.path()).unwrap().is_none());
        assert!(read_ranges(dir.path(), &[0..1]).unwrap().is_none());
        assert_eq!(size(dir.path()).unwrap(), None);
        let missing = dir.path().join("missing");
        assert!(read(&missing).unwrap().is_none());
        assert!(read_ranges(&missing, &[0..1]).unwrap().is_none());
        assert_eq!(size(&missing).unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}

//! `memcpy`, `memmove`, `memset`, `memcmp` and `bcmp` for the statically linked musl build of
//! `paimon` (`--target x86_64-unknown-linux-musl`, see the README).
//!
//! Why that build exists: a glibc process spends ~0.5 ms of its start in the dynamic loader
//! probing the CPU's caches (`init_cacheinfo`: a few hundred `cpuid` instructions, each a
//! VM exit on a virtual machine), a tenth of a point lookup's whole process. A static musl
//! binary starts in ~0.6 ms instead of ~1.7 ms (`paimon --version`, 2-core VM). But musl's
//! `memcpy` is one `rep movsq` whatever the size, ~30 cycles of start-up for the many small
//! copies of decoding (string offsets, values): a full read spent 42% of its time there and
//! ran 1.6x slower than the glibc build. These functions replace musl's in that build only
//! (the linker takes a definition from the program before looking in `libc.a`):
//! up to 64 bytes as a few overlapping unaligned loads and stores, longer ranges with
//! `rep movsb` / `rep stosb` (fast on CPUs with ERMS), comparisons 8 bytes at a time.
//!
//! The implementations are plain functions, compiled and tested on every x86-64 target; only
//! the musl build exports them under the C names. None of them loops byte by byte, so the
//! compiler cannot turn their bodies back into calls of themselves.

use std::arch::asm;
use std::ptr::{read_unaligned as load, write_unaligned as store};

/// Copies `n` bytes from `s` to `d`; the ranges may overlap (all loads precede the stores).
///
/// # Safety
/// `s` readable and `d` writable for `n <= 64` bytes.
#[inline(always)]
unsafe fn copy_small(d: *mut u8, s: *const u8, n: usize) {
    // SAFETY: (every branch) offsets stay in `[0, n)` and the accesses are unaligned ones.
    unsafe {
        if n >= 32 {
            let (a, b) = (load(s as *const u128), load(s.add(16) as *const u128));
            let (c, e) = (
                load(s.add(n - 32) as *const u128),
                load(s.add(n - 16) as *const u128),
            );
            store(d as *mut u128, a);
            store(d.add(16) as *mut u128, b);
            store(d.add(n - 32) as *mut u128, c);
            store(d.add(n - 16) as *mut u128, e);
        } else if n >= 16 {
            let (a, b) = (load(s as *const u128), load(s.add(n - 16) as *const u128));
            store(d as *mut u128, a);
            store(d.add(n - 16) as *mut u128, b);
        } else if n >= 8 {
            let (a, b) = (load(s as *const u64), load(s.add(n - 8) as *const u64));
            store(d as *mut u64, a);
            store(d.add(n - 8) as *mut u64, b);
        } else if n >= 4 {
            let (a, b) = (load(s as *const u32), load(s.add(n - 4) as *const u32));
            store(d as *mut u32, a);
            store(d.add(n - 4) as *mut u32, b);
        } else if n >= 2 {
            let (a, b) = (load(s as *const u16), load(s.add(n - 2) as *const u16));
            store(d as *mut u16, a);
            store(d.add(n - 2) as *mut u16, b);
        } else if n == 1 {
            *d = *s;
        }
    }
}

/// `memcpy`: `n` bytes from `s` to `d`, which do not overlap.
///
/// # Safety
/// `s` readable and `d` writable for `n` bytes.
pub(crate) unsafe fn copy(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    if n <= 64 {
        // SAFETY: as the caller promised.
        unsafe { copy_small(d, s, n) };
    } else {
        // SAFETY: `rep movsb` copies `rcx` bytes from `[rsi]` up to `[rdi]` (the direction
        // flag is clear at function boundaries, as the ABI requires); the caller promised
        // both ranges.
        unsafe {
            asm!(
                "rep movsb",
                inout("rcx") n => _,
                inout("rdi") d => _,
                inout("rsi") s => _,
                options(nostack, preserves_flags)
            );
        }
    }
    d
}

/// `memmove`: `n` bytes from `s` to `d`, which may overlap.
///
/// # Safety
/// `s` readable and `d` writable for `n` bytes.
pub(crate) unsafe fn move_bytes(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    let (da, sa) = (d as usize, s as usize);
    // A forward copy is right unless `d` starts inside `(s, s + n)`.
    if n <= 64 || da <= sa || da >= sa.wrapping_add(n) {
        // SAFETY: as the caller promised; short ranges load everything before storing, and
        // `rep movsb` forward reads each byte before a lower destination overwrites it.
        return unsafe { copy(d, s, n) };
    }
    // SAFETY: backwards from the last byte (`n > 64`): `std` sets the direction flag for
    // `rep movsb`, `cld` clears it again before returning, as the ABI requires.
    unsafe {
        asm!(
            "std",
            "rep movsb",
            "cld",
            inout("rcx") n => _,
            inout("rdi") d.add(n - 1) => _,
            inout("rsi") s.add(n - 1) => _,
            options(nostack)
        );
    }
    d
}

/// `memset`: `n` bytes at `d` set to `c as u8`.
///
/// # Safety
/// `d` writable for `n` bytes.
pub(crate) unsafe fn fill(d: *mut u8, c: i32, n: usize) -> *mut u8 {
    let b = c as u8;
    let w = u64::from(b) * 0x0101_0101_0101_0101;
    let q = (u128::from(w) << 64) | u128::from(w);
    // SAFETY: (every branch) offsets stay in `[0, n)`; `rep stosb` stores `al` `rcx` times
    // up from `[rdi]`, the direction flag clear at function boundaries.
    unsafe {
        if n > 64 {
            asm!(
                "rep stosb",
                inout("rcx") n => _,
                inout("rdi") d => _,
                in("al") b,
                options(nostack, preserves_flags)
            );
        } else if n >= 32 {
            store(d as *mut u128, q);
            store(d.add(16) as *mut u128, q);
            store(d.add(n - 32) as *mut u128, q);
            store(d.add(n - 16) as *mut u128, q);
        } else if n >= 16 {
            store(d as *mut u128, q);
            store(d.add(n - 16) as *mut u128, q);
        } else if n >= 8 {
            store(d as *mut u64, w);
            store(d.add(n - 8) as *mut u64, w);
        } else if n >= 4 {
            store(d as *mut u32, w as u32);
            store(d.add(n - 4) as *mut u32, w as u32);
        } else if n >= 2 {
            store(d as *mut u16, w as u16);
            store(d.add(n - 2) as *mut u16, w as u16);
        } else if n == 1 {
            *d = b;
        }
    }
    d
}

/// The order of two big-endian words: -1, 0 or 1.
fn order(a: u64, b: u64) -> i32 {
    match a.cmp(&b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}

/// `memcmp`: the sign of the first differing byte of `a` and `b` (unsigned), 0 if none in
/// `n` bytes.
///
/// # Safety
/// `a` and `b` readable for `n` bytes.
pub(crate) unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: (every load) offsets stay in `[0, n)`. Words are compared as big-endian
    // numbers, whose order is that of their first differing byte; an overlapping last word
    // re-reads bytes already found equal, so its first difference is still the first one.
    unsafe {
        let be64 = |p: *const u8, i: usize| u64::from_be(load(p.add(i) as *const u64));
        if n >= 8 {
            let mut i = 0;
            while i + 8 <= n {
                let (x, y) = (be64(a, i), be64(b, i));
                if x != y {
                    return order(x, y);
                }
                i += 8;
            }
            if i < n {
                return order(be64(a, n - 8), be64(b, n - 8));
            }
            return 0;
        }
        let be32 = |p: *const u8, i: usize| u64::from(u32::from_be(load(p.add(i) as *const u32)));
        let be16 = |p: *const u8, i: usize| u64::from(u16::from_be(load(p.add(i) as *const u16)));
        if n >= 4 {
            let o = order(be32(a, 0), be32(b, 0));
            return if o != 0 {
                o
            } else {
                order(be32(a, n - 4), be32(b, n - 4))
            };
        }
        if n >= 2 {
            let o = order(be16(a, 0), be16(b, 0));
            return if o != 0 {
                o
            } else {
                order(be16(a, n - 2), be16(b, n - 2))
            };
        }
        if n == 1 {
            return order(u64::from(*a), u64::from(*b));
        }
        0
    }
}

/// The C names, exported by the musl build only (the glibc build keeps glibc's).
#[cfg(all(target_env = "musl", target_arch = "x86_64"))]
mod exported {
    /// C's `memcpy`, whose contract is [`super::copy`]'s.
    #[no_mangle]
    unsafe extern "C" fn memcpy(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
        // SAFETY: the caller keeps C's contract, which is `copy`'s (see the doc above).
        unsafe { super::copy(d, s, n) }
    }

    /// C's `memmove`, whose contract is [`super::move_bytes`]'s.
    #[no_mangle]
    unsafe extern "C" fn memmove(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
        // SAFETY: the caller keeps C's contract, which is `move_bytes`'s (see the doc above).
        unsafe { super::move_bytes(d, s, n) }
    }

    /// C's `memset`, whose contract is [`super::fill`]'s.
    #[no_mangle]
    unsafe extern "C" fn memset(d: *mut u8, c: i32, n: usize) -> *mut u8 {
        // SAFETY: the caller keeps C's contract, which is `fill`'s (see the doc above).
        unsafe { super::fill(d, c, n) }
    }

    /// C's `memcmp`, whose contract is [`super::compare`]'s.
    #[no_mangle]
    unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: the caller keeps C's contract, which is `compare`'s (see the doc above).
        unsafe { super::compare(a, b, n) }
    }

    /// C's `bcmp` (0 when equal): a weaker `memcmp`.
    #[no_mangle]
    unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: the caller keeps C's contract, which is `compare`'s (see the doc above).
        unsafe { super::compare(a, b, n) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn copies_and_fills_every_size_and_offset() {
        for n in 0..300 {
            for off in 0..9 {
                let src = pattern(n + 16, 7);
                let mut dst = vec![0xAAu8; n + 32];
                // SAFETY: both buffers hold `off + n` bytes and more.
                unsafe { copy(dst.as_mut_ptr().add(off), src.as_ptr().add(off), n) };
                assert_eq!(&dst[off..off + n], &src[off..off + n], "copy {n} at {off}");
                assert!(dst[..off].iter().all(|&b| b == 0xAA));
                assert!(
                    dst[off + n..].iter().all(|&b| b == 0xAA),
                    "copy {n} overran"
                );
                let mut f = vec![1u8; n + 32];
                // SAFETY: `f` holds `off + n` bytes and more.
                unsafe { fill(f.as_mut_ptr().add(off), 0x1FE, n) };
                assert!(f[off..off + n].iter().all(|&b| b == 0xFE), "fill {n}");
                assert!(f[..off].iter().chain(&f[off + n..]).all(|&b| b == 1));
            }
        }
    }

    #[test]
    fn moves_overlapping_ranges_both_ways() {
        for n in 0..300 {
            for shift in [1usize, 3, 8, 17, 64, 100] {
                let base = pattern(n + shift + 8, 3);
                // Destination after the source (a backward copy), then before it.
                let mut up = base.clone();
                // SAFETY: `up` holds `shift + n` bytes.
                unsafe { move_bytes(up.as_mut_ptr().add(shift), up.as_ptr(), n) };
                let mut want = base.clone();
                want.copy_within(0..n, shift);
                assert_eq!(up, want, "move up {n} by {shift}");
                let mut down = base.clone();
                // SAFETY: as above.
                unsafe { move_bytes(down.as_mut_ptr(), down.as_ptr().add(shift), n) };
                let mut want = base.clone();
                want.copy_within(shift..shift + n, 0);
                assert_eq!(down, want, "move down {n} by {shift}");
            }
        }
    }

    #[test]
    fn compares_as_unsigned_bytes_in_order() {
        for n in 0..80 {
            let a = pattern(n, 5);
            // SAFETY: both hold `n` bytes.
            assert_eq!(unsafe { compare(a.as_ptr(), a.clone().as_ptr(), n) }, 0);
            for at in 0..n {
                for (x, y) in [(0x00u8, 0xFFu8), (0x80, 0x7F), (5, 6)] {
                    let (mut p, mut q) = (a.clone(), a.clone());
                    p[at] = x;
                    q[at] = y;
                    // A later difference the other way must not count.
                    if at + 1 < n {
                        p[n - 1] = 0xFF;
                        q[n - 1] = 0x00;
                    }
                    let want = p.cmp(&q) as i32;
                    // SAFETY: both hold `n` bytes.
                    let got = unsafe { compare(p.as_ptr(), q.as_ptr(), n) };
                    assert_eq!(got.signum(), want, "{n} bytes, first difference at {at}");
                }
            }
        }
    }
}

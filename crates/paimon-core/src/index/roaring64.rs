//! The portable 64-bit Roaring image Java writes (`Roaring64NavigableMap#serializePortable`, as
//! used by `org.apache.paimon.deletionvectors.Bitmap64DeletionVector` and
//! `org.apache.paimon.utils.RoaringNavigableMap64`): a little-endian `u64` bucket count, then
//! per bucket a `u32 LE` high key (strictly ascending) and a 32-bit Roaring portable bitmap.

use roaring::{RoaringBitmap, RoaringTreemap};

use crate::spec::bytes::ByteReader;
use crate::Result;

/// Decodes a portable 64-bit image of the structure named `what`; the whole input must be
/// consumed. Never allocates from the declared bucket count.
pub(crate) fn decode_portable(bytes: &[u8], what: &'static str) -> Result<RoaringTreemap> {
    let mut r = ByteReader::new(bytes, what);
    let count = r.u64_le()?;
    // Each bucket needs at least a 4-byte key and an 8-byte bitmap header.
    if count > (r.remaining() / 12) as u64 {
        return Err(r.invalid(format!("bucket count {count} exceeds the input")));
    }
    let mut bitmaps = Vec::new();
    let mut last: Option<u32> = None;
    for _ in 0..count {
        let key = r.u32_le()?;
        if last.is_some_and(|l| key <= l) {
            return Err(r.invalid("bucket keys are not strictly increasing"));
        }
        last = Some(key);
        let rest = bytes.get(r.position()..).ok_or_else(|| r.truncated(1))?;
        let mut cursor = std::io::Cursor::new(rest);
        let bm = RoaringBitmap::deserialize_from(&mut cursor)
            .map_err(|e| r.invalid(format!("corrupt 32-bit bitmap: {e}")))?;
        let used = usize::try_from(cursor.position()).map_err(|_| r.invalid("bitmap size"))?;
        r.take(used)?;
        // Java's dense bitmap arrays hold empty bitmaps for unused keys.
        if !bm.is_empty() {
            bitmaps.push((key, bm));
        }
    }
    if !r.is_empty() {
        return Err(r.invalid("trailing bytes after the last bitmap"));
    }
    Ok(RoaringTreemap::from_bitmaps(bitmaps))
}

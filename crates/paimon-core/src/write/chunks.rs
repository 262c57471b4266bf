//! [`Chunks`]: the in-memory target of the Parquet, ORC and Avro format writers, in chunks of at most
//! [`Chunks::CHUNK`] bytes. A growing `Vec<u8>` doubles and copies: when a writer flushes a
//! row group of several MiB into one, the old and the new allocation are both alive, and the
//! bytes are copied once per doubling. Chunks are never copied again; they leave as `Bytes`
//! for the store ([`crate::io::FileSink`]) as the file is streamed out.

use std::io::Write;

use bytes::Bytes;

/// Bytes written, in chunks (see the [module docs](self)).
#[derive(Debug, Default)]
pub(crate) struct Chunks {
    /// Full chunks, in order.
    done: Vec<Bytes>,
    /// The chunk being filled (capacity [`Chunks::CHUNK`] once written to).
    current: Vec<u8>,
    /// Bytes written so far, taken ones included.
    written: u64,
}

impl Chunks {
    /// Bytes per chunk.
    pub(crate) const CHUNK: usize = 1 << 20;

    /// Bytes written so far, taken ones included.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// The full chunks written since the last call, in order (the chunk being filled stays:
    /// handed over part-filled, it would pin its whole allocation).
    pub(crate) fn take(&mut self) -> Vec<Bytes> {
        std::mem::take(&mut self.done)
    }

    /// Every byte not taken, in order.
    pub(crate) fn into_parts(mut self) -> Vec<Bytes> {
        let mut out = self.take();
        if !self.current.is_empty() {
            out.push(Bytes::from(self.current));
        }
        out
    }

    /// Every byte not taken, as one buffer.
    #[cfg(test)]
    pub(crate) fn into_vec(self) -> Vec<u8> {
        self.into_parts().concat()
    }
}

impl Write for Chunks {
    fn write(&mut self, mut data: &[u8]) -> std::io::Result<usize> {
        let n = data.len();
        self.written += n as u64;
        while !data.is_empty() {
            if self.current.capacity() == 0 {
                self.current.reserve_exact(Self::CHUNK);
            }
            let room = self.current.capacity() - self.current.len();
            let (now, rest) = data.split_at(room.min(data.len()));
            self.current.extend_from_slice(now);
            data = rest;
            if self.current.len() == self.current.capacity() {
                self.done
                    .push(Bytes::from(std::mem::take(&mut self.current)));
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_the_bytes_in_order() {
        let mut c = Chunks::default();
        let mut want = Vec::new();
        let mut got = Vec::new();
        for (i, len) in [0usize, 5, Chunks::CHUNK - 5, 1, 3 * Chunks::CHUNK + 7, 9]
            .into_iter()
            .enumerate()
        {
            let data: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
            c.write_all(&data).unwrap();
            want.extend_from_slice(&data);
            if i == 3 {
                let parts = c.take();
                assert!(parts.iter().all(|p| p.len() <= Chunks::CHUNK));
                got.extend(parts.iter().flat_map(|p| p.iter().copied()));
            }
        }
        assert_eq!(c.written(), want.len() as u64);
        got.extend(c.into_vec());
        assert_eq!(got, want);
    }
}

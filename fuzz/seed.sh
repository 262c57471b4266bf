#!/usr/bin/env bash
# Copies seed inputs from the Java fixtures (testdata/java) into fuzz/corpus/<target>/ (gitignored).
set -eu  # no pipefail: `head` closing a pipe early is expected here
cd "$(dirname "$0")"
fx=../testdata/java
mkdir -p corpus/manifest corpus/binary_row corpus/deletion_vector corpus/orc_tail
i=0
find "$fx" -path '*/manifest/*' -type f | head -200 | while read -r f; do cp "$f" "corpus/manifest/m$((i++))" ; done
# The direct Avro decoder: Avro manifests and manifest lists only.
mkdir -p corpus/manifest_direct
find "$fx" -path '*/manifest/*' -type f | while read -r f; do
  if [ "$(head -c 4 "$f")" = "$(printf 'Obj\001')" ]; then cp "$f" "corpus/manifest_direct/$(basename "$f")"; fi
done
# ORC tails (PostScript + Footer live in the last bytes of the file).
find "$fx" -name '*.orc' -type f | head -50 | while read -r f; do i=$((i + 1)); tail -c 4096 "$f" > "corpus/orc_tail/t$i"; done
find "$fx" -path '*/index/index-*' -type f | head -50 | while read -r f; do cp "$f" "corpus/deletion_vector/d$((i++))"; done
printf '\x03\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00' > corpus/binary_row/r0
# BTree payloads and their _INDEX_META; _SOURCE_META golden bytes (level 3, a.parquet/100, b.parquet/200).
mkdir -p corpus/btree_sst corpus/source_meta
find ../testdata/java/btree ../testdata/java/global_index/btree -name '*.bin' -type f | head -50 | while read -r f; do cp "$f" "corpus/btree_sst/$(basename "$f")"; done
find ../testdata/java/global_index/btree -name '*.meta' -type f | head -20 | while read -r f; do cp "$f" "corpus/btree_sst/$(basename "$f")"; done
printf '\x00\x00\x00\x01\x00\x00\x00\x03\x00\x00\x00\x02\x00\x09a.parquet\x00\x00\x00\x00\x00\x00\x00\x64\x00\x09b.parquet\x00\x00\x00\x00\x00\x00\x00\xc8' > corpus/source_meta/s0
# Data-file index containers (*.index sidecars) and raw bitmap / range-bitmap payloads.
mkdir -p corpus/file_index
find "$fx" -name '*.index' -type f | head -50 | while read -r f; do cp "$f" "corpus/file_index/$(basename "$f")"; done
cp "$fx/file_index/rangebitmap/rangebitmap.index" corpus/file_index/rangebitmap
head -c 4096 "$fx/file_index/bitmap-index-v1" > corpus/file_index/bitmap-v1-head

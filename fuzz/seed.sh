#!/usr/bin/env bash
# Copies seed inputs from the Java fixtures into fuzz/corpus/<target>/ (gitignored).
set -euo pipefail
cd "$(dirname "$0")"
fx=../../shared/fixtures/java
mkdir -p corpus/manifest corpus/binary_row corpus/deletion_vector
i=0
find "$fx" -path '*/manifest/*' -type f | head -200 | while read -r f; do cp "$f" "corpus/manifest/m$((i++))" ; done
find "$fx" -path '*/index/index-*' -type f | head -50 | while read -r f; do cp "$f" "corpus/deletion_vector/d$((i++))"; done
printf '\x03\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00' > corpus/binary_row/r0

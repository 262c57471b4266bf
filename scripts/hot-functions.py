#!/usr/bin/env python3
"""Writes `crates/paimon-cli/hot-functions.txt`: the functions of the `paimon` binary that a
point lookup runs, for the linker to place together (see `crates/paimon-cli/build.rs`).

    scripts/hot-functions.py PAIMON ./wh [-o crates/paimon-cli/hot-functions.txt]
    scripts/hot-functions.py PAIMON --check    # how much of the list a build still finds

PAIMON is a release build of the CLI (`cargo build --release -p paimon-cli`), ./wh a warehouse
with the benchmark tables `b.pk_l0` and `b.pk_l5` (`scripts/make_bench_pk.py`). Each command
runs once under valgrind's callgrind, which lists every function executed in every thread;
the names (mangled) that are text symbols of the binary are written once each, in the order
callgrind lists them (what matters is that they lie together, not their order).
Needs valgrind and binutils' `nm`.

The names carry the hashes rustc gives every symbol, which change with the compiler version
and with a dependency's version: rerun this after either changes (a name the linker does not
find is skipped, so a stale list only makes the binary start as it would without it).
"""

import argparse
import os
import re
import subprocess
import tempfile

COMMANDS = [
    ["--version"],
    ["read", "{wh}", "b.pk_l5", "--where", "id = 1234567", "--format", "jsonl"],
    ["read", "{wh}", "b.pk_l5", "--where", "id = 2234567", "--format", "jsonl"],
    ["read", "{wh}", "b.pk_l0", "--where", "id = 1234567", "--format", "jsonl"],
    ["read", "{wh}", "b.pk_l0", "--where", "id IN (17, 2999999)", "--format", "jsonl"],
]

# `fn=(id) name` (or `cfn=`): a function's name, given with its id where it first appears.
NAMED = re.compile(r"^c?fn=\(\d+\) (.+)$")


def text_symbols(binary):
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True,
                         check=True).stdout
    return {parts[2] for parts in (line.split() for line in out.splitlines())
            if len(parts) == 3 and parts[1] in "TtWw"}


def linked_by_lld(binary):
    """Whether the binary's `.comment` names LLD, the one linker that reads the list (the musl
    build links with GNU ld)."""
    out = subprocess.run(["readelf", "-p", ".comment", binary], capture_output=True, text=True)
    return "Linker: LLD" in out.stdout


def executed(binary, args, folder):
    out = os.path.join(folder, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no",
                    f"--callgrind-out-file={out}", binary, *args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    with open(out) as f:
        return [m.group(1) for m in map(NAMED.match, f) if m]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paimon")
    ap.add_argument("warehouse", nargs="?")
    ap.add_argument("-o", "--output", default=os.path.join(
        os.path.dirname(__file__), "..", "crates", "paimon-cli", "hot-functions.txt"))
    ap.add_argument("--check", action="store_true",
                    help="report how many listed names the binary defines (exit 1 below 80%%)")
    a = ap.parse_args()
    symbols = text_symbols(a.paimon)
    if a.check:
        if not linked_by_lld(a.paimon):
            print(f"{a.paimon} was not linked by LLD: the list does not apply to it")
            return
        with open(a.output) as f:
            listed = [line.strip() for line in f if line.strip()]
        found = sum(name in symbols for name in listed)
        print(f"{found} of {len(listed)} listed functions are in {a.paimon}")
        raise SystemExit(0 if listed and found >= 0.8 * len(listed) else 1)
    if a.warehouse is None:
        ap.error("the warehouse is needed to write the list")
    wh = os.path.abspath(a.warehouse)
    seen, order = set(), []
    with tempfile.TemporaryDirectory() as folder:
        for command in COMMANDS:
            for name in executed(a.paimon, [c.format(wh=wh) for c in command], folder):
                if name in symbols and name not in seen:
                    seen.add(name)
                    order.append(name)
    with open(a.output, "w") as f:
        f.writelines(name + "\n" for name in order)
    print(f"{len(order)} functions written to {a.output}")


if __name__ == "__main__":
    main()

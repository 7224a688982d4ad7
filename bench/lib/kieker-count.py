#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kieker-count.py - count the OperationExecutionRecords a Kieker binary file writer left in DIR.

Usage: kieker-count.py DIR [SIGNATURE]
Prints `records N` (all OperationExecutionRecords), and with SIGNATURE only those whose operationSignature is
that string (as kieker.map spells it, e.g. `public long emp.sut.MooBench.monitoredMethod(long,int)`).

Format (Kieker 2.0 BinaryLogStreamHandler, big-endian): each record is int classId, long loggingTimestamp,
then its fields; strings are int ids into kieker.map (`$<id>=<string>`, class names too).  An
OperationExecutionRecord has operationSignature:int sessionId:int traceId:long tin:long tout:long
hostname:int eoi:int ess:int (56 bytes with the header); the KiekerMetadataRecord has version:int
controllerName:int hostname:int experimentId:int debugMode:byte timeOffset:long timeUnit:int
numberOfRecords:long (49 bytes).  Any other record class: one line on stderr, exit 2 (never a guess).
"""
import glob
import os
import struct
import sys

SIZES = {"kieker.common.record.controlflow.OperationExecutionRecord": 56,
         "kieker.common.record.misc.KiekerMetadataRecord": 49}


def run_of(data, off, n, value):
    """Whether the big-endian int at off, off+56, … (n of them) is value (< 256) every time."""
    cols = [data[off + i::56][:n] for i in range(4)]
    return cols[0] == cols[1] == cols[2] == bytes(n) and cols[3] == bytes([value]) * n


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: kieker-count.py DIR [SIGNATURE]", file=sys.stderr)
        return 2
    maps = glob.glob(os.path.join(sys.argv[1], "**", "kieker.map"), recursive=True)
    if len(maps) != 1:
        print(f"kieker-count: {sys.argv[1]}: expected one kieker.map, found {len(maps)}", file=sys.stderr)
        return 2
    ids = {}
    with open(maps[0], encoding="utf-8") as f:
        for line in f:
            if line.startswith("$") and "=" in line:
                k, v = line[1:].rstrip("\n").split("=", 1)
                ids[v] = int(k)
    oer = ids.get("kieker.common.record.controlflow.OperationExecutionRecord")
    sig = ids.get(sys.argv[2]) if len(sys.argv) == 3 else None
    if len(sys.argv) == 3 and sig is None:
        print("records 0")
        return 0
    size_of = {ids[k]: v for k, v in SIZES.items() if k in ids}
    total = 0
    for path in glob.glob(os.path.join(os.path.dirname(maps[0]), "*.bin")):
        with open(path, "rb") as f:
            data = f.read()
        off = 0
        while off < len(data):
            cls = struct.unpack_from(">i", data, off)[0]
            if cls == oer:
                # Fast path: the rest of the file is usually a run of OERs; check the stride with slices.
                n = (len(data) - off) // 56
                if n and (len(data) - off) % 56 == 0 and oer < 256 and run_of(data, off, n, oer):
                    if sig is None:
                        total += n
                    elif sig < 256 and run_of(data, off + 12, n, sig):
                        total += n
                    else:
                        total += sum(1 for k in range(n)
                                     if struct.unpack_from(">i", data, off + 56 * k + 12)[0] == sig)
                    break
                if sig is None or struct.unpack_from(">i", data, off + 12)[0] == sig:
                    total += 1
                off += 56
            elif cls in size_of:
                off += size_of[cls]
            else:
                print(f"kieker-count: {path}: unknown record class id {cls} at offset {off}", file=sys.stderr)
                return 2
        if off > len(data):
            print(f"kieker-count: {path}: last record cut short", file=sys.stderr)
            return 2
    print(f"records {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

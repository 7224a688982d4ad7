#!/usr/bin/env bash
# concurrency.sh - the writer, the rings and the thread hand-over under real threads (tests/tsan/concurrency.c):
# every record of 12 short-lived producer threads reaches the dump in order, END names one of two racing stop
# reasons.  `make tsan` runs the same driver under ThreadSanitizer.
set -u
BUILD=${BUILD:-build}
exec "$BUILD/test/concurrency"

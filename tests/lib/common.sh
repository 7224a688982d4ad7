# Sourced by tests/integration/*.sh: paths, a scratch directory removed at exit, and assertion helpers that
# print what differed and exit 1.
set -u
: "${BUILD:=build}" "${JAVA:=java}" "${JDK25:=/usr/lib/jvm/temurin-25-jdk-amd64}"
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
AGENT=${EMP_AGENT:-$TOP/$BUILD/libemp.so}
ANALYZE=${EMP_ANALYZE:-$TOP/$BUILD/emp-analyze}
SUT=${EMP_SUT_JAR:-$TOP/$BUILD/java-sut.jar}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
# expect_eq WHAT EXPECTED ACTUAL
expect_eq() { [ "$2" == "$3" ] || fail "$1: expected '$2', got '$3'"; }
# expect_match WHAT REGEX TEXT
expect_match() { [[ "$3" =~ $2 ]] || fail "$1: '$3' does not match /$2/"; }
# info_value FILE TABLE KEY: the value of row KEY in table TABLE (meta, counters, events) of `info --format=csv`
info_value() {
    "$ANALYZE" info --format=csv --allow-truncated "$1" 2>/dev/null | python3 -c '
import csv, sys
t, k = sys.argv[1], sys.argv[2]
for row in csv.reader(sys.stdin):
    if len(row) >= 4 and row[0] == t and row[2] == k:
        print(row[3])' "$2" "$3"
}
have_jdk25() { [ -x "$JDK25/bin/java" ]; }

#!/usr/bin/env bash
# analyzer_errors.sh - emp-analyze's error paths, end to end: exit statuses (0 ok, 1 unreadable or corrupt input,
# 2 bad command line, 3 truncated input), exact one-line messages naming the file and the byte offset, nothing on
# stdout for a usage error, the report still printed for a truncated dump; compare's and exactness's refusals of
# timing-file sets (pure mode: empty or mixed directory, bad header, a timing set against a dump set).
# Dumps come from the unit tests' dump/corpus test (EMP_TEST_CORPUS), so no binary dump is kept in the repository;
# damaged copies are made here with dd.  Every check runs; each failure is printed; exit 0 pass, 1 fail.
source "$(dirname "$0")/../lib/common.sh"

UNIT=$TOP/$BUILD/unit-tests
[ -x "$ANALYZE" ] || fail "no $ANALYZE (make)"
[ -x "$UNIT" ] || fail "no $UNIT (make $BUILD/unit-tests)"

failures=0
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run ARGS...: run emp-analyze; sets OUT, ERR, RC.
run() {
    "$ANALYZE" "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    OUT=$(cat "$TMP/out")
    ERR=$(cat "$TMP/err")
}
# expect WHAT RC [ERR]: the last run's exit status, and its stderr exactly when given.
expect() {
    [ "$RC" == "$2" ] || bad "$1: exit $RC, expected $2 (stderr: $ERR)"
    if [ $# -ge 3 ] && [ "$ERR" != "$3" ]; then
        bad "$1: stderr"$'\n'"  got:      $ERR"$'\n'"  expected: $3"
    fi
}
expect_stdout_empty() { [ -z "$OUT" ] || bad "$1: stdout not empty: $(head -c 200 <<<"$OUT")"; }
expect_one_line() { [ "$(wc -l <"$TMP/err")" == 1 ] || bad "$1: stderr is not one line: $ERR"; }

# chunk_starts FILE: the byte offset of every chunk (a u32 stored length at +8, after a 16-byte header).
chunk_starts() {
    local size off=16 stored
    size=$(stat -c %s "$1")
    while [ $((off + 16)) -le "$size" ]; do
        echo "$off"
        stored=$(od -An -tu4 -j $((off + 8)) -N4 "$1" | tr -d ' ')
        off=$((off + 16 + stored))
    done
}
# flip FILE OFFSET: invert the byte at OFFSET.
flip() {
    local b
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\$(printf %03o $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# ---- dumps ---------------------------------------------------------------------------------------------------
mkdir -p "$TMP/corpus"
EMP_TEST_CORPUS=$TMP/corpus "$UNIT" --filter 'dump/corpus' >/dev/null 2>&1 || fail "unit-tests --filter dump/corpus failed"
GOOD=$TMP/corpus/small-complete.emp
[ -s "$GOOD" ] || fail "the unit tests wrote no $GOOD"
mapfile -t STARTS < <(chunk_starts "$GOOD")
SIZE=$(stat -c %s "$GOOD")
[ "${#STARTS[@]}" -ge 5 ] || fail "expected at least 5 chunks in $GOOD, found ${#STARTS[@]}"
LAST=${STARTS[-1]}

TRUNC=$TMP/truncated.emp           # cut inside the payload of chunk 3
TRUNC_AT=$((STARTS[3] + 20))
head -c "$TRUNC_AT" "$GOOD" >"$TRUNC"
TRUNC_HDR=$TMP/truncated-header.emp # cut inside the header of chunk 2
head -c $((STARTS[2] + 5)) "$GOOD" >"$TRUNC_HDR"
TRUNC_EDGE=$TMP/truncated-edge.emp  # cut exactly after chunk 3
head -c "${STARTS[4]}" "$GOOD" >"$TRUNC_EDGE"
CORRUPT=$TMP/corrupt.emp            # a payload byte of chunk 2: the LZ4 frame no longer checks
cp "$GOOD" "$CORRUPT"
flip "$CORRUPT" $((STARTS[2] + 16 + 20))
BADMAGIC=$TMP/bad-chunk-magic.emp   # the magic of chunk 1
cp "$GOOD" "$BADMAGIC"
flip "$BADMAGIC" "${STARTS[1]}"
TRAILING=$TMP/trailing.emp          # bytes after END
{ cat "$GOOD"; printf 'xyz'; } >"$TRAILING"
NOTDUMP=$TMP/notes.txt
echo "hello, this is not a dump" >"$NOTDUMP"
EMPTY=$TMP/empty.emp
: >"$EMPTY"
MISSING=$TMP/missing.emp

# ---- the command line ------------------------------------------------------------------------------------------
run bogus "$GOOD"
expect "unknown command" 2 "emp-analyze: unknown command 'bogus' (see emp-analyze --help)"
expect_stdout_empty "unknown command"

run
expect "no command" 2
expect_stdout_empty "no command"
[[ "$ERR" == "usage: emp-analyze COMMAND"* ]] || bad "no command: usage not on stderr: $ERR"

run --help
expect "--help" 0 ""
[[ "$OUT" == "usage: emp-analyze COMMAND"* ]] || bad "--help: usage not on stdout"

run info --help
expect "info --help" 0 ""
[[ "$OUT" == "usage: emp-analyze info "* ]] || bad "info --help: usage not on stdout: $(head -n 1 <<<"$OUT")"

run info --bogus "$GOOD"
expect "info --bogus" 2
expect_stdout_empty "info --bogus"
[[ "$ERR" == *"'--bogus'"* ]] || bad "info --bogus: the message does not name --bogus: $ERR"

run info --format "$GOOD"
expect "info --format without a value" 2
expect_stdout_empty "info --format without a value"

run info --format=bogus "$GOOD"
expect "info --format=bogus" 2 "emp-analyze info: --format=bogus: expected text, csv or json (see emp-analyze info --help)"
expect_stdout_empty "info --format=bogus"

run info
expect "info without a file" 2 "emp-analyze info: no dump file given (see emp-analyze info --help)"
expect_stdout_empty "info without a file"

# every command shares --help, --format and the usage-error status
mapfile -t COMMANDS < <("$ANALYZE" --help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p')
[ "${#COMMANDS[@]}" -ge 1 ] || bad "emp-analyze --help lists no commands"
for c in "${COMMANDS[@]}"; do
    run "$c" --help
    expect "$c --help" 0 ""
    [[ "$OUT" == "usage: emp-analyze $c"* ]] || bad "$c --help: stdout does not start with 'usage: emp-analyze $c'"
    run "$c" --no-such-flag "$GOOD"
    expect "$c --no-such-flag" 2
    expect_stdout_empty "$c --no-such-flag"
    run "$c" --format=bogus "$GOOD"
    expect "$c --format=bogus" 2
    expect_stdout_empty "$c --format=bogus"
    [[ "$ERR" == *"--format=bogus"* ]] || bad "$c --format=bogus: the message does not name it: $ERR"
done

# ---- input files ---------------------------------------------------------------------------------------------
for fmt in text csv json; do
    run info --format=$fmt "$GOOD"
    expect "complete dump ($fmt)" 0 ""
    [[ "$OUT" == *complete* ]] || bad "complete dump ($fmt): status 'complete' not reported"
done
run info --format=json "$GOOD"
python3 -c 'import json, sys; json.loads(sys.stdin.read())' <<<"$OUT" 2>/dev/null || bad "info --format=json: not valid JSON"

run info "$MISSING"
expect "missing file" 1 "emp-analyze: $MISSING: cannot open: No such file or directory"

run info "$TMP"
expect "a directory" 1 "emp-analyze: $TMP: not a regular file"

run info "$NOTDUMP"
expect "not a dump" 1 "emp-analyze: $NOTDUMP: not an emp dump (bad magic at byte 0)"

run info "$EMPTY"
expect "empty file" 3 "emp-analyze: $EMPTY: truncated at byte 0 inside the 16-byte file header (report covers what was read; --allow-truncated to accept)"

MSG="$TRUNC: truncated at byte $TRUNC_AT inside the chunk at byte ${STARTS[3]}; read up to byte ${STARTS[3]}"
run info "$TRUNC"
expect "truncated dump" 3 "emp-analyze: $MSG (report covers what was read; --allow-truncated to accept)"
expect_one_line "truncated dump"
[[ "$OUT" == *truncated* ]] || bad "truncated dump: the report (status truncated) was not printed"
[[ "$OUT" == *main* ]] || bad "truncated dump: the report lacks the thread read before the cut"
run info --allow-truncated "$TRUNC"
expect "truncated dump, --allow-truncated" 0 "emp-analyze: $MSG"
[[ "$OUT" == *truncated* ]] || bad "truncated dump, --allow-truncated: no report"
run info --format=csv "$TRUNC"
expect "truncated dump (csv)" 3
grep -q "^files,$TRUNC,truncated,$TRUNC_AT,${STARTS[3]}," <<<"$OUT" \
    || bad "truncated dump (csv): no files row with size $TRUNC_AT and read_bytes ${STARTS[3]}: $(grep '^files' <<<"$OUT")"

run info "$TRUNC_HDR"
expect "truncated in a chunk header" 3 "emp-analyze: $TRUNC_HDR: truncated at byte $((STARTS[2] + 5)) inside the chunk header at byte ${STARTS[2]}; read up to byte ${STARTS[2]} (report covers what was read; --allow-truncated to accept)"

run info "$TRUNC_EDGE"
expect "truncated at a chunk boundary" 3 "emp-analyze: $TRUNC_EDGE: truncated: ends at byte ${STARTS[4]} without an END chunk (report covers what was read; --allow-truncated to accept)"

run info "$CORRUPT"
expect "corrupt payload" 1
expect_one_line "corrupt payload"
[[ "$ERR" == "emp-analyze: $CORRUPT: corrupt: chunk at byte ${STARTS[2]}: "* ]] \
    || bad "corrupt payload: message does not name the chunk at byte ${STARTS[2]}: $ERR"
[[ "$OUT" == *corrupt* ]] || bad "corrupt payload: the report (status corrupt) was not printed"
run info --allow-truncated "$CORRUPT"
expect "corrupt payload, --allow-truncated" 1

run info "$BADMAGIC"
expect "bad chunk magic" 1 "emp-analyze: $BADMAGIC: corrupt: bad chunk magic at byte ${STARTS[1]}"

run info "$TRAILING"
expect "bytes after END" 1 "emp-analyze: $TRAILING: corrupt: 3 bytes after the END chunk at byte $LAST"

# several files: the worst status wins (error 1 over truncated 3 over ok 0), every readable file is reported
run info --format=csv "$GOOD" "$TRUNC"
expect "complete + truncated" 3
[ "$(grep -c '^files,' <<<"$OUT")" == 2 ] || bad "complete + truncated: expected 2 files rows"
run info --format=csv "$TRUNC" "$MISSING" "$GOOD"
expect "truncated + missing + complete" 1
[ "$(grep -c '^files,' <<<"$OUT")" == 2 ] || bad "truncated + missing + complete: expected 2 files rows"
[ "$(wc -l <"$TMP/err")" == 2 ] || bad "truncated + missing + complete: expected 2 stderr lines: $ERR"
run info "$CORRUPT" "$TRUNC"
expect "corrupt + truncated" 1

# ---- compare and exactness on timing files (pure mode): one line each, exit 1, nothing on stdout --------------
TS=$TMP/timing-sets
mkdir -p "$TS/base" "$TS/new" "$TS/empty" "$TS/mixed" "$TS/badhdr" "$TS/dumps"
for d in base new mixed; do printf 'iteration,duration_ns\n0,100\n1,110\n' >"$TS/$d/vm1.csv"; done
cp "$GOOD" "$TS/mixed/vm2.emp"
cp "$GOOD" "$TS/dumps/vm1.emp"
printf 'iter,ns\n0,5\n' >"$TS/badhdr/vm1.csv"
for c in compare exactness; do
    run "$c" --base "$TS/empty" --new "$TS/new"
    expect "$c: empty directory" 1 "emp-analyze: $TS/empty: no dump (*.emp), no timing file (*.csv), and not a directory of emp-run (no ../../runs.csv)"
    expect_stdout_empty "$c: empty directory"
    run "$c" --base "$TS/base" --new "$TS/mixed"
    expect "$c: dumps and timing files in one directory" 1 \
        "emp-analyze: $TS/mixed: both dumps (*.emp) and timing files (*.csv) in this directory: one set per directory"
    expect_stdout_empty "$c: dumps and timing files in one directory"
    run "$c" --base "$TS/badhdr" --new "$TS/new"
    expect "$c: bad header" 1 \
        "emp-analyze: $TS/badhdr/vm1.csv:1: expected the header 'iteration,duration_ns' (a java-sut --timings file)"
    expect_stdout_empty "$c: bad header"
    run "$c" --base "$TS/base" --new "$TS/dumps"
    expect "$c: timing set against a dump set" 1 "emp-analyze: $TS/dumps: dumps (*.emp), but $TS/base/vm1.csv is a timing file: compare dumps with dumps and timing files with timing files"
    expect_stdout_empty "$c: timing set against a dump set"
    run "$c" --base "$TS/base" --new "$TS/new" --warmup 2
    expect "$c: warm-up swallows a timing file" 1 "emp-analyze: $TS/base/vm1.csv: no iterations after --warmup 2 (the file has 2)"
    expect_stdout_empty "$c: warm-up swallows a timing file"
    run "$c" --base "$TS/dumps" --new "$TS/dumps" --iteration-name=x
    expect "$c: --iteration-name with dumps" 1 "emp-analyze: $TS/dumps/vm1.emp: a dump names its iteration method itself (agent option iteration=); --iteration-name=x is for timing files"
    expect_stdout_empty "$c: --iteration-name with dumps"
    run "$c" --base "$TS/base" --new "$TS/new" --iteration-name=
    expect "$c: empty --iteration-name" 2 "emp-analyze $c: --iteration-name: expected a name (see emp-analyze $c --help)"
    expect_stdout_empty "$c: empty --iteration-name"
done

if [ "$failures" -gt 0 ]; then
    echo "analyzer_errors: $failures check(s) failed"
    exit 1
fi
echo "analyzer_errors: ok"

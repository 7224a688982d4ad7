#!/usr/bin/env bash
# The test runner behind `make test`: the Criterion unit tests, then every tests/integration/*.sh.
# An integration script exits 0 (pass), 77 (skip, with a reason on its last line) or anything else (fail).
# The last line is the summary CI reads: "test: N passed, N failed, N skipped".
#   --integration-only   skip the unit tests
#   TESTS="a b"          run only these integration scripts (names without .sh)
set -u
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${JAVA:=java}" "${JDK25:=/usr/lib/jvm/temurin-25-jdk-amd64}"
export BUILD JAVA JDK25
export EMP_AGENT="$PWD/$BUILD/libemp.so" EMP_ANALYZE="$PWD/$BUILD/emp-analyze" EMP_SUT_JAR="$PWD/$BUILD/java-sut.jar"

passed=0 failed=0 skipped=0
failures=()

if [ "${1:-}" != "--integration-only" ]; then
    log=$(mktemp)
    "$BUILD/unit-tests" --jobs 2 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    line=$(grep -a "Synthesis:" "$log" | tail -n 1)
    # [====] Synthesis: Tested: 45 | Passing: 45 | Failing: 0 | Crashing: 0
    p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
    f=$(sed -n 's/.*Failing: \([0-9]*\).*/\1/p' <<<"$line")
    c=$(sed -n 's/.*Crashing: \([0-9]*\).*/\1/p' <<<"$line")
    if [ -z "$p" ]; then
        echo "unit tests: no Criterion summary (exit $rc)"
        failed=$((failed + 1)); failures+=("unit-tests")
    else
        passed=$((passed + p)); failed=$((failed + f + c))
        [ "$f" -gt 0 ] || [ "$c" -gt 0 ] && failures+=("unit-tests ($f failing, $c crashing)")
        [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && [ "$c" -eq 0 ] && { failed=$((failed + 1)); failures+=("unit-tests exit $rc"); }
    fi
    rm -f "$log"
fi

scripts=()
if [ -n "${TESTS:-}" ]; then
    for t in $TESTS; do scripts+=("tests/integration/$t.sh"); done
else
    scripts=(tests/integration/*.sh)
fi
for s in "${scripts[@]}"; do
    [ -f "$s" ] || continue
    name=$(basename "$s" .sh)
    out=$(mktemp)
    start=$(date +%s)
    bash "$s" >"$out" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    case $rc in
    0)  passed=$((passed + 1)); echo "PASS  $name (${secs}s)";;
    77) skipped=$((skipped + 1)); echo "SKIP  $name: $(tail -n 1 "$out")";;
    *)  failed=$((failed + 1)); failures+=("$name"); echo "FAIL  $name (exit $rc, ${secs}s)"
        # the failed checks first (a long report after them would push them out of the tail), then the tail
        grep -a '^FAIL' "$out" | head -n 20 | sed 's/^/      /'
        sed 's/^/      /' "$out" | tail -n 40;;
    esac
    rm -f "$out"
done

[ ${#failures[@]} -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
echo "test: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

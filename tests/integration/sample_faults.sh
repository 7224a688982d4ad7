#!/usr/bin/env bash
# The AsyncGetCallTrace fault guard, exercised with the test build $BUILD/test/libemp-faultinject.so
# (tests/faultinject.mk; agent/sample/agct.c): with EMP_FAULT_INJECT_EVERY=N every N-th guarded AGCT call reads an
# unmapped page inside the guard.  On JDK 17 and 25, over a NullPointerException-heavy program (HotSpot turns
# implicit null checks into SIGSEGV, which must still reach the JVM):
#   the JVM exits 0 and its stdout is byte-identical to a run without the agent (exact NPE count and sum);
#   the dump is complete; agct_crashed equals test_fault_injected, which is > 0;
#   test_fault_chained > 0: faults outside the guard went to the JVM's handler;
#   without EMP_FAULT_INJECT_EVERY nothing is injected and agct_crashed is 0;
#   the shipped libemp.so contains no trace of the injection.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"

FI=${EMP_FAULTINJECT_AGENT:-$TOP/$BUILD/test/libemp-faultinject.so}
[ -f "$FI" ] || fail "$FI missing (make $BUILD/test/libemp-faultinject.so)"
if grep -q EMP_FAULT_INJECT_EVERY "$AGENT"; then fail "$AGENT contains the fault injection"; fi

jdks=("$JAVA")
have_jdk25 && jdks+=("$JDK25/bin/java")
JAVAC=${JAVAC:-$(dirname "$(readlink -f "$(command -v "$JAVA")")")/javac}
[ -x "$JAVAC" ] || JAVAC=javac

cat >Npe.java <<'EOF'
/* i % 3 == 0 reads a field through null: an implicit null check (SIGSEGV) that becomes a NullPointerException. */
public final class Npe {
    static final class Box { final int v; Box(int v) { this.v = v; } }
    static int read(Box b) { return b.v; }
    public static void main(String[] args) {
        long n = Long.parseLong(args[0]), npes = 0, sum = 0;
        Box[] boxes = { null, new Box(1), new Box(2) };
        for (long i = 0; i < n; i++) {
            try {
                sum += read(boxes[(int) (i % 3)]);
            } catch (NullPointerException e) {
                npes++;
            }
        }
        System.out.println("npe " + npes + " sum " + sum);
    }
}
EOF
"$JAVAC" --release 11 -d . Npe.java || fail "javac Npe.java"
N=300000
JOPTS=(-XX:-OmitStackTraceInFastThrow -cp .) # every NPE a real, fresh exception

counter() { info_value "$1" counters "$2"; }

for jdk in "${jdks[@]}"; do
    echo "== $jdk"
    "$jdk" "${JOPTS[@]}" Npe $N >pure.out || fail "$jdk Npe without agent: exit $?"
    expect_eq "Npe output" "npe $((N / 3)) sum $((N / 3 * 3))" "$(cat pure.out)"

    EMP_FAULT_INJECT_EVERY=50 "$jdk" -agentpath:"$FI"=mode=sample,interval=1ms,out=fi.emp "${JOPTS[@]}" Npe $N \
        >fi.out 2>fi.err || fail "$jdk with injected faults: exit $? ($(tail -n 5 fi.err))"
    cmp -s pure.out fi.out || fail "stdout differs with injected faults: $(cat fi.out)"
    expect_eq "fi.emp status" complete "$("$ANALYZE" info --format=csv fi.emp | awk -F, '$1=="files"{print $3}')"
    injected=$(counter fi.emp test_fault_injected)
    crashed=$(counter fi.emp agct_crashed)
    chained=$(counter fi.emp test_fault_chained)
    echo "samples $(counter fi.emp samples), injected $injected, agct_crashed $crashed, faults passed to the JVM $chained"
    [ "${injected:-0}" -gt 0 ] || fail "no fault injected"
    expect_eq "agct_crashed = injected faults" "$injected" "$crashed"
    [ "${chained:-0}" -gt 0 ] || fail "no fault reached the JVM's handler (NPEs by implicit null checks)"
    # Every recovered sample is kept, rooted in [agct_crashed]; native frames may stand above it when the thread
    # was in VM code (a lone "[agct_crashed] N" line is not guaranteed).
    kept=$("$ANALYZE" collapsed fi.emp 2>/dev/null | awk '/^\[agct_crashed\][; ]/ {n += $NF} END {print n + 0}')
    expect_eq "samples rooted in [agct_crashed] = agct_crashed" "$crashed" "$kept"

    "$jdk" -agentpath:"$FI"=mode=sample,interval=1ms,out=off.emp "${JOPTS[@]}" Npe $N >off.out 2>off.err ||
        fail "$jdk fault-injection build without injection: exit $?"
    cmp -s pure.out off.out || fail "stdout differs under the test build"
    expect_eq "injected without EMP_FAULT_INJECT_EVERY" 0 "$(counter off.emp test_fault_injected)"
    expect_eq "agct_crashed without injection" 0 "$(counter off.emp agct_crashed)"
done
echo "ok"

#!/usr/bin/env bash
# trace_retransform.sh - a traced class that another agent retransforms keeps one identity in the dump.
# With can_retransform_classes our ClassFileLoadHook sees the class's original bytes again whenever anyone (a Java
# agent here, through Instrumentation.retransformClasses) retransforms it, and rewrites them again.  The methods
# must keep the ids they had (one row per method in `calls`, calls counted across the retransformation) and the
# rewrite counters must count each method once.  On JDK 17 and 25:
#   Work.step() called 1000 times, Work retransformed by the Java agent, 1000 more calls:
#   calls: exactly one row for Work.step with 2000 calls; methods_instrumented = 3 (<init>, step, run);
#   stdout identical to the run without emp.
# Exit 0 pass, 77 skip (no JDK), 1 fail.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
[ -x "$(command -v "$JAVA" 2>/dev/null)" ] || skip "no java"
JDK_BIN=$(dirname "$(readlink -f "$(command -v "$JAVA")")")
mkdir -p src/rt classes
cat >src/rt/Work.java <<'J'
package rt;
public class Work {
    long acc;
    long step(long i) { acc += i * 31; return acc; }
    long run(int n) { long s = 0; for (int i = 0; i < n; i++) s += step(i); return s; }
}
J
cat >src/rt/Main.java <<'J'
package rt;
import java.lang.instrument.Instrumentation;
public class Main {
    static Instrumentation inst;
    public static void premain(String args, Instrumentation i) { inst = i; }
    public static void main(String[] a) throws Exception {
        Work w = new Work();
        System.out.println("before " + w.run(1000));
        inst.retransformClasses(Work.class);
        System.out.println("after " + w.run(1000));
    }
}
J
printf 'Premain-Class: rt.Main\nCan-Retransform-Classes: true\n' >manifest.txt
"$JDK_BIN/javac" --release 11 -d classes src/rt/*.java || fail "javac"
"$JDK_BIN/jar" cfm rt.jar manifest.txt -C classes . || fail "jar"

for jdk in "$JAVA" "$JDK25/bin/java"; do
    [ -x "$(command -v "$jdk")" ] || { echo "no $jdk, skipping it"; continue; }
    "$jdk" -javaagent:rt.jar -cp rt.jar rt.Main >plain.txt 2>&1 || fail "$jdk: run without emp failed: $(cat plain.txt)"
    "$jdk" -javaagent:rt.jar -agentpath:"$AGENT"=mode=trace,include=rt.Work,out=rt.emp -cp rt.jar rt.Main \
        >traced.txt 2>&1 || fail "$jdk: traced run failed: $(head -n 20 traced.txt)"
    diff -u plain.txt traced.txt >diff.txt || fail "$jdk: output differs under the agent: $(head -n 30 diff.txt)"
    "$ANALYZE" calls --format=csv rt.emp >calls.csv || fail "$jdk: calls failed"
    expect_eq "$jdk: rows for rt.Work.step" 1 "$(grep -c '^rt\.Work\.step,' calls.csv)"
    expect_eq "$jdk: calls of rt.Work.step" 2000 "$(awk -F, '$1 == "rt.Work.step" { print $2 }' calls.csv)"
    expect_eq "$jdk: calls of rt.Work.run" 2 "$(awk -F, '$1 == "rt.Work.run" { print $2 }' calls.csv)"
    expect_eq "$jdk: methods_instrumented" 3 "$(info_value rt.emp counters methods_instrumented)"
    expect_eq "$jdk: classes_rewritten" 1 "$(info_value rt.emp counters classes_rewritten)"
    expect_eq "$jdk: trace_unbalanced_exit" 0 "$(info_value rt.emp counters trace_unbalanced_exit)"
done
echo "trace retransform: ok"

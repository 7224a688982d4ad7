/* SPDX-License-Identifier: MIT */
package emp;

/**
 * The guarded front of {@link Probe} that budget= uses (agent/trace/budget.h): classes are rewritten in the guarded
 * shape (agent/trace/rewriter.h, struct emp_probes), whose entry calls {@code enter(id)} and keeps its answer in a
 * local, and whose exits pass that answer back.  {@code enter} records the call unless the budget controller has
 * switched the method off; an exit records only when its entry did, so a call entered before the switch still
 * records its exit, and one entered after records nothing.
 *
 * <p>Switching a method off this way costs the program nothing else: the classes are not retransformed, so no
 * compiled code is thrown away (which is what a removal by RetransformClasses mostly costs).  {@code OFF} is
 * {@code static final}: the JIT folds the array and its length, and at an inlined call site the id is a constant,
 * so an inlined {@code enter} is a byte load and a branch.  It is also {@code @Stable} (honoured here, in a class of
 * the bootstrap loader): C2 folds an element that is no longer 0, so code compiled after a switch has no probe left
 * for that method.  Without it the profile of this one branch, shared by every caller, made C2 keep both paths at
 * every inlined probe (bench/README.md, "budget: guarded probes").  The controller sets an entry to 1 from its
 * JVMTI agent thread (JNI SetByteArrayRegion) and never back; a probe reads it with a plain load, so a thread may
 * record a few more calls before it sees the change, as with a retransformation.  Ids at or beyond
 * {@code OFF.length} (and an iteration method's id, which has bit 30 set) are always recorded: the controller
 * retransforms those instead.
 * Compiled with {@code --release 8}, like the JNI flavour of {@link Probe}.
 */
public final class Guard {
	@jdk.internal.vm.annotation.Stable
	static final byte[] OFF = new byte[1 << 18];

	private Guard() {
	}

	public static boolean enter(int id) {
		if (id < OFF.length && OFF[id] != 0)
			return false;
		Probe.enter(id);
		return true;
	}

	public static void exit(boolean on, int id) {
		if (on)
			Probe.exit(id);
	}

	public static void exitThrow(boolean on, int id) {
		if (on)
			Probe.exitThrow(id);
	}
}

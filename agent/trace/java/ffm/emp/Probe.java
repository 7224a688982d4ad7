/* SPDX-License-Identifier: MIT */
package emp;

import java.lang.invoke.MethodHandle;

/**
 * The trace probes that the agent's rewriter calls (agent/trace/rewriter.h), JDK 22+ flavour: {@code enter(id)} at a
 * method's start, {@code exit(id)} before each return, {@code exitThrow(id)} in the catch-all handler before the
 * rethrow.
 *
 * <p>Each probe calls its C fast path through a foreign-function downcall handle linked with
 * {@code Linker.Option.critical(false)}: no thread-state transition, no JNIEnv, and, the handle being a
 * {@code static final} constant, C2 inlines the call down to the native call itself.  The C function writes the
 * record and returns 0, or returns 1 having changed nothing when the case is not the common one (no thread state
 * yet, a full ring, a dropped subtree, after VMDeath); the probe then calls the JNI native {@code *Slow}, which
 * handles every case in the thread's native state, where it may wait for the writer (agent/trace/tracer.c).
 *
 * <p>The agent links the three handles itself at VMInit, before it defines this class in the bootstrap loader, so
 * {@code handle} only returns them and the static initializer cannot fail.  The agent uses this class only on a
 * JVM that has {@code Linker.Option.critical} (JDK 22+); compiled with {@code --release 22}.
 */
public final class Probe {
	private static final MethodHandle ENTER = handle(0);
	private static final MethodHandle EXIT = handle(1);
	private static final MethodHandle EXIT_THROW = handle(2);

	private Probe() {
	}

	public static void enter(int id) {
		try {
			if ((int) ENTER.invokeExact(id) != 0)
				enterSlow(id);
		} catch (Throwable t) {
			throw Probe.<RuntimeException>rethrow(t);
		}
	}

	public static void exit(int id) {
		try {
			if ((int) EXIT.invokeExact(id) != 0)
				exitSlow(id);
		} catch (Throwable t) {
			throw Probe.<RuntimeException>rethrow(t);
		}
	}

	public static void exitThrow(int id) {
		try {
			if ((int) EXIT_THROW.invokeExact(id) != 0)
				exitThrowSlow(id);
		} catch (Throwable t) {
			throw Probe.<RuntimeException>rethrow(t);
		}
	}

	/* The handle (int)int of fast path @which: 0 enter, 1 exit, 2 exitThrow. */
	private static native MethodHandle handle(int which);

	private static native void enterSlow(int id);

	private static native void exitSlow(int id);

	private static native void exitThrowSlow(int id);

	/* Rethrows @t unchanged (an Error such as StackOverflowError raised while invoking the handle), as a JNI
	 * native's caller would see it. */
	@SuppressWarnings("unchecked")
	private static <T extends Throwable> T rethrow(Throwable t) throws T {
		throw (T) t;
	}
}

/* SPDX-License-Identifier: MIT */
package emp;

/**
 * The trace probes that the agent's rewriter calls (agent/trace/rewriter.h), JNI flavour (JDK 17, and any JDK when a JDK
 * class may be traced; the JDK 22+ flavour is agent/trace/java/ffm/emp/Probe.java): {@code enter(id)} at a method's start,
 * {@code exit(id)} before each return, {@code exitThrow(id)} in the catch-all handler before the rethrow.
 *
 * <p>The agent defines this class in the bootstrap loader at VMInit (JNI DefineClass from bytes embedded in
 * libemp.so) and binds the natives with RegisterNatives (agent/trace/tracer.c), so any class, JDK classes included, can
 * call it.  The natives never throw.  Compiled with {@code --release 8}: the oldest class-file version every JDK
 * here loads.
 */
public final class Probe {
	private Probe() {
	}

	public static native void enter(int id);

	public static native void exit(int id);

	public static native void exitThrow(int id);
}

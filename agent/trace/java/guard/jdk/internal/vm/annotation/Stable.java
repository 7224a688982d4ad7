/* SPDX-License-Identifier: MIT */
package jdk.internal.vm.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Compile-time stand-in for the JDK's own {@code jdk.internal.vm.annotation.Stable} (java.base, not exported), so that
 * emp/Guard can be compiled with {@code --release 8}: only the name reaches the class file, and HotSpot honours it in
 * a class of the bootstrap loader, where the agent defines emp/Guard.  Never compiled into the agent itself.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
public @interface Stable {
}

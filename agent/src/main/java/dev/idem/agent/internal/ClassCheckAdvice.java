package dev.idem.agent.internal;

import net.bytebuddy.asm.Advice;

/**
 * Inlined into the static initialiser of every class the agent instruments as it loads (Byte Buddy adds one when
 * the class has none): checks the class's {@code @Idempotent} methods once, before any of them can be called.
 */
final class ClassCheckAdvice {
    private ClassCheckAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Origin Class<?> type) {
        Dispatcher.classInitialised(type);
    }
}

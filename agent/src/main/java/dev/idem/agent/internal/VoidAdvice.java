package dev.idem.agent.internal;

import net.bytebuddy.asm.Advice;

/** Inlined into every instrumented {@code void} method: hand the call to the engine. */
final class VoidAdvice {
    private VoidAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.Origin Class<?> type, @Advice.Origin("#m#d") String method,
                        @Advice.This(optional = true) Object self, @Advice.AllArguments Object[] args) throws Throwable {
        return Dispatcher.enter(type, method, self, args);
    }
}

package dev.idem.agent.internal;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** Inlined into every instrumented method that returns a value: hand the call to the engine, return its result. */
final class ValueAdvice {
    private ValueAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.Origin Class<?> type, @Advice.Origin("#m#d") String method,
                        @Advice.This(optional = true) Object self, @Advice.AllArguments Object[] args) throws Throwable {
        return Dispatcher.enter(type, method, self, args);
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter Object fromEnter,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
        if (fromEnter != null) {
            returned = Dispatcher.result(fromEnter);
        }
    }
}

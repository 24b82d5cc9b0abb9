package dev.idem.agent.internal;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.MisplacedAnnotation;
import dev.idem.core.WeavingCheck;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.Nexus;
import net.bytebuddy.implementation.StubMethod;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

import java.io.PrintStream;
import java.lang.instrument.Instrumentation;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static net.bytebuddy.matcher.ElementMatchers.declaresField;
import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isAnnotatedWith;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isTypeInitializer;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;

/**
 * Installs the agent once per JVM: configures the engine from the arguments, then has Byte Buddy add the advice to
 * every {@code @Idempotent} method of the classes it sees, as they load and (retransforming) those already loaded.
 *
 * <p>Classes woven by AspectJ are left alone (they declare {@code ajc$} fields), so the advice never runs twice.
 * That holds for load-time weaving too, whatever the order of the {@code -javaagent} options: the JVM runs
 * transformers that cannot retransform (AspectJ's weaver) before those that can (this agent's), so the agent always
 * sees a class after the weaver has.
 *
 * <p>A class whose annotated methods the arguments exclude is reported as an error, since those methods run
 * unprotected. So is {@code @Idempotent} on an abstract method (an interface's): it is not inherited, so nothing
 * applies it to implementations (the answer of every mode, see {@code ConfigurationCheck}). An instrumented
 * class's configuration is checked when it is initialised, before any of its methods can be called: a class loaded
 * after the agent gets a static initialiser that does it; one already loaded is checked once instrumented.
 */
public final class Installer {
    /** Set once installed; a system property, so a second copy of the agent in another loader also sees it. */
    static final String INSTALLED = "dev.idem.agent.installed";
    private static final PrintStream OUT = System.err;

    private static final ElementMatcher.Junction<MethodDescription> ANNOTATED =
            isMethod().and(isAnnotatedWith(named("dev.idem.Idempotent")));
    private static final ElementMatcher.Junction<MethodDescription> IDEMPOTENT =
            ANNOTATED.and(not(isAbstract())).and(not(isNative()));

    private Installer() {
    }

    /**
     * Installs the agent.
     *
     * @throws AgentArgumentException for a bad argument, before anything is instrumented
     */
    public static synchronized void install(String rawArguments, Instrumentation instrumentation) {
        if (System.getProperty(INSTALLED) != null) {
            OUT.println("[idem-agent] already installed in this JVM; the second attach is ignored");
            return;
        }
        AgentArguments args = AgentArguments.parse(rawArguments);
        IdemEngine engine;
        try {
            engine = IdemEngine.create(IdemSettings.fromEnvironment(args.engineProperties()));
            engine.requireDefaultStore();
        } catch (IdempotencyConfigurationException e) {
            // Name the argument as the user wrote it: "store", not "idem.store" (class names keep their dots).
            throw new AgentArgumentException(e.getMessage().replaceAll("(?<![\\w.])idem\\.", ""));
        }
        Idem.install(engine);
        System.setProperty(INSTALLED, "true");

        // The default AgentBuilder eagerly prepares Byte Buddy's Nexus (type initialisers injected with Unsafe),
        // which advice never needs; on JDK 24+ touching Unsafe prints a warning in the user's console. The key is
        // relocated with Byte Buddy, so this reaches only the agent's own copy, never the application's.
        System.setProperty(Nexus.PROPERTY, "true");
        Set<String> instrumented = ConcurrentHashMap.newKeySet();
        ElementMatcher<TypeDescription> annotatedTypes = declaresMethod(ANNOTATED);
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(new Reporter(args, instrumented))
                .ignore(nameStartsWith("net.bytebuddy.")
                        .or(nameStartsWith("dev.idem.agent."))
                        .or(nameStartsWith("dev.idem.core."))
                        .or(nameStartsWith("dev.idem.aspect."))
                        .or(nameStartsWith("dev.idem.store."))
                        .or(nameStartsWith("java.")).or(nameStartsWith("jdk.")).or(nameStartsWith("sun."))
                        .or(nameStartsWith("com.sun.")).or(isSynthetic()))
                // A class loading now gets a static initialiser that checks it; one already loaded cannot change
                // shape (retransformation adds no method), so it is checked below once instrumented.
                .type((type, loader, module, beingRedefined, protectionDomain) -> beingRedefined == null
                        && annotatedTypes.matches(type))
                .transform(transformer(args, instrumented, true))
                .asTerminalTransformation() // else the next transformation instruments the class a second time
                .type(annotatedTypes)
                .transform(transformer(args, instrumented, false))
                .installOn(instrumentation);
        for (Class<?> loaded : instrumentation.getAllLoadedClasses()) {
            if (instrumented.contains(loaded.getName())) {
                Dispatcher.classInitialised(loaded);
            }
        }
    }

    /** Reports a problem the application must fix: standard error, one line, marked so it is found. */
    static void error(String problem) {
        OUT.println("[idem-agent] ERROR " + problem);
    }

    private static AgentBuilder.Transformer transformer(AgentArguments args, Set<String> instrumented,
                                                        boolean checkOnInitialisation) {
        return (builder, type, loader, module, protectionDomain) -> {
            if (type.getDeclaredMethods().filter(IDEMPOTENT).isEmpty()) {
                // Only abstract methods are annotated (an interface): nothing to instrument, and nothing would
                // ever check the implementations, so it is refused here, as the interface loads.
                for (MethodDescription m : type.getDeclaredMethods().filter(ANNOTATED)) {
                    error(MisplacedAnnotation.onAbstractMethod(describe(type, m), type.isInterface()));
                }
                return builder;
            }
            String excludedBy = args.exclusionOf(type.getName());
            if (excludedBy != null) {
                for (MethodDescription m : type.getDeclaredMethods().filter(IDEMPOTENT)) {
                    error(describe(type, m) + " is annotated @Idempotent but not instrumented (excluded by "
                            + excludedBy + "): it runs without protection");
                }
                return builder;
            }
            if (!type.getDeclaredFields().filter(nameStartsWith("ajc$")).isEmpty()) {
                if (args.verbose()) {
                    // Said per method, as "instrumented" is, so that verbose output accounts for every one.
                    for (MethodDescription m : type.getDeclaredMethods().filter(IDEMPOTENT)) {
                        OUT.println("[idem-agent] left to AspectJ " + describe(type, m) + " (its class is already"
                                + " woven by AspectJ, so its advice runs once)");
                    }
                }
                return builder;
            }
            WeavingCheck.markInstrumented(type.getName());
            instrumented.add(type.getName());
            DynamicType.Builder<?> advised = instrument(builder);
            // The advice wraps a stub, so a class without a static initialiser gets one that only checks it.
            return checkOnInitialisation ? advised.invokable(isTypeInitializer())
                    .intercept(Advice.to(ClassCheckAdvice.class).wrap(StubMethod.INSTANCE)) : advised;
        };
    }

    private static DynamicType.Builder<?> instrument(DynamicType.Builder<?> builder) {
        return builder
                .visit(Advice.to(ValueAdvice.class).on(IDEMPOTENT.and(not(returns(void.class)))))
                .visit(Advice.to(VoidAdvice.class).on(IDEMPOTENT.and(returns(void.class))));
    }

    static String describe(TypeDescription type, MethodDescription m) {
        return type.getName() + "#" + m.getName() + m.getParameters().asTypeList().asErasures().stream()
                .map(TypeDescription::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }

    /**
     * Lists instrumented methods when verbose, and always reports what could not be instrumented. Byte Buddy
     * reports a transformation for every matched type, including those the transformer left unchanged, so only
     * the types it really instrumented are listed.
     */
    private static final class Reporter extends AgentBuilder.Listener.Adapter {
        private final AgentArguments args;
        private final Set<String> instrumented;

        Reporter(AgentArguments args, Set<String> instrumented) {
            this.args = args;
            this.instrumented = instrumented;
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded,
                                     DynamicType dynamicType) {
            if (args.verbose() && instrumented.contains(type.getName())) {
                for (MethodDescription m : type.getDeclaredMethods().filter(IDEMPOTENT)) {
                    OUT.println("[idem-agent] instrumented " + describe(type, m) + (loaded ? " (retransformed)" : ""));
                }
            }
        }

        @Override
        public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded,
                            Throwable error) {
            OUT.println("[idem-agent] ERROR could not instrument " + typeName + ": " + error
                    + "; its @Idempotent methods run without protection");
        }
    }
}

package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import jakarta.annotation.Nonnull;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds {@code @Idempotent} methods whose declaration the engine refuses, before any of them is called: what the
 * {@code idem:check} build goal, the load-time weaver and the agent report as classes are built or loaded.
 *
 * <p>Two kinds of problem are found:
 * <ul>
 *   <li>a method the engine cannot plan: a bad duration ({@code ttl = "5 min"}), a key name that names no
 *       parameter, a result type that cannot be stored or replayed, a scope already used with another result
 *       type... Each message is the engine's own, naming the method and the attribute. The store is neither
 *       created nor reached (see {@link IdemEngine#check});</li>
 *   <li>{@code @Idempotent} on an abstract method (an interface's, or an abstract class's), and a method that
 *       implements such a method without being annotated itself. Java does not inherit method annotations, so no
 *       weaver and no agent applies the annotation to implementations: they would run without protection. Idem
 *       refuses it in every mode rather than guess which implementation is meant; annotate the implementing
 *       method instead.</li>
 * </ul>
 * Such a method is never run unprotected: the engine refuses every call to a method it cannot plan.
 */
public final class ConfigurationCheck {
    private ConfigurationCheck() {
    }

    /**
     * Lists the problems of the {@code @Idempotent} methods declared by {@code classes}, one message each.
     *
     * @param engine  the engine whose settings (namespace, codecs, canonicalisers) the methods are planned with
     * @param classes the classes to inspect; they are not initialised
     * @return one message per problem, naming the method; empty when there is none
     */
    public static List<String> problems(@Nonnull IdemEngine engine, @Nonnull Class<?>... classes) {
        List<String> problems = new ArrayList<>();
        for (Class<?> type : classes) {
            problems.addAll(misplacedAnnotations(type));
            for (Method m : type.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Idempotent.class) && !Modifier.isAbstract(m.getModifiers())) {
                    try {
                        engine.check(m);
                    } catch (IdempotencyConfigurationException e) {
                        problems.add(e.getMessage());
                    }
                }
            }
        }
        return problems;
    }

    /**
     * Throws when any {@code @Idempotent} method declared by {@code classes} has a problem.
     *
     * @param engine  the engine whose settings the methods are planned with
     * @param classes the classes to inspect
     * @throws IdempotencyConfigurationException listing every problem
     */
    public static void require(@Nonnull IdemEngine engine, @Nonnull Class<?>... classes) {
        List<String> problems = problems(engine, classes);
        if (!problems.isEmpty()) {
            throw new IdempotencyConfigurationException(String.join("\n", problems));
        }
    }

    /**
     * {@code @Idempotent} where no weaver, agent or proxy can apply it: on {@code type}'s abstract methods, and on
     * the abstract methods of its supertypes that {@code type} implements without the annotation. A front-end that
     * checks a class and its supertypes asks this of each.
     *
     * @param type the class or interface whose declared methods are inspected; it is not initialised
     * @return one message per misplaced annotation, naming the method and what to do instead; empty when none
     */
    public static List<String> misplacedAnnotations(@Nonnull Class<?> type) {
        List<String> problems = new ArrayList<>();
        for (Method m : type.getDeclaredMethods()) {
            boolean annotated = m.isAnnotationPresent(Idempotent.class);
            if (annotated && Modifier.isAbstract(m.getModifiers())) {
                problems.add(MisplacedAnnotation.onAbstractMethod(MethodNames.describe(m), type.isInterface()));
            } else if (!annotated && !Modifier.isAbstract(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())) {
                Method declared = annotatedAbstractDeclaration(type, m);
                if (declared != null) {
                    problems.add(MisplacedAnnotation.onUnannotatedImplementation(MethodNames.describe(m),
                            MethodNames.describe(declared)));
                }
            }
        }
        return problems;
    }

    /** The abstract {@code @Idempotent} method of a supertype of {@code type} that {@code m} implements, or null. */
    private static Method annotatedAbstractDeclaration(Class<?> type, Method m) {
        Deque<Class<?>> supertypes = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        supertypes.add(type);
        while (!supertypes.isEmpty()) {
            Class<?> t = supertypes.poll();
            if (t != type) {
                for (Method candidate : t.getDeclaredMethods()) {
                    if (Modifier.isAbstract(candidate.getModifiers())
                            && candidate.isAnnotationPresent(Idempotent.class)
                            && candidate.getName().equals(m.getName())
                            && Arrays.equals(candidate.getParameterTypes(), m.getParameterTypes())) {
                        return candidate;
                    }
                }
            }
            if (t.getSuperclass() != null && seen.add(t.getSuperclass())) {
                supertypes.add(t.getSuperclass());
            }
            for (Class<?> i : t.getInterfaces()) {
                if (seen.add(i)) {
                    supertypes.add(i);
                }
            }
        }
        return null;
    }
}

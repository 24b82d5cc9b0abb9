package dev.idem.spring;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.core.IdemEngine;
import dev.idem.core.MethodNames;
import dev.idem.core.MisplacedAnnotation;
import dev.idem.core.WeavingCheck;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * When the context has made its singletons, plans every {@code @Idempotent} method of every bean in the engine and
 * checks that its calls go through Idem (advised by the proxy, or woven, or instrumented), so a bad attribute or an
 * unprotected method stops the context at start-up, naming the bean, the method and the problem, instead of
 * showing at the first call or never.
 */
final class IdempotentBeansCheck implements SmartInitializingSingleton {
    private final ConfigurableListableBeanFactory beans;
    private final Supplier<IdemEngine> engine;

    IdempotentBeansCheck(ConfigurableListableBeanFactory beans, Supplier<IdemEngine> engine) {
        this.beans = beans;
        this.engine = engine;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> problems = new ArrayList<>();
        for (String name : beans.getBeanDefinitionNames()) {
            Class<?> type = beans.getType(name, false);
            if (type == null) {
                continue;
            }
            Object instance = beans.containsSingleton(name) ? beans.getSingleton(name) : null;
            Object made = type.isInstance(instance) ? instance : null; // not a FactoryBean's own instance
            // The bean's own class: behind an interface-based proxy its type is the proxy's.
            Class<?> target = made != null ? AopProxyUtils.ultimateTargetClass(made) : ClassUtils.getUserClass(type);
            ReflectionUtils.doWithMethods(target, method -> check(name, target, made, method, problems),
                    method -> method.isAnnotationPresent(Idempotent.class) && !method.isBridge());
            for (Class<?> declared : ClassUtils.getAllInterfacesForClassAsSet(target)) {
                for (Method abstractMethod : declared.getMethods()) {
                    if (abstractMethod.isAnnotationPresent(Idempotent.class)
                            && Modifier.isAbstract(abstractMethod.getModifiers())) {
                        problems.add("bean '" + name + "' (" + target.getName() + "): "
                                + misplaced(abstractMethod, target));
                    }
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IdempotencyConfigurationException(problems.size() + " @Idempotent problem(s) in the"
                    + " application context: " + String.join("; ", problems));
        }
    }

    private void check(String bean, Class<?> target, Object instance, Method method, List<String> problems) {
        String where = "bean '" + bean + "' (" + target.getName() + "): ";
        String described = MethodNames.describe(method);
        Method runs = ClassUtils.getMostSpecificMethod(method, target);
        if (runs != method) { // overridden: the override is what the bean runs
            if (!runs.isAnnotationPresent(Idempotent.class)) {
                problems.add(where + MisplacedAnnotation.onUnannotatedImplementation(MethodNames.describe(runs),
                        described));
            }
            return;
        }
        if (Modifier.isAbstract(method.getModifiers())) {
            problems.add(where + MisplacedAnnotation.onAbstractMethod(described, method.getDeclaringClass()
                    .isInterface()));
            return;
        }
        if (!WeavingCheck.isWoven(method)) {
            String unprotected = !proxiable(method) ? "is " + unproxiable(method) + ", so no proxy can advise it"
                    : instance != null && !AopUtils.isAopProxy(instance) ? "belongs to a bean that was not proxied"
                    + " (made before Idem's advisor existed, as a dependency of a BeanPostProcessor is)"
                    : instance != null && AopUtils.isJdkDynamicProxy(instance) && !onAnInterfaceOf(instance, method)
                    ? "is on no interface of the bean's interface-based proxy" : null;
            if (unprotected != null) {
                problems.add(where + described + " " + unprotected + ", and would run without protection: attach"
                        + " Idem to it by compile-time weaving or the agent (docs/attach.md), or make it a public,"
                        + " non-final method of a proxied bean");
                return;
            }
        }
        try {
            engine.get().advise(method); // plans and validates it, or throws naming the method and the attribute
        } catch (IdempotencyConfigurationException e) {
            problems.add(where + e.getMessage());
        }
    }

    /** What is wrong with {@code @Idempotent} on an interface's {@code method} that {@code target} implements. */
    private static String misplaced(Method method, Class<?> target) {
        Method implementation = ClassUtils.getMostSpecificMethod(method, target);
        return implementation != method && !implementation.isAnnotationPresent(Idempotent.class)
                ? MisplacedAnnotation.onUnannotatedImplementation(MethodNames.describe(implementation),
                        MethodNames.describe(method))
                : MisplacedAnnotation.onAbstractMethod(MethodNames.describe(method), true);
    }

    /** Whether a class-based (CGLIB) or interface-based proxy can route calls of {@code method} to its advice. */
    private static boolean proxiable(Method method) {
        int modifiers = method.getModifiers();
        return !Modifier.isStatic(modifiers) && !Modifier.isFinal(modifiers) && !Modifier.isPrivate(modifiers);
    }

    private static boolean onAnInterfaceOf(Object proxy, Method method) {
        for (Class<?> type : AopProxyUtils.proxiedUserInterfaces(proxy)) {
            if (ClassUtils.hasMethod(type, method.getName(), method.getParameterTypes())) {
                return true;
            }
        }
        return false;
    }

    private static String unproxiable(Method method) {
        int modifiers = method.getModifiers();
        return Modifier.isStatic(modifiers) ? "static" : Modifier.isPrivate(modifiers) ? "private" : "final";
    }
}

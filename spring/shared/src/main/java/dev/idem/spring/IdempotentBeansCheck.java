package dev.idem.spring;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.core.ConfigurationCheck;
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
 * showing at the first call or never. When a bean's methods are woven or instrumented, which run on the process's
 * engine, it lends the context's engine to the process ({@link ProcessEngineBinding}).
 */
final class IdempotentBeansCheck implements SmartInitializingSingleton {
    private final ConfigurableListableBeanFactory beans;
    private final Supplier<IdemEngine> engine;
    private final Supplier<ProcessEngineBinding> processEngine;
    private boolean anyWoven;

    IdempotentBeansCheck(ConfigurableListableBeanFactory beans, Supplier<IdemEngine> engine,
                         Supplier<ProcessEngineBinding> processEngine) {
        this.beans = beans;
        this.engine = engine;
        this.processEngine = processEngine;
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
            List<Class<?>> types = typesOf(target);
            if (!anyDeclaresIdempotent(types)) {
                continue; // most beans: nothing of Idem's to check
            }
            String where = "bean '" + name + "' (" + target.getName() + "): ";
            for (Class<?> declaring : types) {
                for (String problem : ConfigurationCheck.misplacedAnnotations(declaring)) {
                    problems.add(where + problem);
                }
            }
            ReflectionUtils.doWithMethods(target, method -> check(where, target, made, method, problems),
                    method -> method.isAnnotationPresent(Idempotent.class) && !method.isBridge()
                            && !Modifier.isAbstract(method.getModifiers()));
        }
        if (!problems.isEmpty()) {
            throw new IdempotencyConfigurationException(problems.size() + " @Idempotent problem(s) in the"
                    + " application context:\n- " + String.join("\n- ", problems));
        }
        if (anyWoven) {
            processEngine.get().install();
        }
    }

    /** {@code target}, its superclasses below {@code Object} and every interface they implement. */
    private static List<Class<?>> typesOf(Class<?> target) {
        List<Class<?>> types = new ArrayList<>();
        for (Class<?> c = target; c != null && c != Object.class; c = c.getSuperclass()) {
            types.add(c);
        }
        types.addAll(ClassUtils.getAllInterfacesForClassAsSet(target));
        return types;
    }

    private static boolean anyDeclaresIdempotent(List<Class<?>> types) {
        for (Class<?> type : types) {
            for (Method method : type.getDeclaredMethods()) {
                if (method.isAnnotationPresent(Idempotent.class)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The problems of a concrete {@code @Idempotent} method of the bean: overridden, unproxiable, or unplannable. */
    private void check(String where, Class<?> target, Object instance, Method method, List<String> problems) {
        String described = MethodNames.describe(method);
        Method runs = ClassUtils.getMostSpecificMethod(method, target);
        if (runs != method) { // overridden: the override is what the bean runs
            if (!runs.isAnnotationPresent(Idempotent.class)) {
                problems.add(where + MisplacedAnnotation.onUnannotatedImplementation(MethodNames.describe(runs),
                        described));
            }
            return;
        }
        if (WeavingCheck.isWoven(method)) {
            anyWoven = true;
        } else {
            String unprotected = !proxiable(method) ? "is " + unproxiable(method) + ", so no proxy can advise it"
                    : Modifier.isFinal(target.getModifiers()) ? "belongs to a final class, which no class-based"
                    + " proxy can extend"
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

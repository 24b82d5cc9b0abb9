package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import jakarta.annotation.Nonnull;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Finds {@code @Idempotent} methods that are not woven, so such a method is reported instead of silently running
 * unprotected. Load-time weaving with no {@code META-INF/aop.xml}, a module built without the AspectJ plugin, or a
 * class the agent was told to skip all look like success until a duplicate gets through; run this check at start-up
 * or in a test.
 *
 * <p>{@code @Idempotent} on an abstract method (an interface's) is reported too, with the method that should carry
 * it instead: no weaver or agent applies it to implementations (see {@link ConfigurationCheck}).
 *
 * <p>A method counts as woven when AspectJ (at compile time or load time) left its around-advice body beside it
 * (a static method {@code name_aroundBodyN} taking the instance, if any, then the original parameters, and for
 * advice that reads the whole join point a JoinPoint last), or when the Idem agent instrumented its class.
 */
public final class WeavingCheck {
    /** Classes a front-end other than AspectJ instrumented, by name ({@link #markInstrumented}). */
    private static final Set<String> INSTRUMENTED = ConcurrentHashMap.newKeySet();

    private WeavingCheck() {
    }

    /**
     * Records that a front-end other than AspectJ (the agent, which leaves no trace this check can read in the
     * class) routes every {@code @Idempotent} method of the class named {@code className} through the engine, so
     * {@link #isWoven} counts them as protected from now on, in every class loader.
     *
     * @param className the binary name of the instrumented class
     */
    public static void markInstrumented(@Nonnull String className) {
        INSTRUMENTED.add(className);
    }

    /**
     * Lists the {@code @Idempotent} methods declared by {@code classes} that have a body and are not woven. An
     * abstract method has nothing to weave: {@link #requireWoven} reports it as misplaced instead.
     *
     * @param classes the classes to inspect
     * @return their unwoven {@code @Idempotent} methods; empty when all are woven
     */
    public static List<Method> unwovenMethods(@Nonnull Class<?>... classes) {
        List<Method> unwoven = new ArrayList<>();
        for (Class<?> c : classes) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Idempotent.class) && !Modifier.isAbstract(m.getModifiers())
                        && !isWoven(m)) {
                    unwoven.add(m);
                }
            }
        }
        return unwoven;
    }

    /**
     * Throws when any {@code @Idempotent} method of {@code classes} is not woven, or is annotated where nothing
     * can weave it (an abstract method, or an implementation of one that is not annotated itself).
     *
     * @param classes the classes to inspect
     * @throws IdempotencyConfigurationException listing each such method and how to fix it
     */
    public static void requireWoven(@Nonnull Class<?>... classes) {
        List<String> problems = new ArrayList<>();
        List<Method> unwoven = unwovenMethods(classes);
        if (!unwoven.isEmpty()) {
            problems.add(unwoven.size() + " @Idempotent method(s) are not woven and would run without protection: "
                    + unwoven.stream().map(MethodNames::describe).collect(Collectors.joining(", "))
                    + ". Weave them at compile time (aspectj-maven-plugin with dev.idem:idem-aspect as an"
                    + " aspectLibrary), at load time (-javaagent:aspectjweaver.jar with idem-aspect on the class"
                    + " path), or attach the Idem agent.");
        }
        for (Class<?> c : classes) {
            problems.addAll(ConfigurationCheck.misplacedAnnotations(c));
        }
        if (!problems.isEmpty()) {
            throw new IdempotencyConfigurationException(String.join("\n", problems));
        }
    }

    /**
     * Throws when any {@code @Idempotent} method of a class in {@code packages} (and their sub-packages) on
     * {@code loader}'s class path is not woven. Classes are loaded but not initialised.
     *
     * @param loader   the class loader whose class path is searched
     * @param packages package names, such as {@code com.example}
     * @throws IdempotencyConfigurationException listing each such method and how to weave it
     */
    public static void requireWovenPackages(@Nonnull ClassLoader loader, @Nonnull String... packages) {
        List<Class<?>> classes = new ArrayList<>();
        for (String p : packages) {
            for (String name : classNames(loader, p)) {
                try {
                    classes.add(Class.forName(name, false, loader));
                } catch (ClassNotFoundException | LinkageError e) {
                    // a class that cannot load cannot run either; nothing to check
                }
            }
        }
        requireWoven(classes.toArray(new Class<?>[0]));
    }

    /**
     * Tells whether AspectJ wove its around advice into {@code method}, or the Idem agent instrumented it.
     *
     * @param method an {@code @Idempotent} method
     * @return true when calls to it go through the engine
     */
    public static boolean isWoven(@Nonnull Method method) {
        if (INSTRUMENTED.contains(method.getDeclaringClass().getName())) {
            return true;
        }
        String prefix = method.getName() + "_aroundBody";
        boolean isStatic = Modifier.isStatic(method.getModifiers());
        for (Method candidate : method.getDeclaringClass().getDeclaredMethods()) {
            if (!candidate.getName().startsWith(prefix) || !Modifier.isStatic(candidate.getModifiers())) {
                continue;
            }
            Class<?>[] p = candidate.getParameterTypes();
            int from = isStatic ? 0 : 1;
            // Idem's aspect binds the arguments themselves (no JoinPoint) up to eight parameters, and reads the
            // join point beyond that.
            boolean joinPointLast = p.length > 0 && p[p.length - 1].getName().equals("org.aspectj.lang.JoinPoint");
            int to = p.length - (joinPointLast ? 1 : 0);
            if (to - from == method.getParameterCount()
                    && Arrays.equals(Arrays.copyOfRange(p, from, to), method.getParameterTypes())) {
                return true;
            }
        }
        return false;
    }

    private static List<String> classNames(ClassLoader loader, String packageName) {
        String path = packageName.replace('.', '/');
        List<String> names = new ArrayList<>();
        try {
            Enumeration<URL> roots = loader.getResources(path);
            while (roots.hasMoreElements()) {
                URL root = roots.nextElement();
                if (root.getProtocol().equals("file")) {
                    Path dir = Paths.get(root.toURI());
                    try (Stream<Path> files = Files.walk(dir)) {
                        files.filter(f -> f.toString().endsWith(".class")).forEach(f -> names.add(packageName + "."
                                + dir.relativize(f).toString().replace(File.separatorChar, '.').replaceAll(
                                "\\.class$", "")));
                    }
                } else if (root.getProtocol().equals("jar")) {
                    JarURLConnection connection = (JarURLConnection) root.openConnection();
                    connection.setUseCaches(false);
                    try (JarFile jar = connection.getJarFile()) {
                        for (JarEntry entry : java.util.Collections.list(jar.entries())) {
                            String n = entry.getName();
                            if (n.startsWith(path + "/") && n.endsWith(".class")) {
                                names.add(n.substring(0, n.length() - 6).replace('/', '.'));
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("scanning package " + packageName, e);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("scanning package " + packageName, e);
        }
        names.removeIf(n -> n.endsWith("module-info") || n.endsWith("package-info"));
        return names;
    }
}

package dev.idem.maven;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.core.ConfigurationCheck;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.MethodNames;
import dev.idem.core.WeavingCheck;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Fails the build when the module's compiled classes hold an {@code @Idempotent} method that would run without
 * protection or that the engine refuses: a method no weaver touched, {@code @Idempotent} on an interface method,
 * or a configuration error (a bad duration, a key name that names no parameter, a result type that cannot be
 * stored...), each named with how to fix it. Bound to {@code process-classes}, after the AspectJ plugin has woven
 * the classes.
 *
 * <p>The classes are loaded but never initialised, and no store is created or reached: the check runs no code of
 * the application.
 */
@Mojo(name = "check", defaultPhase = LifecyclePhase.PROCESS_CLASSES, threadSafe = true,
        requiresDependencyResolution = ResolutionScope.COMPILE_PLUS_RUNTIME)
public class CheckMojo extends AbstractMojo {
    /** The compiled classes to inspect. */
    @Parameter(defaultValue = "${project.build.outputDirectory}", readonly = true, required = true)
    private File classesDirectory;

    /** The class path the classes are loaded with: the output directory and the dependencies. */
    @Parameter(defaultValue = "${project.runtimeClasspathElements}", readonly = true, required = true)
    private List<String> classpathElements;

    /**
     * Whether every {@code @Idempotent} method must be woven at compile time. Set it to false in a module that is
     * woven at load time or run under the Idem agent: the configuration is still checked.
     */
    @Parameter(property = "idem.check.requireWoven", defaultValue = "true")
    private boolean requireWoven;

    /** Skips the check. */
    @Parameter(property = "idem.check.skip", defaultValue = "false")
    private boolean skip;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("idem:check skipped");
            return;
        }
        if (!classesDirectory.isDirectory()) {
            getLog().info("idem:check: nothing compiled in " + classesDirectory + ", nothing to check");
            return;
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        // Parent-first through the plugin's own loader: the project's classes see the same dev.idem annotations as
        // the engine that checks them, and the project's codecs and idem.properties are found through it.
        try (URLClassLoader project = new URLClassLoader(urls(), getClass().getClassLoader())) {
            thread.setContextClassLoader(project);
            List<Class<?>> classes = load(project);
            List<String> problems = new ArrayList<>();
            if (requireWoven) {
                for (Method m : WeavingCheck.unwovenMethods(classes.toArray(new Class<?>[0]))) {
                    problems.add(MethodNames.describe(m) + " is annotated @Idempotent but no weaver touched it: it would"
                            + " run without protection.");
                }
            }
            IdemEngine engine = engine(project, problems);
            if (engine != null) {
                try (engine) {
                    problems.addAll(ConfigurationCheck.problems(engine, classes.toArray(new Class<?>[0])));
                }
            }
            if (!problems.isEmpty()) {
                throw new MojoFailureException(report(problems));
            }
            getLog().info(summary(classes));
        } catch (IOException e) {
            throw new MojoExecutionException("idem:check could not read " + classesDirectory + ": " + e, e);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /**
     * The engine the project's settings describe, or null when they are refused (a bad key or value in
     * {@code idem.properties} or an {@code idem.*} system property): then that is added to {@code problems}, since
     * the methods' configuration cannot be judged without the settings they are planned with.
     */
    private static IdemEngine engine(ClassLoader project, List<String> problems) {
        try {
            return IdemEngine.create(IdemSettings.fromEnvironment());
        } catch (IdempotencyConfigurationException e) {
            URL file = project.getResource("idem.properties");
            problems.add((file == null ? "an idem.* system property" : "idem.properties (" + file + ") or an"
                    + " idem.* system property") + ": " + e.getMessage() + "; the @Idempotent methods'"
                    + " configuration is checked once this is fixed.");
            return null;
        }
    }

    /** What a passing check checked, so that a check that found nothing to check does not look like a pass. */
    private String summary(List<Class<?>> classes) {
        int methods = 0;
        int declaring = 0;
        for (Class<?> c : classes) {
            int annotated = 0;
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Idempotent.class)) {
                    annotated++;
                }
            }
            methods += annotated;
            declaring += annotated > 0 ? 1 : 0;
        }
        if (methods == 0) {
            return "idem:check: no @Idempotent method in the " + classes.size() + " class(es) of " + classesDirectory;
        }
        return "idem:check: checked " + methods + " @Idempotent method(s) in " + declaring + " class(es) of "
                + classesDirectory + ": " + (requireWoven ? "all woven, " : "weaving not required, ")
                + "no configuration problem";
    }

    private String report(List<String> problems) {
        StringBuilder text = new StringBuilder(problems.size() + " @Idempotent problem(s) in " + classesDirectory
                + ":");
        for (String p : problems) {
            text.append("\n  - ").append(p);
        }
        if (problems.stream().anyMatch(p -> p.contains("no weaver touched it"))) {
            text.append("\nTo weave them at compile time, add the AspectJ Maven plugin with idem-aspect as an aspect"
                    + " library (docs/attach.md, \"Compile time\"):\n"
                    + "  <plugin><groupId>dev.aspectj</groupId><artifactId>aspectj-maven-plugin</artifactId>"
                    + "<version>1.14.1</version>\n"
                    + "    <configuration><complianceLevel>17</complianceLevel><release>17</release>\n"
                    + "      <aspectLibraries><aspectLibrary><groupId>dev.idem</groupId>"
                    + "<artifactId>idem-aspect</artifactId></aspectLibrary></aspectLibraries></configuration>\n"
                    + "    <executions><execution><goals><goal>compile</goal></goals></execution></executions>\n"
                    + "    <dependencies><dependency><groupId>org.aspectj</groupId><artifactId>aspectjtools</artifactId>"
                    + "<version>1.9.27</version></dependency></dependencies></plugin>\n"
                    + "If this module is woven at load time (-javaagent:aspectjweaver.jar) or run under the Idem"
                    + " agent instead, tell the check so: <configuration><requireWoven>false</requireWoven>"
                    + "</configuration> (the configuration is still checked).");
        }
        return text.toString();
    }

    private URL[] urls() throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String element : classpathElements) {
            urls.add(new File(element).toURI().toURL());
        }
        return urls.toArray(new URL[0]);
    }

    private List<Class<?>> load(ClassLoader project) throws IOException {
        Path root = classesDirectory.toPath();
        List<String> names;
        try (Stream<Path> files = Files.walk(root)) {
            names = files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> root.relativize(f).toString().replace(File.separatorChar, '.').replaceAll("\\.class$", ""))
                    .filter(n -> !n.endsWith("module-info") && !n.endsWith("package-info"))
                    .sorted()
                    .collect(Collectors.toList());
        }
        List<Class<?>> classes = new ArrayList<>();
        for (String name : names) {
            try {
                classes.add(Class.forName(name, false, project));
            } catch (ClassNotFoundException | LinkageError e) {
                // A class that cannot be loaded cannot run either; say so rather than fail the build on it.
                getLog().warn("idem:check could not load " + name + ": " + e);
            }
        }
        return classes;
    }
}

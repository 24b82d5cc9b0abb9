package dev.idem.tests.agent;

import dev.idem.testsupport.ChildJvm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;

/** A JDK installed on this machine that the tests start applications with (through {@link ChildJvm}). */
record Jdk(Path home, int major) {

    /** The JDK running the tests, and one JDK of every other major version installed beside it. */
    static Stream<Jdk> available() {
        Map<Integer, Jdk> byMajor = new TreeMap<>();
        Jdk current = of(Paths.get(System.getProperty("java.home")));
        byMajor.put(current.major, current);
        Path jdks = current.home.getParent();
        if (jdks != null && Files.isDirectory(jdks)) {
            try (Stream<Path> homes = Files.list(jdks)) {
                homes.filter(h -> Files.isExecutable(h.resolve("bin/java")) && Files.isRegularFile(h.resolve("release")))
                        .map(Jdk::of)
                        .forEach(j -> byMajor.putIfAbsent(j.major, j));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return byMajor.values().stream();
    }

    private static Jdk of(Path home) {
        Properties release = new Properties();
        try (InputStream in = Files.newInputStream(home.resolve("release"))) {
            release.load(in);
        } catch (IOException e) {
            return new Jdk(home, Runtime.version().feature());
        }
        String version = release.getProperty("JAVA_VERSION", "\"0\"").replace("\"", "");
        return new Jdk(home, Integer.parseInt(version.split("[.+-]")[0]));
    }

    /** {@return a child JVM of this JDK running {@code mainClass} from {@code classPath} with {@code options}} */
    ChildJvm.Builder child(List<String> options, List<String> classPath, String mainClass, String... args) {
        return ChildJvm.of(mainClass).java(home.resolve("bin/java")).classPath(classPath).jvmOptions(options)
                .args(args);
    }

    /** Runs to the end (at most a minute) and returns what it printed. */
    ChildJvm.Run run(List<String> options, List<String> classPath, String mainClass, String... args)
            throws InterruptedException {
        return child(options, classPath, mainClass, args).timeout(Duration.ofMinutes(1)).run();
    }

    @Override
    public String toString() {
        return "JDK " + major;
    }
}

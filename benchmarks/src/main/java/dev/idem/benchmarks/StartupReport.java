package dev.idem.benchmarks;

import dev.idem.benchmarks.startup.EmptyMain;
import dev.idem.benchmarks.startup.QuickStart;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.idem.benchmarks.Medians.median;
import static dev.idem.benchmarks.Medians.spread;

/**
 * What the README's quick start costs a process that starts cold: {@link QuickStart} (the woven check, a first call
 * and its replayed retry on the in-memory store, with the core alone) against {@link EmptyMain} on the same class
 * path, each a JVM of its own, taking turns. For each it reads the process's wall time (from before its start to its
 * exit) and its CPU time (user + system, every thread, as the kernel accounts a child to the parent that waited for
 * it: {@code cutime} and {@code cstime} of {@code /proc/self/stat}), and, in one more run of each with
 * {@code -Xlog:class+load}, the classes loaded. Writes the "Start-up" section of {@code docs/benchmarks.md}.
 *
 * <pre>
 * mvn -q -B -ntp -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.StartupReport docs/benchmarks.md
 * </pre>
 *
 * Arguments: {@code docs/benchmarks.md [runs of each (15)]}; the machine's other load shows in the wall times far
 * more than in the CPU times, so a loaded machine needs more runs.
 *
 * <p>The class path of the child JVMs is the quick start's own: the benchmarks' woven classes and the jars
 * {@code benchmarks/pom.xml} lists in {@code benchmarks/target/quickstart.classpath} (idem-core, idem-aspect, aspectjrt
 * and what they depend on; not the json codec, the stores or JMH), so the first call plans and runs as it would in the
 * README's project.
 */
public final class StartupReport {
    private static final ReportSection SECTION = ReportSection.named("startup");
    private static final int DEFAULT_RUNS = 15;
    private static final Path CLASSES = Path.of("benchmarks/target/classes");
    private static final Path JARS = Path.of("benchmarks/target/quickstart.classpath");
    /** The kernel's clock ticks per second, in which {@code /proc} gives CPU times. */
    private static final double TICKS_PER_SECOND = 100;

    private StartupReport() {
    }

    /** One process: its wall and CPU time in milliseconds. */
    private record Run(double wallMillis, double cpuMillis) {
    }

    public static void main(String[] args) throws Exception {
        Path docs = Path.of(args.length > 0 ? args[0] : "docs/benchmarks.md");
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_RUNS;
        String classPath = CLASSES + File.pathSeparator + Files.readString(JARS).trim();
        run(classPath, EmptyMain.class, List.of()); // the first JVM of a series pays for the page cache
        List<Run> empty = new ArrayList<>();
        List<Run> quick = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            empty.add(run(classPath, EmptyMain.class, List.of()));
            quick.add(run(classPath, QuickStart.class, List.of()));
        }
        Set<String> emptyClasses = loadedClasses(classPath, EmptyMain.class);
        Set<String> quickClasses = loadedClasses(classPath, QuickStart.class);
        SECTION.write(docs, section(runs, empty, quick, emptyClasses, quickClasses));
        System.out.println("wrote the start-up section of " + docs);
    }

    private static Run run(String classPath, Class<?> main, List<String> options) throws IOException,
            InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(options);
        command.add("-cp");
        command.add(classPath);
        command.add(main.getName());
        long[] before = childTicks();
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(main.getName() + " did not end within 60 s: " + out);
        }
        long wall = System.nanoTime() - start;
        long[] after = childTicks();
        if (p.exitValue() != 0 || !out.contains(main == QuickStart.class ? "created 1 time(s)" : "created 0")) {
            throw new IllegalStateException(main.getName() + " exited " + p.exitValue() + " printing: " + out);
        }
        double cpu = (after[0] - before[0] + after[1] - before[1]) * 1000 / TICKS_PER_SECOND;
        return new Run(wall / 1e6, cpu);
    }

    /** {@code cutime} and {@code cstime} of this process: the CPU ticks of the children it waited for. */
    private static long[] childTicks() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        // The command name, in parentheses, may hold spaces: count fields from after its closing parenthesis.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[13]), Long.parseLong(f[14])}; // fields 16 and 17 of proc(5)
    }

    private static final Pattern LOADED = Pattern.compile("\\[class,load\\s*\\] (\\S+) source:");

    private static Set<String> loadedClasses(String classPath, Class<?> main) throws IOException,
            InterruptedException {
        Path log = Files.createTempFile("idem-startup-", ".log");
        try {
            run(classPath, main, List.of("-Xlog:class+load=info:file=" + log));
            Set<String> names = new HashSet<>();
            for (String line : Files.readAllLines(log)) {
                Matcher m = LOADED.matcher(line);
                if (m.find()) {
                    names.add(m.group(1));
                }
            }
            return names;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static String section(int runs, List<Run> empty, List<Run> quick, Set<String> emptyClasses,
                                  Set<String> quickClasses) {
        List<String> lines = new ArrayList<>();
        lines.add(SECTION.start());
        lines.add("## Start-up");
        lines.add("");
        lines.add("Generated on " + LocalDate.now() + " by `StartupReport` (" + runs + " runs of each, taking turns,"
                + " after one unmeasured run); regenerate with:");
        lines.add("");
        lines.add("```sh");
        lines.add("mvn -q -B -ntp -pl benchmarks -am package -DskipTests");
        lines.add("java -cp benchmarks/target/benchmarks.jar dev.idem.benchmarks.StartupReport docs/benchmarks.md"
                + (runs == DEFAULT_RUNS ? "" : " " + runs));
        lines.add("```");
        lines.add("");
        lines.add("Machine: " + Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version") + ". Each run is"
                + " a JVM of its own with default options on the quick start's class path (the benchmarks' woven"
                + " classes, idem-core, idem-aspect, aspectjrt and their dependencies: no json codec, no store"
                + " module): `QuickStart` is the README's program (`StartupCheck.requireWoven`, a first call of"
                + " `OrderService#create` on the in-memory store, its retry answered by a replay, one line"
                + " printed), `EmptyMain` prints one line. Wall time runs from before the process starts to its"
                + " exit; CPU time is user + system of all its threads, as the kernel accounts a child to its parent"
                + " (in steps of 10 ms). Milliseconds, median (lowest–highest):");
        lines.add("");
        lines.add("| process | wall (ms) | CPU (ms) | classes loaded | of them Idem's |");
        lines.add("|---|---|---|---|---|");
        lines.add(row("`EmptyMain`", empty, emptyClasses));
        lines.add(row("`QuickStart`", quick, quickClasses));
        double wall = median(walls(quick)) - median(walls(empty));
        double cpu = median(cpus(quick)) - median(cpus(empty));
        lines.add("");
        lines.add(String.format(Locale.ROOT, "The quick start's cost over an empty JVM: %.0f ms of wall time and"
                + " %.0f ms of CPU (the goal is <= 500 ms of each).", wall, cpu));
        lines.add("");
        lines.add("The quick start's extra classes (loaded by it and not by `EmptyMain`) by origin:");
        lines.add("");
        lines.add("| origin | classes |");
        lines.add("|---|---|");
        for (Map.Entry<String, List<String>> origin : ORIGINS.entrySet()) {
            int count = 0;
            for (String name : quickClasses) {
                if (!emptyClasses.contains(name) && startsWithAny(name, origin.getValue())) {
                    count++;
                }
            }
            lines.add("| " + origin.getKey() + " | " + count + " |");
        }
        lines.add("");
        lines.add("And by package, the largest first:");
        lines.add("");
        lines.add("| package | classes |");
        lines.add("|---|---|");
        Map<String, Integer> byPackage = new TreeMap<>();
        for (String name : quickClasses) {
            if (!emptyClasses.contains(name)) {
                byPackage.merge(packageOf(name), 1, Integer::sum);
            }
        }
        byPackage.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed()
                        .thenComparing(Map.Entry.comparingByKey()))
                .limit(20)
                .forEach(e -> lines.add("| `" + e.getKey() + "` | " + e.getValue() + " |"));
        lines.add(SECTION.end());
        return String.join("\n", lines) + "\n";
    }

    /** The origins the start-up goal is tracked by, each a list of class-name prefixes, in the order shown. */
    private static final Map<String, List<String>> ORIGINS = origins();

    private static Map<String, List<String>> origins() {
        Map<String, List<String>> origins = new LinkedHashMap<>();
        origins.put("method handles and lambdas (`java.lang.invoke`, `sun.invoke`)",
                List.of("java.lang.invoke.", "sun.invoke."));
        origins.put("streams (`java.util.stream`)", List.of("java.util.stream."));
        origins.put("regular expressions (`java.util.regex`)", List.of("java.util.regex."));
        origins.put("logging (`java.util.logging`, `sun.util.logging`, `jdk.internal.logger`)",
                List.of("java.util.logging.", "sun.util.logging.", "jdk.internal.logger."));
        origins.put("security (`java.security`, `sun.security`)",
                List.of("java.security.", "sun.security."));
        origins.put("Idem's (`dev.idem`, the quick start's own classes included)", List.of("dev.idem."));
        origins.put("AspectJ's (`org.aspectj`)", List.of("org.aspectj."));
        origins.put("Caffeine's (`com.github.benmanes.caffeine`)", List.of("com.github.benmanes.caffeine."));
        return origins;
    }

    private static boolean startsWithAny(String name, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static String row(String name, List<Run> runs, Set<String> classes) {
        long idem = classes.stream().filter(c -> c.startsWith("dev.idem.")).count();
        return "| " + name + " | " + spread(walls(runs), "%.0f") + " | " + spread(cpus(runs), "%.0f") + " | "
                + classes.size() + " | " + idem + " |";
    }

    private static List<Double> walls(List<Run> runs) {
        return runs.stream().map(Run::wallMillis).toList();
    }

    private static List<Double> cpus(List<Run> runs) {
        return runs.stream().map(Run::cpuMillis).toList();
    }

    /** The package of a loaded class; a lambda's or a hidden class's name keeps only its package. */
    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "(default)" : className.substring(0, dot);
    }
}

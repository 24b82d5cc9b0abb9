package dev.idem.tests.agent.app;

import dev.idem.IdempotencyConflictException;
import dev.idem.IdempotencyStoreException;
import dev.idem.StartupCheck;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The application the agent tests launch: one scenario per run, named by the first argument, each printing
 * {@code key=value} lines the test reads. It never references the agent; whether calls are idempotent depends only
 * on how the JVM was started.
 */
public final class AgentApp {
    private AgentApp() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("started");
        ArticleService service = new ArticleService();
        switch (args[0]) {
            case "dedup":
                if (System.getProperty("dev.idem.agent.installed") != null) {
                    // The agent's instrumentation counts as woven for the check applications run at start-up.
                    System.out.println("unwoven=" + dev.idem.core.WeavingCheck.unwovenMethods(ArticleService.class));
                }
                service.generate("rust");
                service.generate("rust");
                service.publish("rust");
                service.publish("rust");
                ArticleService.count("x");
                ArticleService.count("x");
                System.out.println("runs=" + service.runs.get());
                System.out.println("static-runs=" + ArticleService.STATIC_RUNS.get());
                break;
            case "startup-check":
                // The README's start-up check, as an application run with or without the agent calls it.
                StartupCheck.requireWoven(ArticleService.class);
                System.out.println("checked=woven");
                break;
            case "coalesce":
                coalesce(service);
                break;
            case "conflict":
                service.order("order-1", 2);
                try {
                    service.order("order-1", 3);
                    System.out.println("conflict=none");
                } catch (IdempotencyConflictException e) {
                    System.out.println("conflict=caught");
                }
                System.out.println("runs=" + service.runs.get());
                break;
            case "fail-closed":
                try {
                    service.againstADownStore("rust");
                    System.out.println("store-error=none");
                } catch (IdempotencyStoreException e) {
                    System.out.println("store-error=caught");
                }
                System.out.println("runs=" + service.runs.get());
                break;
            case "child-loader":
                try (URLClassLoader child = new URLClassLoader(new URL[] {new File(args[1]).toURI().toURL()},
                        AgentApp.class.getClassLoader())) {
                    Greeter greeter = (Greeter) child.loadClass("dev.idem.tests.agent.plugin.PluginGreeter")
                            .getConstructor().newInstance();
                    System.out.println("loader=" + (greeter.getClass().getClassLoader() == child ? "child" : "other"));
                    greeter.greet("ada");
                    System.out.println("greeting=" + greeter.greet("ada"));
                    System.out.println("runs=" + greeter.runs());
                }
                break;
            case "late-attach":
                service.generate("before");
                System.out.println("ready pid=" + ProcessHandle.current().pid());
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                service.generate("after");
                service.generate("after");
                System.out.println("runs=" + service.runs.get());
                break;
            case "engine-replaced":
                // In a class of its own: it names Idem's classes, which only the agent puts on the class path, and
                // verifying this class must not load them.
                EngineReplacement.run(service);
                break;
            case "bad-ttl":
            case "interface":
                // In a class of their own: verifying this one must not load the declarations they exercise.
                BadDeclarations.run(args[0]);
                break;
            default:
                throw new IllegalArgumentException("unknown scenario " + args[0]);
        }
    }

    /** Eight callers at once; the running call waits until the other seven have joined it (under the agent). */
    private static void coalesce(ArticleService service) throws Exception {
        int callers = 8;
        boolean underAgent = System.getProperty("dev.idem.agent.installed") != null;
        service.during = () -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (underAgent && EventCounter.count("COALESCED") < callers - 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        };
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ArticleService.Article>> results = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return service.generate("same prompt");
            }));
        }
        start.countDown();
        for (Future<ArticleService.Article> r : results) {
            r.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        System.out.println("runs=" + service.runs.get());
        System.out.println("coalesced=" + (underAgent ? EventCounter.count("COALESCED") : 0));
    }
}

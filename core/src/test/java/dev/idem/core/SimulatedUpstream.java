package dev.idem.core;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.IdempotencyContext;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A paid upstream on loopback, as the retry tests meet it: it answers from a script of statuses (then 200), counts
 * every request it receives and how many are in flight at once, and records the {@code Idempotency-Key} header
 * each request carried. A test may hold requests in the handler ({@link #during}) to see who is in flight.
 */
final class SimulatedUpstream implements AutoCloseable {
    /** What the handler does before answering, on the server's thread. */
    interface During {
        void run() throws Exception;
    }

    /** An answer: a status and its headers. */
    record Answer(int status, Map<String, String> headers) {
        static Answer of(int status) {
            return new Answer(status, Map.of());
        }
    }

    /**
     * How an HTTP client's exception looks to Idem: a status and the response headers (the OpenAI and Anthropic SDKs'
     * {@code statusCode()}/{@code headers()} shape). Public, so the engine's reflection may read it.
     */
    public static final class UpstreamException extends RuntimeException {
        private final int statusCode;
        private final HttpHeaders headers;

        UpstreamException(int statusCode, HttpHeaders headers) {
            super("upstream answered " + statusCode);
            this.statusCode = statusCode;
            this.headers = headers;
        }

        public int statusCode() {
            return statusCode;
        }

        public HttpHeaders headers() {
            return headers;
        }
    }

    static {
        // The JDK server writes headers and body apart; with Nagle's algorithm each answer would wait for the
        // client's delayed ACK (about 40 ms). Read once, when the first server of the JVM is made.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newCachedThreadPool();
    private final HttpClient client;
    private final BlockingQueue<Answer> script = new LinkedBlockingQueue<>();
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();
    volatile During during = () -> {
    };

    SimulatedUpstream() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        server.createContext("/generate", this::handle);
        server.setExecutor(handlers);
        server.start();
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newCachedThreadPool()).build();
    }

    /** Answers the next requests with these, in order; 200 after them. */
    SimulatedUpstream answer(Answer... answers) {
        script.addAll(List.of(answers));
        return this;
    }

    /** What a client method does: POSTs {@code prompt}, returns the body, throws {@link UpstreamException} on non-2xx. */
    String generate(String prompt) throws IOException, InterruptedException {
        return check(client.send(request(prompt), HttpResponse.BodyHandlers.ofString()));
    }

    /** The asynchronous client call. */
    CompletableFuture<String> generateAsync(String prompt) {
        return client.sendAsync(request(prompt), HttpResponse.BodyHandlers.ofString()).thenApply(SimulatedUpstream::check);
    }

    private HttpRequest request(String prompt) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()
                + "/generate")).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(prompt));
        // What a careful client does: pass the operation's key on as the upstream's own Idempotency-Key.
        IdempotencyContext.current().ifPresent(c -> b.header("Idempotency-Key", c.key() + "#" + c.fencingToken()));
        return b.build();
    }

    private static String check(HttpResponse<String> response) {
        if (response.statusCode() / 100 != 2) {
            throw new UpstreamException(response.statusCode(), response.headers());
        }
        return response.body();
    }

    private void handle(HttpExchange exchange) throws IOException {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        requests.incrementAndGet();
        try {
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            idempotencyKeys.add(key == null ? "(none)" : key);
            String prompt = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            during.run();
            Answer answer = script.poll();
            if (answer == null) {
                answer = Answer.of(200);
            }
            answer.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
            byte[] body = ("article about " + prompt).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.status(), body.length);
            exchange.getResponseBody().write(body);
        } catch (Exception e) {
            exchange.sendResponseHeaders(500, -1);
        } finally {
            inFlight.decrementAndGet();
            exchange.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }
}

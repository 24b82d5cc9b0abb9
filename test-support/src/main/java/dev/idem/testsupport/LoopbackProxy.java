package dev.idem.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy to a server (Redis, a database) that a test owns, to inject network faults between a store and
 * its server without touching the server. Point the store at {@code 127.0.0.1:}{@link #port()}.
 *
 * <ul>
 *   <li>{@link #cut()}: every connection through the proxy is dropped, and from then on new connections are accepted
 *       and never answered (a server that hangs, a network that drops packets), until {@link #restore()}.</li>
 *   <li>{@link #blackHole()}: nothing is forwarded any more, on open connections or new ones, without dropping
 *       anything: a connection in the middle of a statement stalls, so an answer the server already sent is lost
 *       (what makes a completion or a renewal applied by the server look failed to its caller).</li>
 *   <li>{@link #restore()} (or its synonym {@link #heal()}): every connection held since the cut or the black hole
 *       is dropped, as a partition long enough for TCP to give up would; new connections reach the server again.</li>
 *   <li>{@link #reset()}: every open connection is dropped at once; new ones go through.</li>
 *   <li>{@link #latency(long)}: every chunk of bytes, each way, is delayed.</li>
 * </ul>
 *
 * <p>Threads: one daemon thread accepts, one connects each client, two per connection copy bytes; {@link #close()}
 * stops them.
 */
public final class LoopbackProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean blackHoled;
    private volatile long latencyMillis;

    /**
     * Starts a proxy on a free loopback port, forwarding to {@code targetHost:targetPort}.
     *
     * @param targetHost the server's host
     * @param targetPort the server's port
     * @throws IOException when no loopback port can be bound
     */
    public LoopbackProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "loopback-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * The loopback port the proxy listens on.
     *
     * @return the port
     */
    public int port() {
        return server.getLocalPort();
    }

    /** Drops every connection through the proxy; new ones are accepted and never answered until {@link #restore()}. */
    public void cut() {
        blackHole();
        dropAll();
    }

    /** Forwards nothing from now on and answers no new connection, dropping nothing, until {@link #restore()}. */
    public void blackHole() {
        blackHoled = true;
    }

    /** Drops every connection held since {@link #cut()} or {@link #blackHole()}; forwards new connections again. */
    public void restore() {
        dropAll();
        synchronized (gate) {
            blackHoled = false;
            gate.notifyAll();
        }
    }

    /** The same as {@link #restore()}: the end of a {@link #blackHole() black hole}. */
    public void heal() {
        restore();
    }

    /** Drops every open connection now; new connections go through (unless the proxy is cut). */
    public void reset() {
        dropAll();
    }

    /**
     * Delays every chunk of bytes, each way, by {@code millis}.
     *
     * @param millis the delay; 0 for none
     */
    public void latency(long millis) {
        latencyMillis = millis;
    }

    /**
     * The connections clients made through the proxy so far.
     *
     * @return the count
     */
    public long connections() {
        return connections.get();
    }

    /**
     * The sockets (client or server side) the faults dropped so far while they were open.
     *
     * @return the count
     */
    public long dropped() {
        return dropped.get();
    }

    private void dropAll() {
        for (Socket s : open) {
            if (!s.isClosed()) {
                dropped.incrementAndGet();
            }
            closeQuietly(s);
        }
        open.clear();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                open.add(client);
                connections.incrementAndGet();
                Thread t = new Thread(() -> connect(client), "loopback-proxy-connect");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    /** Connects upstream once the proxy forwards (a client accepted meanwhile waits for an answer). */
    private void connect(Socket client) {
        try {
            awaitPassable(client);
            if (client.isClosed()) {
                return;
            }
            Socket upstream = new Socket(targetHost, targetPort);
            open.add(upstream);
            if (client.isClosed()) { // dropped while connecting
                closeQuietly(upstream);
                return;
            }
            pipe(client, upstream);
            pipe(upstream, client);
        } catch (IOException | InterruptedException e) {
            closeQuietly(client);
        }
    }

    private void awaitPassable(Socket socket) throws InterruptedException {
        synchronized (gate) {
            while (blackHoled && !socket.isClosed()) {
                gate.wait(100);
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    long delay = latencyMillis;
                    if (delay > 0) {
                        TimeUnit.MILLISECONDS.sleep(delay);
                    }
                    awaitPassable(from); // held while black-holed, never delivered: dropped at restore
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException ignored) {
                // one side closed or was dropped: close both below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "loopback-proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** Stops listening and drops every connection. */
    @Override
    public void close() throws IOException {
        server.close();
        restore();
    }
}

package dev.idem.reliability;

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
 * A loopback TCP proxy between the soak's workers and a store's server, owned by the test, that injects network
 * faults without touching the server: {@link #latency added latency}, {@link #reset() resets} (every connection
 * dropped at once; new ones go through) and {@link #blackHole() black-holing} (nothing is forwarded, new connections
 * are accepted and never answered; {@link #heal()} then drops every connection that was held, as a partition long
 * enough for TCP to give up would, and forwards new ones again).
 *
 * <p>store-tck's {@code LoopbackProxy} cuts and restores, but adds no latency and drops connections as the cut begins;
 * this one also stalls connections that are in the middle of a statement, which is what makes a completion's or a
 * renewal's answer get lost after the server applied it.
 *
 * <p>Threads: one daemon thread accepts, two daemon threads per connection copy bytes; {@link #close()} stops them.
 */
final class FaultProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean blackHoled;
    private volatile long latencyMillis;

    FaultProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fault-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Delays every chunk of bytes, each way, by {@code millis} (0: none). */
    void latency(long millis) {
        latencyMillis = millis;
    }

    /** Drops every open connection now; new connections go through. */
    void reset() {
        dropAll();
    }

    /** From now on forwards nothing and answers no new connection, until {@link #heal()}. */
    void blackHole() {
        blackHoled = true;
    }

    /** Drops every connection held while black-holed and forwards new connections again. */
    void heal() {
        dropAll();
        synchronized (gate) {
            blackHoled = false;
            gate.notifyAll();
        }
    }

    /** {@return the connections made through the proxy so far} */
    long connections() {
        return connections.get();
    }

    /** {@return the connections the faults dropped so far} */
    long dropped() {
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
                Thread t = new Thread(() -> connect(client), "fault-proxy-connect");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    /** Connects upstream once the proxy is not black-holed (a black-holed client waits for an answer). */
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
                    awaitPassable(from); // black-holed: the bytes are held, never delivered (dropped at heal)
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
        }, "fault-proxy-pipe");
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

    @Override
    public void close() throws IOException {
        server.close();
        heal();
    }
}

package dev.idem.store.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy to a server (Redis, a database) that a test can cut, to take the server away from a store
 * without touching the server: {@link #cut()} drops every connection through the proxy and from then on accepts
 * connections but never answers (a server that hangs, or a network that drops packets), until {@link #restore()},
 * after which new connections reach the server again. Point the store at {@code 127.0.0.1:}{@link #port()}.
 *
 * <p>Threads: one daemon thread accepts, two daemon threads per connection copy bytes; {@link #close()} stops them.
 */
public final class LoopbackProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean cut;

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
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
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

    /** Drops every connection through the proxy; new ones are accepted and never answered. */
    public void cut() {
        cut = true;
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    /** Forwards new connections again. */
    public void restore() {
        cut = false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                open.add(client);
                if (cut) {
                    continue; // held open, never read: the caller waits for an answer that never comes
                }
                Socket upstream = new Socket(targetHost, targetPort);
                open.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // one side closed: close both below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
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
        cut();
    }
}

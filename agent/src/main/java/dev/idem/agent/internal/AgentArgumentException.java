package dev.idem.agent.internal;

/** A bad agent argument; its message is the one line the agent prints before refusing to start. */
public final class AgentArgumentException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    AgentArgumentException(String message) {
        super(message);
    }
}

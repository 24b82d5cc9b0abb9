package dev.idem.testsupport;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Captures what Idem logs during each test, through {@code java.util.logging} (the JDK's default backend of the
 * {@code System.Logger} Idem writes to), and keeps it off the console. For tests that provoke the warnings an
 * operator must see (a store that fails, a result that cannot be stored, a lost lease): they assert the lines
 * instead of printing them, so a build's output shows only what nobody expected.
 *
 * <pre>{@code
 * @RegisterExtension
 * final CapturedLog log = CapturedLog.of("dev.idem");
 * ...
 * log.assertLogged(Level.WARNING, "FAIL_OPEN");
 * }</pre>
 */
public final class CapturedLog implements BeforeEachCallback, AfterEachCallback {
    private final Logger logger; // held, so the logger and its configuration are not collected during the test
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private boolean parentHandlers;

    private CapturedLog(String loggerName) {
        this.logger = Logger.getLogger(loggerName);
    }

    /**
     * A capture of {@code loggerName} and the loggers below it.
     *
     * @param loggerName such as {@code dev.idem}, which holds every logger of Idem
     * @return the extension, to register with {@code @RegisterExtension}
     */
    public static CapturedLog of(String loggerName) {
        return new CapturedLog(loggerName);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        records.clear();
        parentHandlers = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        logger.addHandler(handler);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.removeHandler(handler);
        logger.setUseParentHandlers(parentHandlers);
    }

    /**
     * {@return the lines logged so far in this test at {@code level} or above, each as "LEVEL message"}
     *
     * @param level the lowest level wanted
     */
    public List<String> lines(Level level) {
        return records.stream().filter(r -> r.getLevel().intValue() >= level.intValue())
                .map(r -> r.getLevel() + " " + r.getMessage()).toList();
    }

    /**
     * Fails unless a line at {@code level} or above containing {@code fragment} was logged in this test.
     *
     * @param level    the lowest level the line may have
     * @param fragment text the line contains
     */
    public void assertLogged(Level level, String fragment) {
        List<String> lines = lines(level);
        assertTrue(lines.stream().anyMatch(l -> l.contains(fragment)), "expected a logged line at " + level
                + " or above containing \"" + fragment + "\"; logged: " + lines);
    }
}

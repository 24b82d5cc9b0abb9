package dev.idem.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A section of {@code docs/benchmarks.md} that one report command writes between its two markers, leaving the rest
 * of the file as it is. Sections written by their own commands sit after {@link Report#KEPT_SECTIONS}, which
 * {@code benchmarks/run.sh} keeps.
 */
record ReportSection(String start, String end) {
    /** The markers {@code <!-- name:start -->} and {@code <!-- name:end -->}. */
    static ReportSection named(String name) {
        return new ReportSection("<!-- " + name + ":start -->", "<!-- " + name + ":end -->");
    }

    /**
     * Replaces the text between (and with) the markers by {@code section}, which must begin with {@link #start} and
     * end with {@link #end} and a line break; appends it when the file has no such section.
     */
    void write(Path docs, String section) throws IOException {
        String text = Files.exists(docs) ? Files.readString(docs) : "# Benchmarks\n";
        int from = text.indexOf(start);
        int to = text.indexOf(end);
        if (from >= 0 && to > from) {
            int after = to + end.length();
            if (after < text.length() && text.charAt(after) == '\n') {
                after++;
            }
            text = text.substring(0, from) + section + text.substring(after);
        } else {
            text = text.endsWith("\n") ? text + "\n" + section : text + "\n\n" + section;
        }
        Files.writeString(docs, text);
    }
}

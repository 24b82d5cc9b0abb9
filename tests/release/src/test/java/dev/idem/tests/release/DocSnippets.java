package dev.idem.tests.release;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code ```java} blocks of a Markdown page, turned into Java source files as a reader would paste them.
 *
 * <p>The convention, an HTML comment on the line right before the block (invisible on the rendered page):
 * <ul>
 *   <li>no comment: the block is a whole source file; its {@code package} and its public (else first) type give its
 *       path. The blocks of all pages are compiled together, so one may use another's types (the docs' examples use
 *       the quick start's {@code OrderService}), and no two may declare the same type.</li>
 *   <li>{@code <!-- snippet: statements -->}: statements, as pasted into a method. Leading {@code import} lines are
 *       the file's imports; the rest becomes the body of {@code void run() throws Exception} in a class of package
 *       {@code com.example}, the package of the quick start's example types, named after the page and the line.</li>
 *   <li>{@code <!-- snippet: not compiled (why) -->}: left out, for a sketch that names types only the reader has;
 *       the reason is required.</li>
 * </ul>
 */
final class DocSnippets {
    /** The package statement fragments are wrapped into, beside the quick start's example classes. */
    static final String FRAGMENT_PACKAGE = "com.example";

    private static final Pattern MARKER = Pattern.compile("^<!--\\s*snippet:\\s*(.*?)\\s*-->\\s*$");
    private static final Pattern NOT_COMPILED = Pattern.compile("not compiled \\((.+)\\)");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^public\\s+(?:(?:abstract|final|sealed|non-sealed|static)\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)");
    private static final Pattern ANY_TYPE = Pattern.compile(
            "(?m)^(?:(?:public|abstract|final|sealed|non-sealed)\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)");

    /** How a block is turned into a source file. */
    enum Kind { FILE, STATEMENTS, NOT_COMPILED }

    /**
     * One {@code ```java} block.
     *
     * @param page the page it is on, as messages name it ({@code README.md}, {@code docs/attach.md})
     * @param line the line of the opening fence, 1-based, for messages
     */
    record Snippet(String page, int line, Kind kind, String code) {
        /** The source file a reader would make of it: its path (as javac expects it) and its content. */
        Source source() {
            switch (kind) {
                case FILE:
                    Matcher pkg = PACKAGE.matcher(code);
                    String dir = pkg.find() ? pkg.group(1).replace('.', '/') + "/" : "";
                    Matcher type = PUBLIC_TYPE.matcher(code);
                    if (!type.find()) {
                        type = ANY_TYPE.matcher(code);
                        if (!type.find()) {
                            throw new IllegalArgumentException(page + " line " + line + ": a java block with no"
                                    + " marker must be a whole source file declaring a type; mark statements with"
                                    + " <!-- snippet: statements -->");
                        }
                    }
                    return new Source(page, line, dir + type.group(1) + ".java", code);
                case STATEMENTS:
                    StringBuilder imports = new StringBuilder();
                    StringBuilder body = new StringBuilder();
                    boolean head = true;
                    for (String l : code.split("\n", -1)) {
                        if (head && (l.startsWith("import ") || l.isBlank())) {
                            imports.append(l).append('\n');
                        } else {
                            head = false;
                            body.append("        ").append(l).append('\n');
                        }
                    }
                    String name = className(page) + "Line" + line;
                    // One line for the package and the class header, so javac's line numbers stay close to the
                    // page's: the imports keep their lines, the body is shifted by one.
                    String text = "package " + FRAGMENT_PACKAGE + ";\n" + imports + "class " + name
                            + " { void run() throws Exception {\n" + body + "    }\n}\n";
                    return new Source(page, line, FRAGMENT_PACKAGE.replace('.', '/') + "/" + name + ".java", text);
                default:
                    throw new IllegalStateException(this + " is not compiled");
            }
        }
    }

    /**
     * A source file made from a snippet.
     *
     * @param page the page of the snippet it came from
     * @param line the line of that snippet on its page
     * @param path its path under the source root, such as {@code com/example/OrderService.java}
     */
    record Source(String page, int line, String path, String text) {
        /** Where its snippet is, for messages: {@code docs/attach.md line 42}. */
        String where() {
            return page + " line " + line;
        }
    }

    private DocSnippets() {
    }

    /**
     * The {@code ```java} blocks of {@code markdown}, in order.
     *
     * @param page how messages name the page, such as {@code docs/attach.md}
     * @throws IllegalArgumentException for a marker this convention does not know, or a block never closed
     */
    static List<Snippet> extract(String page, String markdown) {
        List<Snippet> snippets = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].strip().equals("```java")) {
                continue;
            }
            int open = i;
            String indent = lines[i].substring(0, lines[i].indexOf('`'));
            Kind kind = i > 0 ? kind(page, lines[i - 1].strip(), i) : Kind.FILE;
            StringBuilder code = new StringBuilder();
            for (i++; i < lines.length && !lines[i].strip().equals("```"); i++) {
                code.append(lines[i].startsWith(indent) ? lines[i].substring(indent.length()) : lines[i]).append('\n');
            }
            if (i == lines.length) {
                throw new IllegalArgumentException(page + " line " + (open + 1) + ": a ```java block is never closed");
            }
            snippets.add(new Snippet(page, open + 1, kind, code.toString()));
        }
        return snippets;
    }

    /**
     * A class name made of a page's file name, for the classes statements are wrapped into: {@code README.md} gives
     * {@code Readme}, {@code docs/jdbc-store.md} gives {@code JdbcStore}.
     */
    static String className(String page) {
        String file = page.substring(page.lastIndexOf('/') + 1).replaceFirst("\\.md$", "");
        StringBuilder name = new StringBuilder();
        for (String word : file.split("[^A-Za-z0-9]+")) {
            if (!word.isEmpty()) {
                name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1).toLowerCase(Locale.ROOT));
            }
        }
        return name.toString();
    }

    private static Kind kind(String page, String previousLine, int index) {
        Matcher marker = MARKER.matcher(previousLine);
        if (!marker.matches()) {
            return Kind.FILE;
        }
        String what = marker.group(1);
        if (what.equals("statements")) {
            return Kind.STATEMENTS;
        }
        if (NOT_COMPILED.matcher(what).matches()) {
            return Kind.NOT_COMPILED;
        }
        throw new IllegalArgumentException(page + " line " + index + ": unknown snippet marker \"" + what + "\"; write"
                + " <!-- snippet: statements --> or <!-- snippet: not compiled (why) -->");
    }
}

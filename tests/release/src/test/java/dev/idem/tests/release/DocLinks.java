package dev.idem.tests.release;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The links of a Markdown page and the anchors it offers, as GitHub renders them: what the link check compares.
 *
 * <p>Text inside fenced code blocks and inline code is neither a link nor a heading, as on the rendered page.
 */
final class DocLinks {
    /** An inline link or image, {@code [text](target)} or {@code [text](target "title")}. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`\n]*`");
    /** What GitHub drops from a heading to make its anchor: all but letters, digits, spaces, {@code -}, {@code _}. */
    private static final Pattern NOT_IN_ANCHOR = Pattern.compile("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]");

    /**
     * A link of a page.
     *
     * @param line its line on the page, 1-based
     * @param target what it points to, as written: {@code docs/attach.md#load-time}, {@code #quick-start}
     */
    record Link(int line, String target) {
        /** Whether it leaves the repository ({@code https:}, {@code mailto:}), so only a browser can check it. */
        boolean external() {
            return target.matches("[A-Za-z][A-Za-z0-9+.-]*:.*");
        }

        /** The file part, empty for a link into the same page. */
        String file() {
            int hash = target.indexOf('#');
            return hash < 0 ? target : target.substring(0, hash);
        }

        /** The anchor part without its {@code #}, empty when there is none. */
        String anchor() {
            int hash = target.indexOf('#');
            return hash < 0 ? "" : target.substring(hash + 1);
        }
    }

    private DocLinks() {
    }

    /** The links of {@code markdown}, in order. */
    static List<Link> links(String markdown) {
        String text = INLINE_CODE.matcher(String.join("\n", outsideCode(markdown)))
                .replaceAll(m -> " ".repeat(m.group().length()));
        List<Link> links = new ArrayList<>();
        Matcher link = LINK.matcher(text);
        while (link.find()) {
            int line = 1;
            for (int i = 0; i < link.start(); i++) {
                line += text.charAt(i) == '\n' ? 1 : 0;
            }
            links.add(new Link(line, link.group(1)));
        }
        return links;
    }

    /**
     * The anchors a link into {@code markdown} may name: one per heading, made as GitHub makes it (lower case, spaces
     * to {@code -}, punctuation dropped, {@code -1}, {@code -2}... after a repeated one), and every HTML
     * {@code <a id="...">}.
     */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : outsideCode(markdown)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = NOT_IN_ANCHOR.matcher(heading.group(1).toLowerCase(Locale.ROOT)).replaceAll("")
                        .replace(' ', '-');
                int before = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(before == 0 ? slug : slug + "-" + before);
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
        }
        return anchors;
    }

    /**
     * The links of {@code page} that point to no file, or to a Markdown file without the heading or anchor they name,
     * one line each, starting with {@code name}; empty when every link resolves. Links that leave the repository are
     * not checked.
     *
     * @param name how messages name the page, such as {@code docs/attach.md}
     */
    static List<String> unresolved(Path page, String name) throws IOException {
        List<String> problems = new ArrayList<>();
        Map<Path, Set<String>> anchorsOf = new HashMap<>();
        for (Link link : links(Files.readString(page))) {
            if (link.external()) {
                continue;
            }
            Path target = link.file().isEmpty() ? page
                    : page.toAbsolutePath().getParent().resolve(link.file()).normalize();
            String where = name + " line " + link.line() + ": (" + link.target() + ") ";
            if (!Files.exists(target)) {
                problems.add(where + "points to no file");
            } else if (!link.anchor().isEmpty() && Files.isRegularFile(target) && target.toString().endsWith(".md")) {
                Set<String> anchors = anchorsOf.get(target);
                if (anchors == null) {
                    anchors = anchors(Files.readString(target));
                    anchorsOf.put(target, anchors);
                }
                if (!anchors.contains(link.anchor())) {
                    problems.add(where + "names no heading or anchor of " + target.getFileName());
                }
            }
        }
        return problems;
    }

    /** The lines of {@code markdown}, those of fenced code blocks (fences included) blanked, so lines keep numbers. */
    private static List<String> outsideCode(String markdown) {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            boolean fence = line.strip().startsWith("```") || line.strip().startsWith("~~~");
            lines.add(fenced || fence ? "" : line);
            fenced ^= fence;
        }
        return lines;
    }
}

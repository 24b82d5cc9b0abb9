package dev.idem.core.internal.key;

import dev.idem.Normalize;

import java.util.Arrays;
import java.util.Locale;

/** One value that enters a hash: a parameter, or a property inside it, with its normalisations. */
public final class KeySource {
    final int index;
    final String parameterName;
    final PropertyPath path;
    final Normalize[] normalize;
    /** The whole parameter, not normalised: its value is the argument itself, read with no further test. */
    private final boolean plain;
    /** The class this parameter's value had last time (a benign race: any entry read is a correct one). */
    volatile TypeEntry lastType;

    public KeySource(int index, String parameterName, PropertyPath path, Normalize[] normalize) {
        this.index = index;
        this.parameterName = parameterName;
        this.path = path;
        this.normalize = normalize;
        this.plain = path.isWhole() && normalize.length == 0;
    }

    public Object valueIn(Object[] args) {
        if (plain) {
            return args[index];
        }
        Object value = path.isWhole() ? args[index] : path.read(args[index]);
        if (normalize.length > 0 && value instanceof CharSequence) {
            String s = value.toString();
            for (Normalize n : normalize) {
                switch (n) {
                    case TRIM:
                        s = s.strip();
                        break;
                    case COLLAPSE_WHITESPACE:
                        s = collapseWhitespace(s);
                        break;
                    case LOWER_CASE:
                        s = s.toLowerCase(Locale.ROOT);
                        break;
                    default:
                        throw new AssertionError(n);
                }
            }
            return s;
        }
        return value;
    }

    /**
     * {@code s} with each run of whitespace as the regular expression {@code \\s} means it (space, tab, line feed,
     * vertical tab, form feed, carriage return) replaced by one space. A loop rather than a regular expression, so
     * planning a method does not load the regex engine.
     */
    static String collapseWhitespace(String s) {
        StringBuilder sb = null;
        int length = s.length();
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (!isWhitespace(c)) {
                if (sb != null) {
                    sb.append(c);
                }
                continue;
            }
            int end = i + 1;
            while (end < length && isWhitespace(s.charAt(end))) {
                end++;
            }
            if (sb == null) {
                if (c == ' ' && end == i + 1) {
                    continue; // a single space stays as it is
                }
                sb = new StringBuilder(length).append(s, 0, i);
            }
            sb.append(' ');
            i = end - 1;
        }
        return sb == null ? s : sb.toString();
    }

    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    /** The parameter (and path) for messages: {@code 'order'} or {@code 'order.id'}. */
    public String describe() {
        return "'" + parameterName + (path.isWhole() ? "" : "." + path.text()) + "'";
    }

    public boolean sameAs(KeySource other) {
        return index == other.index && path == other.path && Arrays.equals(normalize, other.normalize);
    }
}

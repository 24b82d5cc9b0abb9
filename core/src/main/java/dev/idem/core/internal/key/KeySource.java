package dev.idem.core.internal.key;

import dev.idem.Normalize;

import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;

/** One value that enters a hash: a parameter, or a property inside it, with its normalisations. */
public final class KeySource {
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

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
                        s = WHITESPACE.matcher(s).replaceAll(" ");
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

    /** The parameter (and path) for messages: {@code 'order'} or {@code 'order.id'}. */
    public String describe() {
        return "'" + parameterName + (path.isWhole() ? "" : "." + path.text()) + "'";
    }

    public boolean sameAs(KeySource other) {
        return index == other.index && path == other.path && Arrays.equals(normalize, other.normalize);
    }
}

package dev.idem.core.internal.key;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * A scope such as {@code "gemini-lab:daily"} or {@code "{tenant}:orders"}. Placeholders are the one place an
 * argument value enters the key in clear, so only plain identifiers are accepted there (letters, digits,
 * {@code . _ - @}): a tenant id, not a person's data.
 */
public final class ScopeTemplate {
    /** The most characters a placeholder's value may have. */
    private static final int MAX_VALUE_LENGTH = 128;

    private final String literal;     // the whole scope when it has no placeholders, else null
    private final Object[] parts;     // String literals and KeySource placeholders

    private ScopeTemplate(String literal, Object[] parts) {
        this.literal = literal;
        this.parts = parts;
    }

    /**
     * Parses {@code scope}; {@code placeholder} turns a placeholder's text ({@code tenant} or {@code order.site})
     * into its source, throwing IllegalArgumentException when it names no parameter.
     */
    public static ScopeTemplate parse(String scope, Function<String, KeySource> placeholder) {
        if (scope.indexOf('{') < 0 && scope.indexOf('}') < 0) {
            return new ScopeTemplate(scope, null);
        }
        List<Object> parts = new ArrayList<>();
        int i = 0;
        while (i < scope.length()) {
            int open = scope.indexOf('{', i);
            int close = scope.indexOf('}', i);
            if (open < 0 && close < 0) {
                parts.add(scope.substring(i));
                break;
            }
            if (close >= 0 && (open < 0 || close < open)) {
                throw new IllegalArgumentException("scope \"" + scope + "\" has an unmatched '}'");
            }
            close = scope.indexOf('}', open); // here open >= 0
            if (close < 0) {
                throw new IllegalArgumentException("scope \"" + scope + "\" has an unmatched '{'");
            }
            if (open > i) {
                parts.add(scope.substring(i, open));
            }
            parts.add(placeholder.apply(scope.substring(open + 1, close)));
            i = close + 1;
        }
        return new ScopeTemplate(null, parts.toArray());
    }

    public boolean isLiteral() {
        return literal != null;
    }

    /** The scope of a call; a literal scope returns the same String every time. */
    public String render(Object[] args) {
        if (literal != null) {
            return literal;
        }
        StringBuilder sb = new StringBuilder();
        for (Object part : parts) {
            if (part instanceof String) {
                sb.append((String) part);
                continue;
            }
            KeySource source = (KeySource) part;
            Object value = source.valueIn(args);
            String text = value instanceof Enum ? ((Enum<?>) value).name()
                    : value instanceof CharSequence || value instanceof Number || value instanceof UUID
                    || value instanceof Boolean ? value.toString() : null;
            if (text == null || !isPlainIdentifier(text)) {
                throw new UnencodableValueException("scope placeholder {" + source.describe().replace("'", "")
                        + "} must be a plain identifier (letters, digits, . _ - @, at most 128), got "
                        + (value == null ? "null" : "a " + value.getClass().getSimpleName() + " that is not one"));
            }
            sb.append(text);
        }
        return sb.toString();
    }

    /** One to {@value #MAX_VALUE_LENGTH} ASCII letters, digits, {@code . _ - @}: a loop, not a regular expression. */
    static boolean isPlainIdentifier(String text) {
        int length = text.length();
        if (length == 0 || length > MAX_VALUE_LENGTH) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            boolean plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-' || c == '@';
            if (!plain) {
                return false;
            }
        }
        return true;
    }
}

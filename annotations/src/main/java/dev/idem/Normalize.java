package dev.idem;

/** Normalisations of string key values, applied before hashing. */
public enum Normalize {
    /** Removes leading and trailing white space. */
    TRIM,
    /** Replaces every run of white space with one space. */
    COLLAPSE_WHITESPACE,
    /** Lower-cases with {@link java.util.Locale#ROOT}, so the key does not depend on the machine's locale. */
    LOWER_CASE
}

package dev.idem.benchmarks;

import java.util.List;
import java.util.Locale;

/** The medians and ranges the reports print for trials measured in rounds ({@link JdbcReport}, {@link RedisReport}). */
final class Medians {
    private Medians() {
    }

    /** The median of {@code values}; NaN when there are none. */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The median and, in parentheses, the lowest and the highest, each written with {@code format}. */
    static String spread(List<Double> values, String format) {
        double low = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double high = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, format + " (" + format + "–" + format + ")", median(values), low, high);
    }

    /** The {@link #spread} of Idem-over-baseline ratios, in bold when the median misses the goal of 0.8. */
    static String ratioSpread(List<Double> ratios) {
        String text = spread(ratios, "%.2f");
        return median(ratios) >= 0.8 ? text : "**" + text + "**";
    }
}

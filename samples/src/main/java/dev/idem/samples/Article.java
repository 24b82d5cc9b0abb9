package dev.idem.samples;

import java.io.Serializable;
import java.time.LocalDate;

/** A generated article. Serializable because Idem stores results with Java serialization. */
public record Article(String topic, LocalDate day, String text) implements Serializable {
}

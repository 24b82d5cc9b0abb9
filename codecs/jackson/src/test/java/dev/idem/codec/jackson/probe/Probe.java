package dev.idem.codec.jackson.probe;

import java.util.List;

/** A result type that ClassLoaderTest loads in a class loader of its own, as an application server would. */
public record Probe(String name, List<Integer> values) {
}

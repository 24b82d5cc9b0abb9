package dev.idem.tests.release;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The pages a user reads: the README and every Markdown page of {@code docs/}, in a stable order. */
final class DocPages {
    /** The repository's root, as surefire is told it. */
    static final Path ROOT = Paths.get(System.getProperty("idem.root", "../.."));

    private DocPages() {
    }

    /** {@code README.md}, then {@code docs/*.md} sorted by name. */
    static List<Path> all() {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    /** How messages name {@code page}: its path from the root, with {@code /} whatever the platform. */
    static String name(Path page) {
        return ROOT.relativize(page).toString().replace('\\', '/');
    }
}

package dev.idem.tests.release;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The pages' tables of {@code idem.*} keys and the Spring Boot starters' configuration metadata (the file both
 * starter jars carry, whose keys the starters' tests check against the code) name the same keys, with the same
 * defaults: a key is documented where it is read, and nowhere with another default.
 */
class ConfigurationKeysDocumentedTest {
    static final Path METADATA = DocPages.ROOT.resolve(
            "spring/shared/src/main/resources/META-INF/spring-configuration-metadata.json");
    /** A table row whose first cell is one key, such as {@code | `idem.store` | `memory` | ...}. */
    private static final Pattern KEY_ROW = Pattern.compile("^\\| `(idem\\.[A-Za-z0-9.-]+)` \\|([^|]*)\\|");

    @Test
    void everyKeyOfTheMetadataIsInAPagesTableAndNoOther() throws IOException {
        Map<String, List<String>> documented = documentedKeys();
        assertEquals(new TreeSet<>(metadataDefaults().keySet()), new TreeSet<>(documented.keySet()),
                "the keys of " + DocPages.name(METADATA) + " against those the pages' tables list");
    }

    @Test
    void everyDocumentedDefaultIsTheMetadatas() throws IOException {
        Map<String, String> defaults = metadataDefaults();
        List<String> wrong = new ArrayList<>();
        documentedKeys().forEach((key, cells) -> {
            String expected = defaults.get(key);
            for (String cell : cells) {
                if (expected != null && !cell.startsWith("`" + expected + "`")) {
                    wrong.add(key + ": the metadata's default is " + expected + ", a page's cell says " + cell);
                }
            }
        });
        assertEquals(List.of(), wrong);
    }

    /** Each key's default in the metadata, or null when it shows none. */
    private static Map<String, String> metadataDefaults() throws IOException {
        JsonNode tree = JsonMapper.shared().readTree(Files.readAllBytes(METADATA));
        Map<String, String> defaults = new TreeMap<>();
        for (JsonNode property : tree.get("properties")) {
            JsonNode value = property.get("defaultValue");
            defaults.put(property.get("name").stringValue(), value == null ? null : value.asString());
        }
        return defaults;
    }

    /** Each key a page's table lists, with the default cell of every row that lists it. */
    private static Map<String, List<String>> documentedKeys() throws IOException {
        Map<String, List<String>> keys = new TreeMap<>();
        for (Path page : DocPages.all()) {
            for (String line : Files.readAllLines(page)) {
                Matcher row = KEY_ROW.matcher(line);
                if (row.find()) {
                    keys.computeIfAbsent(row.group(1), k -> new ArrayList<>()).add(row.group(2).trim());
                }
            }
        }
        return keys;
    }
}

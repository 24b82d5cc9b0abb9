package dev.idem.spring;

import dev.idem.store.DurationGrammar;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataGroup;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ValueHint;
import org.springframework.boot.configurationmetadata.json.JSONException;
import org.springframework.boot.configurationmetadata.json.JSONObject;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static dev.idem.spring.PackagedMetadata.fields;
import static dev.idem.spring.PackagedMetadata.objects;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The starter jar's {@code META-INF/spring-configuration-metadata.json} is of Spring Boot's configuration metadata
 * format: groups, properties and hints with the format's fields only, each property in its group, typed as its
 * grammar is, described in one sentence, with a default of its type; every hint attached to a property.
 */
class ConfigurationMetadataFormatIT {
    private static final Set<String> TOP_LEVEL = Set.of("groups", "properties", "hints");
    private static final Set<String> GROUP_FIELDS = Set.of("name", "type", "description", "sourceType",
            "sourceMethod");
    private static final Set<String> PROPERTY_FIELDS = Set.of("name", "type", "description", "sourceType",
            "defaultValue", "deprecation");
    private static final Set<String> HINT_FIELDS = Set.of("name", "values", "providers");
    private static final Set<String> VALUE_FIELDS = Set.of("value", "description");
    private static final Set<String> PROVIDER_FIELDS = Set.of("name", "parameters");
    /** Spring Boot's value providers, which a hint may name. */
    private static final Set<String> PROVIDERS = Set.of("any", "class-reference", "handle-as", "logger-name",
            "spring-bean-reference", "spring-profile-name");
    /** The types Idem's grammar has: text, durations, whole numbers, true or false. */
    private static final Set<String> TYPES = Set.of("java.lang.String", "java.time.Duration", "java.lang.Integer",
            "java.lang.Long", "java.lang.Boolean");

    private static PackagedMetadata metadata;
    private static JSONObject tree;

    @BeforeAll
    static void read() throws IOException, JSONException {
        metadata = PackagedMetadata.ofBuiltStarter();
        tree = metadata.tree();
    }

    @Test
    void theTopLevelHoldsGroupsPropertiesAndHints() throws JSONException {
        assertEquals(new TreeSet<>(TOP_LEVEL), fields(tree));
        for (String array : TOP_LEVEL) {
            assertFalse(objects(tree, array).isEmpty(), array + " is no array, or an empty one");
        }
    }

    @Test
    void everyEntryHasItsNameAndOnlyTheFieldsOfTheFormat() throws JSONException {
        checkFields("groups", objects(tree, "groups"), GROUP_FIELDS, "name");
        checkFields("properties", objects(tree, "properties"), PROPERTY_FIELDS, "name");
        checkFields("hints", objects(tree, "hints"), HINT_FIELDS, "name");
        for (JSONObject hint : objects(tree, "hints")) {
            String name = hint.getString("name");
            checkFields("hint " + name + "'s values", objects(hint, "values"), VALUE_FIELDS, "value");
            checkFields("hint " + name + "'s providers", objects(hint, "providers"), PROVIDER_FIELDS, "name");
            for (JSONObject provider : objects(hint, "providers")) {
                String provided = provider.getString("name");
                assertTrue(PROVIDERS.contains(provided), "hint " + name + " names no provider of Spring Boot's: "
                        + provided);
            }
        }
    }

    @Test
    void noNameIsListedTwice() throws JSONException {
        for (String array : TOP_LEVEL) {
            Set<String> seen = new HashSet<>();
            for (JSONObject entry : objects(tree, array)) {
                String name = entry.getString("name");
                assertTrue(seen.add(name), array + " lists " + name + " twice");
            }
        }
    }

    @Test
    void everyPropertyIsTypedAsItsGrammarIsAndDescribedInOneSentence() throws IOException {
        for (ConfigurationMetadataProperty property : metadata.repository().getAllProperties().values()) {
            String name = property.getId();
            assertTrue(name.startsWith("idem."), name + " is not an idem. key");
            assertTrue(TYPES.contains(property.getType()), name + " has type " + property.getType()
                    + ", not one of " + TYPES);
            String description = property.getDescription();
            assertTrue(description != null && !description.isBlank(), name + " has no description");
            assertTrue(Character.isUpperCase(description.charAt(0)) && description.endsWith("."),
                    name + "'s description is not a sentence: " + description);
            assertFalse(description.substring(0, description.length() - 1).matches(".*\\.\\s+[A-Z].*"),
                    name + "'s description is more than one sentence: " + description);
        }
    }

    @Test
    void everyDefaultIsAValueOfItsPropertysType() throws JSONException {
        for (JSONObject property : objects(tree, "properties")) {
            if (!property.has("defaultValue")) {
                continue;
            }
            Object value = property.get("defaultValue");
            String name = property.getString("name");
            String type = property.getString("type");
            String what = name + " = " + value + " (" + value.getClass().getSimpleName() + ")";
            switch (type) {
                case "java.lang.Boolean" -> assertTrue(value instanceof Boolean, what + " is no boolean");
                case "java.lang.Integer" -> assertTrue(value instanceof Integer, what + " is no int");
                case "java.lang.Long" -> assertTrue(value instanceof Integer || value instanceof Long,
                        what + " is no long");
                case "java.time.Duration" -> {
                    assertTrue(value instanceof String, what + " is no text");
                    DurationGrammar.parse((String) value);
                }
                default -> assertTrue(value instanceof String, what + " is no text");
            }
        }
    }

    @Test
    void everyPropertyIsInTheGroupOfItsLongestPrefix() throws IOException {
        ConfigurationMetadataRepository repository = metadata.repository();
        Map<String, ConfigurationMetadataGroup> groups = repository.getAllGroups();
        List<String> misplaced = new ArrayList<>();
        for (String name : repository.getAllProperties().keySet()) {
            String expected = null;
            for (String group : groups.keySet()) {
                boolean prefix = name.startsWith(group + ".");
                if (prefix && (expected == null || group.length() > expected.length())) {
                    expected = group;
                }
            }
            ConfigurationMetadataGroup group = expected == null ? null : groups.get(expected);
            if (group == null || !group.getProperties().containsKey(name)) {
                misplaced.add(name + " (expected in group " + expected + ")");
            }
        }
        assertEquals(List.of(), misplaced, "properties Spring Boot's reader puts in no group, or in another"
                + " (a group's type must be its properties' sourceType)");
        for (ConfigurationMetadataGroup group : groups.values()) {
            if (!group.getId().equals(ConfigurationMetadataRepository.ROOT_GROUP)) {
                assertFalse(group.getProperties().isEmpty(), "group " + group.getId() + " has no properties");
            }
        }
    }

    @Test
    void everyHintIsAttachedToAPropertyWithDescribedValues() throws IOException, JSONException {
        Set<String> properties = metadata.repository().getAllProperties().keySet();
        for (JSONObject hint : objects(tree, "hints")) {
            String name = hint.getString("name");
            assertTrue(properties.contains(name), "hint " + name + " names no property");
            ConfigurationMetadataProperty property = metadata.property(name);
            Set<Object> values = new TreeSet<>();
            for (ValueHint value : property.getHints().getValueHints()) {
                assertTrue(value.getDescription() != null && !value.getDescription().isBlank(),
                        name + "'s value " + value.getValue() + " has no description");
                assertTrue(values.add(value.getValue()), name + " offers " + value.getValue() + " twice");
            }
            assertEquals(objects(hint, "values").size(), values.size(), name + "'s values as Spring Boot reads them");
        }
    }

    private static void checkFields(String where, List<JSONObject> entries, Set<String> allowed, String required) {
        for (JSONObject entry : entries) {
            assertTrue(entry.has(required), where + ": " + entry + " has no " + required);
            Set<String> extra = fields(entry);
            extra.removeAll(allowed);
            assertEquals(Set.of(), extra, where + ": " + entry + " has fields the format does not know");
        }
    }
}

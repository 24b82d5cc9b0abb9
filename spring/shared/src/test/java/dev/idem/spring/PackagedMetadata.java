package dev.idem.spring;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.configurationmetadata.json.JSONArray;
import org.springframework.boot.configurationmetadata.json.JSONException;
import org.springframework.boot.configurationmetadata.json.JSONObject;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The configuration metadata inside the starter jar this build packaged (its path in the system property
 * {@value #JAR_PROPERTY}, which failsafe sets), read as Spring Boot's tools read it and as the JSON their reader
 * parses (the JSON classes of Spring Boot's {@code configurationmetadata} artifact, so no other JSON library's
 * versions have to agree with both Spring Boot generations').
 */
final class PackagedMetadata {
    static final String JAR_PROPERTY = "idem.starter.jar";
    static final String ENTRY = "META-INF/spring-configuration-metadata.json";

    private final byte[] json;

    private PackagedMetadata(byte[] json) {
        this.json = json;
    }

    /** {@return the metadata of the packaged starter} Fails when the jar or its entry is missing. */
    static PackagedMetadata ofBuiltStarter() throws IOException {
        String jar = System.getProperty(JAR_PROPERTY);
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new AssertionError("no starter jar at " + JAR_PROPERTY + " = " + jar
                    + " (run these tests with failsafe, after the package phase)");
        }
        try (JarFile file = new JarFile(jar)) {
            JarEntry entry = file.getJarEntry(ENTRY);
            if (entry == null) {
                throw new AssertionError(jar + " has no " + ENTRY);
            }
            try (InputStream in = file.getInputStream(entry)) {
                return new PackagedMetadata(in.readAllBytes());
            }
        }
    }

    /** {@return the metadata as Spring Boot's {@code configurationmetadata} reader builds it} */
    ConfigurationMetadataRepository repository() throws IOException {
        return ConfigurationMetadataRepositoryJsonBuilder.create(new ByteArrayInputStream(json)).build();
    }

    /** {@return the property called {@code name}, as Spring Boot's reader has it} */
    ConfigurationMetadataProperty property(String name) throws IOException {
        ConfigurationMetadataProperty property = repository().getAllProperties().get(name);
        if (property == null) {
            throw new AssertionError(ENTRY + " does not describe " + name);
        }
        return property;
    }

    /** {@return the metadata as a JSON object, every field as written} */
    JSONObject tree() throws JSONException {
        return new JSONObject(new String(json, StandardCharsets.UTF_8));
    }

    /** {@return the objects of {@code object}'s array {@code name}; none when it has no such array} */
    static List<JSONObject> objects(JSONObject object, String name) throws JSONException {
        List<JSONObject> objects = new ArrayList<>();
        JSONArray array = object.optJSONArray(name);
        for (int i = 0; array != null && i < array.length(); i++) {
            Object entry = array.get(i);
            if (!(entry instanceof JSONObject entryObject)) {
                throw new AssertionError(name + "[" + i + "] is not an object: " + entry);
            }
            objects.add(entryObject);
        }
        return objects;
    }

    /** {@return the names of {@code object}'s fields} */
    static Set<String> fields(JSONObject object) {
        Set<String> fields = new TreeSet<>();
        for (Iterator<?> names = object.keys(); names.hasNext(); ) {
            fields.add((String) names.next());
        }
        return fields;
    }
}

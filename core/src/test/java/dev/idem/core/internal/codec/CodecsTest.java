package dev.idem.core.internal.codec;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.ResultCodecProvider;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Type;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Which codec a name, or no name, stands for when several providers are on the class path. */
class CodecsTest {
    @Test
    void theHighestPriorityWinsANameAndTheDefault() throws IOException {
        Codecs codecs = new Codecs("", listing(LowJson.class, HighJson.class, MiddleYaml.class));
        assertInstanceOf(HighJson.class, codecs.resolve("json"));
        assertEquals("json", codecs.defaultName(), "the highest priority of all is the default");
        assertEquals("java, json, yaml", codecs.names());
    }

    @Test
    void ofEqualPrioritiesTheFirstFoundWins() throws IOException {
        Codecs codecs = new Codecs("", listing(HighJson.class, OtherHighJson.class));
        assertInstanceOf(HighJson.class, codecs.resolve("json"));
        Codecs reversed = new Codecs("", listing(OtherHighJson.class, HighJson.class));
        assertInstanceOf(OtherHighJson.class, reversed.resolve("json"));
    }

    @Test
    void withoutOtherCodecsTheJavaCodecIsTheDefaultAndAConfiguredOneWins() throws IOException {
        assertEquals("java", new Codecs("", listing()).defaultName());
        assertEquals("yaml", new Codecs("yaml", listing(HighJson.class, MiddleYaml.class)).defaultName());
    }

    @Test
    void aRegisteredCodecWinsItsNameOverAHigherPriorityOneOnTheClassPath() throws IOException {
        LowJson registered = new LowJson();
        Codecs codecs = new Codecs("", listing(HighJson.class), java.util.List.of(registered));
        assertSame(registered, codecs.resolve("json"));
        assertEquals("json", codecs.defaultName(), "the default is still decided by priority");
        Codecs unregistered = new Codecs("", listing(HighJson.class), java.util.List.of());
        assertInstanceOf(HighJson.class, unregistered.resolve("json"));
    }

    @Test
    void aCodecWithAnUnusableNameIsRefusedNamingIt() throws IOException {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new Codecs("", listing(UpperCaseName.class)));
        assertEquals("result codec " + UpperCaseName.class.getName() + " has name \"Json\" and format version 1; a"
                + " name is 1-16 of [a-z0-9-] and a version 1-255", e.getMessage());
    }

    /** A class loader that lists {@code providers} as codec providers. */
    private static ClassLoader listing(Class<?>... providers) throws IOException {
        Path dir = Files.createTempDirectory("codec-providers");
        Path services = dir.resolve("META-INF/services/" + ResultCodecProvider.class.getName());
        Files.createDirectories(services.getParent());
        StringBuilder lines = new StringBuilder();
        for (Class<?> provider : providers) {
            lines.append(provider.getName()).append('\n');
        }
        Files.writeString(services, lines);
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, CodecsTest.class.getClassLoader());
    }

    /** A provider that makes no codec: these tests only choose providers. */
    abstract static class Named implements ResultCodecProvider {
        private final String name;
        private final int priority;

        Named(String name, int priority) {
            this.name = name;
            this.priority = priority;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int formatVersion() {
            return 1;
        }

        @Override
        public int priority() {
            return priority;
        }

        @Override
        public ResultCodec forType(Type type, ClassLoader loader) {
            throw new UnsupportedOperationException();
        }
    }

    public static final class LowJson extends Named {
        public LowJson() {
            super("json", 1);
        }
    }

    public static final class HighJson extends Named {
        public HighJson() {
            super("json", 10);
        }
    }

    public static final class OtherHighJson extends Named {
        public OtherHighJson() {
            super("json", 10);
        }
    }

    public static final class MiddleYaml extends Named {
        public MiddleYaml() {
            super("yaml", 5);
        }
    }

    public static final class UpperCaseName extends Named {
        public UpperCaseName() {
            super("Json", 1);
        }
    }
}

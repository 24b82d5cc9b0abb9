package dev.idem.codec.jackson;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.idem.codec.UnsupportedResultTypeException;
import dev.idem.codec.jackson.Codecs.TypeOf;
import dev.idem.codec.jackson.Model.Topic;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whether a result type can be stored is decided by forType, before the method ever runs, through the whole
 * declared type; a refusal names the part at fault and the fix.
 */
class PlanTimeCheckTest {
    interface Shape {
    }

    abstract static class Animal {
        public String name;
    }

    record Drawing(String title, List<Shape> shapes) {
    }

    record Zoo(Map<String, Animal> animals) {
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
    record Tagged(String value) {
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
    @JsonSubTypes({@JsonSubTypes.Type(value = Circle.class, name = "circle")})
    interface Figure {
    }

    record Circle(double radius) implements Figure {
    }

    record PolymorphicProperty(@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) Object payload) {
    }

    record PolymorphicElements(@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) List<Object> payloads) {
    }

    record WithClass(String name, Class<?> kind) {
    }

    /** Two constructors with parameters and no annotation: Jackson cannot choose. */
    static final class NoCreator {
        private final String a;

        NoCreator(String a, int b) {
            this.a = a + b;
        }

        NoCreator(int b, String a) {
            this.a = a + b;
        }

        public String getA() {
            return a;
        }
    }

    /** State Jackson cannot see: no accessor, private field. */
    static final class Hidden {
        @SuppressWarnings("unused")
        private String secret = "s";
    }

    /** A getter for a final field that nothing sets back. */
    static final class WriteOnly {
        private final String code;
        private String label;

        WriteOnly() {
            this.code = "fixed";
        }

        public String getCode() {
            return code;
        }

        public String getLabel() {
            return label;
        }

        public void setLabel(String label) {
            this.label = label;
        }
    }

    /** A derived getter, with no field of its name: written, ignored on reading, computed again. */
    static final class Derived {
        private int count;

        public int getCount() {
            return count;
        }

        public void setCount(int count) {
            this.count = count;
        }

        public boolean isEmpty() {
            return count == 0;
        }
    }

    record Ignored(String name, @JsonIgnore String secret) {
    }

    record TopicKeys(Map<Topic, String> byTopic) {
    }

    record Untyped(Object payload, Map<String, Object> attributes, List<?> items, Serializable extra) {
    }

    record Node(String name, List<Node> children) {
    }

    interface Repository<T> {
        T find();

        <R extends Topic> R findTopic();

        List<T> all();

        <R> Optional<R> maybe();
    }

    private static UnsupportedResultTypeException refused(Type type) {
        return assertThrows(UnsupportedResultTypeException.class,
                () -> new JsonResultCodecProvider().forType(type, PlanTimeCheckTest.class.getClassLoader()));
    }

    private static void assertMentions(Exception e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), () -> "\"" + part + "\" not in: " + e.getMessage());
        }
    }

    @Test
    void anInterfaceWithoutImplementationIsRefused() {
        assertMentions(refused(Shape.class), "json cannot store results of type", "Shape", "an interface",
                "Declare a concrete class or a record");
        assertMentions(refused(new TypeOf<List<Shape>>() {}.type), "the result element", "Shape", "an interface");
        assertMentions(refused(Drawing.class), "Drawing.shapes element", "Shape");
        assertMentions(refused(Zoo.class), "Zoo.animals value", "Animal", "an abstract class");
    }

    @Test
    void aClassWithoutUsableCreatorIsRefused() {
        assertMentions(refused(NoCreator.class), NoCreator.class.getName(), "no creator Jackson can use",
                "Make it a record, give it a no-argument constructor");
        assertMentions(refused(new TypeOf<Map<String, List<NoCreator>>>() {}.type), "no creator");
    }

    @Test
    void polymorphicTypesAreRefused() {
        assertMentions(refused(Tagged.class), "polymorphic (@JsonTypeInfo", "@Idempotent(codec = \"java\")");
        // Also a concrete record whose interface is annotated: Jackson would write and expect a type id.
        assertMentions(refused(Circle.class), "polymorphic");
        assertMentions(refused(Figure.class), "polymorphic");
        assertMentions(refused(new TypeOf<List<Figure>>() {}.type), "the result element", "polymorphic");
        assertMentions(refused(PolymorphicProperty.class), "PolymorphicProperty.payload", "polymorphic");
        assertMentions(refused(PolymorphicElements.class), "PolymorphicElements.payloads", "polymorphic");
    }

    @Test
    void classValuesAreRefused() {
        assertMentions(refused(WithClass.class), "WithClass.kind", "loads the class the stored bytes name",
                "Store the class's name as a String");
        assertMentions(refused(new TypeOf<List<Class<?>>>() {}.type), "Class");
    }

    @Test
    void stateJacksonCannotWriteAndReadBackIsRefused() {
        assertMentions(refused(Hidden.class), "Hidden", "no property", "[secret]");
        assertMentions(refused(WriteOnly.class), "WriteOnly.code", "written but nothing reads it back");
        assertMentions(refused(Ignored.class), "Ignored.secret", "never writes");
        assertDoesNotThrow(() -> Codecs.codec(Derived.class));
    }

    @Test
    void mapKeysMustReadBack() {
        // Jackson itself finds no key deserializer for Topic while it builds TopicKeys's.
        assertMentions(refused(TopicKeys.class), "Key deserializer", "Topic", "Use String, a number, an enum");
        assertMentions(refused(new TypeOf<Map<Topic, String>>() {}.type), "the result key", "Topic",
                "JSON object keys are strings");
        assertMentions(refused(new TypeOf<Map<AtomicInteger, String>>() {}.type), "the result key");
    }

    @Test
    void typeVariablesWithoutBoundAreRefusedAndBoundsAccepted() throws Exception {
        assertMentions(refused(Repository.class.getMethod("find").getGenericReturnType()), "T is a type variable");
        assertMentions(refused(Repository.class.getMethod("all").getGenericReturnType()), "T is a type variable");
        assertMentions(refused(Repository.class.getMethod("maybe").getGenericReturnType()), "R is a type variable");
        Type bounded = Repository.class.getMethod("findTopic").getGenericReturnType();
        Topic topic = new Topic("t", List.of());
        assertEquals(topic, Codecs.roundTrip(Codecs.codec(bounded), topic));
    }

    @Test
    void objectPartsAndRecursiveTypesAreAccepted() throws Exception {
        assertDoesNotThrow(() -> Codecs.codec(Untyped.class));
        assertDoesNotThrow(() -> Codecs.codec(Object.class));
        Node tree = new Node("root", List.of(new Node("leaf", List.of())));
        assertEquals(tree, Codecs.roundTrip(Codecs.codec(Node.class), tree));
    }

    @Test
    void theCheckDoesNotRunTheType() {
        // Planning builds serializers and deserializers; it constructs no instance of the result type.
        int before = Counted.CONSTRUCTED.get();
        Codecs.codec(Counted.class);
        assertEquals(before, Counted.CONSTRUCTED.get());
    }

    static final class Counted {
        static final AtomicInteger CONSTRUCTED = new AtomicInteger();
        public String value;

        Counted() {
            CONSTRUCTED.incrementAndGet();
        }
    }
}

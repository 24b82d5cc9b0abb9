package dev.idem.core.internal.key;

import dev.idem.Normalize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 2, parameter selection: {@code @IdempotencyKey("customer.id")} keys by a value inside the
 * argument, read through a record component, a getter, a field or a map entry; and the normalisations of
 * {@code @IdempotencyKey(normalize = ...)}.
 */
class PropertyPathTest {

    record Customer(String id, Address address) {
    }

    record Address(String city) {
    }

    public static class Bean {
        private final String hidden = "from the field";
        private final boolean vip;
        private final String name;
        private final Map<String, String> meta = new TreeMap<>(Map.of("site", "eu"));

        Bean(String name, boolean vip) {
            this.name = name;
            this.vip = vip;
        }

        public String getName() {
            return "getter:" + name;
        }

        public boolean isVip() {
            return vip;
        }

        public String plain() {
            return "accessor:" + name;
        }

        public static String getStatic() {
            return "static";
        }

        public void getNothing() {
        }

        public String getBroken() {
            throw new IllegalStateException("broken getter");
        }
    }

    public static class Child extends Bean {
        private static final String CONSTANT = "static field";

        Child() {
            super("child", false);
        }
    }

    @Test
    void anEmptyPathIsTheWholeArgument() {
        PropertyPath whole = PropertyPath.resolve(Customer.class, "");
        assertSame(PropertyPath.WHOLE, whole);
        assertTrue(whole.isWhole());
        assertNull(whole.resultType());
        assertEquals("", whole.text());
    }

    @Test
    void recordComponentsAreReadThroughTheirAccessors() {
        PropertyPath city = PropertyPath.resolve(Customer.class, "address.city");
        assertFalse(city.isWhole());
        assertEquals("address.city", city.text());
        assertEquals(String.class, city.resultType());
        assertEquals("Tokyo", city.read(new Customer("c-1", new Address("Tokyo"))));
        assertEquals(Address.class, PropertyPath.resolve(Customer.class, "address").resultType());
    }

    @Test
    void gettersComeBeforeFieldsAndIsGettersAndPlainAccessorsAreFound() {
        Bean bean = new Bean("ada", true);
        assertEquals("getter:ada", PropertyPath.resolve(Bean.class, "name").read(bean), "getName() over the field");
        assertEquals(true, PropertyPath.resolve(Bean.class, "vip").read(bean));
        assertEquals(boolean.class, PropertyPath.resolve(Bean.class, "vip").resultType());
        assertEquals("accessor:ada", PropertyPath.resolve(Bean.class, "plain").read(bean));
        assertEquals("from the field", PropertyPath.resolve(Bean.class, "hidden").read(bean));
    }

    @Test
    void fieldsAreFoundInSuperclassesButStaticMembersAndVoidMethodsAreNotProperties() {
        assertEquals("from the field", PropertyPath.resolve(Child.class, "hidden").read(new Child()));
        assertEquals("getter:child", PropertyPath.resolve(Child.class, "name").read(new Child()));
        assertThrows(IllegalArgumentException.class, () -> PropertyPath.resolve(Child.class, "CONSTANT"));
        assertThrows(IllegalArgumentException.class, () -> PropertyPath.resolve(Bean.class, "static"));
        assertThrows(IllegalArgumentException.class, () -> PropertyPath.resolve(Bean.class, "nothing"));
    }

    @Test
    void aMapIsReadByKeyAndAMissingKeyIsNull() {
        PropertyPath site = PropertyPath.resolve(Bean.class, "meta.site");
        assertEquals(Object.class, site.resultType());
        assertEquals("eu", site.read(new Bean("ada", false)));
        assertNull(PropertyPath.resolve(Bean.class, "meta.nope").read(new Bean("ada", false)));
    }

    @Test
    void aNullAlongThePathReadsAsNull() {
        PropertyPath city = PropertyPath.resolve(Customer.class, "address.city");
        assertNull(city.read(new Customer("c-1", null)));
        assertNull(city.read(null));
    }

    @Test
    void aGetterThatThrowsIsAnEncodingErrorNamingTheProperty() {
        UnencodableValueException e = assertThrows(UnencodableValueException.class,
                () -> PropertyPath.resolve(Bean.class, "broken").read(new Bean("ada", false)));
        assertTrue(e.getMessage().startsWith("reading property \"broken\" threw"), e.getMessage());
        assertTrue(e.getMessage().contains("broken getter"), e.getMessage());
    }

    @Test
    void anUnknownPropertyIsRefusedNamingTheTypeTheSegmentAndThePath() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PropertyPath.resolve(Customer.class, "address.zip"));
        assertEquals("type " + Address.class.getName() + " has no property \"zip\" (of path \"address.zip\"):"
                + " expected a record component, a getter getZip()/zip(), or a field", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {".", "address.", ".address", "address..city"})
    void anEmptySegmentIsRefused(String path) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PropertyPath.resolve(Customer.class, path));
        assertEquals("property path \"" + path + "\" has an empty segment", e.getMessage());
    }

    @Test
    void aKeySourceReadsItsParameterOrThePathInsideIt() {
        KeySource whole = new KeySource(1, "customer", PropertyPath.WHOLE, new Normalize[0]);
        Customer customer = new Customer("c-1", new Address("Tokyo"));
        assertSame(customer, whole.valueIn(new Object[] {"other", customer}));
        assertEquals("'customer'", whole.describe());

        KeySource city = new KeySource(1, "customer", PropertyPath.resolve(Customer.class, "address.city"),
                new Normalize[0]);
        assertEquals("Tokyo", city.valueIn(new Object[] {"other", customer}));
        assertEquals("'customer.address.city'", city.describe());
    }

    @Test
    void normalisationAppliesToTextOnlyAndInTheGivenOrder() {
        KeySource trimThenCollapse = new KeySource(0, "p", PropertyPath.WHOLE,
                new Normalize[] {Normalize.TRIM, Normalize.COLLAPSE_WHITESPACE});
        assertEquals("a b", trimThenCollapse.valueIn(new Object[] {"\t a \n\n b  "}));
        KeySource collapseThenTrim = new KeySource(0, "p", PropertyPath.WHOLE,
                new Normalize[] {Normalize.COLLAPSE_WHITESPACE});
        assertEquals(" a b ", collapseThenTrim.valueIn(new Object[] {"\t a \n\n b  "}), "collapse alone keeps ends");
        KeySource lower = new KeySource(0, "p", PropertyPath.WHOLE, new Normalize[] {Normalize.LOWER_CASE});
        assertEquals("istanbul", lower.valueIn(new Object[] {"ISTANBUL"}), "Locale.ROOT: no dotless i");
        assertEquals("mixed case", lower.valueIn(new Object[] {new StringBuilder("MiXeD CaSe")}), "any CharSequence");
        assertEquals(42, lower.valueIn(new Object[] {42}), "a number is not text and stays as it is");
        assertNull(lower.valueIn(new Object[] {null}));
        KeySource trim = new KeySource(0, "p", PropertyPath.WHOLE, new Normalize[] {Normalize.TRIM});
        assertEquals("a\u2003b", trim.valueIn(new Object[] {"\u2003 a\u2003b \u2003"}), "strip: Unicode spaces too");
    }

    @Test
    void twoSourcesAreTheSameOnlyForOneParameterPathAndNormalisation() {
        PropertyPath city = PropertyPath.resolve(Customer.class, "address.city");
        KeySource a = new KeySource(0, "c", city, new Normalize[] {Normalize.TRIM});
        assertTrue(a.sameAs(new KeySource(0, "other name", city, new Normalize[] {Normalize.TRIM})));
        assertFalse(a.sameAs(new KeySource(1, "c", city, new Normalize[] {Normalize.TRIM})));
        assertFalse(a.sameAs(new KeySource(0, "c", PropertyPath.WHOLE, new Normalize[] {Normalize.TRIM})));
        assertFalse(a.sameAs(new KeySource(0, "c", city, new Normalize[0])));
    }
}

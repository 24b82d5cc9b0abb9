package dev.idem.codec.jackson;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.jackson.Codecs.TypeOf;
import dev.idem.codec.jackson.Model.Envelope;
import dev.idem.codec.jackson.Model.Invoice;
import dev.idem.codec.jackson.Model.Topic;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.idem.codec.jackson.Codecs.codec;
import static dev.idem.codec.jackson.Codecs.roundTrip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Encoding refuses what decoding would not give back: a subclass the declared type does not show, a cycle. */
class EncodeTest {
    /** A subclass with state of its own, which a replay declared as Invoice would lose. */
    static final class DiscountedInvoice extends Invoice {
        private int percent;

        public int getPercent() {
            return percent;
        }

        public void setPercent(int percent) {
            this.percent = percent;
        }
    }

    record Billing(String account, Invoice invoice) {
    }

    /** A plain class that can refer to itself. */
    static final class Link {
        public String name;
        public Link next;
    }

    /** Annotations meant for an API's output do not make the stored form incomplete. */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    record Sparse(String name, String note, List<String> tags) {
    }

    @com.fasterxml.jackson.annotation.JsonFilter("public-view")
    static final class Filtered {
        public String name;
        public String internal;

        @Override
        public boolean equals(Object o) {
            return o instanceof Filtered f && java.util.Objects.equals(f.name, name)
                    && java.util.Objects.equals(f.internal, internal);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(name, internal);
        }
    }

    @Test
    void everyPropertyIsStoredWhateverTheApiAnnotationsSay() throws Exception {
        Sparse sparse = new Sparse("n", null, null);
        assertEquals("{\"name\":\"n\",\"note\":null,\"tags\":null}", Codecs.json(codec(Sparse.class), sparse));
        assertEquals(sparse, roundTrip(codec(Sparse.class), sparse));
        Filtered filtered = new Filtered();
        filtered.name = "n";
        filtered.internal = "i";
        assertEquals(filtered, roundTrip(codec(Filtered.class), filtered));
    }

    private static Invoice invoice(Invoice invoice) {
        invoice.setNumber("INV-7");
        return invoice;
    }

    private static void assertRefusedAsSubclass(ResultCodec codec, Object value) {
        JacksonException e = assertThrows(JacksonException.class, () -> codec.encode(value));
        assertTrue(e.getMessage().contains("where the declared type shows " + Invoice.class.getName()), e::getMessage);
        assertTrue(e.getMessage().contains("make Invoice final (or a record)"), e::getMessage);
    }

    @Test
    void aSubclassOfTheDeclaredClassIsRefused() throws Exception {
        Invoice discounted = invoice(new DiscountedInvoice());
        assertRefusedAsSubclass(codec(Invoice.class), discounted);
        assertRefusedAsSubclass(codec(new TypeOf<List<Invoice>>() {}), List.of(invoice(new Invoice()), discounted));
        assertRefusedAsSubclass(codec(new TypeOf<Map<String, Invoice>>() {}), Map.of("k", discounted));
        assertRefusedAsSubclass(codec(Billing.class), new Billing("acc", discounted));
        assertRefusedAsSubclass(codec(Invoice[].class), new Invoice[] {discounted});
        assertRefusedAsSubclass(codec(Invoice.class), invoice(new Invoice() {
        }));

        // The declared class itself, and the subclass where it is declared, are stored.
        assertEquals(invoice(new Invoice()), roundTrip(codec(Invoice.class), invoice(new Invoice())));
        DiscountedInvoice replay = (DiscountedInvoice) roundTrip(codec(DiscountedInvoice.class), discounted);
        assertEquals(discounted, replay);
    }

    @Test
    void anObjectPartTakesAnyValueAsData() throws Exception {
        Envelope replay = (Envelope) roundTrip(codec(Envelope.class), new Envelope("k", invoice(new DiscountedInvoice())));
        assertInstanceOf(Map.class, replay.payload());
        assertEquals("INV-7", ((Map<?, ?>) replay.payload()).get("number"));
        assertEquals(0, ((Map<?, ?>) replay.payload()).get("percent"));
    }

    @Test
    void cyclesFailInsteadOfOverflowingTheStack() {
        Link a = new Link();
        Link b = new Link();
        a.next = b;
        b.next = a;
        assertThrows(JacksonException.class, () -> codec(Link.class).encode(a));
        Link self = new Link();
        self.next = self;
        assertThrows(JacksonException.class, () -> codec(Link.class).encode(self));
    }

    @Test
    void whatIsTooDeepToReadBackIsNotWritten() throws Exception {
        ResultCodec codec = codec(Object.class);
        assertThrows(JacksonException.class, () -> codec.encode(nested(StoredJsonMapper.MAX_NESTING_DEPTH + 1)));
        Object deepest = nested(StoredJsonMapper.MAX_NESTING_DEPTH);
        assertEquals(deepest, roundTrip(codec, deepest));
    }

    private static Object nested(int depth) {
        List<Object> root = new ArrayList<>();
        List<Object> at = root;
        for (int i = 1; i < depth; i++) {
            List<Object> inner = new ArrayList<>();
            at.add(inner);
            at = inner;
        }
        return root;
    }

    @Test
    void aValueOfAnotherTypeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> codec(Topic.class).encode("not a topic"));
    }
}

package dev.idem.codec.jackson;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.UnsupportedResultTypeException;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

import java.util.List;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link JsonResultCodecProvider#withModules}: an application's module makes its own types storable, and the codec's
 * settings stay its own.
 */
class ApplicationModulesTest {

    /** A type Jackson cannot build by itself: no creator, no setters. */
    static final class Money {
        private final long cents;
        private final String currency;

        Money(long cents, String currency) {
            this.cents = cents;
            this.currency = currency;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Money m && m.cents == cents && m.currency.equals(currency);
        }

        @Override
        public int hashCode() {
            return Objects.hash(cents, currency);
        }

        @Override
        public String toString() {
            return cents + " " + currency;
        }
    }

    /** An invoice holding money: the codec's own settings order its properties. */
    public record Invoice(String number, Money total) {
    }

    /** The application's module: money as {@code "1250 EUR"}. */
    private static SimpleModule moneyModule() {
        return new SimpleModule("money")
                .addSerializer(Money.class, new ValueSerializer<>() {
                    @Override
                    public void serialize(Money value, JsonGenerator out, SerializationContext context) {
                        out.writeString(value.cents + " " + value.currency);
                    }
                })
                .addDeserializer(Money.class, new ValueDeserializer<>() {
                    @Override
                    public Money deserialize(JsonParser in, DeserializationContext context) {
                        String[] parts = in.getString().split(" ");
                        return new Money(Long.parseLong(parts[0]), parts[1]);
                    }
                });
    }

    @Test
    void withoutTheApplicationsModuleATypeJacksonCannotBuildIsRefusedAtPlanning() {
        UnsupportedResultTypeException refused = assertThrows(UnsupportedResultTypeException.class,
                () -> new JsonResultCodecProvider().forType(Invoice.class, getClass().getClassLoader()));
        assertTrue(refused.getMessage().contains("Money"), refused.getMessage());
    }

    @Test
    void theApplicationsModuleMakesItStorableAndTheCodecKeepsItsOwnSettings() throws Exception {
        ResultCodec codec = JsonResultCodecProvider.withModules(List.of(moneyModule()))
                .forType(Invoice.class, getClass().getClassLoader());
        Invoice invoice = new Invoice("inv-7", new Money(1250, "EUR"));

        assertEquals(invoice, Codecs.roundTrip(codec, invoice));
        assertEquals("{\"number\":\"inv-7\",\"total\":\"1250 EUR\"}", Codecs.json(codec, invoice),
                "the module's form for money, the codec's order for the record");
    }
}

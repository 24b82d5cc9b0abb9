package dev.idem.codec.jackson;

import com.fasterxml.jackson.annotation.JsonFormat;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.jsontype.TypeSerializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.module.SimpleSerializers;
import tools.jackson.databind.ser.std.StdSerializer;

import java.io.Serializable;

/**
 * Writes a part declared {@code Object} (or {@code Serializable}) as what it holds. With static typing on (see
 * {@link StoredJsonMapper}) Jackson would write such a part with the serializer of its declared type, which for
 * {@code Object} shows no property at all: a map in a record component declared {@code Object} would be stored as
 * {@code {}}. These are the parts that decode to JSON's natural types, so they are written by their runtime class.
 */
final class UntypedParts {
    private UntypedParts() {
    }

    static JacksonModule module() {
        SimpleSerializers serializers = new SimpleSerializers() {
            private static final long serialVersionUID = 1L;

            @Override
            public ValueSerializer<?> findSerializer(SerializationConfig config, JavaType type,
                                                     BeanDescription.Supplier beanDesc, JsonFormat.Value format) {
                Class<?> raw = type.getRawClass();
                return raw == Object.class || raw == Serializable.class ? ByRuntimeClass.INSTANCE : null;
            }
        };
        return new SimpleModule("idem-untyped-parts").setSerializers(serializers);
    }

    private static final class ByRuntimeClass extends StdSerializer<Object> {
        static final ByRuntimeClass INSTANCE = new ByRuntimeClass();

        private ByRuntimeClass() {
            super(Object.class);
        }

        @Override
        public void serialize(Object value, JsonGenerator gen, SerializationContext ctxt) {
            if (value.getClass() == Object.class) {
                gen.writeStartObject(value);
                gen.writeEndObject();
            } else {
                ctxt.writeValue(gen, value);
            }
        }

        @Override
        public void serializeWithType(Object value, JsonGenerator gen, SerializationContext ctxt,
                                      TypeSerializer typeSer) {
            // Type ids are never written (see StoredJsonMapper); a type serializer here is a configuration error.
            throw new IllegalStateException("type ids are not written by the json codec");
        }
    }
}

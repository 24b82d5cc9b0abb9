package dev.idem.codec.jackson;

import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.BeanSerializerBuilder;
import tools.jackson.databind.ser.FilterProvider;
import tools.jackson.databind.ser.PropertyFilter;
import tools.jackson.databind.ser.ValueSerializerModifier;
import tools.jackson.databind.ser.std.SimpleBeanPropertyFilter;

import java.lang.reflect.Modifier;

/**
 * Refuses to encode an instance of a subclass where the declared type shows a non-final class: a {@code SpecialTopic}
 * returned from a method declared to return {@code Topic} (or in a {@code List<Topic>}, or in a record component of
 * type {@code Topic}). Decoding builds what the declared type shows, so its replay would be a plain {@code Topic}
 * without the subclass's state: not what the method returned. Encoding fails instead, which the engine reports as a
 * result it could not store.
 *
 * <p>How: with static typing on (see {@link StoredJsonMapper}), Jackson writes a value with the serializer of the
 * type declared where it stands. Every serializer of a non-final bean class gets a filter id naming that class, and
 * the filter, which Jackson looks up with the value in hand before writing its properties, checks that the value's
 * class is exactly it. Records, enums and other final classes cannot have subclasses and are not filtered.
 */
final class SubtypeGuard {
    private SubtypeGuard() {
    }

    /** The filter id of a non-final bean class's serializer; {@code ownId} is the class's own {@code @JsonFilter}. */
    private record Declared(Class<?> type, Object ownId) {
    }

    static JacksonModule module() {
        return new SimpleModule("idem-subtype-guard").setSerializerModifier(new ValueSerializerModifier() {
            private static final long serialVersionUID = 1L;

            @Override
            public BeanSerializerBuilder updateBuilder(SerializationConfig config, BeanDescription.Supplier beanDesc,
                                                       BeanSerializerBuilder builder) {
                Class<?> type = beanDesc.getBeanClass();
                if (!Modifier.isFinal(type.getModifiers())) {
                    builder.setFilterId(new Declared(type, builder.getFilterId()));
                }
                return builder;
            }
        });
    }

    static FilterProvider filters() {
        return new Filters();
    }

    private static final class Filters extends FilterProvider {
        /**
         * Every property is written: a class's own {@code @JsonFilter} is meant for its API output, and the stored
         * form must be complete.
         */
        private static final PropertyFilter ALL = SimpleBeanPropertyFilter.serializeAll();

        @Override
        public PropertyFilter findPropertyFilter(SerializationContext ctxt, Object filterId, Object valueToFilter) {
            if (filterId instanceof Declared declared && valueToFilter != null
                    && valueToFilter.getClass() != declared.type()) {
                throw DatabindException.from(ctxt, "an instance of " + valueToFilter.getClass().getName()
                        + " where the declared type shows " + declared.type().getName() + ": a replay would be a "
                        + declared.type().getSimpleName() + " without the subclass's state. Declare "
                        + valueToFilter.getClass().getSimpleName() + " in the method's result type, or make "
                        + declared.type().getSimpleName() + " final (or a record)");
            }
            return ALL;
        }

        @Override
        public FilterProvider snapshot() {
            return this;
        }
    }
}

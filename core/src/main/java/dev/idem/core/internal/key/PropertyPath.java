package dev.idem.core.internal.key;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A property path such as {@code customer.id}, resolved once against the declared type into a chain of accessors:
 * a record component, a getter ({@code getId()}, {@code isId()}, {@code id()}), a field, or a map entry.
 */
public final class PropertyPath {
    public static final PropertyPath WHOLE = new PropertyPath("", new Step[0], null);

    private final String text;
    private final Step[] steps;
    private final Class<?> resultType;

    private PropertyPath(String text, Step[] steps, Class<?> resultType) {
        this.text = text;
        this.steps = steps;
        this.resultType = resultType;
    }

    /**
     * Resolves {@code path} against {@code root}.
     *
     * @throws IllegalArgumentException naming the segment and type that has no such property
     */
    public static PropertyPath resolve(Class<?> root, String path) {
        if (path.isEmpty()) {
            return WHOLE;
        }
        List<Step> steps = new ArrayList<>();
        Class<?> type = root;
        for (String segment : path.split("\\.", -1)) {
            if (segment.isEmpty()) {
                throw new IllegalArgumentException("property path \"" + path + "\" has an empty segment");
            }
            Step step = stepFor(type, segment);
            if (step == null) {
                throw new IllegalArgumentException("type " + type.getName() + " has no property \"" + segment
                        + "\" (of path \"" + path + "\"): expected a record component, a getter get"
                        + capitalise(segment) + "()/" + segment + "(), or a field");
            }
            steps.add(step);
            type = step.type;
        }
        return new PropertyPath(path, steps.toArray(new Step[0]), type);
    }

    public boolean isWhole() {
        return steps.length == 0;
    }

    String text() {
        return text;
    }

    /** The declared type at the end of the path, or null for the whole argument. */
    public Class<?> resultType() {
        return resultType;
    }

    Object read(Object root) {
        Object value = root;
        for (Step step : steps) {
            if (value == null) {
                return null; // a null along the path encodes as null, like a null argument
            }
            value = step.read(value);
        }
        return value;
    }

    private static Step stepFor(Class<?> type, String segment) {
        if (Map.class.isAssignableFrom(type)) {
            return new Step(segment, Object.class, null);
        }
        if (type.isRecord()) {
            for (RecordComponent component : type.getRecordComponents()) {
                if (component.getName().equals(segment)) {
                    return accessible(new Step(segment, component.getType(), component.getAccessor()));
                }
            }
        }
        for (String name : new String[] {"get" + capitalise(segment), "is" + capitalise(segment), segment}) {
            try {
                Method getter = type.getMethod(name);
                if (getter.getReturnType() != void.class && !Modifier.isStatic(getter.getModifiers())) {
                    return accessible(new Step(segment, getter.getReturnType(), getter));
                }
            } catch (NoSuchMethodException ignored) {
                // try the next form
            }
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field field = c.getDeclaredField(segment);
                if (!Modifier.isStatic(field.getModifiers())) {
                    return accessible(new Step(segment, field.getType(), field));
                }
            } catch (NoSuchFieldException ignored) {
                // look in the superclass
            }
        }
        return null;
    }

    private static Step accessible(Step step) {
        if (step.member instanceof AccessibleObject) {
            ((AccessibleObject) step.member).trySetAccessible();
        }
        return step;
    }

    private static String capitalise(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static final class Step {
        final String name;
        final Class<?> type;
        final Member member; // null: a map lookup

        Step(String name, Class<?> type, Member member) {
            this.name = name;
            this.type = type;
            this.member = member;
        }

        Object read(Object owner) {
            try {
                if (member == null) {
                    return ((Map<?, ?>) owner).get(name);
                }
                if (member instanceof Method) {
                    return ((Method) member).invoke(owner);
                }
                return ((Field) member).get(owner);
            } catch (InvocationTargetException e) {
                throw new UnencodableValueException("reading property \"" + name + "\" threw "
                        + e.getCause());
            } catch (IllegalAccessException e) {
                throw new UnencodableValueException("cannot read property \"" + name + "\": " + e.getMessage());
            }
        }
    }
}

package dev.idem.core.internal.plan;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.Normalize;
import dev.idem.codec.ResultCodecProvider;
import dev.idem.codec.UnsupportedResultTypeException;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.internal.codec.Codecs;
import dev.idem.core.internal.codec.DeclaredTypes;
import dev.idem.core.internal.codec.FailureCodec;
import dev.idem.core.internal.codec.StoredResults;
import dev.idem.core.internal.key.Canonicalizers;
import dev.idem.core.internal.key.KeySource;
import dev.idem.core.internal.key.PropertyPath;
import dev.idem.core.internal.key.ScopeTemplate;
import dev.idem.core.internal.key.ValueKind;
import dev.idem.store.IdempotencyStore;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

/**
 * Turns an annotated method (or a programmatic operation) into an {@link OperationPlan}, checking everything that
 * can be checked before the first call: attributes, key names and paths, parameter types, the return type, the
 * store. Each refusal is an {@link IdempotencyConfigurationException} naming the method and what to change.
 */
public final class OperationPlanner {
    private final StoreRegistry stores;
    private final String namespace;
    private final Canonicalizers canonicalizers;
    private final Codecs codecs;
    /**
     * Scope (or scope template) to the operation that uses it and its stored type, to catch collisions. Held by
     * names and a weak reference only, so a class loader that is discarded is not kept alive from here.
     */
    private final ConcurrentMap<String, ScopeOwner> scopes = new ConcurrentHashMap<>();
    private final LongConsumer replacedPlans;

    /**
     * Who uses a scope.
     *
     * @param declaring the class declaring the method, or null for a programmatic operation
     */
    private record ScopeOwner(String operation, String storedType, WeakReference<Class<?>> declaring, long planId,
                              int maxConcurrent) {

        /** Whether {@code other} is this operation's class loaded again (a reload), not another method. */
        boolean isReloadedBy(String otherOperation, Class<?> otherDeclaring) {
            if (declaring == null || otherDeclaring == null || !operation.equals(otherOperation)) {
                return false;
            }
            return declaring.get() != otherDeclaring;
        }
    }

    /**
     * @param replacedPlans told the id of a plan whose operation was planned anew from a reloaded class, so what
     *                      the engine keeps for it can go
     */
    public OperationPlanner(StoreRegistry stores, Codecs codecs, String namespace, Canonicalizers canonicalizers,
                     LongConsumer replacedPlans) {
        this.stores = stores;
        this.codecs = codecs;
        this.namespace = namespace;
        this.canonicalizers = canonicalizers;
        this.replacedPlans = replacedPlans;
    }

    /** The plan of an {@code @Idempotent} method. */
    public OperationPlan plan(Method method) {
        return plan(method, true);
    }

    /**
     * Checks {@code method} as {@link #plan(Method)} does, except its store, which is neither created nor reached:
     * what a build, or a class being loaded, can check without the application's servers. Its scope is claimed, so
     * two methods sharing a scope with different result types are caught too.
     */
    public void check(Method method) {
        plan(method, false);
    }

    private OperationPlan plan(Method method, boolean withStore) {
        String operation = method.getDeclaringClass().getName() + "#" + method.getName();
        Idempotent annotation = method.getAnnotation(Idempotent.class);
        if (annotation == null) {
            throw new IdempotencyConfigurationException(operation + " is not annotated @Idempotent");
        }
        IdempotencyPolicy policy = IdempotencyPolicy.from(annotation, operation);
        Parameter[] parameters = method.getParameters();
        KeySource[] payload = payloadSources(operation, parameters);
        KeySource[] key = keySources(operation, policy, parameters, payload);
        ScopeTemplate scope = scope(operation, policy, parameters);
        ReturnKind kind = returnKind(operation, method.getReturnType());
        Type stored = kind.storedType(method.getGenericReturnType());
        requireStorable(operation, stored);
        String scopeName = policy.scope().isEmpty() ? operation : policy.scope();
        ClassLoader loader = method.getDeclaringClass().getClassLoader();
        List<Class<?>> failureTypes = new ArrayList<>(Arrays.asList(method.getExceptionTypes()));
        failureTypes.addAll(policy.noRetryFor());
        OperationPlan plan = new OperationPlan(operation, policy, withStore ? store(operation, policy) : null,
                namespace, scope, key,
                payload, kind, results(operation, policy, stored, loader),
                new FailureCodec(operation, failureTypes, loader), canonicalizers);
        StoreTransactionCheck.requireSupported(plan, storeName(policy));
        claimScope(scopeName, plan, stored, method.getDeclaringClass());
        return plan;
    }

    /**
     * The plan of a programmatic operation whose key and payload are the values it is called with.
     *
     * @param resultType the declared result type, for decoding and its allow-list
     */
    public OperationPlan plan(IdempotencyPolicy policy, Type resultType) {
        String operation = policy.operation();
        if (policy.scope().isEmpty()) {
            throw new IdempotencyConfigurationException(operation + ": a programmatic operation needs a scope");
        }
        if (!policy.key().isEmpty()) {
            throw new IdempotencyConfigurationException(operation + ": key names select parameters of a method;"
                    + " a programmatic operation is keyed by the values it is called with");
        }
        if (policy.scope().indexOf('{') >= 0) {
            throw new IdempotencyConfigurationException(operation + ": scope placeholders need named parameters;"
                    + " a programmatic operation builds its scope itself");
        }
        requireKeysFit(operation, policy.scope());
        Class<?> raw = DeclaredTypes.raw(resultType);
        ReturnKind kind = returnKind(operation, raw);
        Type stored = kind.storedType(resultType);
        requireStorable(operation, stored);
        ClassLoader loader = raw.getClassLoader() != null ? raw.getClassLoader()
                : Thread.currentThread().getContextClassLoader();
        KeySource[] values = {new KeySource(0, "values", PropertyPath.WHOLE, new Normalize[0])};
        OperationPlan plan = new OperationPlan(operation, policy, store(operation, policy), namespace,
                ScopeTemplate.parse(policy.scope(), p -> null), values, values, kind,
                results(operation, policy, stored, loader),
                new FailureCodec(operation, new ArrayList<>(policy.noRetryFor()), loader), canonicalizers);
        StoreTransactionCheck.requireSupported(plan, storeName(policy));
        claimScope(policy.scope(), plan, stored, null);
        return plan;
    }

    private static KeySource[] payloadSources(String operation, Parameter[] parameters) {
        List<KeySource> sources = new ArrayList<>();
        for (int i = 0; i < parameters.length; i++) {
            if (ValueKind.isNeverData(parameters[i].getType())) {
                continue; // a callback or stream is not part of "what was asked"
            }
            IdempotencyKey marked = parameters[i].getAnnotation(IdempotencyKey.class);
            // A parameter that is normalised for the key is normalised for the payload too, so " Foo" and "foo"
            // are one call rather than a conflict.
            Normalize[] normalize = marked != null && marked.value().isEmpty() ? marked.normalize() : new Normalize[0];
            sources.add(new KeySource(i, parameters[i].getName(), PropertyPath.WHOLE, normalize));
        }
        return sources.toArray(new KeySource[0]);
    }

    private static KeySource[] keySources(String operation, IdempotencyPolicy policy, Parameter[] parameters,
                                          KeySource[] payload) {
        List<KeySource> marked = new ArrayList<>();
        for (int i = 0; i < parameters.length; i++) {
            IdempotencyKey key = parameters[i].getAnnotation(IdempotencyKey.class);
            if (key != null) {
                marked.add(source(operation, "@IdempotencyKey on parameter '" + parameters[i].getName() + "'",
                        parameters, i, key.value(), key.normalize()));
            }
        }
        if (!policy.key().isEmpty()) {
            if (!marked.isEmpty()) {
                throw new IdempotencyConfigurationException(operation + ": @Idempotent(key = "
                        + policy.key() + ") and @IdempotencyKey both select key parameters; use one of them");
            }
            List<KeySource> named = new ArrayList<>();
            for (String name : policy.key()) {
                int dot = name.indexOf('.');
                String parameter = dot < 0 ? name : name.substring(0, dot);
                String path = dot < 0 ? "" : name.substring(dot + 1);
                int index = indexOf(parameters, parameter);
                if (index < 0) {
                    String hint = parameters.length > 0 && !parameters[0].isNamePresent()
                            ? "; parameter names are not in the class file: compile with javac -parameters (or"
                            + " <parameters>true</parameters> in the compiler plugin), or mark the parameter"
                            + " with @IdempotencyKey"
                            : "";
                    throw new IdempotencyConfigurationException(operation + ": @Idempotent(key = \"" + name
                            + "\") names no parameter; " + parameterList(parameters) + hint);
                }
                named.add(source(operation, "@Idempotent(key = \"" + name + "\")", parameters, index, path,
                        new Normalize[0]));
            }
            return named.toArray(new KeySource[0]);
        }
        if (!marked.isEmpty()) {
            return marked.toArray(new KeySource[0]);
        }
        for (Parameter parameter : parameters) {
            if (ValueKind.isNeverData(parameter.getType())) {
                throw new IdempotencyConfigurationException(operation + ": parameter '" + parameter.getName()
                        + "' of type " + parameter.getType().getName() + " cannot be part of an idempotency key"
                        + " (it is a stream, callback or resource, not data), and with no key parameters chosen"
                        + " every parameter is one. Mark the key parameters with @IdempotencyKey, or list them in"
                        + " @Idempotent(key = {...}).");
            }
        }
        return payload;
    }

    private static KeySource source(String operation, String where, Parameter[] parameters, int index, String path,
                                    Normalize[] normalize) {
        Parameter parameter = parameters[index];
        Class<?> type = parameter.getType();
        if (ValueKind.isNeverData(type)) {
            throw new IdempotencyConfigurationException(operation + ": " + where + ": parameter '"
                    + parameter.getName() + "' of type " + type.getName() + " cannot be encoded into a key (a"
                    + " stream, callback or resource is not data); choose other key parameters or register a"
                    + " KeyCanonicalizer for the type");
        }
        PropertyPath resolved;
        try {
            resolved = PropertyPath.resolve(type, path);
        } catch (IllegalArgumentException e) {
            throw new IdempotencyConfigurationException(operation + ": " + where + ": " + e.getMessage());
        }
        Class<?> end = resolved.isWhole() ? type : resolved.resultType();
        if (normalize.length > 0 && !CharSequence.class.isAssignableFrom(end) && end != Object.class) {
            throw new IdempotencyConfigurationException(operation + ": " + where + ": normalize = "
                    + Arrays.toString(normalize) + " applies to text, but the value is a " + end.getName());
        }
        return new KeySource(index, parameter.getName(), resolved, normalize);
    }

    private ScopeTemplate scope(String operation, IdempotencyPolicy policy, Parameter[] parameters) {
        String scope = policy.scope().isEmpty() ? operation : policy.scope();
        requireKeysFit(operation, scope);
        try {
            return ScopeTemplate.parse(scope, placeholder -> {
                int dot = placeholder.indexOf('.');
                String name = dot < 0 ? placeholder : placeholder.substring(0, dot);
                int index = indexOf(parameters, name);
                if (index < 0) {
                    throw new IllegalArgumentException("placeholder {" + placeholder + "} names no parameter; "
                            + parameterList(parameters)
                            + (parameters.length > 0 && !parameters[0].isNamePresent()
                            ? " (parameter names need javac -parameters)" : ""));
                }
                Class<?> type = parameters[index].getType();
                return new KeySource(index, name, PropertyPath.resolve(type, dot < 0 ? "" : placeholder.substring(
                        dot + 1)), new Normalize[0]);
            });
        } catch (IllegalArgumentException e) {
            throw new IdempotencyConfigurationException(operation + ": @Idempotent(scope = \"" + scope + "\"): "
                    + e.getMessage());
        }
    }

    /** The parameters a key or a scope placeholder may name, for an error that names none of them. */
    private static String parameterList(Parameter[] parameters) {
        return parameters.length == 0 ? "the method has no parameters"
                : "the parameters are [" + Arrays.stream(parameters).map(Parameter::getName)
                .collect(Collectors.joining(", ")) + "]";
    }

    /** Refuses a scope whose keys, before any placeholder is filled, are already too long for every store. */
    private void requireKeysFit(String operation, String scope) {
        int keyLength = "idem:".length() + namespace.length() + 1 + scope.length() + 1 + 32;
        if (keyLength > IdempotencyStore.MAX_KEY_LENGTH) {
            throw new IdempotencyConfigurationException(operation + ": a scope of " + scope.length()
                    + " characters makes keys of " + keyLength + " characters, longer than the "
                    + IdempotencyStore.MAX_KEY_LENGTH + " every store accepts; shorten the scope");
        }
    }

    private static ReturnKind returnKind(String operation, Class<?> raw) {
        ReturnKind kind = ReturnKind.of(raw);
        if (kind == ReturnKind.VALUE) {
            String why = ReturnKind.whyNotReplayable(raw);
            if (why != null) {
                throw new IdempotencyConfigurationException(operation + ": its return type " + raw.getName()
                        + " cannot be replayed: " + why + " (or leave the method unannotated)");
            }
        }
        return kind;
    }

    /** What the codec cannot judge: a type that is consumed once can never be replayed, whatever stores it. */
    private static void requireStorable(String operation, Type stored) {
        Class<?> raw = DeclaredTypes.raw(stored);
        String why = ReturnKind.whyNotReplayable(raw);
        if (why != null) {
            throw new IdempotencyConfigurationException(operation + ": its result type " + raw.getName()
                    + " cannot be replayed: " + why);
        }
    }

    /** The method's results under its codec, checked through the whole declared type before the method runs. */
    private StoredResults results(String operation, IdempotencyPolicy policy, Type stored, ClassLoader loader) {
        ResultCodecProvider provider;
        try {
            provider = codecs.resolve(policy.codec());
        } catch (IllegalArgumentException e) {
            String attribute = policy.codec().isEmpty() ? IdemSettings.CODEC + " = \"" + codecs.defaultName() + "\""
                    : "@Idempotent(codec = \"" + policy.codec() + "\")";
            throw new IdempotencyConfigurationException(operation + ": " + attribute + ": " + e.getMessage());
        }
        try {
            return new StoredResults(provider.name(), provider.formatVersion(), provider.forType(stored, loader));
        } catch (UnsupportedResultTypeException e) {
            throw new IdempotencyConfigurationException(operation + ": its result type " + stored.getTypeName()
                    + " cannot be stored with the '" + provider.name() + "' codec: " + e.getMessage());
        }
    }

    /**
     * Records {@code plan} as a user of {@code scope}. Two operations with one scope share keys, so the same
     * arguments give one of them the other's stored result. That can work only if their results have the same
     * type; otherwise it is refused here rather than failing later with a ClassCastException or a refused decode.
     * Types are compared by name: the same operation from a reloaded class (a new {@code Class} of the same name)
     * is that operation again, not a collision, and the plan it replaces is reported so its results can go.
     */
    private void claimScope(String scope, OperationPlan plan, Type stored, Class<?> declaring) {
        String storedType = stored.getTypeName();
        ScopeOwner mine = new ScopeOwner(plan.operation, storedType,
                declaring == null ? null : new WeakReference<>(declaring), plan.id, plan.policy.maxConcurrent());
        ScopeOwner[] replaced = new ScopeOwner[1];
        scopes.compute(scope, (s, owner) -> {
            if (owner == null) {
                return mine;
            }
            if (owner.isReloadedBy(plan.operation, declaring)) {
                replaced[0] = owner;
                return mine;
            }
            if (!owner.storedType().equals(storedType)) {
                throw new IdempotencyConfigurationException(plan.operation + ": @Idempotent(scope = \"" + scope
                        + "\") is already the scope of " + owner.operation() + ", whose result type is "
                        + owner.storedType() + ", not " + storedType + "; equal arguments would replay one's"
                        + " result to the other. Give each operation a scope of its own.");
            }
            if (owner.maxConcurrent() != mine.maxConcurrent()) {
                // One limit per scope: two would each let their own number through to the same upstream.
                throw new IdempotencyConfigurationException(plan.operation + ": @Idempotent(maxConcurrent = "
                        + mine.maxConcurrent() + ") differs from the maxConcurrent = " + owner.maxConcurrent()
                        + " of " + owner.operation() + ", which shares scope \"" + scope + "\"; operations of one"
                        + " scope share one limit, so declare the same value on both");
            }
            return owner;
        });
        if (replaced[0] != null) {
            replacedPlans.accept(replaced[0].planId());
        }
    }

    private String storeName(IdempotencyPolicy policy) {
        return policy.store().isEmpty() ? stores.defaultName() : policy.store();
    }

    private IdempotencyStore store(String operation, IdempotencyPolicy policy) {
        try {
            return stores.resolve(policy.store());
        } catch (IllegalArgumentException e) {
            String attribute = policy.store().isEmpty() ? "idem.store = \"" + stores.defaultName() + "\""
                    : "@Idempotent(store = \"" + policy.store() + "\")";
            throw new IdempotencyConfigurationException(operation + ": " + attribute + ": " + e.getMessage());
        }
    }

    private static int indexOf(Parameter[] parameters, String name) {
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].getName().equals(name)) {
                return i;
            }
        }
        return -1;
    }
}

package dev.idem.aspect;

import dev.idem.core.ConfigurationCheck;
import dev.idem.core.Idem;

/**
 * Load-time weaving only: checks each class that declares an {@code @Idempotent} method (or implements an annotated
 * interface method) when it is initialised, before any of its methods can be called, and logs every problem the
 * engine finds (a bad duration, an unknown key name, an unstorable result type, an annotated interface method) as
 * an error on the {@code dev.idem} logger. The engine refuses every call of such a method anyway.
 *
 * <p>Abstract, so compile-time weaving, which applies every concrete aspect of idem-aspect, leaves it out: there
 * the {@code idem:check} build goal reports the same problems before anything runs. {@code META-INF/aop.xml} makes
 * it concrete for the load-time weaver, with {@code -XhasMember}, which {@code hasmethod} needs: AspectJ cannot
 * select "types declaring such a method" for static initialisation directly, so those types are first given the
 * marker interface {@link Checked}.
 */
public abstract aspect LoadTimeCheck {
    private static final System.Logger LOG = System.getLogger("dev.idem");

    /** Marks, at load time, the types whose initialisation is checked. Public only so woven types can see it. */
    public interface Checked {
    }

    declare parents: hasmethod(@dev.idem.Idempotent * *(..)) implements Checked;

    after() returning: staticinitialization(Checked+) {
        Class<?> type = thisJoinPointStaticPart.getSignature().getDeclaringType();
        try {
            for (String problem : ConfigurationCheck.problems(Idem.engine(), type)) {
                LOG.log(System.Logger.Level.ERROR, problem + " Every call of it is refused until this is fixed.");
            }
        } catch (RuntimeException | LinkageError e) {
            // A class must not fail to initialise because of a report.
            LOG.log(System.Logger.Level.ERROR, "could not check the @Idempotent methods of " + type.getName(), e);
        }
    }
}

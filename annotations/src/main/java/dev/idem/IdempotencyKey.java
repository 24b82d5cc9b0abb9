package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a parameter as part of the idempotency key. When any parameter of an {@link Idempotent} method carries it,
 * only the marked parameters form the key; the payload hash still covers every parameter, so the same key with
 * other arguments is reported as a conflict rather than replayed.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface IdempotencyKey {

    /** {@return a property path inside the argument ({@code "customer.id"}); empty means the whole argument} */
    String value() default "";

    /** {@return the normalisations applied to string values before hashing, in the order given} */
    Normalize[] normalize() default {};
}

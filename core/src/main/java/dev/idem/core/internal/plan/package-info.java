/**
 * What the engine knows about each {@code @Idempotent} method before its first call: the {@link
 * dev.idem.core.internal.plan.OperationPlan} that {@link dev.idem.core.internal.plan.OperationPlanner} checks and
 * builds (its attributes, key sources, return kind, codec and store, resolved through {@link
 * dev.idem.core.internal.plan.StoreRegistry}), and {@link dev.idem.core.internal.plan.MethodPlans}, which finds what
 * is planned per method at every call, and how attribute durations are parsed. Not API.
 *
 * <p>May depend on {@code internal.key} and {@code internal.codec}, never on {@code internal.call}, which runs the
 * plans, nor on {@code dev.idem.core.internal} itself, which wires the engine together.
 */
package dev.idem.core.internal.plan;

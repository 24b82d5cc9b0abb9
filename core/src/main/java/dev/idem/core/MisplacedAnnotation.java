package dev.idem.core;

/**
 * The words for {@code @Idempotent} where no weaver or agent can apply it, shared by every mode so they give one
 * answer: the build check and {@link WeavingCheck} (from reflection) and a front-end that reads a class being
 * loaded (the agent), which names the method as {@link MethodNames#describe} does.
 */
public final class MisplacedAnnotation {
    private MisplacedAnnotation() {
    }

    /**
     * @param method      the abstract method, as {@link MethodNames#describe} names it
     * @param inInterface whether an interface declares it (else an abstract class)
     * @return the problem, with what to do instead
     */
    public static String onAbstractMethod(String method, boolean inInterface) {
        return method + " is annotated @Idempotent but is abstract (declared by " + (inInterface ? "an interface"
                : "an abstract class") + "): Java does not inherit method annotations, so no weaver or agent applies"
                + " it to the implementations, which would run without protection. Put @Idempotent on each"
                + " implementing method instead; Idem refuses it on abstract methods in every mode.";
    }

    /**
     * @param method   the implementing method, as {@link MethodNames#describe} names it
     * @param declared the annotated abstract method it implements, named the same way
     * @return the problem, with what to do instead
     */
    public static String onUnannotatedImplementation(String method, String declared) {
        return method + " implements " + declared + ", which is annotated @Idempotent, but is not annotated itself,"
                + " so it runs without protection: Java does not inherit method annotations. Annotate "
                + method.substring(0, method.indexOf('(')) + " and remove the annotation from "
                + declared.substring(0, declared.indexOf('(')) + ".";
    }
}

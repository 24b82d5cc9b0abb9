package dev.idem.spring;

import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.List;

/**
 * At ahead-of-time processing, registers the runtime hints of each bean whose class has {@code @Idempotent}
 * methods ({@link IdempotentMethodHints}). A bean is known by the type its definition resolves to: a {@code @Bean}
 * method declared to return an interface contributes the interface's methods, not those of the class it makes.
 */
final class IdempotentBeansAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
        List<Method> methods = IdempotentMethodHints.of(ClassUtils.getUserClass(bean.getBeanType().toClass()));
        if (methods.isEmpty()) {
            return null; // most beans: nothing of Idem's
        }
        return (generation, code) -> IdempotentMethodHints.register(generation.getRuntimeHints(), methods);
    }
}

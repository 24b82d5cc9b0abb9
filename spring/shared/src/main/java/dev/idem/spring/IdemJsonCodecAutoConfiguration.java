package dev.idem.spring;

import dev.idem.codec.jackson.JsonResultCodecProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * The json codec with the modules of the application's Jackson 3 {@link JsonMapper} (the one Spring Boot 4 makes,
 * with the application's {@code JacksonModule} beans, or the application's own), so the application's serializers
 * for its own types serve its stored results too. Only the modules: the codec keeps its own settings
 * ({@link JsonResultCodecProvider#withModules} says why). Active when the json codec is on the class path and such a
 * mapper is a bean; an application's own {@link JsonResultCodecProvider} bean wins.
 */
@AutoConfiguration(before = IdemAutoConfiguration.class,
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(name = {"tools.jackson.databind.json.JsonMapper",
        "dev.idem.codec.jackson.JsonResultCodecProvider"})
public class IdemJsonCodecAutoConfiguration {

    /** Made by Spring Boot's auto-configuration. */
    public IdemJsonCodecAutoConfiguration() {
    }

    /**
     * The json codec over the application's mapper's modules, which the engine takes as it takes any codec bean.
     *
     * @param mapper the application's mapper
     * @return the codec's provider
     */
    @Bean
    @ConditionalOnBean(JsonMapper.class)
    @ConditionalOnMissingBean(JsonResultCodecProvider.class)
    public JsonResultCodecProvider idemJsonCodec(JsonMapper mapper) {
        return JsonResultCodecProvider.withModules(mapper.registeredModules());
    }
}

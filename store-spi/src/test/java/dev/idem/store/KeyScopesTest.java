package dev.idem.store;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The one reading of a key's scope, for events ({@code scope}) and messages ({@code describe}). */
class KeyScopesTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // key                              | scope                    | describe
        "idem:test:orders:abc                | orders                   | scope test:orders",
        "idem:prod:gemini-lab:daily-content:9f86d081| gemini-lab:daily-content | scope prod:gemini-lab:daily-content",
        "idem:ns:bound:orders:abc            | bound:orders             | scope ns:bound:orders",
        // a scope template "{tenant}:{region}:orders" filled with acme and eu-1
        "idem:prod:acme:eu-1:orders:abc      | acme:eu-1:orders         | scope prod:acme:eu-1:orders",
        // placeholders left as written (a literal scope) are read as any other text
        "idem:prod:{tenant}:orders:abc       | {tenant}:orders          | scope prod:{tenant}:orders",
        "idem:ns::abc                        | ''                       | scope ns:",
        "idem::x:y                           | x                        | scope :x",
        "idem:ns:abc                         | idem:ns:abc              | a key outside any scope",
        "idem:                               | idem:                    | a key outside any scope",
        "x:idem:a:b:c                        | x:idem:a:b:c             | a key outside any scope",
        "order-1                             | order-1                  | a key outside any scope",
        "''                                  | ''                       | the store",
    })
    void scopeAndDescriptionReadTheKeyAlike(String key, String scope, String description) {
        assertEquals(scope, KeyScopes.scope(key));
        assertEquals(description, KeyScopes.describe(key));
    }
}

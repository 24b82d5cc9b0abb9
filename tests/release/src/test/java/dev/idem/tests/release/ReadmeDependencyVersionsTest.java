package dev.idem.tests.release;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every Idem artifact an {@code xml} block of the README or docs names carries this build's version, so a reader who
 * pastes a store's or codec's dependency into the quick start's pom gets a pom that resolves. Only the block that
 * imports {@code idem-bom} leaves versions out, as a BOM is for.
 */
class ReadmeDependencyVersionsTest {
    private static final Pattern XML_BLOCK = Pattern.compile("```xml\n(.*?)```", Pattern.DOTALL);
    /** An Idem dependency, plugin or copied artifact, written as the docs write them: the groupId first. */
    private static final Pattern ARTIFACT = Pattern.compile(
            "<(dependency|plugin|artifactItem)>\\s*<groupId>dev\\.idem</groupId>(.*?)</\\1>", Pattern.DOTALL);

    @Test
    void everyIdemArtifactOfTheDocsHasTheBuildsVersion() throws IOException {
        String version = "<version>" + Pom.read(DocPages.ROOT.resolve("pom.xml")).version() + "</version>";
        List<String> missing = new ArrayList<>();
        int checked = 0;
        for (Path page : DocPages.all()) {
            String text = Files.readString(page);
            Matcher block = XML_BLOCK.matcher(text);
            while (block.find()) {
                if (block.group(1).contains("<artifactId>idem-bom</artifactId>")) {
                    continue;
                }
                Matcher artifact = ARTIFACT.matcher(block.group(1));
                while (artifact.find()) {
                    checked++;
                    if (!artifact.group(2).contains(version)) {
                        int line = text.substring(0, block.start(1) + artifact.start()).split("\n", -1).length;
                        missing.add(DocPages.name(page) + " line " + line + ": " + artifact.group().strip());
                    }
                }
            }
        }
        assertTrue(checked > 5, "the docs declare Idem's artifacts: " + checked);
        assertEquals(List.of(), missing, "Idem artifacts without " + version + ":\n" + String.join("\n", missing));
    }
}

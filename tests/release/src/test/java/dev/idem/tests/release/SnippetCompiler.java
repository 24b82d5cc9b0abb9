package dev.idem.tests.release;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Compiles the source files made from snippets with the JDK's compiler, as a bare Java 17 project would, against a
 * given class path, and says which snippet each error came from.
 */
final class SnippetCompiler {
    private final String classPath;

    /** @param classPath the class path the snippets compile against, in the platform's form */
    SnippetCompiler(String classPath) {
        this.classPath = classPath;
    }

    /**
     * Compiles {@code sources} together into {@code out}.
     *
     * @return one line per error, naming the page and line of its snippet, the generated file and javac's message;
     *         empty when everything compiled
     */
    List<String> compile(List<DocSnippets.Source> sources, Path out) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no Java compiler in " + System.getProperty("java.home")
                    + ": the snippet check needs a JDK, not a JRE");
        }
        Map<String, DocSnippets.Source> byPath = new HashMap<>();
        List<JavaFileObject> units = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (DocSnippets.Source source : sources) {
            DocSnippets.Source earlier = byPath.putIfAbsent(source.path(), source);
            if (earlier != null) {
                errors.add(source.where() + ": declares " + source.path() + ", as the snippet at " + earlier.where()
                        + " does; give the example types distinct names");
                continue;
            }
            units.add(new InMemorySource(source));
        }
        if (!errors.isEmpty()) {
            return errors;
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "17", "-parameters", "-proc:none", "-classpath", classPath,
                    "-d", out.toString());
            javac.getTask(null, files, diagnostics, options, null, units).call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            String where = d.getSource() instanceof InMemorySource
                    ? ((InMemorySource) d.getSource()).source.where() + " (" + d.getSource().getName()
                    + ":" + d.getLineNumber() + ")"
                    : "(no file)";
            errors.add(where + ": " + d.getMessage(Locale.ROOT));
        }
        return errors;
    }

    /** A snippet's source file, held in memory. */
    private static final class InMemorySource extends SimpleJavaFileObject {
        final DocSnippets.Source source;

        InMemorySource(DocSnippets.Source source) {
            super(URI.create("string:///" + source.path()), Kind.SOURCE);
            this.source = source;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source.text();
        }
    }
}

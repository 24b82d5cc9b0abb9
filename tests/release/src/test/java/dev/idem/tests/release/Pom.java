package dev.idem.tests.release;

import org.w3c.dom.Element;
import org.w3c.dom.Node;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One pom.xml as written, not Maven's effective model: the few elements the release checks read. Inheritance is
 * {@link Reactor}'s business.
 */
final class Pom {
    /** A {@code <parent>} reference; {@code relativePath} is null when the pom says the parent is not on disk. */
    record ParentRef(String groupId, String artifactId, String version, String relativePath) {
    }

    final Path file;
    private final Element project;

    private Pom(Path file, Element project) {
        this.file = file;
        this.project = project;
    }

    static Pom read(Path file) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Element root = factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
            if (!root.getTagName().equals("project")) {
                throw new IllegalArgumentException(file + " is not a pom: its root element is <" + root.getTagName() + ">");
            }
            return new Pom(file, root);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    Path dir() {
        return file.getParent();
    }

    String artifactId() {
        return text("artifactId");
    }

    /** Its own groupId, or the parent's, which Maven gives it when it declares none. */
    String groupId() {
        String own = text("groupId");
        return own != null ? own : parent().map(ParentRef::groupId).orElse(null);
    }

    String version() {
        String own = text("version");
        return own != null ? own : parent().map(ParentRef::version).orElse(null);
    }

    String packaging() {
        String own = text("packaging");
        return own != null ? own : "jar";
    }

    Optional<ParentRef> parent() {
        Element parent = child(project, "parent");
        if (parent == null) {
            return Optional.empty();
        }
        Element relative = child(parent, "relativePath");
        String relativePath = relative == null ? "../pom.xml" : blankToNull(relative.getTextContent());
        return Optional.of(new ParentRef(text(parent, "groupId"), text(parent, "artifactId"), text(parent, "version"),
                relativePath));
    }

    /** The modules of {@code <modules>} and of every profile's, as written (paths relative to this pom). */
    List<String> modules() {
        List<String> modules = new ArrayList<>();
        Element own = child(project, "modules");
        if (own != null) {
            children(own, "module").forEach(m -> modules.add(m.getTextContent().trim()));
        }
        Element profiles = child(project, "profiles");
        if (profiles != null) {
            for (Element profile : children(profiles, "profile")) {
                Element profileModules = child(profile, "modules");
                if (profileModules != null) {
                    children(profileModules, "module").forEach(m -> modules.add(m.getTextContent().trim()));
                }
            }
        }
        return modules;
    }

    /** A property this pom sets in its own {@code <properties>}, or null. */
    String property(String name) {
        return text("properties", name);
    }

    /** The element at this path of direct children of {@code <project>}, or null. */
    Element element(String... path) {
        Element at = project;
        for (String name : path) {
            at = child(at, name);
            if (at == null) {
                return null;
            }
        }
        return at;
    }

    /** The trimmed text at this path of direct children of {@code <project>}; null when absent or blank. */
    String text(String... path) {
        Element element = element(path);
        return element == null ? null : blankToNull(element.getTextContent());
    }

    String projectAttribute(String name) {
        return project.hasAttribute(name) ? project.getAttribute(name) : null;
    }

    static String text(Element parent, String name) {
        Element child = child(parent, name);
        return child == null ? null : blankToNull(child.getTextContent());
    }

    static Element child(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element;
            }
        }
        return null;
    }

    static List<Element> children(Element parent, String name) {
        List<Element> children = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                children.add(element);
            }
        }
        return children;
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text.trim();
    }

    @Override
    public String toString() {
        return file.toString();
    }
}

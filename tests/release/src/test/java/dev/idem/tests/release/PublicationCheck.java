package dev.idem.tests.release;

import dev.idem.tests.release.Reactor.Declared;
import dev.idem.tests.release.Reactor.Module;
import org.w3c.dom.Element;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What publishing needs of the reactor, as a list of problems (one line each, naming the module and what to add):
 * <ul>
 *   <li>every published module (deploy not skipped) has the metadata a central repository requires: its own name,
 *       and a description, url, licences (name and url), developers (with a name) and scm (url, connection,
 *       developerConnection), its own or inherited; an inherited url or scm address must not get Maven's default
 *       artifactId suffix, which points at pages that do not exist;</li>
 *   <li>published artifactIds are {@code dev.idem:idem-*};</li>
 *   <li>{@code idem-bom} is in the reactor, has no parent (whose dependencyManagement would leak into users'
 *       builds), has the parent's version, and lists exactly the published non-pom modules, at its own version;</li>
 *   <li>the repository has the LICENSE (Apache-2.0) and NOTICE files the poms' licence points to.</li>
 * </ul>
 */
final class PublicationCheck {
    static final String GROUP = "dev.idem";
    static final String BOM = "idem-bom";
    static final String APACHE_URL = "https://www.apache.org/licenses/LICENSE-2.0.txt";

    private PublicationCheck() {
    }

    static List<String> problems(Reactor reactor) {
        List<String> problems = new ArrayList<>();
        for (Module module : reactor.published()) {
            problems.addAll(metadataProblems(module));
        }
        problems.addAll(bomProblems(reactor));
        problems.addAll(licenceFileProblems(reactor.root));
        return problems;
    }

    static List<String> metadataProblems(Module module) {
        List<String> problems = new ArrayList<>();
        String who = module + ": ";

        if (!GROUP.equals(module.pom().groupId())) {
            problems.add(who + "groupId is " + module.pom().groupId() + ", not " + GROUP);
        }
        if (module.artifactId() == null || !module.artifactId().startsWith("idem-")) {
            problems.add(who + "a published artifactId starts with idem-");
        }
        // Maven does not inherit <name>: each module needs its own.
        if (module.pom().text("name") == null) {
            problems.add(who + "no <name> (not inherited: each module declares its own)");
        }
        if (text(module.inherited("description")) == null) {
            problems.add(who + "no <description>, own or inherited");
        }

        Declared url = module.inherited("url");
        if (text(url) == null) {
            problems.add(who + "no <url>, own or inherited");
        } else if (url.in() != module.pom() && !"false".equals(url.in().projectAttribute("child.project.url.inherit.append.path"))) {
            problems.add(who + "inherits <url> from " + url.in().file + ", which lacks"
                    + " child.project.url.inherit.append.path=\"false\", so Maven appends the artifactId to it");
        }

        Declared licenses = module.inherited("licenses");
        List<Element> licenseList = licenses == null ? List.of() : Pom.children(licenses.element(), "license");
        if (licenseList.isEmpty()) {
            problems.add(who + "no <licenses><license>, own or inherited");
        }
        for (Element license : licenseList) {
            if (Pom.text(license, "name") == null || Pom.text(license, "url") == null) {
                problems.add(who + "a <license> needs a <name> and a <url>");
            }
        }
        if (!licenseList.isEmpty() && licenseList.stream().noneMatch(l -> APACHE_URL.equals(Pom.text(l, "url")))) {
            problems.add(who + "declares no Apache-2.0 licence (" + APACHE_URL + "), the LICENSE of the repository");
        }

        Declared developers = module.inherited("developers");
        List<Element> developerList = developers == null ? List.of() : Pom.children(developers.element(), "developer");
        if (developerList.isEmpty()) {
            problems.add(who + "no <developers><developer>, own or inherited");
        }
        for (Element developer : developerList) {
            if (Pom.text(developer, "name") == null) {
                problems.add(who + "a <developer> needs a <name>");
            }
        }

        Declared scm = module.inherited("scm");
        if (scm == null) {
            problems.add(who + "no <scm>, own or inherited");
        } else {
            for (String part : List.of("url", "connection", "developerConnection")) {
                if (Pom.text(scm.element(), part) == null) {
                    problems.add(who + "<scm> (in " + scm.in().file + ") has no <" + part + ">");
                } else if (scm.in() != module.pom()
                        && !"false".equals(scm.element().getAttribute("child.scm." + part + ".inherit.append.path"))) {
                    problems.add(who + "inherits <scm><" + part + "> from " + scm.in().file + ", which lacks child.scm."
                            + part + ".inherit.append.path=\"false\", so Maven appends the artifactId to it");
                }
            }
        }
        return problems;
    }

    static List<String> bomProblems(Reactor reactor) {
        List<Module> boms = reactor.modules.stream().filter(m -> BOM.equals(m.artifactId())).toList();
        if (boms.size() != 1) {
            return List.of("the reactor has " + boms.size() + " modules with artifactId " + BOM + "; it needs exactly one");
        }
        Module bom = boms.get(0);
        List<String> problems = new ArrayList<>();
        String who = bom + ": ";
        if (!bom.published()) {
            problems.add(who + "the BOM must be published (maven.deploy.skip is true)");
        }
        if (!"pom".equals(bom.pom().packaging())) {
            problems.add(who + "packaging must be pom");
        }
        if (bom.pom().parent().isPresent()) {
            problems.add(who + "must have no <parent>: importing it would bring the parent's dependencyManagement"
                    + " (Caffeine, AspectJ, Byte Buddy, JUnit versions) into users' builds");
        }
        String version = bom.pom().version();
        if (version == null || !version.equals(reactor.rootPom.version())) {
            problems.add(who + "version " + version + " differs from " + reactor.rootPom.artifactId() + "'s "
                    + reactor.rootPom.version());
        }

        Map<String, Element> listed = new LinkedHashMap<>();
        Element managed = bom.pom().element("dependencyManagement", "dependencies");
        for (Element dependency : managed == null ? List.<Element>of() : Pom.children(managed, "dependency")) {
            String artifactId = Pom.text(dependency, "artifactId");
            String groupId = Pom.text(dependency, "groupId");
            String dependencyVersion = Pom.text(dependency, "version");
            if (!GROUP.equals(groupId) && !"${project.groupId}".equals(groupId)) {
                problems.add(who + "lists " + groupId + ":" + artifactId + "; a BOM of Idem lists only " + GROUP + " modules");
                continue;
            }
            if (!"${project.version}".equals(dependencyVersion) && !Objects.equals(version, dependencyVersion)) {
                problems.add(who + artifactId + " is at version " + dependencyVersion + "; use ${project.version}");
            }
            if (listed.put(artifactId, dependency) != null) {
                problems.add(who + "lists " + artifactId + " twice");
            }
        }

        Set<String> expected = new TreeSet<>();
        for (Module module : reactor.published()) {
            // A BOM manages dependencies; a Maven plugin's version is not one (pluginManagement is never imported).
            String packaging = module.pom().packaging();
            if (!"pom".equals(packaging) && !"maven-plugin".equals(packaging)) {
                expected.add(module.artifactId());
            }
        }
        for (String artifactId : expected) {
            if (!listed.containsKey(artifactId)) {
                Module missing = reactor.modules.stream().filter(m -> artifactId.equals(m.artifactId())).findFirst().orElseThrow();
                problems.add(who + "does not list the published module " + missing + "; add it to bom/pom.xml");
            }
        }
        for (String artifactId : listed.keySet()) {
            if (!expected.contains(artifactId)) {
                problems.add(who + "lists " + artifactId + ", which is not a published jar module of the reactor");
            }
        }
        return problems;
    }

    static List<String> licenceFileProblems(Path root) {
        List<String> problems = new ArrayList<>();
        Path license = root.resolve("LICENSE");
        if (!Files.isRegularFile(license)) {
            problems.add("no LICENSE file at the repository's root");
        } else if (!read(license).contains("Apache License") || !read(license).contains("Version 2.0, January 2004")) {
            problems.add("LICENSE is not the Apache License 2.0 the poms declare");
        }
        if (!Files.isRegularFile(root.resolve("NOTICE"))) {
            problems.add("no NOTICE file at the repository's root");
        }
        return problems;
    }

    private static String text(Declared declared) {
        if (declared == null || declared.element().getTextContent().isBlank()) {
            return null;
        }
        return declared.element().getTextContent().trim();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}

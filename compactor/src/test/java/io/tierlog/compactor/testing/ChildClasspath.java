package io.tierlog.compactor.testing;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The test JVM's class path for child JVMs, with the build's own outputs (module {@code target/}
 * directories and jars, which a concurrent build may rewrite) copied to a private directory first,
 * so a child never sees a half-rebuilt class. Follows a manifest-only booter jar's {@code
 * Class-Path}. Stateless, so thread-safe.
 */
public final class ChildClasspath {
    private ChildClasspath() {}

    public static String snapshot(Path into) throws IOException {
        List<Path> entries = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(e);
            if (p.getFileName().toString().startsWith("surefirebooter")) {
                try (JarFile jar = new JarFile(p.toFile())) {
                    String cp = jar.getManifest().getMainAttributes().getValue("Class-Path");
                    for (String u : cp.trim().split("\\s+")) {
                        entries.add(Path.of(URI.create(u)));
                    }
                }
            } else {
                entries.add(p);
            }
        }
        Files.createDirectories(into);
        List<String> out = new ArrayList<>();
        int i = 0;
        for (Path p : entries) {
            boolean buildOutput =
                    p.toString().contains(File.separator + "target" + File.separator)
                            || p.toString().endsWith(File.separator + "target");
            if (!buildOutput || !Files.exists(p)) {
                out.add(p.toString());
                continue;
            }
            Path copy = into.resolve((i++) + "-" + p.getFileName());
            if (Files.isDirectory(p)) {
                try (Stream<Path> files = Files.walk(p)) {
                    for (Path f : files.toList()) {
                        Path t = copy.resolve(p.relativize(f).toString());
                        if (Files.isDirectory(f)) {
                            Files.createDirectories(t);
                        } else {
                            Files.copy(f, t, StandardCopyOption.REPLACE_EXISTING);
                        }
                    }
                }
            } else {
                Files.copy(p, copy, StandardCopyOption.REPLACE_EXISTING);
            }
            out.add(copy.toString());
        }
        return String.join(File.pathSeparator, out);
    }
}

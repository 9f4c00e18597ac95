package io.tierlog.itests.iceberg;

import io.tierlog.compactor.testing.ChildClasspath;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A class path for server children that can share a class data sharing archive: the test JVM's
 * class path snapshot ({@link ChildClasspath}), with each non-empty directory replaced by a jar of
 * it (the JVM archives classes from jars only, and refuses to dump with a non-empty directory on
 * the path), as the fault campaign does. A kill campaign starts a server JVM per kill; mapping the
 * classes from the archive instead of loading them takes a good part of each start away. Stateless,
 * so thread-safe.
 */
final class ClassArchive {
    private ClassArchive() {}

    static String classpath(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        for (String e : ChildClasspath.snapshot(dir).split(File.pathSeparator)) {
            Path d = Path.of(e);
            if (!Files.isDirectory(d)) {
                out.add(e);
                continue;
            }
            List<Path> files;
            try (Stream<Path> s = Files.walk(d)) {
                files = s.filter(Files::isRegularFile).sorted().toList();
            }
            if (files.isEmpty()) {
                continue;
            }
            Path jar = d.resolveSibling(d.getFileName() + ".jar");
            try (JarOutputStream os =
                    new JarOutputStream(new BufferedOutputStream(Files.newOutputStream(jar)))) {
                for (Path f : files) {
                    os.putNextEntry(
                            new JarEntry(
                                    d.relativize(f).toString().replace(File.separatorChar, '/')));
                    Files.copy(f, os);
                    os.closeEntry();
                }
            }
            out.add(jar.toString());
        }
        return String.join(File.pathSeparator, out);
    }
}

package io.tierlog.itests.server;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs an external client (kcat, python) with stdin, a timeout, and captured output. */
final class Proc {
    record Result(int exit, String stdout, String stderr) {}

    private Proc() {}

    /** True when an executable of that name is on PATH or at that absolute path. */
    static boolean available(String exe) {
        if (exe.startsWith("/")) {
            return new File(exe).canExecute();
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(dir, exe).canExecute()) {
                return true;
            }
        }
        return false;
    }

    /**
     * kcat reading from the beginning to the end of what {@code source} names ({@code "-C", "-t",
     * topic, "-p", partition} or {@code "-G", group, topic...}), one line per message in kcat's
     * {@code -f format}.
     */
    static Result kcatToEnd(String bootstrap, String format, Duration timeout, String... source)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.addAll(List.of("kcat", "-b", bootstrap, "-o", "beginning", "-e", "-q", "-f", format));
        cmd.addAll(List.of(source));
        return run(cmd, null, timeout);
    }

    static Result run(List<String> cmd, String stdin, Duration timeout)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread t1 = pump(p.getInputStream(), out);
        Thread t2 = pump(p.getErrorStream(), err);
        try (OutputStream in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            p.waitFor();
            t1.join();
            t2.join();
            throw new AssertionError("timed out: " + cmd + "\nstdout: " + out + "\nstderr: " + err);
        }
        t1.join();
        t2.join();
        return new Result(
                p.exitValue(),
                out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8));
    }

    private static Thread pump(InputStream in, ByteArrayOutputStream sink) {
        Thread t =
                new Thread(
                        () -> {
                            try {
                                in.transferTo(sink);
                            } catch (IOException e) {
                                // process ended
                            }
                        });
        t.setDaemon(true);
        t.start();
        return t;
    }
}

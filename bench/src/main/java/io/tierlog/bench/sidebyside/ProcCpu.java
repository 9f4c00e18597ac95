package io.tierlog.bench.sidebyside;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU time of a process tree from {@code /proc/<pid>/stat} (Linux only).
 *
 * <p>Fields read (1-based, after the parenthesised command name, which may contain spaces): 14
 * {@code utime} and 15 {@code stime}, in clock ticks of {@code getconf CLK_TCK} (100 on Linux
 * x86-64 and arm64). Children that already exited are not counted (their time would be in the
 * parent's {@code cutime}/{@code cstime} only after a wait); the servers measured here do not fork
 * workers, so the tree is the JVM itself.
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class ProcCpu {
    private static final int UTIME_FIELD = 14;
    private static final int STIME_FIELD = 15;
    private static final double TICKS_PER_SECOND = clockTicks();

    private ProcCpu() {}

    /** utime + stime of {@code pid} and its live descendants, in seconds. */
    static double treeSeconds(long pid) throws IOException {
        List<Long> pids = new ArrayList<>();
        pids.add(pid);
        ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
        long ticks = 0;
        for (long p : pids) {
            ticks += ticks(p);
        }
        return ticks / TICKS_PER_SECOND;
    }

    /**
     * utime + stime, in seconds, of the threads of {@code pid} whose name ({@code
     * /proc/<pid>/task/<tid>/comm}, at most 15 characters) starts with {@code namePrefix}: the CPU
     * one kind of thread used (a log cleaner's, say), whatever else the process did meanwhile.
     * Threads that already exited are not counted.
     */
    static double threadSeconds(long pid, String namePrefix) throws IOException {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        long ticks = 0;
        try (java.util.stream.Stream<Path> tids = Files.list(tasks)) {
            for (Path task : (Iterable<Path>) tids::iterator) {
                String comm;
                try {
                    comm = Files.readString(task.resolve("comm")).strip();
                } catch (NoSuchFileException e) {
                    continue; // exited between listing and reading
                }
                if (comm.startsWith(namePrefix)) {
                    ticks += ticks(task.resolve("stat"));
                }
            }
        }
        return ticks / TICKS_PER_SECOND;
    }

    private static long ticks(long pid) throws IOException {
        return ticks(Path.of("/proc", Long.toString(pid), "stat"));
    }

    private static long ticks(Path statFile) throws IOException {
        String stat;
        try {
            stat = Files.readString(statFile);
        } catch (NoSuchFileException e) {
            return 0; // exited between listing and reading
        }
        // "pid (comm) state ..." : comm may hold spaces and parentheses, so split after the last
        // ')'
        String[] rest = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // rest[0] is field 3 (state)
        return Long.parseLong(rest[UTIME_FIELD - 3]) + Long.parseLong(rest[STIME_FIELD - 3]);
    }

    private static double clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            return Double.parseDouble(out);
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}

package io.tierlog.itests.server;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingMethod;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Records blocking calls made on Netty event-loop threads while armed, through BlockHound
 * (installed once per JVM: it instruments JDK classes for good, so the recorder stays installed and
 * simply records nothing while disarmed). A blocking call is recorded, not thrown, so the server
 * behaves as it would in production and one run lists every violation.
 *
 * <p>Watched threads: Netty's own notion of a non-blocking thread (a {@link FastThreadLocalThread}
 * that does not permit blocking calls, as in Netty's BlockHound integration), less the
 * GlobalEventExecutor (a Netty-internal notifier, not a server event loop).
 *
 * <p>Blocking, beyond BlockHound's defaults (sleep, park, socket and stream I/O, RandomAccessFile,
 * process start): FileChannel reads, writes, fsync, truncate and locks; file-system metadata calls
 * (open, stat, mkdir, rename, unlink, list) of both {@code java.nio.file} and {@code java.io.File};
 * SQLite JDBC (a native library whose disk I/O BlockHound cannot see).
 *
 * <p>Allowed, each harmless on an event loop: writes on a non-blocking socket channel (they go
 * through the same native write as files in the JDK, but return at once when the socket buffer is
 * full); reads of the kernel's random device by {@code SecureRandom} (UUIDs; {@code /dev/urandom}
 * is no disk and never waits); Netty's own allowances (its integration).
 *
 * <p>Allowed by design ({@link #BY_DESIGN}, see {@code docs/architecture.md}, "Threads"): the two
 * page-cache accesses of the hot path, each matched exactly, by the native call and the frames of
 * our code that reach it through nothing but the JDK's {@code FileChannel}: the write of a produced
 * batch into the active segment ({@code pwrite0} from {@code LogSegment.append} called by {@code
 * PartitionLog.appendLocked}) and the read of batch headers that a fetch does to find its byte
 * range ({@code pread0} from {@code LogSegment.readFully} called by {@code LogSegment.read}). The
 * same native call from anywhere else (an index pre-allocation, a timestamp search, a recovery) is
 * a violation. Also allowed: a park on the queue lock of an executor the event loop hands work to
 * ({@link #HAND_OFF_SIGNAL}), a lock held for a few instructions and never across I/O. They are
 * counted, not recorded ({@link #allowedByDesign()}). Thread-safe.
 */
final class EventLoopBlockingCalls {
    /** One blocking call: where, on which thread, and the stack from the blocking method down. */
    record Call(String method, String thread, List<StackTraceElement> stack) {
        /** The first frame of our code, else of anything but the JDK and Netty: the call site. */
        String site() {
            for (StackTraceElement e : stack) {
                if (e.getClassName().startsWith("io.tierlog.")) {
                    return e.toString();
                }
            }
            for (StackTraceElement e : stack) {
                String c = e.getClassName();
                if (!c.startsWith("java.")
                        && !c.startsWith("jdk.")
                        && !c.startsWith("sun.")
                        && !c.startsWith("io.netty.")) {
                    return e.toString();
                }
            }
            return stack.isEmpty() ? "?" : stack.get(0).toString();
        }
    }

    /**
     * A blocking call made on the event loops on purpose: {@code nativeMethod} (as BlockHound names
     * it) whose stack, once the frames of classes starting with one of {@code skipped} are passed
     * over, continues with exactly {@code frames} ({@code class.method}, innermost first,
     * consecutive). {@code why} is printed in the report.
     */
    record Allowance(String nativeMethod, List<String> skipped, List<String> frames, String why) {
        boolean matches(String method, List<StackTraceElement> stack) {
            if (!method.equals(nativeMethod)) {
                return false;
            }
            int i = 0;
            while (i < stack.size() && skipped(stack.get(i).getClassName())) {
                i++;
            }
            for (String frame : frames) {
                if (i >= stack.size()) {
                    return false;
                }
                StackTraceElement e = stack.get(i++);
                if (!frame.equals(e.getClassName() + "." + e.getMethodName())) {
                    return false;
                }
            }
            return true;
        }

        private boolean skipped(String className) {
            for (String prefix : skipped) {
                if (className.startsWith(prefix)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The JDK's plumbing between a FileChannel call and its native method. */
    private static final List<String> JDK = List.of("java.", "sun.", "jdk.");

    /** A lock's plumbing down to the park. */
    private static final List<String> LOCK =
            List.of("jdk.internal.misc.", "java.util.concurrent.locks.");

    /** The produced batch written into the active segment's page cache (no fsync). */
    static final Allowance APPEND_TO_PAGE_CACHE =
            new Allowance(
                    "sun.nio.ch.FileDispatcherImpl.pwrite0",
                    JDK,
                    List.of(
                            "io.tierlog.hot.LogSegment.append",
                            "io.tierlog.hot.PartitionLog.appendLocked"),
                    "a produce's write(2) into the active segment's page cache, no fsync");

    /** Batch headers read through the page cache to find a fetch's byte range. */
    static final Allowance READ_BATCH_HEADERS =
            new Allowance(
                    "sun.nio.ch.FileDispatcherImpl.pread0",
                    JDK,
                    List.of(
                            "io.tierlog.hot.LogSegment.readFully",
                            "io.tierlog.hot.LogSegment.read"),
                    "a fetch's pread(2) of batch headers through the page cache, before sendfile");

    /**
     * Handing a task to an executor (the blocking executor, the cold-read executor): its queue's
     * locks are held by the queue's own operations only, a few instructions and never across I/O,
     * so a park there is a brief spin-and-wait, not a wait for a disk.
     */
    static final Allowance HAND_OFF_SIGNAL =
            new Allowance(
                    "jdk.internal.misc.Unsafe#park",
                    LOCK,
                    List.of(
                            "java.util.concurrent.LinkedBlockingQueue.signalNotEmpty",
                            "java.util.concurrent.LinkedBlockingQueue.offer",
                            "java.util.concurrent.ThreadPoolExecutor.execute"),
                    "handing a task to an executor: its queue's take lock, never held across I/O");

    /** As {@link #HAND_OFF_SIGNAL}, for the queue's put lock. */
    static final Allowance HAND_OFF_PUT =
            new Allowance(
                    "jdk.internal.misc.Unsafe#park",
                    LOCK,
                    List.of(
                            "java.util.concurrent.LinkedBlockingQueue.offer",
                            "java.util.concurrent.ThreadPoolExecutor.execute"),
                    "handing a task to an executor: its queue's put lock, never held across I/O");

    static final List<Allowance> BY_DESIGN =
            List.of(APPEND_TO_PAGE_CACHE, READ_BATCH_HEADERS, HAND_OFF_SIGNAL, HAND_OFF_PUT);

    private static final Queue<Call> calls = new ConcurrentLinkedQueue<>();
    private static final Map<Allowance, java.util.concurrent.atomic.AtomicLong> allowed =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static volatile boolean armed;
    private static boolean installed;

    private EventLoopBlockingCalls() {}

    /** Installs BlockHound with this recorder (once per JVM). */
    static synchronized void install() {
        if (!installed) {
            BlockHound.install(new Integration());
            installed = true;
        }
    }

    /** Starts recording, forgetting earlier calls. */
    static void arm() {
        calls.clear();
        allowed.clear();
        armed = true;
    }

    /** Stops recording; returns what was recorded. */
    static List<Call> disarm() {
        armed = false;
        return new ArrayList<>(calls);
    }

    /** How often each allowance was used since {@link #arm()}. */
    static Map<Allowance, Long> allowedByDesign() {
        Map<Allowance, Long> out = new LinkedHashMap<>();
        for (Allowance a : BY_DESIGN) {
            java.util.concurrent.atomic.AtomicLong n = allowed.get(a);
            out.put(a, n == null ? 0 : n.get());
        }
        return out;
    }

    /** Whether BlockHound treats {@code t} as an event loop that must not block. */
    static boolean watched(Thread t) {
        return t instanceof FastThreadLocalThread f
                && !f.permitBlockingCalls()
                && !t.getName().startsWith("globalEventExecutor");
    }

    /** Distinct calls (by blocking method and call site), each with its count and a stack. */
    static String report(List<Call> recorded) {
        Map<String, List<Call>> distinct = new LinkedHashMap<>();
        for (Call c : recorded) {
            distinct.computeIfAbsent(c.method() + " at " + c.site(), k -> new ArrayList<>()).add(c);
        }
        StringBuilder b = new StringBuilder();
        int n = 0;
        for (Map.Entry<String, List<Call>> e : distinct.entrySet()) {
            Call first = e.getValue().get(0);
            b.append(
                    String.format(
                            "%n%d. %s (%d times, e.g. on %s)%n",
                            ++n, e.getKey(), e.getValue().size(), first.thread()));
            b.append(
                    first.stack().stream()
                            .limit(40)
                            .map(f -> "      at " + f)
                            .collect(Collectors.joining(System.lineSeparator())));
            b.append(System.lineSeparator());
        }
        return b.toString();
    }

    private static void record(BlockingMethod m) {
        if (!armed || !watched(Thread.currentThread())) {
            return;
        }
        StackTraceElement[] all = new Throwable().getStackTrace();
        int from = 0;
        while (from < all.length
                && (all[from].getClassName().startsWith("reactor.blockhound.")
                        || all[from].getClassName().equals(EventLoopBlockingCalls.class.getName())
                        || all[from].getClassName().startsWith(Integration.class.getName()))) {
            from++;
        }
        List<StackTraceElement> stack = List.of(Arrays.copyOfRange(all, from, all.length));
        String method = m.toString();
        for (Allowance a : BY_DESIGN) {
            if (a.matches(method, stack)) {
                allowed.computeIfAbsent(a, k -> new java.util.concurrent.atomic.AtomicLong())
                        .incrementAndGet();
                return;
            }
        }
        calls.add(new Call(method, Thread.currentThread().getName(), stack));
    }

    /** Applied after the integrations found on the class path (Netty's among them). */
    private static final class Integration implements BlockHoundIntegration {
        @Override
        public void applyTo(BlockHound.Builder b) {
            b.nonBlockingThreadPredicate(p -> EventLoopBlockingCalls::watched);
            b.blockingMethodCallback(EventLoopBlockingCalls::record);
            blocking(
                    b,
                    "sun.nio.ch.FileDispatcherImpl",
                    "read0(Ljava/io/FileDescriptor;JI)I",
                    "pread0(Ljava/io/FileDescriptor;JIJ)I",
                    "readv0(Ljava/io/FileDescriptor;JI)J",
                    "write0(Ljava/io/FileDescriptor;JI)I",
                    "pwrite0(Ljava/io/FileDescriptor;JIJ)I",
                    "writev0(Ljava/io/FileDescriptor;JI)J",
                    "force0(Ljava/io/FileDescriptor;Z)I",
                    "truncate0(Ljava/io/FileDescriptor;J)I",
                    "lock0(Ljava/io/FileDescriptor;ZJJZ)I");
            blocking(
                    b,
                    "sun.nio.fs.UnixNativeDispatcher",
                    "open0(JII)I",
                    "openat0(IJII)I",
                    "unlink0(J)V",
                    "unlinkat0(IJI)V",
                    "rename0(JJ)V",
                    "renameat0(IJIJ)V",
                    "mkdir0(JI)V",
                    "rmdir0(J)V",
                    "stat0(JLsun/nio/fs/UnixFileAttributes;)V",
                    "stat1(J)I",
                    "lstat0(JLsun/nio/fs/UnixFileAttributes;)V",
                    "opendir0(J)J",
                    "readdir(J)[B",
                    "access0(JI)V");
            blocking(
                    b,
                    "java.io.UnixFileSystem",
                    "getBooleanAttributes0(Ljava/io/File;)I",
                    "getLength(Ljava/io/File;)J",
                    "createFileExclusively(Ljava/lang/String;)Z",
                    "delete0(Ljava/io/File;)Z",
                    "list(Ljava/io/File;)[Ljava/lang/String;",
                    "createDirectory(Ljava/io/File;)Z",
                    "rename0(Ljava/io/File;Ljava/io/File;)Z");
            blocking(
                    b,
                    "org.sqlite.core.NativeDB",
                    "_open_utf8([BI)V",
                    "_exec_utf8([B)I",
                    "prepare_utf8([B)J",
                    "step(J)I");
            // The kernel's CSPRNG (UUID.randomUUID for member ids): a character device, no disk,
            // and /dev/urandom never waits for entropy.
            b.allowBlockingCallsInside(
                    "sun.security.provider.NativePRNG$RandomIO", "implNextBytes");
            // A non-blocking socket's write shares the files' native write in the JDK.
            b.allowBlockingCallsInside("sun.nio.ch.SocketDispatcher", "write");
            b.allowBlockingCallsInside("sun.nio.ch.SocketDispatcher", "writev");
        }

        private static void blocking(BlockHound.Builder b, String type, String... methods) {
            for (String m : methods) {
                int paren = m.indexOf('(');
                b.markAsBlocking(type, m.substring(0, paren), m.substring(paren));
            }
        }
    }
}

package io.tierlog.server.dispatch;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;

/**
 * Finds the error codes of interest anywhere in a response body (top level, per topic, per
 * partition, per group), with the first error message found next to each. Works on any message
 * kafka-clients generates, so that every handler's answers are covered without per-API code: the
 * accessors of each generated class ({@code errorCode()}, {@code errorMessage()}, nested structs
 * and collections of structs) are looked up by reflection once per class and cached.
 *
 * <p>Costs one pass over the response's structs; allocates nothing when no code of interest occurs.
 * Thread-safe.
 */
final class ResponseErrors {
    /** What was found: count and first message per error. */
    record Found(Errors error, int count, String firstMessage) {}

    /** The accessors of one generated class. */
    private record Plan(Method[] codes, Method message, Method[] children) {}

    private static final Plan LEAF = new Plan(new Method[0], null, new Method[0]);

    private final boolean[] interesting;
    private final Map<Class<?>, Plan> plans = new ConcurrentHashMap<>();

    /** A finder of the codes {@code errors}; others are ignored. */
    ResponseErrors(Collection<Errors> errors) {
        interesting = new boolean[Short.MAX_VALUE + 2];
        for (Errors e : errors) {
            interesting[index(e.code())] = true;
        }
    }

    private static int index(short code) {
        return code + 1; // UNKNOWN_SERVER_ERROR is -1
    }

    private boolean isInteresting(short code) {
        return code != 0 && code >= -1 && interesting[index(code)];
    }

    /** The errors of interest in {@code body}, empty (and not allocated) when there are none. */
    List<Found> find(Message body) {
        Map<Errors, Found> found = walk(body, null);
        return found == null ? List.of() : List.copyOf(found.values());
    }

    private Map<Errors, Found> walk(Object node, Map<Errors, Found> found) {
        if (!(node instanceof Message m)) {
            return found;
        }
        Plan plan = plans.computeIfAbsent(m.getClass(), ResponseErrors::plan);
        for (Method code : plan.codes) {
            short c = (short) invoke(code, m);
            if (isInteresting(c)) {
                if (found == null) {
                    found = new EnumMap<>(Errors.class);
                }
                Errors e = Errors.forCode(c);
                Found f = found.get(e);
                String msg = f != null && f.firstMessage() != null ? f.firstMessage() : null;
                if (msg == null && plan.message != null) {
                    msg = (String) invoke(plan.message, m);
                }
                found.put(e, new Found(e, f == null ? 1 : f.count() + 1, msg));
            }
        }
        for (Method child : plan.children) {
            Object v = invoke(child, m);
            if (v instanceof Iterable<?> it) {
                for (Object o : it) {
                    if (!(o instanceof Message)) {
                        break; // a list of ids or names: no structs in it
                    }
                    found = walk(o, found);
                }
            } else {
                found = walk(v, found);
            }
        }
        return found;
    }

    private static Object invoke(Method m, Object target) {
        try {
            return m.invoke(target);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(m + " is not accessible", e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(m + " failed", e.getCause());
        }
    }

    private static Plan plan(Class<?> type) {
        List<Method> codes = new ArrayList<>();
        List<Method> children = new ArrayList<>();
        Method message = null;
        for (Method m : type.getMethods()) {
            if (m.getParameterCount() != 0
                    || Modifier.isStatic(m.getModifiers())
                    || m.getDeclaringClass() == Object.class) {
                continue;
            }
            Class<?> r = m.getReturnType();
            String name = m.getName();
            if (r == short.class && (name.equals("errorCode") || name.endsWith("ErrorCode"))) {
                codes.add(m);
            } else if (r == String.class && name.equals("errorMessage")) {
                message = m;
            } else if (name.equals("duplicate") || name.equals("unknownTaggedFields")) {
                continue;
            } else if (Message.class.isAssignableFrom(r) || Iterable.class.isAssignableFrom(r)) {
                children.add(m);
            }
        }
        if (codes.isEmpty() && children.isEmpty()) {
            return LEAF;
        }
        return new Plan(codes.toArray(new Method[0]), message, children.toArray(new Method[0]));
    }
}

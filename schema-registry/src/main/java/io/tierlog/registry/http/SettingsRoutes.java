package io.tierlog.registry.http;

import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.ErrorCodes;
import io.tierlog.registry.RegistryMode;
import io.tierlog.registry.SchemaRegistryException;
import io.tierlog.registry.SubjectConfig;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /config} and {@code /mode}, registry-wide and per subject, as Confluent's API shapes them:
 * GET answers {@code {"compatibilityLevel": ...}} (and {@code normalize} when set), PUT takes and
 * answers {@code {"compatibility": ...}}; modes are {@code {"mode": ...}}. A subject's GET without
 * {@code defaultToGlobal=true} is 40408 (40409 for a mode) when the subject has none of its own.
 * Stateless besides the registry, so thread-safe.
 */
final class SettingsRoutes {
    private final CatalogSchemaRegistry registry;

    SettingsRoutes(CatalogSchemaRegistry registry) {
        this.registry = registry;
    }

    Routes.Response config(Request r) {
        if (r.size() > 2) {
            return Routes.notFound();
        }
        String subject = r.size() == 2 ? r.segment(1) : null;
        return switch (r.method()) {
            case "GET" -> {
                SubjectConfig c;
                if (subject == null || r.flag("defaultToGlobal")) {
                    c = registry.effectiveConfig(subject);
                } else {
                    c =
                            registry.config(subject)
                                    .orElseThrow(
                                            () ->
                                                    new SchemaRegistryException(
                                                            ErrorCodes
                                                                    .SUBJECT_COMPATIBILITY_NOT_CONFIGURED,
                                                            "Subject '"
                                                                    + subject
                                                                    + "' does not have subject-level"
                                                                    + " compatibility configured"));
                }
                yield Routes.Response.json(level(c, "compatibilityLevel"));
            }
            case "PUT" -> {
                JsonNode body = Json.read(r.body());
                JsonNode level = body.get("compatibility");
                if (level == null || !level.isString()) {
                    level = body.get("compatibilityLevel"); // older clients' spelling
                }
                JsonNode normalize = body.get("normalize");
                SubjectConfig c =
                        registry.putConfig(
                                subject,
                                level == null || !level.isString() ? null : level.asString(),
                                normalize != null && normalize.isBoolean()
                                        ? normalize.booleanValue()
                                        : null);
                yield Routes.Response.json(level(c, "compatibility"));
            }
            case "DELETE" ->
                    Routes.Response.json(
                            level(registry.deleteConfig(subject), "compatibilityLevel"));
            default -> Routes.notAllowed();
        };
    }

    Routes.Response mode(Request r) {
        if (r.size() > 2) {
            return Routes.notFound();
        }
        String subject = r.size() == 2 ? r.segment(1) : null;
        return switch (r.method()) {
            case "GET" -> {
                RegistryMode m;
                if (subject == null || r.flag("defaultToGlobal")) {
                    m = registry.effectiveMode(subject);
                } else {
                    m =
                            registry.mode(subject)
                                    .orElseThrow(
                                            () ->
                                                    new SchemaRegistryException(
                                                            ErrorCodes.SUBJECT_MODE_NOT_CONFIGURED,
                                                            "Subject '"
                                                                    + subject
                                                                    + "' does not have subject-level"
                                                                    + " mode configured"));
                }
                yield Routes.Response.json(mode(m));
            }
            case "PUT" -> {
                JsonNode mode = Json.read(r.body()).get("mode");
                yield Routes.Response.json(
                        mode(
                                registry.putMode(
                                        subject,
                                        mode == null || !mode.isString()
                                                ? null
                                                : mode.asString())));
            }
            case "DELETE" -> Routes.Response.json(mode(registry.deleteMode(subject)));
            default -> Routes.notAllowed();
        };
    }

    private static ObjectNode level(SubjectConfig c, String field) {
        ObjectNode out = Json.object();
        out.put(field, c.compatibility().name());
        c.normalize().ifPresent(n -> out.put("normalize", n));
        return out;
    }

    private static ObjectNode mode(RegistryMode m) {
        ObjectNode out = Json.object();
        out.put("mode", m.name());
        return out;
    }
}

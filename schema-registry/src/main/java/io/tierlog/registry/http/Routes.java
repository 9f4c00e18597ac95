package io.tierlog.registry.http;

import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.ErrorCodes;
import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaRegistryException;
import io.tierlog.registry.SubjectSchema;
import io.tierlog.registry.SubjectVersion;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The paths of Confluent's Schema Registry REST API that clients (serializers, deserializers, admin
 * tools) use, mapped onto {@link CatalogSchemaRegistry}: {@code /schemas}, {@code /subjects},
 * {@code /compatibility} (see {@link SettingsRoutes} for {@code /config} and {@code /mode}). A
 * route answers a {@link Response} or throws a {@link SchemaRegistryException} that the server
 * turns into Confluent's error body. Stateless besides the registry, so thread-safe.
 */
final class Routes {
    private final CatalogSchemaRegistry registry;
    private final SettingsRoutes settings;

    Routes(CatalogSchemaRegistry registry) {
        this.registry = registry;
        this.settings = new SettingsRoutes(registry);
    }

    /** A response: status, body and its content type. */
    record Response(int status, String body) {
        static Response json(JsonNode n) {
            return new Response(200, Json.write(n));
        }

        static Response raw(String text) {
            return new Response(200, text);
        }
    }

    Response handle(Request r) {
        if (r.size() == 0) {
            return only(r, "GET", () -> Response.json(Json.object()));
        }
        return switch (r.segment(0)) {
            case "schemas" -> schemas(r);
            case "subjects" -> subjects(r);
            case "compatibility" -> compatibility(r);
            case "config" -> settings.config(r);
            case "mode" -> settings.mode(r);
            case "contexts" ->
                    r.size() == 1
                            ? only(r, "GET", () -> Response.json(Json.array().add(".")))
                            : notFound();
            default -> notFound();
        };
    }

    // ------------------------------------------------------------ /schemas

    private Response schemas(Request r) {
        if (r.size() == 1) {
            return only(r, "GET", () -> allSchemas(r));
        }
        if (r.size() == 2 && r.segment(1).equals("types")) {
            return only(
                    r,
                    "GET",
                    () -> {
                        ArrayNode a = Json.array();
                        registry.schemaTypes().forEach(t -> a.add(t.name()));
                        return Response.json(a);
                    });
        }
        if (r.size() < 3 || r.size() > 4 || !r.segment(1).equals("ids")) {
            return notFound();
        }
        int id = schemaId(r.segment(2));
        if (r.size() == 3) {
            return only(
                    r,
                    "GET",
                    () -> {
                        RegisteredSchema s = registry.schemaById(id);
                        ObjectNode out =
                                Json.schema(
                                        Json.object(), s, registry.parsed(id), r.param("format"));
                        if (r.flag("fetchMaxId")) {
                            out.put("maxId", registry.maxSchemaId());
                        }
                        return Response.json(out);
                    });
        }
        return switch (r.segment(3)) {
            case "schema" -> only(r, "GET", () -> Response.raw(registry.schemaById(id).text()));
            case "subjects" ->
                    only(
                            r,
                            "GET",
                            () -> {
                                ArrayNode a = Json.array();
                                registry.versionsOfSchema(id, r.flag("deleted")).stream()
                                        .map(SubjectVersion::subject)
                                        .distinct()
                                        .forEach(a::add);
                                return Response.json(a);
                            });
            case "versions" ->
                    only(
                            r,
                            "GET",
                            () -> {
                                ArrayNode a = Json.array();
                                for (SubjectVersion v :
                                        registry.versionsOfSchema(id, r.flag("deleted"))) {
                                    a.addObject()
                                            .put("subject", v.subject())
                                            .put("version", v.version());
                                }
                                return Response.json(a);
                            });
            default -> notFound();
        };
    }

    private Response allSchemas(Request r) {
        ArrayNode out = Json.array();
        boolean deleted = r.flag("deleted");
        for (String subject : registry.subjects(r.param("subjectPrefix"), deleted)) {
            List<SubjectVersion> vs = registry.versions(subject, deleted);
            if (r.flag("latestOnly") && !vs.isEmpty()) {
                vs = List.of(vs.get(vs.size() - 1));
            }
            for (SubjectVersion v : vs) {
                SubjectSchema s = new SubjectSchema(v, registry.schema(v.schemaId()).orElseThrow());
                out.add(Json.subjectSchema(s, Optional.empty(), null));
            }
        }
        return Response.json(out);
    }

    // ------------------------------------------------------------ /subjects

    private Response subjects(Request r) {
        if (r.size() == 1) {
            return only(
                    r,
                    "GET",
                    () -> {
                        ArrayNode a = Json.array();
                        registry.subjects(r.param("subjectPrefix"), r.flag("deleted"))
                                .forEach(a::add);
                        return Response.json(a);
                    });
        }
        String subject = r.segment(1);
        if (r.size() == 2) {
            return switch (r.method()) {
                case "POST" -> lookup(r, subject);
                case "DELETE" ->
                        Response.json(
                                intArray(registry.deleteSubject(subject, r.flag("permanent"))));
                default -> notAllowed();
            };
        }
        if (!r.segment(2).equals("versions")) {
            return notFound();
        }
        if (r.size() == 3) {
            return switch (r.method()) {
                case "GET" ->
                        Response.json(
                                intArray(registry.versionNumbers(subject, r.flag("deleted"))));
                case "POST" -> register(r, subject);
                default -> notAllowed();
            };
        }
        String version = r.segment(3);
        if (r.size() == 4) {
            return switch (r.method()) {
                case "GET" -> {
                    SubjectSchema s = registry.version(subject, version, r.flag("deleted"));
                    yield Response.json(
                            Json.subjectSchema(s, registry.parsed(s.id()), r.param("format")));
                }
                case "DELETE" ->
                        Response.json(
                                Json.MAPPER
                                        .getNodeFactory()
                                        .numberNode(
                                                registry.deleteVersion(
                                                        subject, version, r.flag("permanent"))));
                default -> notAllowed();
            };
        }
        if (r.size() == 5 && r.segment(4).equals("schema")) {
            return only(
                    r,
                    "GET",
                    () ->
                            Response.raw(
                                    registry.version(subject, version, r.flag("deleted"))
                                            .schema()
                                            .text()));
        }
        if (r.size() == 5 && r.segment(4).equals("referencedby")) {
            return only(
                    r,
                    "GET",
                    () -> Response.json(intArray(registry.referencedBy(subject, version))));
        }
        return notFound();
    }

    private Response register(Request r, String subject) {
        Json.SchemaBody b = Json.schemaBody(r.body());
        if (b.id() > 0) {
            throw new SchemaRegistryException(
                    ErrorCodes.OPERATION_NOT_PERMITTED,
                    "Registering a schema under a given id needs IMPORT mode, which this registry"
                            + " does not offer");
        }
        SubjectSchema s =
                registry.register(
                        subject, b.type(), b.schema(), b.references(), r.flag("normalize"));
        ObjectNode out = Json.object();
        out.put("id", s.id());
        return Response.json(out);
    }

    private Response lookup(Request r, String subject) {
        Json.SchemaBody b = Json.schemaBody(r.body());
        SubjectSchema s =
                registry.lookup(
                        subject,
                        b.type(),
                        b.schema(),
                        b.references(),
                        r.flag("normalize"),
                        r.flag("deleted"));
        return Response.json(Json.subjectSchema(s, Optional.empty(), null));
    }

    // ------------------------------------------------------------ /compatibility

    private Response compatibility(Request r) {
        if (r.size() < 4
                || r.size() > 5
                || !r.segment(1).equals("subjects")
                || !r.segment(3).equals("versions")) {
            return notFound();
        }
        return only(
                r,
                "POST",
                () -> {
                    Json.SchemaBody b = Json.schemaBody(r.body());
                    String version = r.size() == 5 ? r.segment(4) : null;
                    List<String> problems =
                            registry.testCompatibility(
                                    r.segment(2),
                                    version,
                                    b.type(),
                                    b.schema(),
                                    b.references(),
                                    r.flag("normalize"));
                    ObjectNode out = Json.object();
                    out.put("is_compatible", problems.isEmpty());
                    if (r.flag("verbose")) {
                        ArrayNode m = out.putArray("messages");
                        problems.forEach(m::add);
                    }
                    return Response.json(out);
                });
    }

    // ------------------------------------------------------------ helpers

    /** A route with one method: others get 405. */
    static Response only(Request r, String method, java.util.function.Supplier<Response> route) {
        return r.method().equals(method) ? route.get() : notAllowed();
    }

    static Response notFound() {
        throw new SchemaRegistryException(404, "HTTP 404 Not Found");
    }

    static Response notAllowed() {
        throw new SchemaRegistryException(405, "HTTP 405 Method Not Allowed");
    }

    private static ArrayNode intArray(List<Integer> xs) {
        ArrayNode a = Json.array();
        xs.forEach(a::add);
        return a;
    }

    private static int schemaId(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new SchemaRegistryException(
                    ErrorCodes.SCHEMA_NOT_FOUND, "Schema " + s + " not found");
        }
    }
}

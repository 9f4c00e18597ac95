package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaRegistry;
import io.tierlog.registry.SubjectVersion;
import io.tierlog.registry.WireFormat;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link ValueTyper} of one subject for one object: the struct is the merge of the subject's
 * versions when the typer is made (fixed for the object); each payload is decoded with the writer
 * schema its header names, into that version's row, then moved into the struct by field id. A
 * schema registered under the subject after the typer was made is still decoded (its fields that
 * the struct lacks are dropped, so such rows are not rebuildable). Failures never throw: they come
 * back with a reason ({@code no-header}, {@code unknown-id}, {@code not-in-subject}, {@code
 * decode}) and a message. Registry lookups may block (offload threads only). Not thread-safe: one
 * per object written.
 */
final class SubjectTyper implements ValueTyper {
    private final SchemaRegistry registry;
    private final String subject;
    private final int fieldIdBase;
    private final boolean verifyRebuild;
    private final TypedType.Struct struct;
    private final AvroRebuilder rebuilder;
    private final Map<Integer, Plan> plans = new HashMap<>();
    private final RebuildCheck check = new RebuildCheck();

    /** How payloads of one schema id are typed, or why they are not. */
    private record Plan(
            VersionView view,
            Projector toStruct,
            AvroRebuilder.Plan rebuild,
            String reason,
            String error) {}

    private SubjectTyper(
            SchemaRegistry registry,
            String subject,
            int fieldIdBase,
            boolean verifyRebuild,
            TypedType.Struct struct) {
        this.registry = registry;
        this.subject = subject;
        this.fieldIdBase = fieldIdBase;
        this.verifyRebuild = verifyRebuild;
        this.struct = struct;
        this.rebuilder = new AvroRebuilder(registry);
    }

    static Optional<ValueTyper> create(
            SchemaRegistry registry, String subject, int fieldIdBase, boolean verifyRebuild) {
        List<TypedMapping.Version> versions = new ArrayList<>();
        for (SubjectVersion v : registry.versions(subject, true)) {
            registry.parsed(v.schemaId())
                    .ifPresent(p -> versions.add(new TypedMapping.Version(p, v.fieldIds())));
        }
        return TypedMapping.struct(versions, fieldIdBase)
                .map(s -> new SubjectTyper(registry, subject, fieldIdBase, verifyRebuild, s));
    }

    @Override
    public TypedType.Struct struct() {
        return struct;
    }

    @Override
    public Typed type(ByteBuffer payload) {
        int id = WireFormat.schemaIdOrMinusOne(payload);
        if (id == -1 && !WireFormat.hasHeader(payload)) {
            return Typed.failed(
                    -1,
                    "no-header",
                    "no wire-format header (magic byte 0 and a 4-byte schema id), "
                            + payload.remaining()
                            + " bytes");
        }
        try {
            Plan plan = plans.get(id);
            if (plan == null) {
                plan = plan(id);
                plans.put(id, plan);
            }
            if (plan.reason() != null) {
                return Typed.failed(id, plan.reason(), plan.error());
            }
            WireFormat.Header header = WireFormat.parse(payload, plan.view().protobuf());
            ByteBuffer body = payload.duplicate();
            body.position(payload.position() + header.length());
            Object[] own = plan.view().decode(body, header.messageIndexes());
            Object[] row = (Object[]) plan.toStruct().apply(own);
            return Typed.decoded(id, row, plan.rebuild() != null && rebuilds(plan, row, payload));
        } catch (Exception | StackOverflowError e) {
            return Typed.failed(
                    id, "decode", "schema " + id + " does not decode the payload: " + describe(e));
        }
    }

    private boolean rebuilds(Plan plan, Object[] row, ByteBuffer payload) {
        return check.rebuildsTo(plan.rebuild(), row, payload);
    }

    private Plan plan(int id) {
        Optional<ParsedSchema> parsed = registry.parsed(id);
        if (parsed.isEmpty()) {
            return failure("unknown-id", "schema id " + id + " is not registered");
        }
        if (!registry.registeredUnder(subject, id)) {
            return failure(
                    "not-in-subject",
                    "schema id " + id + " is not a version of subject " + subject);
        }
        Map<String, Integer> fieldIds = null;
        for (SubjectVersion v : registry.versions(subject, true)) {
            if (v.schemaId() == id) {
                fieldIds = v.fieldIds(); // the latest version of this id wins
            }
        }
        if (fieldIds == null) {
            return failure(
                    "not-in-subject",
                    "schema id " + id + " is not a version of subject " + subject);
        }
        VersionView view = VersionView.of(parsed.get(), FieldIds.of(fieldIds, fieldIdBase));
        if (view == null) {
            return failure(
                    "decode", "schema " + id + " (" + parsed.get().type() + ") has no typed view");
        }
        AvroRebuilder.Plan rebuild = null;
        if (verifyRebuild && view instanceof VersionView.Avro) {
            try {
                rebuild = rebuilder.plan(id, struct);
            } catch (IllegalStateException e) {
                rebuild = null;
            }
        }
        return new Plan(view, Projector.compile(view.struct(), struct, false), rebuild, null, null);
    }

    private static Plan failure(String reason, String error) {
        return new Plan(null, null, null, reason, error);
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + m;
    }
}

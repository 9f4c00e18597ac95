package io.tierlog.registry.compat;

import io.tierlog.registry.format.AvroParsedSchema;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.SchemaCompatibility;

/**
 * Avro's own schema resolution, as Confluent's registry uses it: a reader schema is compatible with
 * a writer schema when Avro's {@code SchemaCompatibility} can resolve every writer datum into the
 * reader schema (fields missing from the writer need a default, unions and enums must cover the
 * writer's branches and symbols, names must match or be aliased, promotions such as int to long are
 * allowed). Stateless.
 */
final class AvroRules {
    private AvroRules() {}

    static List<Issue> check(AvroParsedSchema reader, AvroParsedSchema writer) {
        SchemaCompatibility.SchemaPairCompatibility result =
                SchemaCompatibility.checkReaderWriterCompatibility(reader.avro(), writer.avro());
        List<Issue> issues = new ArrayList<>();
        for (SchemaCompatibility.Incompatibility i : result.getResult().getIncompatibilities()) {
            issues.add(
                    new Issue(
                            i.getType().name(),
                            i.getLocation(),
                            describe(i)
                                    + " (reader: "
                                    + shorten(i.getReaderFragment().toString())
                                    + ", writer: "
                                    + shorten(i.getWriterFragment().toString())
                                    + ")"));
        }
        return issues;
    }

    private static String describe(SchemaCompatibility.Incompatibility i) {
        return switch (i.getType()) {
            case READER_FIELD_MISSING_DEFAULT_VALUE ->
                    "the reader's field '"
                            + i.getMessage()
                            + "' has no default value and is missing in the writer's schema";
            case MISSING_ENUM_SYMBOLS ->
                    "the reader's enum lacks the writer's symbols " + i.getMessage();
            case MISSING_UNION_BRANCH ->
                    "the reader's union lacks a branch for the writer's " + i.getMessage();
            default -> i.getMessage();
        };
    }

    /** Schema fragments can be whole records; a message needs only their start. */
    private static String shorten(String json) {
        return json.length() <= 240 ? json : json.substring(0, 240) + "...";
    }
}

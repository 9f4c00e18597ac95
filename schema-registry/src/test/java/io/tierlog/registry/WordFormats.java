package io.tierlog.registry;

import io.tierlog.registry.format.ReferenceResolver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A toy format for tests of the registry's own logic (numbering, field ids, deletes, races): a
 * schema is a list of words, each a field path; whitespace does not matter (the canonical form
 * joins the words with one space); the word {@code invalid} makes it unparseable. Compatibility:
 * BACKWARD-style levels refuse a candidate that drops a field of an existing version, FORWARD-style
 * ones a candidate that adds one. Stateless, so thread-safe.
 */
final class WordFormats implements Formats {
    record Words(SchemaType type, String text, List<String> words, List<SchemaReference> references)
            implements ParsedSchema {
        @Override
        public String canonical() {
            return String.join(" ", words);
        }
    }

    @Override
    public ParsedSchema parse(
            SchemaType type,
            String text,
            List<SchemaReference> references,
            ReferenceResolver resolver,
            boolean normalize) {
        List<String> words = Arrays.asList(text.trim().split("\\s+"));
        if (words.contains("invalid")) {
            throw new SchemaRegistryException(ErrorCodes.INVALID_SCHEMA, "the word 'invalid'");
        }
        for (SchemaReference r : references) {
            resolver.resolve(r);
        }
        return new Words(type, text, words, references);
    }

    @Override
    public List<String> check(
            ParsedSchema candidate, List<ParsedSchema> existing, CompatibilityLevel level) {
        List<String> out = new ArrayList<>();
        List<String> mine = ((Words) candidate).words();
        for (ParsedSchema e : existing) {
            List<String> theirs = ((Words) e).words();
            for (String w : theirs) {
                if (level.backward() && !mine.contains(w)) {
                    out.add("dropped field " + w);
                }
            }
            for (String w : mine) {
                if (level.forward() && !theirs.contains(w)) {
                    out.add("added field " + w);
                }
            }
        }
        return out;
    }

    @Override
    public List<String> fieldPaths(ParsedSchema schema) {
        return ((Words) schema).words();
    }
}

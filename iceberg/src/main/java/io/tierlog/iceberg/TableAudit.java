package io.tierlog.iceberg;

import java.util.List;
import java.util.Optional;

/**
 * A check of one topic's table against tierlog's catalog, for {@code tierlog verify}. Read only.
 *
 * @param topic the topic
 * @param table the table's full name
 * @param checked whether the table could be checked at all (false: see {@code unavailable})
 * @param unavailable why the table could not be read (catalog unreachable, metadata missing)
 * @param missing catalog objects the current snapshot lacks (registration behind: expected right
 *     after a commit; verify reports them as lag, or as loss when nothing will add them)
 * @param extra table data files that are not committed objects of the catalog
 * @param duplicates data file paths present more than once in the current snapshot
 * @param drift foreign (non-tierlog) snapshots found, described
 */
public record TableAudit(
        String topic,
        String table,
        boolean checked,
        Optional<String> unavailable,
        List<String> missing,
        List<String> extra,
        List<String> duplicates,
        Optional<String> drift) {
    public TableAudit {
        missing = List.copyOf(missing);
        extra = List.copyOf(extra);
        duplicates = List.copyOf(duplicates);
    }

    /** True when the table holds exactly the catalog's objects, each once, and no drift. */
    public boolean clean() {
        return checked
                && missing.isEmpty()
                && extra.isEmpty()
                && duplicates.isEmpty()
                && drift.isEmpty();
    }
}

package io.tierlog.itests.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The module rules of README's module table, as ArchUnit rules over package names (one package tree
 * per module, {@code io.tierlog.<module>..}). {@link ModuleRulesTest} checks them on every module's
 * main classes; {@link ModuleRulesBiteTest} shows each one reports a deliberate violation. The
 * rules are constants: stateless and thread-safe.
 */
final class ModuleRules {
    private ModuleRules() {}

    static final String COMMON = "io.tierlog.common..";
    static final String HOT = "io.tierlog.hot..";
    static final String CATALOG = "io.tierlog.catalog..";
    static final String COLD = "io.tierlog.cold..";
    static final String EMBEDDED_S3 = "io.tierlog.s3.embedded..";
    static final String COMPACTOR = "io.tierlog.compactor..";
    static final String ICEBERG = "io.tierlog.iceberg..";
    static final String ENGINE = "io.tierlog.engine..";
    static final String SERVER = "io.tierlog.server..";
    static final String CLI = "io.tierlog.server.cli..";
    static final String REGISTRY = "io.tierlog.registry..";

    /**
     * The schema registry's format internals: public for the module's own packages (compat and
     * typed read the formats' models), never used from another module.
     */
    static final String[] REGISTRY_INTERNALS = {
        "io.tierlog.registry.format..", "io.tierlog.registry.compat.."
    };

    static final String[] OURS = {
        COMMON, HOT, CATALOG, REGISTRY, COLD, EMBEDDED_S3, COMPACTOR, ICEBERG, ENGINE, SERVER
    };

    static final String[] BELOW_ENGINE = {HOT, CATALOG, COLD, COMPACTOR, ICEBERG, EMBEDDED_S3};

    static final String[] AWS_PARQUET_HADOOP = {
        "software.amazon..", "org.apache.parquet..", "shaded.parquet..", "org.apache.hadoop.."
    };
    static final String[] JDBC = {"java.sql..", "javax.sql..", "org.sqlite..", "org.postgresql.."};

    /** 1. The hot tier is local files only. */
    static final ArchRule HOT_TIER_HAS_NO_S3_PARQUET_OR_JDBC =
            noClasses()
                    .that()
                    .resideInAPackage(HOT)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(concat(AWS_PARQUET_HADOOP, JDBC))
                    .as("hot-tier imports no S3, Parquet, Hadoop or JDBC types")
                    .because(
                            "the hot tier is Kafka's segment format on local disk: it must open,"
                                    + " recover and serve a log with the object store and the"
                                    + " catalog down, and stay embeddable without them");

    /** 2. The AWS SDK and parquet-mr stay behind the cold tier's seams. */
    static final ArchRule ONLY_COLD_TIER_SEES_AWS_OR_PARQUET =
            noClasses()
                    .that()
                    .resideOutsideOfPackages(COLD, ICEBERG)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(AWS_PARQUET_HADOOP)
                    .as(
                            "no module but cold-tier (and iceberg) sees AWS SDK, Parquet or Hadoop types")
                    .because(
                            "ObjectStore and the Parquet layout are the cold tier's seams: an"
                                    + " object store or file format change stays in one module,"
                                    + " and the rest is tested against the seam (iceberg reads"
                                    + " the objects' footers for the tables' column metrics)");

    /** 2c. Iceberg's own types only in the iceberg module. */
    static final ArchRule ONLY_ICEBERG_SEES_ICEBERG =
            noClasses()
                    .that()
                    .resideOutsideOfPackage(ICEBERG)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("org.apache.iceberg..")
                    .as("no module but iceberg sees org.apache.iceberg types")
                    .because(
                            "the engine talks to the tables only through TopicTables: an Iceberg"
                                    + " upgrade or catalog change stays in one module, and the"
                                    + " compactor, cold tier and catalog never know tables exist");

    /** 2b. s3proxy (and jclouds under it) only in the embedded server's module. */
    static final ArchRule ONLY_EMBEDDED_S3_SEES_S3PROXY =
            noClasses()
                    .that()
                    .resideOutsideOfPackage(EMBEDDED_S3)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("org.gaul..", "org.jclouds..")
                    .as("no module but embedded-s3 sees s3proxy or jclouds types")
                    .because(
                            "the embedded S3 server is found through ServiceLoader"
                                    + " (EmbeddedObjectStore) so that an embedder with its own S3"
                                    + " endpoint does not carry s3proxy, Jetty and jclouds");

    /** Avro, Wire, protobuf-java, JSON Schema and Jackson: the registry's format libraries. */
    static final String[] SCHEMA_LIBRARIES = {
        "org.apache.avro..",
        "com.squareup.wire..",
        "com.google.protobuf..",
        "com.networknt..",
        "tools.jackson..",
        "com.fasterxml.jackson.."
    };

    /** 2c. Schema formats stay inside the schema registry. */
    static final ArchRule ONLY_REGISTRY_SEES_SCHEMA_LIBRARIES =
            noClasses()
                    .that()
                    .resideOutsideOfPackage(REGISTRY)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(SCHEMA_LIBRARIES)
                    .as("no module but schema-registry sees Avro, Wire, protobuf or Jackson types")
                    .because(
                            "records reach the rest of tierlog as bytes and typed rows"
                                    + " (ValueTyper, TypedType in common): a format library"
                                    + " upgrade or a new format stays in one module");

    /** 2d. Only the registry uses its format and compatibility packages. */
    static final ArchRule REGISTRY_INTERNALS_STAY_INSIDE =
            noClasses()
                    .that()
                    .resideOutsideOfPackage(REGISTRY)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(REGISTRY_INTERNALS)
                    .as("no module but schema-registry uses io.tierlog.registry.format or compat")
                    .because(
                            "those packages show Avro, Wire and Jackson types in their"
                                    + " signatures (for the registry's own packages); other"
                                    + " modules use SchemaRegistry, the typers and the REST"
                                    + " server");

    /** 3. Netty is the server's network layer, nobody else's. */
    static final ArchRule ONLY_SERVER_SEES_NETTY =
            noClasses()
                    .that()
                    .resideOutsideOfPackage(SERVER)
                    .should()
                    .dependOnClassesThat()
                    .resideInAPackage("io.netty..")
                    .as("no module but server sees Netty types")
                    .because(
                            "the engine is an embeddable library with no network: buffers cross"
                                    + " into the server as FileSlice and MemoryRecords, and"
                                    + " zero-copy stays the server's business");

    /** 4. The server goes through the engine: the one door for writes, reads and topics. */
    static final ArchRule SERVER_DEPENDS_ON_ENGINE_AND_COMMON_ONLY =
            noClasses()
                    .that()
                    .resideInAPackage(SERVER)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(BELOW_ENGINE)
                    .as("the server never imports hot-tier, catalog, cold-tier or compactor types")
                    .because(
                            "every append, read, offset query and topic change goes through the"
                                    + " engine (one door: metrics, retention and tiering see all of"
                                    + " them); the server depends on engine and common only");

    /** The coordinators' packages: state machines behind the handlers. */
    static final String[] COORDINATORS = {
        "io.tierlog.server.txn.coordinator..", "io.tierlog.server.group.coordinator.."
    };

    /** Kafka's request/response types and tierlog's network and dispatch layers. */
    static final String[] WIRE = {
        "org.apache.kafka.common.message..",
        "org.apache.kafka.common.requests..",
        "org.apache.kafka.common.protocol.types..",
        "io.netty..",
        "io.tierlog.server.net..",
        "io.tierlog.server.dispatch..",
        "io.tierlog.server.txn",
        "io.tierlog.server.group"
    };

    /** 4b. The transaction and group coordinators know no wire types. */
    static final ArchRule COORDINATORS_HAVE_NO_WIRE_TYPES =
            noClasses()
                    .that()
                    .resideInAnyPackage(COORDINATORS)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(WIRE)
                    .as(
                            "the transaction and group coordinators import no request, response,"
                                    + " Netty, dispatch or handler types")
                    .because(
                            "a coordinator is a state machine with a journal, tested on a manual"
                                    + " clock without a network; the handlers translate every API"
                                    + " version to its calls and results (Kafka's names and error"
                                    + " codes: Errors and TopicPartition are allowed), so a new"
                                    + " request version never touches the state machine");

    /** 4a. The CLI part of rule 4, which holds on its own already. */
    static final ArchRule CLI_DEPENDS_ON_ENGINE_AND_COMMON_ONLY =
            noClasses()
                    .that()
                    .resideInAPackage(CLI)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(BELOW_ENGINE)
                    .as("the CLI never imports hot-tier, catalog, cold-tier or compactor types")
                    .because(
                            "tierlog's commands use what an embedder uses (TieredLog,"
                                    + " OffloadDaemon, Tools, ReadOnlyTieredLog, CatalogRebuild):"
                                    + " the engine's API is proven by its own front end");

    /**
     * 5. Third-party types that may appear in public signatures of the library modules, and why.
     * Everything else outside {@code java..} and {@code io.tierlog..} may not.
     */
    static final List<String> ALLOWED_IN_PUBLIC_API =
            List.of(
                    // The log is Kafka's format: TopicPartition, Uuid (topic ids) and the record
                    // types (MemoryRecords, Records, RecordBatch, Compression) are the vocabulary
                    // of every append and read, and what the server hands to Kafka's codecs.
                    "org.apache.kafka.common.TopicPartition",
                    "org.apache.kafka.common.Uuid",
                    "org.apache.kafka.common.record..",
                    "org.apache.kafka.common.compress..",
                    "org.apache.kafka.common.header..",
                    // ColdReadException is a KafkaStorageException, so that the server answers a
                    // failed cold read with Kafka's KAFKA_STORAGE_ERROR (retriable) unmapped.
                    "org.apache.kafka.common.errors.KafkaStorageException",
                    // RecordValidationException (records refused by a topic's schema contract)
                    // is an InvalidRecordException, so the server answers Kafka's INVALID_RECORD
                    // and an embedder catches what a Kafka client would see.
                    "org.apache.kafka.common.InvalidRecordException",
                    // Metrics: the embedder passes or reads the registry the engine's meters live
                    // in; the meters themselves and the Prometheus registry's internals stay
                    // inside (metric names are MetricNames constants).
                    "io.micrometer.core.instrument.MeterRegistry",
                    // Logging facade passed to a few helpers (no implementation types).
                    "org.slf4j.Logger");

    /** The modules other modules (and embedders) build on; the server is the application. */
    static final String[] LIBRARY_MODULES = {
        COMMON, HOT, CATALOG, REGISTRY, COLD, EMBEDDED_S3, COMPACTOR, ICEBERG, ENGINE
    };

    static final ArchRule NO_THIRD_PARTY_TYPES_IN_PUBLIC_SIGNATURES =
            classes()
                    .that()
                    .resideInAnyPackage(LIBRARY_MODULES)
                    .and()
                    .resideOutsideOfPackages(REGISTRY_INTERNALS)
                    .and()
                    // An Iceberg FileIO by definition (Iceberg's types are its signature); public
                    // only for the iceberg module's REST catalog test fixture, used by no other
                    // module (ONLY_ICEBERG_SEES_ICEBERG keeps it so).
                    .doNotHaveFullyQualifiedName("io.tierlog.iceberg.ObjectStoreFileIO")
                    .and()
                    .arePublic()
                    .should(exposeOnlyJdkTierlogAndAllowedTypes())
                    .as(
                            "public signatures of the library modules show only JDK, tierlog and"
                                    + " allowed Kafka/Micrometer types")
                    .because(
                            "a third-party type in a public signature makes its library part of"
                                    + " our API: an embedder must link it and we cannot upgrade or"
                                    + " drop it; JDBC is the catalog's alone, so java.sql is"
                                    + " allowed only there");

    /** 6. Layering as README's module table documents it. */
    static final ArchRule MODULE_LAYERING =
            CompositeArchRule.of(
                            onlyOn(
                                    "common",
                                    COMMON,
                                    "the option machinery and clock every module needs;"
                                            + " it can need none of them"))
                    .and(onlyOn("catalog", CATALOG, "it is shared by servers", COMMON))
                    .and(onlyOn("hot-tier", HOT, "it must run without the cold side", COMMON))
                    .and(
                            onlyOn(
                                    "schema-registry",
                                    REGISTRY,
                                    "it is stored in the catalog and knows schemas, not logs",
                                    CATALOG,
                                    COMMON))
                    .and(onlyOn("cold-tier", COLD, "it knows objects, not logs", COMMON))
                    .and(
                            onlyOn(
                                    "embedded-s3",
                                    EMBEDDED_S3,
                                    "it is an optional run-time plug-in of common's SPI",
                                    COMMON))
                    .and(
                            onlyOn(
                                    "compactor",
                                    COMPACTOR,
                                    "it moves segments from the hot tier through the cold"
                                            + " tier into the catalog",
                                    HOT,
                                    CATALOG,
                                    REGISTRY,
                                    COLD,
                                    COMMON))
                    .and(
                            onlyOn(
                                    "iceberg",
                                    ICEBERG,
                                    "it registers the catalog's objects in tables and knows"
                                            + " nothing of logs or offload",
                                    CATALOG,
                                    COLD,
                                    COMMON))
                    .and(
                            onlyOn(
                                    "engine",
                                    ENGINE,
                                    "it is the facade over everything below it, and nothing"
                                            + " below may know it",
                                    HOT,
                                    CATALOG,
                                    REGISTRY,
                                    COLD,
                                    COMPACTOR,
                                    ICEBERG,
                                    COMMON))
                    .as(
                            "module layering: common < hot-tier, catalog, cold-tier < compactor < engine;"
                                    + " catalog < schema-registry < compactor; catalog, cold-tier"
                                    + " < iceberg < engine")
                    .because("README's module table; a cycle would make the modules one");

    /** Classes of {@code module} depend on none of our modules but itself and {@code allowed}. */
    private static ArchRule onlyOn(String name, String module, String why, String... allowed) {
        List<String> forbidden = new ArrayList<>();
        for (String m : OURS) {
            if (!m.equals(module) && !List.of(allowed).contains(m)) {
                forbidden.add(m);
            }
        }
        return noClasses()
                .that()
                .resideInAPackage(module)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(forbidden.toArray(String[]::new))
                .as(
                        name
                                + " depends on "
                                + (allowed.length == 0
                                        ? "none of our modules"
                                        : String.join(", ", allowed).replace("..", "") + " only"))
                .because(why)
                // ModuleRulesTest checks that every module's classes are imported; the fixtures of
                // ModuleRulesBiteTest have classes of some modules only.
                .allowEmptyShould(true);
    }

    private static ArchCondition<JavaClass> exposeOnlyJdkTierlogAndAllowedTypes() {
        return new ArchCondition<>("expose only JDK, tierlog and allowed third-party types") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                if (!isPublicApi(c)) {
                    return;
                }
                boolean jdbcAllowed = c.getPackageName().startsWith("io.tierlog.catalog");
                Set<JavaClass> supertypes = new LinkedHashSet<>();
                c.getSuperclass().ifPresent(t -> supertypes.addAll(t.getAllInvolvedRawTypes()));
                c.getInterfaces().forEach(t -> supertypes.addAll(t.getAllInvolvedRawTypes()));
                report(c.getName() + " extends/implements", supertypes, jdbcAllowed, c, events);
                for (JavaMember m : c.getMembers()) {
                    if (!isVisible(m)) {
                        continue;
                    }
                    report(m.getFullName(), signatureTypes(m), jdbcAllowed, m, events);
                }
            }
        };
    }

    private static void report(
            String where,
            Set<JavaClass> types,
            boolean jdbcAllowed,
            Object location,
            ConditionEvents events) {
        for (JavaClass t : types) {
            JavaClass base = t.isArray() ? t.getBaseComponentType() : t;
            if (!allowedInSignature(base, jdbcAllowed)) {
                events.add(
                        SimpleConditionEvent.violated(
                                location, where + " exposes " + base.getName()));
            }
        }
    }

    private static Set<JavaClass> signatureTypes(JavaMember m) {
        Set<JavaClass> types = new LinkedHashSet<>();
        if (m instanceof JavaField f) {
            types.addAll(f.getType().getAllInvolvedRawTypes());
        } else if (m instanceof JavaCodeUnit u) {
            types.addAll(u.getReturnType().getAllInvolvedRawTypes());
            for (JavaType p : u.getParameterTypes()) {
                types.addAll(p.getAllInvolvedRawTypes());
            }
            u.getThrowsClause().getTypes().forEach(types::add);
        }
        return types;
    }

    /** Public, and every enclosing class public: reachable from another module. */
    static boolean isPublicApi(JavaClass c) {
        if (c.isAnonymousClass() || c.isLocalClass()) {
            return false;
        }
        for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
            if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isVisible(JavaMember m) {
        Set<JavaModifier> mods = m.getModifiers();
        if (mods.contains(JavaModifier.SYNTHETIC) || mods.contains(JavaModifier.BRIDGE)) {
            return false;
        }
        boolean finalClass = m.getOwner().getModifiers().contains(JavaModifier.FINAL);
        return mods.contains(JavaModifier.PUBLIC)
                || (mods.contains(JavaModifier.PROTECTED) && !finalClass);
    }

    static boolean allowedInSignature(JavaClass t, boolean jdbcAllowed) {
        if (t.isPrimitive()) {
            return true;
        }
        String name = t.getName();
        String pkg = t.getPackageName();
        if (pkg.startsWith("java.sql") || pkg.startsWith("javax.sql")) {
            return jdbcAllowed;
        }
        if (pkg.equals("java") || pkg.startsWith("java.") || pkg.startsWith("io.tierlog.")) {
            return true;
        }
        for (String a : ALLOWED_IN_PUBLIC_API) {
            if (a.endsWith("..")
                    ? (pkg + ".").startsWith(a.substring(0, a.length() - 1))
                    : name.equals(a)) {
                return true;
            }
        }
        return false;
    }

    private static String[] concat(String[] a, String[] b) {
        String[] r = new String[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}

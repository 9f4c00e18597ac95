package io.tierlog.itests.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * Each module rule reports a deliberate violation: test-only classes in packages inside the rule's
 * scope ({@code io.tierlog.hot.archviolation}, {@code io.tierlog.engine.archviolation}, ...), each
 * breaking one rule. A rule that matched nothing (a package pattern gone wrong) would pass on every
 * tree; these tests fail then. Each assertion names the offending class and the type it must not
 * see, and that the other fixtures are not reported (the rule is not just noisy).
 */
class ModuleRulesBiteTest {
    static final JavaClasses FIXTURES =
            new ClassFileImporter()
                    .importPackages(
                            "io.tierlog.hot.archviolation",
                            "io.tierlog.catalog.archviolation",
                            "io.tierlog.compactor.archviolation",
                            "io.tierlog.engine.archviolation",
                            "io.tierlog.server.archviolation",
                            "io.tierlog.server.cli.archviolation",
                            "io.tierlog.server.txn.coordinator.archviolation");

    private static String violations(ArchRule rule) {
        EvaluationResult result = rule.evaluate(FIXTURES);
        assertThat(result.hasViolation()).as("%s reports the fixture", rule).isTrue();
        return String.join("\n", result.getFailureReport().getDetails());
    }

    @Test
    void theFixturesAreImported() {
        assertThat(FIXTURES.size()).isGreaterThanOrEqualTo(8);
    }

    @Test
    void hotTierUsingJdbcIsReported() {
        assertThat(violations(ModuleRules.HOT_TIER_HAS_NO_S3_PARQUET_OR_JDBC))
                .contains("HotTierOpensJdbc", "java.sql.Connection", "java.sql.DriverManager")
                .doesNotContain("Engine", "Catalog");
    }

    @Test
    void theEngineUsingTheAwsSdkIsReported() {
        assertThat(violations(ModuleRules.ONLY_COLD_TIER_SEES_AWS_OR_PARQUET))
                .contains("EngineCallsS3Directly", "software.amazon.awssdk.services.s3.S3Client")
                .doesNotContain("HotTierOpensJdbc", "S3Proxy");
    }

    @Test
    void s3proxyOutsideEmbeddedS3IsReported() {
        assertThat(violations(ModuleRules.ONLY_EMBEDDED_S3_SEES_S3PROXY))
                .contains("EngineStartsS3proxy", "org.gaul.s3proxy.S3Proxy")
                .doesNotContain("S3Client");
    }

    @Test
    void avroOutsideTheRegistryIsReported() {
        assertThat(violations(ModuleRules.ONLY_REGISTRY_SEES_SCHEMA_LIBRARIES))
                .contains("EngineParsesAvro", "org.apache.avro.Schema")
                .doesNotContain("S3Client", "EngineStartsS3proxy");
    }

    @Test
    void theRegistryFormatsUsedOutsideTheRegistryAreReported() {
        assertThat(violations(ModuleRules.REGISTRY_INTERNALS_STAY_INSIDE))
                .contains(
                        "EngineReadsRegistryFormats", "io.tierlog.registry.format.AvroParsedSchema")
                .doesNotContain("EngineParsesAvro", "S3Client");
    }

    @Test
    void nettyBelowTheServerIsReported() {
        assertThat(violations(ModuleRules.ONLY_SERVER_SEES_NETTY))
                .contains("EngineHoldsNettyBuffer", "io.netty.buffer.ByteBuf")
                .doesNotContain("S3Client", "HandlerAppendsToHotTier");
    }

    @Test
    void theServerUsingTheHotTierIsReported() {
        assertThat(violations(ModuleRules.SERVER_DEPENDS_ON_ENGINE_AND_COMMON_ONLY))
                .contains("HandlerAppendsToHotTier", "io.tierlog.hot.LogManager")
                .contains("CommandRunsTheCompactor", "io.tierlog.compactor.Compactor")
                .doesNotContain("EngineCallsS3Directly");
    }

    @Test
    void aCoordinatorHoldingARequestTypeIsReported() {
        assertThat(violations(ModuleRules.COORDINATORS_HAVE_NO_WIRE_TYPES))
                .contains(
                        "CoordinatorTakesEndTxnRequest",
                        "org.apache.kafka.common.message.EndTxnRequestData")
                .doesNotContain("HandlerAppendsToHotTier", "CommandRunsTheCompactor");
    }

    @Test
    void theCliUsingTheCompactorIsReported() {
        assertThat(violations(ModuleRules.CLI_DEPENDS_ON_ENGINE_AND_COMMON_ONLY))
                .contains("CommandRunsTheCompactor", "io.tierlog.compactor.Compactor")
                .doesNotContain("HandlerAppendsToHotTier");
    }

    @Test
    void aCaffeineCacheInAPublicSignatureIsReportedAndAllowedTypesAreNot() {
        assertThat(violations(ModuleRules.NO_THIRD_PARTY_TYPES_IN_PUBLIC_SIGNATURES))
                .contains(
                        "EngineLeaksCaffeine.cache() exposes"
                                + " com.github.benmanes.caffeine.cache.Cache")
                // TopicPartition, MemoryRecords, MeterRegistry, a private Caffeine member, and
                // package-private classes are fine.
                .doesNotContain("EngineUsesAllowedTypes", "EngineCallsS3Directly");
    }

    @Test
    void theCatalogDependingOnTheHotTierIsReported() {
        assertThat(violations(ModuleRules.MODULE_LAYERING))
                .contains("CatalogReadsTheHotTier", "io.tierlog.hot.TopicNames")
                .doesNotContain("HotTierOpensJdbc");
    }

    @Test
    void icebergTypesOutsideTheIcebergModuleAreReported() {
        assertThat(violations(ModuleRules.ONLY_ICEBERG_SEES_ICEBERG))
                .contains("EngineNamesAnIcebergTable", "org.apache.iceberg.catalog.TableIdentifier")
                .doesNotContain("CompactorSyncsTables");
    }

    @Test
    void theCompactorDependingOnTheTablesIsReported() {
        assertThat(violations(ModuleRules.MODULE_LAYERING))
                .contains("CompactorSyncsTables", "io.tierlog.iceberg.TopicTables")
                .doesNotContain("EngineNamesAnIcebergTable");
    }

    @Test
    void checkingARuleOnAViolationFailsWithTheRuleItsReasonAndTheOffendingLine() {
        assertThatThrownBy(() -> ModuleRules.HOT_TIER_HAS_NO_S3_PARQUET_OR_JDBC.check(FIXTURES))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(
                        "Architecture Violation [Priority: MEDIUM] - Rule 'hot-tier imports no S3,"
                                + " Parquet, Hadoop or JDBC types, because the hot tier is")
                .hasMessageContaining(
                        "Method <io.tierlog.hot.archviolation.HotTierOpensJdbc.open(java.lang.String)>"
                                + " calls method <java.sql.DriverManager.getConnection(java.lang.String)>");
    }
}

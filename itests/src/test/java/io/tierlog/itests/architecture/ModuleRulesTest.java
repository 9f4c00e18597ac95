package io.tierlog.itests.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The module rules ({@link ModuleRules}) on the main classes of every module, as this module's test
 * class path holds them (the itests depend on the server, and through it on every module, and on
 * embedded-s3). A failure names each offending class, member and type. Test classes and test-jars
 * are left out: tests may reach into any module. Stateless.
 */
class ModuleRulesTest {
    /** Every module's main classes; imported once (a few seconds), read-only afterwards. */
    static final JavaClasses MAIN = importMain();

    static JavaClasses importMain() {
        return new ClassFileImporter()
                .withImportOption(new ImportOption.DoNotIncludeTests())
                // A test-jar resolved from the reactor after `package` is a jar, not test-classes.
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.tierlog");
    }

    @Test
    void theImportHoldsTheMainClassesOfEveryModuleAndNoTestClass() {
        var names = MAIN.stream().map(JavaClass::getName).collect(Collectors.toSet());
        assertThat(names)
                .contains(
                        "io.tierlog.common.Config",
                        "io.tierlog.hot.LogManager",
                        "io.tierlog.catalog.Catalog",
                        "io.tierlog.registry.SchemaRegistry",
                        "io.tierlog.cold.S3ObjectStore",
                        "io.tierlog.s3.embedded.EmbeddedS3Server",
                        "io.tierlog.compactor.Compactor",
                        "io.tierlog.iceberg.TopicTables",
                        "io.tierlog.engine.TieredLog",
                        "io.tierlog.server.TierlogServer",
                        "io.tierlog.server.cli.TierlogCli")
                .doesNotContain(
                        "io.tierlog.compactor.testing.SegmentFiles",
                        "io.tierlog.cold.testing.FaultInjectingProxy",
                        ModuleRulesTest.class.getName());
    }

    @Test
    void hotTierImportsNoS3ParquetOrJdbc() {
        ModuleRules.HOT_TIER_HAS_NO_S3_PARQUET_OR_JDBC.check(MAIN);
    }

    @Test
    void onlyTheColdTierSeesAwsOrParquet() {
        ModuleRules.ONLY_COLD_TIER_SEES_AWS_OR_PARQUET.check(MAIN);
    }

    @Test
    void onlyTheRegistrySeesSchemaLibraries() {
        ModuleRules.ONLY_REGISTRY_SEES_SCHEMA_LIBRARIES.check(MAIN);
    }

    @Test
    void registryFormatInternalsStayInsideTheRegistry() {
        ModuleRules.REGISTRY_INTERNALS_STAY_INSIDE.check(MAIN);
    }

    @Test
    void onlyTheIcebergModuleSeesIcebergTypes() {
        ModuleRules.ONLY_ICEBERG_SEES_ICEBERG.check(MAIN);
    }

    @Test
    void onlyEmbeddedS3SeesS3proxy() {
        ModuleRules.ONLY_EMBEDDED_S3_SEES_S3PROXY.check(MAIN);
    }

    @Test
    void onlyTheServerSeesNetty() {
        ModuleRules.ONLY_SERVER_SEES_NETTY.check(MAIN);
    }

    @Test
    void theServerDependsOnTheEngineAndCommonOnly() {
        ModuleRules.SERVER_DEPENDS_ON_ENGINE_AND_COMMON_ONLY.check(MAIN);
    }

    @Test
    void theCoordinatorsHaveNoWireTypes() {
        ModuleRules.COORDINATORS_HAVE_NO_WIRE_TYPES.check(MAIN);
    }

    @Test
    void theCliDependsOnTheEngineAndCommonOnly() {
        ModuleRules.CLI_DEPENDS_ON_ENGINE_AND_COMMON_ONLY.check(MAIN);
    }

    @Test
    void noThirdPartyTypesInPublicSignaturesOfTheLibraryModules() {
        ModuleRules.NO_THIRD_PARTY_TYPES_IN_PUBLIC_SIGNATURES.check(MAIN);
    }

    @Test
    void theModulesAreLayeredAsDocumented() {
        ModuleRules.MODULE_LAYERING.check(MAIN);
    }
}

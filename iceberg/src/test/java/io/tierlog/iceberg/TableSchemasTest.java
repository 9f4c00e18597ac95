package io.tierlog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The table schema is the union of the objects' schemas by field id. */
class TableSchemasTest {
    private static Schema of(Types.NestedField... f) {
        return new Schema(f);
    }

    @Test
    void aNewColumnIsAddedOptionalWithItsIdAndAWiderTypeIsAPromotion() throws Exception {
        Schema table = of(Types.NestedField.required(1, "offset", Types.LongType.get()));
        Schema file =
                of(
                        Types.NestedField.required(1, "offset", Types.LongType.get()),
                        Types.NestedField.required(
                                24,
                                "value_record",
                                Types.StructType.of(
                                        Types.NestedField.required(
                                                1_000_001, "n", Types.IntegerType.get()))));
        Schema merged = TableSchemas.merge(table, TableSchemas.fromFileSchema(file));
        assertThat(merged.findField(24).isOptional()).isTrue();
        assertThat(merged.findField(1_000_001).isOptional()).isTrue();
        assertThat(merged.findField(1).isRequired()).isTrue();

        Schema wider =
                of(
                        Types.NestedField.optional(
                                24,
                                "value_record",
                                Types.StructType.of(
                                        Types.NestedField.optional(
                                                1_000_001, "n", Types.LongType.get()))));
        assertThat(TableSchemas.merge(merged, wider).findType(1_000_001))
                .isEqualTo(Types.LongType.get());
        assertThat(TableSchemas.merge(merged, file)).isSameAs(merged);
    }

    @Test
    void theSameIdWithAnIncompatibleTypeIsRefused() throws Exception {
        Schema table = of(Types.NestedField.required(1, "offset", Types.LongType.get()));
        Schema file = of(Types.NestedField.required(1, "offset", Types.StringType.get()));
        assertThatThrownBy(() -> TableSchemas.merge(table, file))
                .isInstanceOf(TableSchemas.IncompatibleSchemaException.class)
                .hasMessageContaining("offset");
    }
}

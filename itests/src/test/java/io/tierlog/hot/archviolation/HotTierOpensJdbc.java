package io.tierlog.hot.archviolation;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** Deliberate violation (ModuleRulesBiteTest): the hot tier talking to a database. */
final class HotTierOpensJdbc {
    private HotTierOpensJdbc() {}

    static Connection open(String url) throws SQLException {
        return DriverManager.getConnection(url);
    }
}

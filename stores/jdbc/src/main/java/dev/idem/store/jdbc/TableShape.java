package dev.idem.store.jdbc;

import dev.idem.IdempotencyStoreException;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The check a store makes of its table at start: every column the store's DDL makes is there, of a JDBC type that
 * column may have (SQLite, whose columns have no fixed types, is checked by names alone), so a table made otherwise
 * fails the start with the column named rather than a call later.
 */
final class TableShape {
    /** The columns and the JDBC types each may have. */
    private static final Map<String, Set<Integer>> COLUMNS = new LinkedHashMap<>();

    static {
        Set<Integer> binary = Set.of(Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB);
        Set<Integer> text = Set.of(Types.VARCHAR, Types.CHAR, Types.LONGVARCHAR, Types.NVARCHAR, Types.NCHAR,
                Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB);
        Set<Integer> integer = Set.of(Types.BIGINT, Types.INTEGER, Types.NUMERIC, Types.DECIMAL);
        COLUMNS.put("key_hash", binary);
        COLUMNS.put("idem_key", text);
        COLUMNS.put("state", text);
        COLUMNS.put("payload_hash", text);
        COLUMNS.put("owner", text);
        COLUMNS.put("fencing_token", integer);
        COLUMNS.put("started_at", integer);
        COLUMNS.put("lease_until", integer);
        COLUMNS.put("completed_at", integer);
        COLUMNS.put("expires_at", integer);
        COLUMNS.put("result", binary);
    }

    private TableShape() {
    }

    /**
     * Checks {@code table}'s columns on {@code c}.
     *
     * @throws IdempotencyStoreException naming the table and what is wrong: missing or unreadable (with where its DDL
     *                                   is), a column missing or of the wrong type
     */
    static void check(Connection c, String table, Dialect dialect) {
        List<String> present = new ArrayList<>();
        Map<String, Integer> types = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                String name = md.getColumnName(i).toLowerCase(Locale.ROOT);
                present.add(name);
                types.put(name, md.getColumnType(i));
            }
        } catch (SQLException e) {
            throw new IdempotencyStoreException("jdbc store: table " + table + " is missing or unreadable ("
                    + e.getMessage() + "); create it with the DDL in docs/jdbc-store.md (or the resource "
                    + ddlResource(dialect) + "), or set idem.jdbc.createTable=true", e);
        }
        for (Map.Entry<String, Set<Integer>> column : COLUMNS.entrySet()) {
            Integer type = types.get(column.getKey());
            if (type == null) {
                throw new IdempotencyStoreException("jdbc store: table " + table + " has no column "
                        + column.getKey() + " (it has " + present + "); it was not made by the jdbc store's DDL");
            }
            if (dialect != Dialect.SQLITE && !column.getValue().contains(type)) {
                throw new IdempotencyStoreException("jdbc store: column " + column.getKey() + " of table " + table
                        + " has the wrong type (JDBC type " + type + "); see the jdbc store's DDL");
            }
        }
    }

    /** {@return the class-path resource that holds {@code dialect}'s DDL} */
    static String ddlResource(Dialect dialect) {
        return "dev/idem/store/jdbc/" + dialect.name().toLowerCase(Locale.ROOT) + ".sql";
    }
}

package dev.idem.store.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The side-effect table of the cross-process suites: one row (key, result) per execution of the method. */
record SideTable(String url, String name) {

    static SideTable create(String url, String recordsTable) throws Exception {
        SideTable side = new SideTable(url, recordsTable + "_side");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + side.name + " (k VARCHAR(200) NOT NULL, result VARCHAR(200) NOT NULL)");
        }
        return side;
    }

    /** Every execution, in no order: {key, result}. */
    List<String[]> rows() throws Exception {
        List<String[]> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT k, result FROM " + name)) {
            while (rs.next()) {
                rows.add(new String[] {rs.getString(1), rs.getString(2)});
            }
        }
        return rows;
    }

    void drop() throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + name);
        }
    }
}

package dev.idem.reliability;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Everything a store holds, read back raw: every column of every row of a records table, or every key of a Redis
 * server with every field and value under it. Each piece is kept with where it was found, so a test can say where
 * a value it should not find is.
 */
final class StoredData {
    /** One stored piece: its bytes as the server gave them, and where it was. */
    record Piece(String where, byte[] bytes) {
        boolean contains(String text) {
            byte[] needle = text.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i + needle.length <= bytes.length; i++) {
                if (Arrays.equals(bytes, i, i + needle.length, needle, 0, needle.length)) {
                    return true;
                }
            }
            return false;
        }
    }

    private final List<Piece> pieces;
    private final int entries;

    private StoredData(List<Piece> pieces, int entries) {
        this.pieces = List.copyOf(pieces);
        this.entries = entries;
    }

    /** Every column of every row of {@code table}. */
    static StoredData ofTable(String url, String table) throws Exception {
        List<Piece> pieces = new ArrayList<>();
        int rows = 0;
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                rows++;
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    Object value = rs.getObject(i);
                    byte[] bytes = value instanceof byte[] b ? b
                            : String.valueOf(value).getBytes(StandardCharsets.UTF_8);
                    pieces.add(new Piece(table + " row " + rows + " column " + meta.getColumnName(i), bytes));
                }
            }
        }
        return new StoredData(pieces, rows);
    }

    /** Every key on the server at {@code uri}, with its value (a string) or its fields and values (a hash). */
    static StoredData ofRedis(String uri) {
        List<Piece> pieces = new ArrayList<>();
        int keys = 0;
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            RedisCommands<byte[], byte[]> redis = connection.sync();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<byte[]> page = redis.scan(cursor, ScanArgs.Builder.limit(500));
                for (byte[] key : page.getKeys()) {
                    keys++;
                    String name = new String(key, StandardCharsets.UTF_8);
                    pieces.add(new Piece("key name " + name, key));
                    String type = redis.type(key);
                    switch (type) {
                        case "string" -> pieces.add(new Piece("value of " + name, redis.get(key)));
                        case "hash" -> {
                            for (Map.Entry<byte[], byte[]> field : redis.hgetall(key).entrySet()) {
                                String f = new String(field.getKey(), StandardCharsets.UTF_8);
                                pieces.add(new Piece("field name " + f + " of " + name, field.getKey()));
                                pieces.add(new Piece("field " + f + " of " + name, field.getValue()));
                            }
                        }
                        case "none" -> {
                            // expired between SCAN and TYPE
                        }
                        default -> throw new AssertionError("key " + name + " is a " + type
                                + ", which this scan does not read: teach it, so nothing stored goes unread");
                    }
                }
                cursor = page;
            } while (!cursor.isFinished());
        } finally {
            client.shutdown();
        }
        return new StoredData(pieces, keys);
    }

    /** Rows of a table, or keys of a server. */
    int entries() {
        return entries;
    }

    int pieces() {
        return pieces.size();
    }

    /** Where {@code text} appears in clear (UTF-8), empty when nowhere. */
    List<String> whereContained(String text) {
        return pieces.stream().filter(p -> p.contains(text)).map(Piece::where).toList();
    }
}

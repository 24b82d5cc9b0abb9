package dev.idem.store.jdbc.readme;

import dev.idem.IdempotencyKey;
import dev.idem.Idempotent;
import dev.idem.StoreTransaction;
import dev.idem.store.jdbc.JdbcTransactions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** docs/jdbc-store.md's transactional-mode example, verbatim but for this comment: it compiles, and a test runs it. */
public class Payments {

    /** One transaction with its claim and completion: Idem's own, or the caller's when it has joined one. */
    @Idempotent(scope = "shop:capture", ttl = "24h", storeTransaction = StoreTransaction.REQUIRED)
    public String capture(@IdempotencyKey String paymentId, long cents) throws SQLException {
        Connection c = JdbcTransactions.connection(); // the transaction that holds this call's claim
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO captures (payment_id, cents) VALUES (?, ?)")) {
            ps.setString(1, paymentId);
            ps.setLong(2, cents);
            ps.executeUpdate();
        }
        return "captured " + paymentId;
    }

    /** The application's own transaction, joined: one commit for its writes, the claim and the completion. */
    @SuppressWarnings("try") // the scope works by being open: the body never needs to name it
    public void captureAndBook(DataSource dataSource, String paymentId, long cents) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (JdbcTransactions.Scope joined = JdbcTransactions.join(c)) {
                capture(paymentId, cents);
                String book = "INSERT INTO ledger (payment_id, cents) VALUES (?, ?)";
                try (PreparedStatement ps = c.prepareStatement(book)) {
                    ps.setString(1, paymentId);
                    ps.setLong(2, -cents);
                    ps.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback(); // the capture, its claim and its completion go too: a retry captures again
                throw e;
            }
        }
    }
}

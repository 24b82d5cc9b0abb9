package dev.idem.codec.jackson;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Result types as an application declares them: records and plain classes, no marker interface, no annotations. */
final class Model {
    private Model() {
    }

    record Topic(String name, List<String> tags) {
    }

    enum Status {
        OPEN,
        /** A constant with a body is a subclass of the enum, and its toString() is for people. */
        CLOSED {
            @Override
            public String toString() {
                return "Closed (final)";
            }
        }
    }

    record Address(String city, String postcode) {
    }

    record Customer(String name, Address address) {
    }

    record Order(long id, BigDecimal amount, Status status, Instant placedAt, Customer customer,
                 Optional<String> note, List<Line> lines) {
    }

    record Line(String sku, int quantity, BigDecimal price) {
    }

    record Schedule(LocalDate day, Map<String, List<Topic>> slots) {
    }

    /** A plain class: no-argument constructor, getters and setters. */
    static class Invoice {
        private String number;
        private BigDecimal total;
        private List<Line> lines;

        public String getNumber() {
            return number;
        }

        public void setNumber(String number) {
            this.number = number;
        }

        public BigDecimal getTotal() {
            return total;
        }

        public void setTotal(BigDecimal total) {
            this.total = total;
        }

        public List<Line> getLines() {
            return lines;
        }

        public void setLines(List<Line> lines) {
            this.lines = lines;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Invoice other && other.getClass() == getClass() && Objects.equals(number, other.number)
                    && Objects.equals(total, other.total) && Objects.equals(lines, other.lines);
        }

        @Override
        public int hashCode() {
            return Objects.hash(number, total, lines);
        }
    }

    /** A plain class with public fields. */
    static final class Point {
        public int x;
        public int y;

        Point() {
        }

        Point(int x, int y) {
            this.x = x;
            this.y = y;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Point p && p.x == x && p.y == y;
        }

        @Override
        public int hashCode() {
            return Objects.hash(x, y);
        }
    }

    /** A part declared Object: data, decoded to maps, lists, strings and numbers. */
    record Envelope(String kind, Object payload) {
    }
}

package dev.idem.samples.orders;

/**
 * An order as the API answers it; also the result Idem stores and replays (as JSON, through the json codec).
 *
 * @param id         the order's number, given by the database
 * @param item       what was ordered
 * @param quantity   how many
 * @param requestKey the {@code Idempotency-Key} of the request that created it
 */
public record Order(long id, String item, int quantity, String requestKey) {
}

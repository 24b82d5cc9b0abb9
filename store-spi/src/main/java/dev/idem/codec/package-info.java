/**
 * The result codec SPI: how a method's results become the bytes of a stored record and back. Implement
 * {@link dev.idem.codec.ResultCodecProvider} and list it in
 * {@code META-INF/services/dev.idem.codec.ResultCodecProvider}.
 */
package dev.idem.codec;

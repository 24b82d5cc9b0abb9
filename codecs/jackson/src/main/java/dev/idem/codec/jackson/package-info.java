/**
 * The {@code json} result codec: {@link dev.idem.codec.jackson.JsonResultCodecProvider}, Jackson 3, typed by the
 * method's declared result type. Everything else in the package is package-private.
 */
package dev.idem.codec.jackson;

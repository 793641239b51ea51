/**
 * The {@code lance} table engine: Lance datasets (local disk or S3) behind {@link
 * dev.lake.engine.TableEngine}, through the Lance Java (JNI) library. No Lance type leaves this
 * package; Arrow data crosses JNI through the Arrow C Data Interface.
 */
package dev.lake.engine.lance;

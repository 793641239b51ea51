package dev.lake.engine;

import java.util.Map;

/** The {@link java.util.ServiceLoader} entry point of an engine implementation. */
public interface TableEngineFactory {

  /** The name of the engines this factory makes, as in {@link TableEngine#name()}. */
  String name();

  /**
   * Makes an engine.
   *
   * @param properties engine settings from the server configuration (storage credentials,
   *     block sizes); unknown keys are ignored
   * @throws EngineException if a required setting is missing or invalid, naming it
   */
  TableEngine create(Map<String, String> properties);
}

/**
 * The small per-connector and global records Kafka Connect keeps beside configs and status:
 * active topics (KIP-558), restart requests (KIP-745) and logger levels (KIP-495, cluster
 * scope).
 */

/** A pending restart request (`POST /connectors/{c}/restart`). */
export interface RestartRequest {
  readonly onlyFailed: boolean;
  readonly includeTasks: boolean;
}

export interface PendingRestart extends RestartRequest {
  readonly connector: string;
  /** Increments with every request for the connector; completion names the one it handled. */
  readonly seq: number;
  /** Epoch millis (store clock). */
  readonly requestedAt: number;
}

/** A logger level set cluster-wide. */
export interface LoggerLevel {
  readonly logger: string;
  /** Level name as given (e.g. `DEBUG`); validated by the caller. */
  readonly level: string;
  /** Epoch millis (store clock). */
  readonly lastModified: number;
}

/**
 * Active topics of a connector (`GET /connectors/{c}/topics`).
 * Contract: recording is idempotent; listing is sorted; reset forgets all.
 */
export interface TopicStore {
  /** Records that the connector used `topic`; `true` when it was not recorded before. */
  recordActiveTopic(connector: string, topic: string): Promise<boolean>;
  listActiveTopics(connector: string): Promise<string[]>;
  resetActiveTopics(connector: string): Promise<void>;
}

/**
 * Restart requests, picked up by the enumerator.
 * Contract: a new request replaces a pending one (and gets a higher seq); completion removes the
 * request only if it is still the one handled, so a request made meanwhile is not lost.
 */
export interface RestartStore {
  requestRestart(connector: string, request: RestartRequest): Promise<PendingRestart>;
  getRestartRequest(connector: string): Promise<PendingRestart | undefined>;
  /** `true` when request `seq` was removed; `false` when a newer one (or none) is stored. */
  completeRestart(connector: string, seq: number): Promise<boolean>;
}

/**
 * Cluster-scope logger levels. Global: not stored under any connector, so deleting a connector
 * never touches them.
 */
export interface LoggerLevelStore {
  setLoggerLevel(logger: string, level: string): Promise<LoggerLevel>;
  getLoggerLevel(logger: string): Promise<LoggerLevel | undefined>;
  /** All levels, sorted by logger name. */
  listLoggerLevels(): Promise<LoggerLevel[]>;
}

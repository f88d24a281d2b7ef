// kafkajs 2.2.4 (pinned) exports no typings for its built-in SASL/SCRAM authenticators; these
// cover the two that auth.ts wraps so that credentials can be read from Secrets Manager lazily.

declare module 'kafkajs/src/broker/saslAuthenticator/scram256.js' {
  import type { AuthenticationProviderArgs, Authenticator } from 'kafkajs';

  /** SCRAM-SHA-256 over `saslAuthenticate`, with the credentials given. */
  const provider: (sasl: {
    mechanism: string;
    username: string;
    password: string;
  }) => (args: AuthenticationProviderArgs) => Authenticator;
  export default provider;
}

declare module 'kafkajs/src/broker/saslAuthenticator/scram512.js' {
  import type { AuthenticationProviderArgs, Authenticator } from 'kafkajs';

  /** SCRAM-SHA-512 over `saslAuthenticate`, with the credentials given. */
  const provider: (sasl: {
    mechanism: string;
    username: string;
    password: string;
  }) => (args: AuthenticationProviderArgs) => Authenticator;
  export default provider;
}

declare module 'kafkajs/src/consumer/filterAbortedMessages.js' {
  /**
   * The records of a fetch a read_committed consumer keeps: those of aborted transactions are
   * left out (control records are not; the caller drops them). Patched (patches/kafkajs+2.2.4.patch)
   * to sort the broker's aborted-transaction list as the Java consumer does.
   */
  const filterAbortedMessages: <M extends { offset: string }>(fetched: {
    messages: readonly M[];
    abortedTransactions?: readonly { producerId: string; firstOffset: string }[];
  }) => M[];
  export default filterAbortedMessages;
}

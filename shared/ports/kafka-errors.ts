import { ConnectError, type ConnectErrorOptions } from '../connect/errors.js';

/**
 * A commit or abort whose answer was lost (timeout, dropped connection): the transaction may or
 * may not have completed. The producer must be rebuilt (re-initialising it completes or aborts
 * the transaction on the broker) and the outcome settled by recovery; retrying the commit on the
 * old producer could land a delayed commit on a later transaction (KAFKA-17754).
 */
export class TransactionOutcomeUnknownError extends ConnectError {
  constructor(message: string, options: Omit<ConnectErrorOptions, 'retriable'> = {}) {
    super(message, { ...options, retriable: false });
  }
}

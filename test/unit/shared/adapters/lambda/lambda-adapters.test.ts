import type { LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import {
  LambdaReconcileTrigger,
  LambdaSourceTaskInvoker,
} from '../../../../../shared/adapters/lambda/invoke.js';
import {
  CONNECTOR_TAG,
  LambdaSinkMappings,
} from '../../../../../shared/adapters/lambda/sink-mappings.js';
import { RetriableError } from '../../../../../shared/connect/errors.js';
import type { SinkMappingSpec } from '../../../../../shared/ports/dispatch.js';

interface Sent {
  readonly command: string;
  readonly input: Record<string, unknown>;
}

/** A Lambda API double that records commands and answers from `answer`. */
function fakeLambda(answer: (sent: Sent) => unknown = () => ({})) {
  const sent: Sent[] = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const entry = { command: command.constructor.name, input: command.input };
      sent.push(entry);
      const result = answer(entry);
      if (result instanceof Error) throw result;
      return result;
    },
  } as unknown as LambdaClient;
  return { client, sent };
}

const named = (name: string) => Object.assign(new Error(name), { name });

const spec: SinkMappingSpec = {
  connector: 'to-s3',
  topic: 'orders',
  groupId: 'connect-to-s3-orders',
  startingPosition: 'TRIM_HORIZON',
  batchSize: 500,
  maxBatchingWindowSeconds: 1,
  enabled: true,
};

describe('LambdaSourceTaskInvoker and LambdaReconcileTrigger', () => {
  it('queue asynchronous invocations with the task or connector as JSON payload', async () => {
    const { client, sent } = fakeLambda();

    await new LambdaSourceTaskInvoker(client, 'source-fn').invoke({
      connector: 'c',
      task: 2,
      generation: 7,
    });
    await new LambdaReconcileTrigger(client, 'enum-fn').nudge('c');

    expect(sent.map((s) => [s.command, s.input.FunctionName, s.input.InvocationType])).toEqual([
      ['InvokeCommand', 'source-fn', 'Event'],
      ['InvokeCommand', 'enum-fn', 'Event'],
    ]);
    const payloads = sent.map((s) =>
      JSON.parse(new TextDecoder().decode(s.input.Payload as Uint8Array)),
    );
    expect(payloads).toEqual([{ connector: 'c', task: 2, generation: 7 }, { connector: 'c' }]);
  });

  it('turns throttling into a retriable error and keeps other failures plain', async () => {
    const throttled = fakeLambda(() => named('TooManyRequestsException')).client;
    const denied = fakeLambda(() => named('AccessDeniedException')).client;
    const invocation = { connector: 'c', task: 0, generation: 1 };

    await expect(
      new LambdaSourceTaskInvoker(throttled, 'f').invoke(invocation),
    ).rejects.toBeInstanceOf(RetriableError);
    const plain = new LambdaSourceTaskInvoker(denied, 'f').invoke(invocation);
    await expect(plain).rejects.toThrow('AccessDeniedException');
    await expect(plain).rejects.not.toBeInstanceOf(RetriableError);
  });
});

describe('LambdaSinkMappings', () => {
  it('creates a self-managed Kafka mapping through the connector alias, with the group, topic and connector tag', async () => {
    const { client, sent } = fakeLambda(({ command }) =>
      command === 'CreateAliasCommand' ? named('ResourceConflictException') : { UUID: 'u-1' },
    );
    const mappings = new LambdaSinkMappings(client, {
      functionName: 'sink-fn',
      aliasOf: (connector: string) => `c-${connector}`,
      cluster: { kind: 'self-managed', bootstrapServers: ['b1:9092', 'b2:9092'] },
    });

    const created = await mappings.create(spec);

    await mappings.create({ ...spec, topic: 'payments' });

    expect(created.id).toBe('u-1');
    expect(sent.map((s) => s.command)).toEqual([
      'CreateAliasCommand',
      'CreateEventSourceMappingCommand',
      'CreateEventSourceMappingCommand',
    ]);
    expect(sent[0]?.input).toMatchObject({
      FunctionName: 'sink-fn',
      Name: 'c-to-s3',
      FunctionVersion: '$LATEST',
    });
    expect(sent[1]?.input).toMatchObject({
      FunctionName: 'sink-fn:c-to-s3',
      Topics: ['orders'],
      StartingPosition: 'TRIM_HORIZON',
      Enabled: true,
      Tags: { [CONNECTOR_TAG]: 'to-s3' },
      SelfManagedEventSource: { Endpoints: { KAFKA_BOOTSTRAP_SERVERS: ['b1:9092', 'b2:9092'] } },
      SelfManagedKafkaEventSourceConfig: { ConsumerGroupId: 'connect-to-s3-orders' },
    });
  });

  it('lists only its own mappings, through the connector aliases and tags, with their enabled state', async () => {
    const listedFor: unknown[] = [];
    const { client } = fakeLambda(({ command, input }) => {
      if (command === 'ListAliasesCommand') {
        return { Aliases: [{ Name: 'c-one' }, { Name: 'live' }] };
      }
      if (command === 'ListEventSourceMappingsCommand') {
        listedFor.push(input.FunctionName);
        return {
          EventSourceMappings: [
            {
              UUID: 'a',
              Topics: ['orders'],
              State: 'Enabled',
              EventSourceMappingArn: 'arn:a',
              BatchSize: 10,
              MaximumBatchingWindowInSeconds: 2,
              AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'g-a' },
            },
            { UUID: 'b', Topics: ['orders'], State: 'Disabled', EventSourceMappingArn: 'arn:b' },
            { UUID: 'c', Topics: ['x'], State: 'Deleting', EventSourceMappingArn: 'arn:c' },
            { UUID: 'd', Topics: ['y'], State: 'Enabled', EventSourceMappingArn: 'arn:d' },
          ],
        };
      }
      const tags: Record<string, Record<string, string>> = {
        'arn:a': { [CONNECTOR_TAG]: 'one' },
        'arn:b': { [CONNECTOR_TAG]: 'two' },
        'arn:c': { [CONNECTOR_TAG]: 'one' },
        'arn:d': {},
      };
      return { Tags: tags[input.Resource as string] };
    });
    const mappings = new LambdaSinkMappings(client, {
      functionName: 'sink-fn',
      aliasOf: (connector: string) => `c-${connector}`,
      cluster: { kind: 'msk', clusterArn: 'arn:kafka' },
    });

    const all = await mappings.list();
    const one = await mappings.list('one');

    expect(listedFor).toEqual(['sink-fn:c-one', 'sink-fn:c-one']);
    expect(all.map((m) => [m.id, m.connector, m.enabled])).toEqual([
      ['a', 'one', true],
      ['b', 'two', false],
    ]);
    expect(one).toEqual([
      {
        id: 'a',
        connector: 'one',
        topic: 'orders',
        groupId: 'g-a',
        startingPosition: 'TRIM_HORIZON',
        batchSize: 10,
        maxBatchingWindowSeconds: 2,
        enabled: true,
      },
    ]);
  });

  it('treats a repeated delete and a mapping in transition as done for this run', async () => {
    const { client } = fakeLambda(({ command }) =>
      command === 'DeleteEventSourceMappingCommand'
        ? named('ResourceNotFoundException')
        : named('ResourceInUseException'),
    );
    const mappings = new LambdaSinkMappings(client, {
      functionName: 'sink-fn',
      aliasOf: (connector: string) => `c-${connector}`,
      cluster: { kind: 'msk', clusterArn: 'arn:kafka' },
    });
    const mapping = { ...spec, id: 'u-1' };

    await expect(mappings.delete(mapping)).resolves.toBeUndefined();
    await expect(mappings.update(mapping, { ...spec, enabled: false })).resolves.toEqual(mapping);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';
import type { ConfigStore } from '../../../../../shared/ports/config-store.js';
import { UnknownSinkAliasError } from '../../../../../shared/runtime/sink/errors.js';
import {
  aliasOfFunctionArn,
  ConnectorAliasResolver,
  sinkFunctionAlias,
} from '../../../../../shared/runtime/sink/function-alias.js';

/** Lambda's alias rule: `(?!^[0-9]+$)([a-zA-Z0-9-_]+)`, at most 128 characters. */
const validAlias = (alias: string) => /^[a-zA-Z0-9_-]{1,128}$/.test(alias) && !/^\d+$/.test(alias);

const ARN = 'arn:aws:lambda:eu-west-1:111122223333:function:sink-task';

describe('sinkFunctionAlias', () => {
  it('keeps a readable name: c-, the sanitised connector name, a hash', () => {
    expect(sinkFunctionAlias('orders.s3 sink')).toMatch(/^c-orders_s3_sink-[0-9a-f]{8}$/);
  });

  it('is a valid Lambda alias for any connector name, up to 128 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (name) => {
        const alias = sinkFunctionAlias(name);
        expect(validAlias(alias)).toBe(true);
        expect(alias.length).toBeLessThanOrEqual(128);
      }),
    );
    expect(sinkFunctionAlias('x'.repeat(500))).toHaveLength(128);
    expect(validAlias(sinkFunctionAlias('12345'))).toBe(true);
  });

  it('gives distinct aliases to names that differ only in sanitised characters or past the cut', () => {
    const names = ['a.b', 'a_b', 'a b', 'a/b', 'a:b', `${'n'.repeat(200)}1`, `${'n'.repeat(200)}2`];
    expect(new Set(names.map(sinkFunctionAlias)).size).toBe(names.length);
  });

  it('is stable: the same name always gives the same alias', () => {
    expect(sinkFunctionAlias('orders')).toBe(sinkFunctionAlias('orders'));
  });
});

describe('aliasOfFunctionArn', () => {
  it('reads the qualifier after the function name', () => {
    expect(aliasOfFunctionArn(`${ARN}:c-orders-12345678`)).toBe('c-orders-12345678');
  });

  it('finds no alias in unqualified, $LATEST or version ARNs', () => {
    expect(aliasOfFunctionArn(ARN)).toBeUndefined();
    expect(aliasOfFunctionArn(`${ARN}:$LATEST`)).toBeUndefined();
    expect(aliasOfFunctionArn(`${ARN}:42`)).toBeUndefined();
  });
});

describe('ConnectorAliasResolver', () => {
  async function storeWith(...names: string[]) {
    const store = createMemoryStateStore();
    for (const name of names) await store.configs.createConnector(name, { name });
    return store;
  }

  it('maps an alias back to its connector', async () => {
    const store = await storeWith('orders', 'a.b', 'a_b');
    const resolver = new ConnectorAliasResolver(store.configs);
    expect(await resolver.connectorOf(sinkFunctionAlias('a.b'))).toBe('a.b');
    expect(await resolver.connectorOfArn(`${ARN}:${sinkFunctionAlias('a_b')}`)).toBe('a_b');
  });

  it('lists connectors once per container and again only on a miss', async () => {
    const store = await storeWith('orders');
    let lists = 0;
    const configs: Pick<ConfigStore, 'listConnectors'> = {
      listConnectors: (options) => {
        lists += 1;
        return store.configs.listConnectors(options);
      },
    };
    const resolver = new ConnectorAliasResolver(configs);
    await resolver.connectorOf(sinkFunctionAlias('orders'));
    await resolver.connectorOf(sinkFunctionAlias('orders'));
    expect(lists).toBe(1);

    await store.configs.createConnector('payments', { name: 'payments' });
    expect(await resolver.connectorOf(sinkFunctionAlias('payments'))).toBe('payments');
    expect(lists).toBe(2);
  });

  it('pages through every connector', async () => {
    const names = Array.from({ length: 5 }, (_, i) => `c${i}`);
    const store = await storeWith(...names);
    const resolver = new ConnectorAliasResolver({
      listConnectors: (options) => store.configs.listConnectors({ ...options, limit: 2 }),
    });
    expect(await resolver.connectorOf(sinkFunctionAlias('c4'))).toBe('c4');
  });

  it('fails clearly for an unknown alias or an invocation without one', async () => {
    const resolver = new ConnectorAliasResolver((await storeWith('orders')).configs);
    await expect(resolver.connectorOf('c-gone-00000000')).rejects.toThrow(UnknownSinkAliasError);
    await expect(resolver.connectorOf('c-gone-00000000')).rejects.toThrow(
      /No connector uses the sink function alias c-gone-00000000/,
    );
    await expect(resolver.connectorOfArn(ARN)).rejects.toThrow(/without a connector alias/);
  });
});

import { describe, expect, it } from 'vitest';
import {
  type PeerConnector,
  unsupportedKeyErrors,
} from '../../../../../shared/plugins/connectors/peer-keys.js';

const peer: PeerConnector = {
  name: "Example's sink",
  unsupportedKeys: [
    { name: 'rotate.ms', accepted: ['-1'], instead: 'objects rotate by offset' },
    { name: 'sse.key', accepted: [''], instead: 'use bucket encryption', secret: true },
    { name: 'store.url', instead: 'use endpoint' },
  ],
};

describe('unsupportedKeyErrors', () => {
  it('names the key, the peer and what to use instead', () => {
    // Act
    const values = unsupportedKeyErrors(peer, { 'store.url': 'http://minio:9000' });

    // Assess
    expect(values).toEqual([
      {
        name: 'store.url',
        value: 'http://minio:9000',
        recommendedValues: [],
        errors: [
          "store.url (a configuration of Example's sink) is not supported by this connector: use endpoint",
        ],
        visible: true,
      },
    ]);
  });

  it('accepts the values that ask for nothing missing, trimmed and ignoring case', () => {
    // Act
    const values = unsupportedKeyErrors(peer, { 'rotate.ms': ' -1 ', 'sse.key': '' });

    // Assess
    expect(values).toEqual([]);
  });

  it('lists the accepted values in the message and hides secret values', () => {
    // Act
    const values = unsupportedKeyErrors(peer, { 'rotate.ms': '60000', 'sse.key': 'c2VjcmV0' });

    // Assess
    expect(values.map((v) => [v.name, v.value, v.errors])).toEqual([
      [
        'rotate.ms',
        '60000',
        [
          "rotate.ms (a configuration of Example's sink) is not supported by this connector (only -1): objects rotate by offset",
        ],
      ],
      [
        'sse.key',
        '[hidden]',
        [
          "sse.key (a configuration of Example's sink) is not supported by this connector (only an empty value): use bucket encryption",
        ],
      ],
    ]);
  });

  it('ignores keys the peer does not define', () => {
    // Act
    const values = unsupportedKeyErrors(peer, { 'my.own.key': 'x', topics: 'orders' });

    // Assess
    expect(values).toEqual([]);
  });
});

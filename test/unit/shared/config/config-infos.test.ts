import { describe, expect, it } from 'vitest';
import {
  configKeyInfos,
  mergeConfigInfos,
  toConfigInfos,
  toConfigValueInfo,
} from '../../../../shared/config/config-infos.js';
import { ConfigDef, type ConfigValue } from '../../../../shared/connect/config-def.js';

/**
 * Written by hand from Connect's validate response (docs reference §3 ConfigInfos): field
 * names, key order, string/null encodings, `definition: null` entries first.
 */
const GOLDEN = `{
  "name": "org.example.S3SinkConnector",
  "error_count": 2,
  "groups": ["Common"],
  "configs": [
    {
      "definition": null,
      "value": {
        "name": "foo", "value": null, "recommended_values": [],
        "errors": ["Null value can not be supplied as the configuration value."], "visible": true
      }
    },
    {
      "definition": {
        "name": "name", "type": "STRING", "required": true, "default_value": null,
        "importance": "HIGH", "documentation": "Globally unique name to use for this connector.",
        "group": "Common", "width": "MEDIUM", "display_name": "Connector name",
        "dependents": [], "order": 1
      },
      "value": { "name": "name", "value": "s3-sink", "recommended_values": [], "errors": [], "visible": true }
    },
    {
      "definition": {
        "name": "topics", "type": "LIST", "required": false, "default_value": "",
        "importance": "HIGH", "documentation": "List of topics to consume, separated by commas",
        "group": "Common", "width": "LONG", "display_name": "Topics", "dependents": [], "order": 4
      },
      "value": {
        "name": "topics", "value": "", "recommended_values": [],
        "errors": ["Must configure one of topics or topics.regex"], "visible": true
      }
    },
    {
      "definition": {
        "name": "api.key", "type": "PASSWORD", "required": false, "default_value": "[hidden]",
        "importance": "LOW", "documentation": "API key.", "group": null, "width": "NONE",
        "display_name": "api.key", "dependents": [], "order": -1
      },
      "value": { "name": "api.key", "value": "[hidden]", "recommended_values": [], "errors": [], "visible": true }
    },
    {
      "definition": {
        "name": "flush.ratio", "type": "DOUBLE", "required": false, "default_value": "1.0",
        "importance": "MEDIUM", "documentation": "Flush ratio.", "group": null, "width": "NONE",
        "display_name": "flush.ratio", "dependents": [], "order": -1
      },
      "value": null
    }
  ]
}`;

function sampleDef(): ConfigDef {
  return new ConfigDef()
    .define({
      name: 'name',
      type: 'STRING',
      importance: 'HIGH',
      documentation: 'Globally unique name to use for this connector.',
      group: 'Common',
      orderInGroup: 1,
      width: 'MEDIUM',
      displayName: 'Connector name',
    })
    .define({
      name: 'topics',
      type: 'LIST',
      defaultValue: '',
      importance: 'HIGH',
      documentation: 'List of topics to consume, separated by commas',
      group: 'Common',
      orderInGroup: 4,
      width: 'LONG',
      displayName: 'Topics',
    })
    .define({
      name: 'api.key',
      type: 'PASSWORD',
      defaultValue: 'changeme',
      importance: 'LOW',
      documentation: 'API key.',
    })
    .define({
      name: 'flush.ratio',
      type: 'DOUBLE',
      defaultValue: 1,
      importance: 'MEDIUM',
      documentation: 'Flush ratio.',
    });
}

describe('toConfigInfos', () => {
  it('produces exactly Connect validate JSON, key order included', () => {
    // Prepare
    const def = sampleDef();
    const values = def
      .validate({ name: 's3-sink', 'api.key': 'sk-live-123' })
      .filter((v) => v.name !== 'flush.ratio');
    const topics = values.find((v) => v.name === 'topics');
    topics?.errors.push('Must configure one of topics or topics.regex');
    const nullValue: ConfigValue = {
      name: 'foo',
      value: null,
      recommendedValues: [],
      errors: ['Null value can not be supplied as the configuration value.'],
      visible: true,
    };

    // Act
    const infos = toConfigInfos('org.example.S3SinkConnector', def, [...values, nullValue]);

    // Assess
    expect(JSON.stringify(infos)).toBe(JSON.stringify(JSON.parse(GOLDEN)));
    expect(JSON.stringify(infos)).not.toContain('sk-live-123');
    expect(JSON.stringify(infos)).not.toContain('changeme');
  });

  it('counts every error message, using the last value when names repeat', () => {
    // Prepare
    const def = sampleDef();
    const first: ConfigValue = {
      name: 'name',
      value: 'a',
      recommendedValues: [],
      errors: ['x', 'y'],
      visible: true,
    };
    const last: ConfigValue = {
      name: 'name',
      value: 'b',
      recommendedValues: [],
      errors: ['z'],
      visible: true,
    };

    // Act
    const infos = toConfigInfos('C', def, [first, last]);

    // Assess
    expect(infos.error_count).toBe(1);
    expect(infos.configs[0]?.value).toMatchObject({ value: 'b', errors: ['z'] });
  });
});

describe('toConfigValueInfo', () => {
  it('renders recommended values of LIST keys as strings and hides passwords', () => {
    const list = toConfigValueInfo(
      { name: 'l', value: ['a', 'b'], recommendedValues: ['x', 'y'], errors: [], visible: false },
      'LIST',
    );
    expect(list).toEqual({
      name: 'l',
      value: 'a,b',
      recommended_values: ['x', 'y'],
      errors: [],
      visible: false,
    });
    const secret = toConfigValueInfo(
      {
        name: 'p',
        value: 'raw-secret',
        recommendedValues: ['other-secret'],
        errors: [],
        visible: true,
      },
      'PASSWORD',
    );
    expect(JSON.stringify(secret)).not.toMatch(/raw-secret|other-secret/);
  });
});

describe('configKeyInfos', () => {
  it('lists definitions in order with Connect field names', () => {
    const infos = configKeyInfos(sampleDef());
    expect(infos.map((i) => i.name)).toEqual(['name', 'topics', 'api.key', 'flush.ratio']);
    expect(Object.keys(infos[0] ?? {})).toEqual([
      'name',
      'type',
      'required',
      'default_value',
      'importance',
      'documentation',
      'group',
      'width',
      'display_name',
      'dependents',
      'order',
    ]);
  });
});

describe('mergeConfigInfos', () => {
  it('concatenates configs, sums errors and unions groups', () => {
    const a = { name: 'a', error_count: 1, groups: ['G1'], configs: [] };
    const b = { name: 'b', error_count: 2, groups: ['G1', 'G2'], configs: [] };
    expect(mergeConfigInfos('C', a, b)).toEqual({
      name: 'C',
      error_count: 3,
      groups: ['G1', 'G2'],
      configs: [],
    });
  });
});
